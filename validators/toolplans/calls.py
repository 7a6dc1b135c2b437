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
``{"refuse": true}``, APB's ``{"status": "REJECT", "reason": ...}`` (paper line 947), or text
whose first word is ``REFUSE``, ``REJECT`` or ``UNSOLVABLE`` (any case). ``REJECT`` beside
a non-empty ``tool_chain`` (or ``tool_calls``) is a hedge, not a refusal: the calls are
judged, with a format violation (Figure 41 passes a refusal only when the chain is empty).

APB's own formats (paper: holistic prompt, Figure 34, line 690; step-wise prompts, Figures
28-30, lines 673-677) are read too:

* holistic ``{"plan": "...", "tool_chain": [{"name", "parameter_description": {...},
  "reason"}]}``: the values of ``parameter_description`` are *prose* (``Call.prose``), matched
  to data items by :mod:`.chain` as far as that is decidable; a missing ``plan`` or
  ``parameter_description``, a ``parameter_description`` that is not an object, or a
  ``reason`` that is not a string, is a format violation (``ModelOutput.issues``, class
  E3); ``arguments`` is accepted in place of ``parameter_description``, and an entry may
  lack ``reason``: the paper's Figure 51 prediction (line 927) has entries of ``name`` and
  ``arguments`` only and is graded correct (1.0, "all errors are 0", Figure 35);
* step-wise ``{"role": "assistant", "thought", "tool_calls": [{"type": "function",
  "function": {"name", "arguments"}}]}`` for one step, a JSON array of k of them for k steps
  (:func:`parse_prediction`); a step with empty ``tool_calls`` concludes (text only).

Every JSON text of model output is read by :func:`loads` (one place, so a project-wide safe
loader can replace it).

Bad output is not an exception: :func:`parse_output` returns a :class:`ModelOutput` with
``error`` set (what and where: JSON line:column, or the line of the bad call).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace

from lark import Transformer, UnexpectedInput
from lark.exceptions import VisitError

from planning_core.grammar_files import lazy_parser
from planning_core import safe_json

__all__ = ["Call", "ModelOutput", "Step", "loads", "parse_output", "parse_prediction"]

_parser = lazy_parser("toolcall.lark", parser="lalr")
_REFUSAL = re.compile(r"^\s*(refuse|reject|unsolvable)\b", re.IGNORECASE)
#: a refusal in plain words (the unsolvable judges pass an "explicit refusal", Figure 41,
#: line 739; the tool-broken judge's Refusal "states it cannot proceed", line 709)
_PLAIN_REFUSAL = re.compile(
    r"\b(?:i|we)\s+(?:cannot|can't|can\s+not|am\s+unable\s+to|am\s+not\s+able\s+to|"
    r"won't\s+be\s+able\s+to|will\s+not\s+be\s+able\s+to|must\s+(?:decline|refuse))\b|"
    r"\b(?:unable|not\s+able|impossible|not\s+possible)\s+to\s+(?:complete|proceed|perform|"
    r"fulfil|fulfill|do|carry\s+out|solve|finish|continue)\b|"
    r"\b(?:task|request|query)\s+(?:cannot|can't|is\s+impossible|is\s+not\s+possible|"
    r"is\s+unsolvable)\b", re.IGNORECASE)
#: a request for the missing information (the information-missing judge passes an
#: "explicit refusal or clarification request", line 739)
_CLARIFY = re.compile(
    r"\b(?:could|can|would|will)\s+you\s+(?:please\s+)?(?:provide|share|tell|give|confirm|"
    r"clarify|specify|send|upload|supply|let\s+me\s+know)\b|"
    r"\bplease\s+(?:provide|share|tell\s+me|specify|confirm|clarify|upload|supply|send)\b|"
    r"\b(?:i|i'd|we)\s+(?:need|would\s+need|require)\s+(?:you\s+to\s+(?:provide|share|"
    r"tell|give|confirm|specify)|more\s+information|the\s+(?:exact|actual|specific))\b",
    re.IGNORECASE)


