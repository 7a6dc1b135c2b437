"""Model output -> tool calls: the JSON agents emit, OpenAI ``tool_calls``, or one per line.

Accepted shapes (the first that fits wins):

* a JSON list of calls ``{"name": ..., "arguments": {...}}`` (``arguments`` may also be a
  JSON string, as the OpenAI API sends it);
* OpenAI's ``tool_calls`` entries ``{"type": "function", "function": {"name", "arguments"}}``,
  alone, in a list, or inside an assistant message ``{"role": "assistant", "tool_calls": [...]}``
  (a list of messages is read in order);
* text with one call per line, ``search(origin="Paris", date=$1.date)`` (grammar
  ``grammars/toolcall.lark``); numbering (``1.``, ``2)``) and bullets are skipped.

A refusal is an assistant message with a non-empty ``refusal`` (OpenAI's field), an object
``{"refuse": true}``, or text whose first word is ``REFUSE`` or ``UNSOLVABLE``.

Bad output is not an exception: :func:`parse_output` returns a :class:`ModelOutput` with
``error`` set (what and where: JSON line:column, or the line of the bad call).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from lark import Transformer, UnexpectedInput
from lark.exceptions import VisitError

from planning_core.grammar_files import lazy_parser
from planning_core import safe_json

__all__ = ["Call", "ModelOutput", "parse_output"]

_parser = lazy_parser("toolcall.lark", parser="lalr")
_REFUSAL = re.compile(r"^\s*(refuse|unsolvable)\b", re.IGNORECASE)
_NUMBERING = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•])\s*")


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call as the model wrote it; ``line`` is the line of text (1-based) when the
    output was text with one call per line, else None."""

    name: str
    arguments: dict = field(compare=False)
    line: int | None = None

    def text(self) -> str:
        args = ", ".join(f"{k}={json.dumps(v)}" for k, v in self.arguments.items())
        return f"{self.name}({args})"


@dataclass(frozen=True, slots=True)
class ModelOutput:
    calls: tuple[Call, ...] = ()
    refusal: str | None = None
    error: str | None = None

    @property
    def refused(self) -> bool:
        return self.refusal is not None


class _ToValues(Transformer):
    def call(self, children):
        name, *args = children
        return str(name), [a for a in args if a is not None]

    def arg(self, children):
        return str(children[0]), children[1]

    def pair(self, children):
        return safe_json.loads(children[0]), children[1]

    def string(self, c):
        return safe_json.loads(c[0])

    def single(self, c):
        return str(c[0])[1:-1]

    def number(self, c):
        text = str(c[0])
        if not re.fullmatch(r"-?\d+", text):
            return float(text)
        if len(text.lstrip("-")) > safe_json.MAX_INT_DIGITS:
            raise ValueError(f"an integer of {len(text.lstrip('-'))} digits (at most "
                             f"{safe_json.MAX_INT_DIGITS})")
        return int(text)

    def true(self, _):
        return True

    def false(self, _):
        return False

    def null(self, _):
        return None

    def array(self, c):
        return [v for v in c if v is not None] if c != [None] else []

    def object(self, c):
        return dict(p for p in c if p is not None)

    def bare(self, c):
        return str(c[0]).strip()


def parse_output(text: str | object) -> ModelOutput:
    """Calls or a refusal from a model's output (text, or already-parsed JSON)."""
    if not isinstance(text, str):
        return _from_json(text)
    if not text.strip():
        return ModelOutput(error="the output is empty")
    stripped = _strip_fence(text)
    if stripped[:1] in "[{":
        try:
            data = safe_json.loads(stripped)
        except json.JSONDecodeError as err:
            return ModelOutput(error=f"line {err.lineno}, column {err.colno}: not JSON: {err.msg}")
        return _from_json(data)
    if _REFUSAL.match(stripped):
        return ModelOutput(refusal=stripped.strip())
    return _from_lines(stripped)


def _strip_fence(text: str) -> str:
    """The body of a single ```json ... ``` block, or the text itself."""
    m = re.search(r"```[A-Za-z]*\n(.*?)```", text, re.DOTALL)
    return m.group(1).strip() if m else text.strip()


def _from_lines(text: str) -> ModelOutput:
    calls = []
    for no, raw in enumerate(text.splitlines(), start=1):
        line = _NUMBERING.sub("", raw, count=1).strip()
        if not line:
            continue
        try:
            tree = _parser().parse(line)
            name, args = _ToValues().transform(tree)
        except UnexpectedInput as err:
            col = raw.find(line) + (err.column if isinstance(err.column, int) and err.column > 0 else 1)
            return ModelOutput(calls=tuple(calls),
                               error=f"line {no}, column {col}: not a tool call "
                                     f"'name(arg=value, ...)': {line[:60]!r}")
        except (VisitError, RecursionError) as err:    # a 5,000-digit number, deep nesting
            why = getattr(err, "orig_exc", None) or "nested too deeply"
            return ModelOutput(calls=tuple(calls), error=f"line {no}: not a tool call: {why}")
        keys = [k for k, _ in args]
        dup = next((k for k in keys if keys.count(k) > 1), None)
        if dup is not None:
            return ModelOutput(calls=tuple(calls),
                               error=f"line {no}: argument {dup!r} is given twice")
        calls.append(Call(name, dict(args), no))
    if not calls:
        return ModelOutput(error="the output holds no tool call")
    return ModelOutput(calls=tuple(calls))


def _from_json(data) -> ModelOutput:
    if isinstance(data, dict):
        refusal = data.get("refusal")
        if isinstance(refusal, str) and refusal.strip():
            return ModelOutput(refusal=refusal.strip())
        if data.get("refuse") is True:
            return ModelOutput(refusal=str(data.get("reason", "refused")))
        if "tool_calls" in data:
            data = data["tool_calls"] or []
        elif "calls" in data:
            data = data["calls"]
        else:
            data = [data]
    if not isinstance(data, list):
        return ModelOutput(error=f"expected a list of tool calls, found {type(data).__name__}")
    calls: list[Call] = []
    for i, entry in enumerate(data):
        if isinstance(entry, dict) and "tool_calls" in entry and "name" not in entry:
            inner = _from_json(entry)
            if inner.error or inner.refused:
                return inner
            calls.extend(inner.calls)
            continue
        if isinstance(entry, dict) and entry.get("role") == "assistant":
            continue  # a message without calls (text only)
        call, error = _call(entry, f"/{i}")
        if error:
            return ModelOutput(calls=tuple(calls), error=error)
        calls.append(call)
    return ModelOutput(calls=tuple(calls))


def _call(entry, ptr: str) -> tuple[Call | None, str | None]:
    if not isinstance(entry, dict):
        return None, f"at {ptr}: a tool call must be an object, found {type(entry).__name__}"
    if isinstance(entry.get("function"), dict):
        entry, ptr = entry["function"], f"{ptr}/function"
    name = entry.get("name")
    if not isinstance(name, str) or not name:
        return None, f"at {ptr}: a tool call needs a 'name'"
    args = entry.get("arguments", entry.get("args", entry.get("parameters", {})))
    if isinstance(args, str):
        try:
            args = safe_json.loads(args) if args.strip() else {}
        except json.JSONDecodeError as err:
            return None, (f"at {ptr}/arguments: the arguments string is not JSON "
                          f"(column {err.colno}: {err.msg})")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return None, f"at {ptr}/arguments: expected an object, found {type(args).__name__}"
    return Call(name, dict(args)), None
