"""Plan files -> :class:`Plan`, a tuple of :class:`PlanStep` with exact line numbers.

Accepts what VAL reads and what planners and language models write (see
``grammars/plan.lark``): ``(a x y)``, ``0.000: (a x y) [1]``, ``1. (a x)``, ``1: (a x)``,
``step 1: (a x)``, several steps on one line, ``;`` comments, blank lines, any case (names
are lower-cased; :attr:`PlanStep.text` keeps the spelling of the file).

A plan file is user input, so an unreadable line is data, not an exception: it becomes a
:class:`PlanLineError` with its line and column, the readable lines still become steps, and
the validator answers ``plan_syntax_error`` naming the first bad line.

Parsing strategy: the whole text goes through one LALR parse (fast: one call for the usual
well-formed file). Only when that fails is the text parsed again line by line, so that each
bad line gets its own error and one bad line cannot hide another. An action therefore has
to fit on one line in a file that also has an error elsewhere; in an otherwise readable file
it may span lines.
"""
from __future__ import annotations

from _thread import allocate_lock

from planning_core.limits import LimitReached, tick_active
from planning_core.nodes import field, node
from planning_core.pddl.files import read_text

#: typing.TYPE_CHECKING, without importing typing (~2 ms of every `validate` call)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    from lark.exceptions import UnexpectedInput

__all__ = ["Plan", "PlanLineError", "PlanStep", "parse_plan", "parse_plan_file"]


@node
class PlanStep:
    """One action of a plan as written: ``name`` and ``args`` lower-cased.

    ``time`` is the ``t:`` stamp of a VAL-style timed plan (None for numbered or bare
    steps); ``duration`` the ``[d]`` suffix; ``text`` the action exactly as in the file.
    """

    name: str
    args: tuple[str, ...]
    line: int
    column: int
    text: str
    time: float | None = None
    duration: float | None = None

    def __str__(self) -> str:
        return "(" + " ".join((self.name,) + self.args) + ")"


@node
class PlanLineError:
    """A line (1-based) that is not a plan step; ``column`` is 1-based too."""

    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"

    def to_dict(self, file: str | None = None) -> dict:
        return {"file": file, "line": self.line, "column": self.column, "message": self.message}


@node
class Plan:
    """The steps of a plan file in file order, and its unreadable lines."""

    steps: tuple[PlanStep, ...] = ()
    errors: tuple[PlanLineError, ...] = ()
    filename: str | None = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        return not self.errors

    def __len__(self) -> int:
        return len(self.steps)


# ------------------------------------------------------------------------- grammar

class _Entry:
    """A step as the parser saw it; positions are relative to the text parsed."""

    __slots__ = ("name", "args", "line", "column", "start", "end", "time", "duration")

    def __init__(self) -> None:
        self.time = self.duration = None


def _build_parser():
    """The LALR parser of ``grammars/plan.lark``; lark is imported here, on first use, so a
    plan that the fast reader (:func:`_simple_steps`) reads costs no lark import."""
    from lark import Lark, Transformer

    from planning_core.grammar_files import grammar_text

    class _ToSteps(Transformer):
        """Stateless: every entry becomes an :class:`_Entry` carrying its source positions."""

        def time_stamp(self, c):
            return ("time", float(c[0]))

        def step_label(self, c):
            return ("label", None)

        def duration(self, c):
            return ("duration", float(c[0]))

        def action(self, c):
            return ("action", c)

        def entry(self, parts):
            tick_active()         # a 300,000-step plan takes seconds to read (limits.metering)
            e = _Entry()
            for kind, *value in parts:
                if kind == "time":
                    e.time = value[0]
                elif kind == "duration":
                    e.duration = value[0]
                elif kind == "action":
                    open_, *names, close = value[0]
                    e.name = names[0].value.lower()
                    e.args = tuple(t.value.lower() for t in names[1:])
                    e.line, e.column = open_.line, open_.column
                    e.start, e.end = open_.start_pos, close.end_pos
            return e

        def plan(self, entries):
            return entries

        line = plan

    return Lark(grammar_text("plan.lark"), parser="lalr", lexer="contextual",
                start=["plan", "line"], transformer=_ToSteps(), maybe_placeholders=False,
                cache=True)


_built: list = []
_build_lock = allocate_lock()


def _get_parser():
    """The plan parser, built on first use and exactly once (``grammar_files.built_once``,
    without importing that module: most plans never need the grammar)."""
    if not _built:
        with _build_lock:
            if not _built:
                _built.append(_build_parser())
    return _built[0]