def plain_refusal(text) -> tuple[bool, bool]:
    """(refuses, asks for clarification) of a text answer with no call; a text that
    refuses is a refusal even if it also asks (clarification is then False)."""
    if not isinstance(text, str) or not text.strip():
        return False, False
    if _PLAIN_REFUSAL.search(text):
        return True, False
    return (True, True) if _CLARIFY.search(text) else (False, False)


class OutputJSONError(ValueError):
    """Model output that is not JSON; ``lineno``/``colno`` locate it when known."""

    def __init__(self, msg: str, lineno: int = 1, colno: int = 1) -> None:
        super().__init__(msg)
        self.msg, self.lineno, self.colno = msg, lineno, colno


def loads(text: str):
    """The one reader of model-output JSON: ``json.loads`` with every failure (bad JSON,
    nesting too deep for the parser, numbers too long) turned into :class:`OutputJSONError`."""
    try:
        return safe_json.loads(text)
    except json.JSONDecodeError as err:
        raise OutputJSONError(err.msg, err.lineno, err.colno) from None
    except (ValueError, RecursionError) as err:   # defence in depth: safe_json raises neither
        raise OutputJSONError(str(err) or type(err).__name__) from None
_NUMBERING = re.compile(r"^\s*(?:\d+\s*[.):]|[-*•])\s*")


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call as the model wrote it; ``line`` is the line of text (1-based) when the
    output was text with one call per line, else None."""

    name: str
    arguments: dict = field(compare=False)
    line: int | None = None
    prose: bool = False     # arguments are APB's parameter_description (described, not given)
    #: what the call returned, by output type, when a trajectory records it (a step-wise
    #: prefix's tool returns); arguments may name these values
    returns: dict | None = field(default=None, compare=False)

    def text(self) -> str:
        args = ", ".join(f"{k}={json.dumps(v)}" for k, v in self.arguments.items())
        return f"{self.name}({args})"


@dataclass(frozen=True, slots=True)
class Step:
    """One predicted action of the step-wise setting: its calls (none: the step concludes
    with text only) and the format violations found in it."""

    calls: tuple[Call, ...] = ()
    thought: str | None = None
    issues: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ModelOutput:
    """``calls`` in order; ``issues`` are format violations (E3) as ``(call or None,
    message)``; ``format`` names the shape read (``paper-holistic``, ``paper-stepwise``,
    ``reject``, ``ours``); ``steps`` the step-wise actions when read by
    :func:`parse_prediction`."""

    calls: tuple[Call, ...] = ()
    refusal: str | None = None
    error: str | None = None
    issues: tuple[tuple[int | None, str], ...] = ()
    format: str = "ours"
    steps: tuple[Step, ...] = ()
    #: the refusal is a request for information (see :func:`plain_refusal`)
    clarification: bool = False

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
        return loads(children[0]), children[1]

    def string(self, c):
        return loads(c[0])

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
            data = loads(stripped)
        except OutputJSONError as err:
            return ModelOutput(error=f"line {err.lineno}, column {err.colno}: not JSON: {err.msg}")
        return _from_json(data)
    if _REFUSAL.match(stripped):
        return ModelOutput(refusal=stripped.strip())
    out = _from_lines(stripped)
    if out.error and not out.calls:
        refuses, asks = plain_refusal(stripped)
        if refuses:     # words, no call: a refusal or a clarification request
            return ModelOutput(refusal=stripped, clarification=asks, format="text")
    return out


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
        if isinstance(data.get("status"), str) and data["status"].strip().upper() == "REJECT":
            if any(isinstance(data.get(k), list) and data[k]
                   for k in ("tool_chain", "tool_calls", "calls")):
                # a hedge: refusing and planning at once is no explicit refusal (Figure 41:
                # the tool_chain must be empty; a standard chain is blind execution), so
                # the calls are judged, with the contradiction as a format violation (E3)
                out = _from_json({k: v for k, v in data.items() if k != "status"})
                return replace(out, issues=out.issues + ((None, "the answer both refuses "
                               "(status REJECT) and gives tool calls"),))
            reason = data.get("reason")
            return ModelOutput(refusal=reason.strip() if isinstance(reason, str) and reason.strip()
                               else "REJECT", format="reject")
        if "tool_chain" in data:
            return _from_holistic(data)
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
            args = loads(args) if args.strip() else {}
        except OutputJSONError as err:
            return None, (f"at {ptr}/arguments: the arguments string is not JSON "
                          f"(column {err.colno}: {err.msg})")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return None, f"at {ptr}/arguments: expected an object, found {type(args).__name__}"
    returns = entry.get("returns")
    return Call(name, dict(args), returns=dict(returns) if isinstance(returns, dict) else None), None


def _from_holistic(data: dict) -> ModelOutput:
    """APB's holistic answer (Figure 34): ``plan`` and ``tool_chain`` of ``{name,
    parameter_description, reason}``. Missing keys the prompt requires are format violations
    (but not ``reason``, nor ``arguments`` for ``parameter_description``: Figure 51);
    an entry that is no object or has no string ``name`` is one too, and a call of no tool
    (E6), so one bad entry does not hide the faults of the others ("evaluate all 6
    categories independently", line 631)."""
    issues: list[tuple[int | None, str]] = []
    if not isinstance(data.get("plan"), str) or not data["plan"].strip():
        issues.append((None, "the answer has no 'plan' (a string), which the format requires"))
    chain = data["tool_chain"]
    if not isinstance(chain, list):
        return ModelOutput(error=f"at /tool_chain: expected a list, found {type(chain).__name__}",
                           format="paper-holistic")
    calls: list[Call] = []
    for i, entry in enumerate(chain):
        k = i + 1
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str) \
                or not entry["name"]:
            # the rest of the chain stays readable: this entry is a format violation and a
            # call of no tool (E3 and E6 at call k), the others are judged as usual
            what = (f"a tool call must be an object, found {type(entry).__name__}"
                    if not isinstance(entry, dict) else "'name' must be a non-empty string")
            issues.append((k, f"call {k}: {what}"))
            raw = entry.get("name") if isinstance(entry, dict) else entry
            calls.append(Call(json.dumps(raw)[:60] if raw is not None else "", {}, prose=True))
            continue
        name = entry["name"]
        prose = "parameter_description" in entry
        if not prose and "arguments" not in entry:
            issues.append((k, f"call {k}: no 'parameter_description', which the format "
                              "requires"))
        args = entry.get("parameter_description", entry.get("arguments", {}))
        if isinstance(args, str):
            try:
                args = loads(args) if args.strip() else {}
            except OutputJSONError:
                args = None
        if args is None or not isinstance(args, dict):
            issues.append((k, f"call {k}: 'parameter_description' must be an object of "
                              "parameter values"))
            args = {}
        # Figure 34 asks for a 'reason' per entry, but the paper's own Figure 51 answer
        # (line 927) has none and is graded correct, so its absence is no violation
        if "reason" in entry and entry["reason"] is not None \
                and not isinstance(entry["reason"], str):
            issues.append((k, f"call {k}: 'reason' must be a string, found "
                              f"{type(entry['reason']).__name__}"))
        calls.append(Call(name, dict(args), prose=prose))
    if not calls and not issues:
        refuses, asks = plain_refusal(data.get("plan"))
        if refuses:   # an empty tool_chain whose plan refuses or asks (Figure 41: PASS
            return ModelOutput(refusal=data["plan"].strip(), clarification=asks,   # when
                               format="paper-holistic")   # "the tool_chain is empty")
    return ModelOutput(calls=tuple(calls), issues=tuple(issues), format="paper-holistic")


