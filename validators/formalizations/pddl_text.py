"""Finding the PDDL domain and problem files in a model's free-text answer.

CoPE's formalizer prompts ask for ``{"domain file": ..., "problem file": ...}`` (Huang et
al.); models answer with that JSON, with markdown fences (```` ```pddl ````), with bare
``(define ...)`` forms between sentences, in either order, sometimes with a first draft and
a corrected version. :func:`extract_pddl` reads all of these:

1. JSON objects anywhere in the text (fenced or not; control characters inside strings are
   allowed, as models write raw newlines) whose keys name a domain and a problem
   (``"domain file"``, ``"domain_pddl"``, ``"Domain"`` ...). A JSON value is itself scanned
   for ``(define`` forms, so a value wrapped in a fence still works.
2. Otherwise every ``(define (domain ...)`` / ``(define (problem ...)`` form in the text,
   found by balanced-parenthesis scanning that skips ``;`` comments and strings. When a
   kind occurs more than once the *last* one is used (a corrected version follows its
   draft) and a note says so.

A form whose parentheses never close is cut at the next ``(define`` or at the end of its
markdown fence, and handed to the parser as it is: the parser's error then points at the
real problem (line and column relative to the extracted file, which is what the revision
prompt shows the model). Nothing here raises.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from planning_core import safe_json
from planning_core.validators.cope.extract import matching_bracket
from planning_core.validators.formalizations.fences import fenced_blocks

__all__ = ["PddlFiles", "extract_pddl", "DOMAIN_FILE", "PROBLEM_FILE"]

DOMAIN_FILE = "domain.pddl"
PROBLEM_FILE = "problem.pddl"

_DEFINE = re.compile(r"\(\s*define\s*\(\s*(domain|problem)\b", re.IGNORECASE)
#: Deepest nesting of a JSON answer object read for files (``{"domain file": ...}`` is 1).
JSON_DEPTH = 4
_KEY = re.compile(r"[\s_\-]+")


@dataclass(frozen=True, slots=True)
class PddlFiles:
    """The two files of an answer; ``None`` for a file that was not found.

    ``source`` says where they came from (``json``, ``text``); ``notes`` record choices
    made (several candidates, an unclosed form cut short).
    """

    domain: str | None
    problem: str | None
    source: str
    notes: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        return self.domain is not None and self.problem is not None

    def missing(self) -> tuple[str, ...]:
        """Messages for the files that were not found."""
        out = []
        if self.domain is None:
            out.append("no PDDL domain found: expected a form (define (domain NAME) ...)")
        if self.problem is None:
            out.append("no PDDL problem found: expected a form (define (problem NAME) ...)")
        return tuple(out)


def _form_end(text: str, start: int, limit: int) -> tuple[int, bool]:
    """End of the parenthesised form at ``text[start]`` and whether it closed.

    Comments (``;`` to end of line) and double-quoted strings are skipped. A form that has
    not closed by the next ``(define`` is cut at the start of that line (or at the
    ``(define`` itself when it shares the form's first line), or at ``limit``. Stopping
    there keeps the scans of successive forms apart, so the whole text is read once: 4000
    unclosed ``(define (domain d)`` lines used to take 20 s, each scanned to the end.
    """
    following = _DEFINE.search(text, start + 1, limit)
    stop = following.start() if following is not None else limit
    depth, index = 0, start
    while index < stop:
        char = text[index]
        if char == ";":
            newline = text.find("\n", index, stop)
            index = stop if newline < 0 else newline
            continue
        if char == '"':
            close = text.find('"', index + 1, stop)
            index = stop if close < 0 else close + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return index + 1, True
        index += 1
    if following is not None:
        line_start = text.rfind("\n", start, following.start())
        return (line_start if line_start > start else following.start()), False
    return limit, False


def _forms(text: str) -> list[tuple[str, str, bool]]:
    """(kind, text, closed) of every define form, left to right, fences respected."""
    limits = [(block.start, block.end) for block in fenced_blocks(text, fence="three")]
    found: list[tuple[str, str, bool]] = []
    position = 0
    while True:
        match = _DEFINE.search(text, position)
        if match is None:
            return found
        limit = next((end for start, end in limits if start <= match.start() < end), len(text))
        end, closed = _form_end(text, match.start(), limit)
        found.append((match.group(1).lower(), text[match.start():end].rstrip(), closed))
        position = max(end, match.end())


def _pick(forms: list[tuple[str, str, bool]], notes: list[str]) -> tuple[str | None, str | None]:
    chosen: dict[str, str] = {}
    for kind in ("domain", "problem"):
        of_kind = [(body, closed) for k, body, closed in forms if k == kind]
        if not of_kind:
            continue
        if len(of_kind) > 1:
            notes.append(f"{len(of_kind)} {kind} definitions found; the last one is used")
        body, closed = of_kind[-1]
        if not closed:
            notes.append(f"the {kind} definition's parentheses are not balanced")
        chosen[kind] = body
    return chosen.get("domain"), chosen.get("problem")


def json_objects(text: str):
    """Every JSON object in ``text``, left to right (raw newlines allowed inside strings).

    Each ``{`` is first matched to its closing brace (strings skipped, nesting bounded:
    :func:`planning_core.validators.cope.extract.matching_bracket`) and only that span is
    decoded, so a failed decode costs its span and not the whole text: decoding from every
    ``{`` of ``'{"a' * 64000`` used to take 4 s, as each failure counted lines from the
    start of the text.
    """
    decoder = json.JSONDecoder(strict=False)
    position = 0
    while (start := text.find("{", position)) >= 0:
        close = matching_bracket(text, start, quotes='"', max_depth=JSON_DEPTH)
        if close is None:
            position = start + 1
            continue
        try:
            value, end = safe_json.raw_decode(text[start:close + 1], strict=decoder.strict)
        except json.JSONDecodeError:    # long integers and deep nesting included
            position = start + 1
            continue
        if isinstance(value, dict):
            yield value
        position = start + end


def _from_json(text: str, notes: list[str]) -> tuple[str | None, str | None] | None:
    for value in json_objects(text):
        files: dict[str, str] = {}
        for key, item in value.items():
            if not isinstance(item, str):
                continue
            squashed = _KEY.sub("", str(key).lower())
            for kind in ("domain", "problem"):
                if squashed.startswith(kind) and kind not in files:
                    files[kind] = item
        if len(files) == 2:
            domain_forms = _forms(files["domain"])
            problem_forms = _forms(files["problem"])
            domain, _ = _pick([f for f in domain_forms if f[0] == "domain"], notes)
            _, problem = _pick([f for f in problem_forms if f[0] == "problem"], notes)
            return (domain if domain is not None else files["domain"].strip() or None,
                    problem if problem is not None else files["problem"].strip() or None)
    return None


def extract_pddl(text: str) -> PddlFiles:
    """The domain and problem files of a model's answer (see the module doc)."""
    text = text or ""
    notes: list[str] = []
    from_json = _from_json(text, notes)
    if from_json is not None:
        return PddlFiles(from_json[0], from_json[1], "json", tuple(notes))
    notes.clear()
    domain, problem = _pick(_forms(text), notes)
    return PddlFiles(domain, problem, "text", tuple(notes))