# The fast reader: a file whose every line is blank, a comment, or one step "(name arg ...)"
# (optionally after a time stamp "t:" and before a duration "[d]", as VAL's timed plans
# are written, and optionally followed by a comment) -- what planners write -- is read with
# one regex per line. Blank space, names and numbers are exactly the grammar's (WS is
# [ \t\f\r], NAME excludes blank space, brackets, ';' and control characters, NUMBER is
# \d+(\.\d+)?), so such a line means the same to both readers; any other file goes to the
# grammar.
_WS = r"[ \t\f\r]"
_NAME = r"[^\s()\[\];\x00-\x1f\x7f]+"
_NUMBER = r"\d+(?:\.\d+)?"
_SIMPLE_LINE = (rf"{_WS}*(?:(?:({_NUMBER}){_WS}*:{_WS}*)?"
                rf"(\({_WS}*({_NAME}(?:{_WS}+{_NAME})*){_WS}*\))"
                rf"(?:{_WS}*\[{_WS}*({_NUMBER}){_WS}*\])?{_WS}*)?"
                r"(?:;[^\n]*)?")
_compiled: list = []


def _simple_line_regex():
    """:data:`_SIMPLE_LINE`, compiled on first use: the lines planners write are read by
    :func:`_read_line` without it (compiling it cost each call ~1 ms, issue 28)."""
    if not _compiled:
        import re   # only here: importing it costs each call ~5 ms (issue 28)

        _compiled.append(re.compile(_SIMPLE_LINE))
    return _compiled[0]


#: what :func:`_read_line` answers for a line it leaves to the regex
_UNSURE = object()
_BLANK = (None, None, 0, None, None)
_LINE_WS = " \t\f\r"
#: the ASCII characters of a step's parentheses: NAME's and WS's
_IN_STEP = frozenset(chr(c) for c in range(0x21, 0x7f) if chr(c) not in "()[];") \
    | frozenset(_LINE_WS)


def _number_end(line: str, i: int) -> int:
    """The end of NUMBER (``\\d+(\\.\\d+)?``, ASCII) at ``i``, or ``i`` if there is none."""
    n = len(line)
    j = i
    while j < n and "0" <= line[j] <= "9":
        j += 1
    if j > i and j + 1 < n and line[j] == "." and "0" <= line[j + 1] <= "9":
        j += 2
        while j < n and "0" <= line[j] <= "9":
            j += 1
    return j


def _read_line(line: str):
    """``_SIMPLE_LINE``'s fullmatch of an ASCII line, read by hand: (time, step text, its
    start, its names, duration) as the match's groups 1, 2, the start of 2, 3 and 4
    (:data:`_BLANK` for a line without a step), or :data:`_UNSURE` where the regex must
    decide (anything else: a line that does not match, or not ASCII, whose ``\\s`` and
    ``\\d`` are Unicode's). ``tests/pddl/test_plan_fast_reader.py`` compares the two."""
    if not line.isascii():
        return _UNSURE
    n = len(line)
    i = 0
    while i < n and line[i] in _LINE_WS:
        i += 1
    if i == n or line[i] == ";":
        return _BLANK
    time = None
    if "0" <= line[i] <= "9":
        j = _number_end(line, i)
        time = line[i:j]
        while j < n and line[j] in _LINE_WS:
            j += 1
        if j == n or line[j] != ":":
            return _UNSURE
        i = j + 1
        while i < n and line[i] in _LINE_WS:
            i += 1
    if i == n or line[i] != "(":
        return _UNSURE
    start = i
    close = line.find(")", start)
    if close < 0:
        return _UNSURE
    inner = line[start + 1:close]
    names = inner.strip(_LINE_WS)
    if not names or not _IN_STEP.issuperset(inner):
        return _UNSURE
    i = close + 1
    while i < n and line[i] in _LINE_WS:
        i += 1
    duration = None
    if i < n and line[i] == "[":
        i += 1
        while i < n and line[i] in _LINE_WS:
            i += 1
        j = _number_end(line, i)
        if j == i:
            return _UNSURE
        duration = line[i:j]
        while j < n and line[j] in _LINE_WS:
            j += 1
        if j == n or line[j] != "]":
            return _UNSURE
        i = j + 1
        while i < n and line[i] in _LINE_WS:
            i += 1
    if i < n and line[i] != ";":
        return _UNSURE
    return time, line[start:close + 1], start, names, duration


def _simple_steps(text: str) -> list[PlanStep] | None:
    """The steps of ``text`` when every line is simple (see above), else None."""
    steps: list[PlanStep] = []
    for i, line in enumerate(text.split("\n"), start=1):
        if not i & 1023:
            tick_active(1024)     # read under the active budget too (limits.metering)
        read = _read_line(line)
        if read is _UNSURE:
            m = _simple_line_regex().fullmatch(line)
            if m is None:
                return None
            read = m.group(1), m.group(2), m.start(2), m.group(3), m.group(4)
        time, step, start, names, duration = read
        if step is not None:
            names = [n.lower() for n in names.split()]
            steps.append(PlanStep(names[0], tuple(names[1:]), i, start + 1, step,
                                  None if time is None else float(time),
                                  None if duration is None else float(duration)))
    return steps