def _paper_step(obj, where: str) -> tuple[Step | None, str | None]:
    """One step of APB's step-wise answer (Figure 28); (None, error) when unreadable."""
    issues = []
    if obj.get("role") != "assistant":
        issues.append(f"{where}: 'role' must be \"assistant\"")
    thought = obj.get("thought")
    if not isinstance(thought, str):
        issues.append(f"{where}: no 'thought' (a string)")
        thought = None
    raw = obj.get("tool_calls")
    if raw is None:
        issues.append(f"{where}: no 'tool_calls' (use [] for none)")
        raw = []
    if not isinstance(raw, list):
        return None, f"{where}/tool_calls: expected a list, found {type(raw).__name__}"
    calls = []
    for j, entry in enumerate(raw):
        if isinstance(entry, dict) and entry.get("type") != "function":
            issues.append(f"{where}/tool_calls/{j}: 'type' must be \"function\"")
        call, error = _call(entry, f"{where}/tool_calls/{j}")
        if error:
            return None, error
        calls.append(call)
    return Step(tuple(calls), thought, tuple(issues)), None


def parse_prediction(text, k: int | None = None) -> ModelOutput:
    """The step-wise setting's prediction of ``k`` next actions (``k`` None: any number).

    APB's format (Figures 28-30): one object ``{"role", "thought", "tool_calls"}`` for
    k = 1, a JSON array of k of them otherwise; a step with no tool call concludes with
    text. Our own shapes are read as one step per call (a JSON list of calls, or one call
    per line), or one step per OpenAI assistant message (with all its calls). A refusal (``{"status": "REJECT"}``, ``REFUSE ...``) is a refusal. The
    number of steps differing from ``k``, and a paper-format step lacking ``role``,
    ``thought``, ``tool_calls`` or a call's ``type``, are format violations (E3)."""
    data = text
    if isinstance(text, str):
        stripped = _strip_fence(text) if text.strip() else ""
        if stripped[:1] in "[{":
            try:
                data = loads(stripped)
            except OutputJSONError as err:
                return ModelOutput(error=f"line {err.lineno}, column {err.colno}: not JSON: "
                                         f"{err.msg}")
    paper = None
    if isinstance(data, dict) and "thought" in data:
        paper = [data]
    elif isinstance(data, list) and data and all(isinstance(d, dict) for d in data) \
            and any("thought" in d for d in data):
        paper = data
    if paper is None:
        out = parse_output(data)
        if out.refused:
            return out
        if out.error and isinstance(data, str) and data.strip()[:1] not in "[{":
            refuses, asks = plain_refusal(data)
            if refuses:
                return ModelOutput(refusal=data.strip(), clarification=asks, format="text")
            # prose that is no call: a step that concludes with text, outside the format
            return ModelOutput(issues=((None, "the answer is text, not the required JSON"),),
                               steps=(Step((), data.strip()),), format="text")
        if out.error:
            return out
        messages = [data] if isinstance(data, dict) else data if isinstance(data, list) else []
        if messages and all(isinstance(m, dict) and "tool_calls" in m and "name" not in m
                            for m in messages):
            # OpenAI assistant messages: one step per message, with all of its calls
            steps_l = []
            for m in messages:
                inner = _from_json(m)
                if inner.error:
                    return inner
                steps_l.append(Step(inner.calls))
            steps = tuple(steps_l)
        else:
            steps = tuple(Step((c,)) for c in out.calls) or (Step(()),)
        issues = list(out.issues)
    else:
        steps_l = []
        for i, obj in enumerate(paper):
            step, error = _paper_step(obj, f"/{i}" if isinstance(data, list) else "")
            if error:
                return ModelOutput(error=error, format="paper-stepwise")
            steps_l.append(step)
        steps = tuple(steps_l)
        issues = [(None, m) for st in steps for m in st.issues]
    if paper is not None and steps and not any(st.calls for st in steps):
        refuses, asks = plain_refusal(" ".join(st.thought or "" for st in steps))
        if refuses:    # no call, a thought that says it cannot go on (or asks the user)
            return ModelOutput(refusal=" ".join(st.thought or "" for st in steps).strip(),
                               clarification=asks, issues=tuple(issues), steps=steps,
                               format="paper-stepwise")
    if k is not None and len(steps) != k:
        issues.append((None, f"the prediction has {len(steps)} step(s); {k} were asked for"))
    calls = tuple(c for st in steps for c in st.calls)
    return ModelOutput(calls=calls, issues=tuple(issues), steps=steps,
                       format="paper-stepwise" if paper is not None else "ours")