# -------------------------------------------------------------------------- parsing

def _unclosed_paren(line: str) -> int | None:
    """1-based column of a '(' never closed on this line, for a clearer message."""
    depth_stack: list[int] = []
    for i, ch in enumerate(line.split(";", 1)[0]):
        if ch == "(":
            depth_stack.append(i)
        elif ch == ")" and depth_stack:
            depth_stack.pop()
    return depth_stack[0] + 1 if depth_stack else None


def _line_error(line_no: int, text: str, err: UnexpectedInput) -> PlanLineError:
    """Say what was found where, and what a step looks like."""
    import re   # an error path only: not imported by a call whose plan reads (issue 28)

    from lark.exceptions import UnexpectedCharacters, UnexpectedToken

    column = getattr(err, "column", None) or 1
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else "?"
        found = f"character {ch!r}"
        allowed = set(err.allowed or ())
    elif isinstance(err, UnexpectedToken) and err.token.type != "$END":
        found = repr(err.token.value)
        allowed = set(err.expected or ())
    else:  # the line ended too early
        open_col = _unclosed_paren(text)
        if open_col is not None:
            return PlanLineError(line_no, open_col, "unbalanced parentheses: this '(' is "
                                 "never closed; expected a step '(action arg ...)'")
        found, column = "end of line", len(text.rstrip()) + 1
        allowed = set(getattr(err, "expected", None) or ())
    negative = re.match(r"-\d[\d.]*", text[column - 1:]) if column else None
    if negative is not None and "NAME" not in allowed:
        return PlanLineError(line_no, column, f"unexpected negative number "
                             f"{negative.group()!r}; expected a time stamp or duration >= 0 "
                             "(a plan starts at time 0, where the initial state holds)")
    if found == "'['" and "]" in text[:column - 1]:
        return PlanLineError(line_no, column, "a second duration '[...]' on one "
                             "step; expected one duration '[d]' per step")
    if "NAME" in allowed and "CLOSE" not in allowed:
        expected = "an action name after '('"
    elif "NAME" in allowed:
        expected = "an argument name or ')'; a step is '(action arg ...)' with no nesting"
    elif "RSQB" in allowed:
        expected = "']' closing the duration '[d]'"
    elif "NUMBER" in allowed and "OPEN" not in allowed:
        expected = "a number"
    else:
        expected = "a step '(action arg ...)', optionally '1.', 't:' before or '[d]' after it"
    if found in ("character '#'", "'#'") or text.lstrip().startswith(("#", "//")):
        expected += "; comments start with ';'"
    return PlanLineError(line_no, column, f"unexpected {found}; expected {expected}")


def _make_steps(entries: list[_Entry], source: str, line_offset: int) -> list[PlanStep]:
    return [PlanStep(e.name, e.args, e.line + line_offset, e.column, source[e.start:e.end],
                     e.time, e.duration) for e in entries]


def parse_plan(text: str, filename: str | None = None) -> Plan:
    """Read a plan; never raises on bad content (bad lines become :class:`PlanLineError`)."""
    simple = _simple_steps(text)
    if simple is not None:
        return Plan(tuple(simple), (), filename)
    from lark.exceptions import UnexpectedInput, VisitError

    parser = _get_parser()
    try:
        entries = parser.parse(text, start="plan")
        return Plan(tuple(_make_steps(entries, text, 0)), (), filename)
    except VisitError as err:
        if isinstance(err.orig_exc, LimitReached):
            raise err.orig_exc from None
    except UnexpectedInput:
        pass
    steps: list[PlanStep] = []
    errors: list[PlanLineError] = []
    # Lines end at "\n" only, as lark counts them (a stray "\r" or form feed is blank space).
    for i, line in enumerate(text.split("\n"), start=1):
        body = line.split(";", 1)[0]
        if not body.strip():
            continue
        try:
            entries = parser.parse(line, start="line")
        except UnexpectedInput as err:
            errors.append(_line_error(i, line, err))
            continue
        steps.extend(_make_steps(entries, line, i - 1))
    return Plan(tuple(steps), tuple(errors), filename)


def parse_plan_file(path: str | Path) -> Plan:
    """Read a plan file; unreadable files raise :class:`~planning_core.errors.InputError`."""
    return parse_plan(read_text(path, expected="a plan"), str(path))
