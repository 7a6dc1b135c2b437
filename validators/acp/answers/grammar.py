"""The lark grammar of answers (grammars/acp_answer.lark) and the values it yields.

One LALR(1) parser with three start rules (DeRemer & Pennello's LALR(1) as built by
lark): ``answer`` for answer-shaped text, ``index`` for a lone number and ``scan`` for
prose with parenthesised actions in it. A stateless :class:`AnswerTransformer` turns
rules into the small frozen values below; which value a task accepts is decided in
:mod:`planning_core.validators.acp.answers.parsers`.

The transformer runs inside the LALR parser (lark's ``transformer=`` option: each rule
is transformed as it is reduced, no parse tree is built). Measured on a 98 kB answer
this is 2.2 times faster than building a tree with ``propagate_positions`` and then
transforming it, and it cannot recurse. Positions therefore come from the tokens
themselves (every item starts with a name token), not from tree metadata.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from lark import Token, Transformer
from lark.exceptions import LarkError, UnexpectedInput

from planning_core.grammar_files import lazy_parser
from planning_core.validators.acp.answers.values import GroundName, UnparseableAnswer

START_RULES = ("answer", "index", "scan")


@dataclass(frozen=True, slots=True)
class Item:
    """One action or atom as written; ``bare`` when it had no parentheses."""

    value: GroundName
    bare: bool
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class NoneMark:
    """An explicit ``None`` in the answer."""


@dataclass(frozen=True, slots=True)
class Group:
    """A bracketed list ``[...]``; its elements keep their order."""

    elements: tuple[Node, ...]


Node = Union[Item, NoneMark, Group]


@dataclass(frozen=True, slots=True)
class Line:
    """One top-level line of an answer; ``bullet`` when it was a markdown list item."""

    elements: tuple[Node, ...]
    bullet: bool


@dataclass(frozen=True, slots=True)
class Answer:
    """Answer-shaped text: its top-level lines in order."""

    lines: tuple[Line, ...]


@dataclass(frozen=True, slots=True)
class Found:
    """A parenthesised (or call-form) action found in prose, with its own tokens."""

    value: GroundName
    tokens: tuple[Token, ...]
    line: int
    column: int


ScanPiece = Union[Token, Found]

_ARG_TYPES = frozenset({"NAME", "NUMBER"})


def _flatten(children) -> tuple[Node, ...]:
    """Runs of side-by-side items come back as tuples; splice them into one sequence."""
    out: list[Node] = []
    for child in children:
        if isinstance(child, tuple):
            out.extend(child)
        elif isinstance(child, (Item, NoneMark, Group)):
            out.append(child)
    return tuple(out)


def _as_action(name: str | None, tokens: list[Token]) -> GroundName | None:
    """The action spelled by a group's tokens, or ``None`` when the group is prose.

    An action is a name followed by arguments (names or numbers), optionally separated
    by single commas; ``name`` is given for the call form ``name(...)``.
    """
    words: list[str] = []
    after_comma = False
    for tok in tokens:
        if tok.type == "OTHER":
            if tok.value != "," or not words or after_comma:
                return None
            after_comma = True
        elif tok.type in _ARG_TYPES:
            if name is None and not words and tok.type != "NAME":
                return None
            words.append(tok.value)
            after_comma = False
        else:
            return None
    if after_comma:
        return None
    if name is None:
        if not words:
            return None
        name, words = words[0], words[1:]
    return GroundName(name, tuple(words))


def _classify_group(name: str | None, children, head: Token | None = None) -> tuple[ScanPiece, ...]:
    """Keep a parenthesised group of prose as a :class:`Found` action when it is one.

    Otherwise the group is prose: its contents -- including any actions nested in it --
    are spliced into the surrounding sequence.
    """
    if all(isinstance(c, Token) for c in children):
        value = _as_action(name, list(children))
        if value is not None:
            return (Found(value, tuple(children), *_pos([head, *children])),)
    out: list[ScanPiece] = []
    for child in children:
        if isinstance(child, tuple):
            out.extend(child)
        else:
            out.append(child)
    return tuple(out)


def _pos(tokens) -> tuple[int, int]:
    """Line and column of the first token, in the answer (the prepared text has one
    extra leading line)."""
    first = next(t for t in tokens if isinstance(t, Token))
    return max(first.line - 1, 1), first.column


class AnswerTransformer(Transformer):
    """Stateless: every method builds a value from its children alone."""

    def action(self, children) -> Item:
        name, *args = [c.value for c in children if isinstance(c, Token)]
        return Item(GroundName(name, tuple(args)), False, *_pos(children))

    def call(self, children) -> Item:
        words = [c for c in children if isinstance(c, Token)]
        name = next(t.value for t in words if t.type == "CALL").rstrip("(").strip()
        args = tuple(t.value for t in words if t.type != "CALL")
        return Item(GroundName(name, args), False, *_pos(children))

    def bare(self, children) -> Item:
        name, *args = [c.value for c in children if isinstance(c, Token)]
        return Item(GroundName(name, tuple(args)), True, *_pos(children))

    def quoted(self, children) -> tuple[Node, ...]:
        # Quotes make a bare item deliberate ('sail l0 l1' in a JSON list) but it stays
        # marked bare: the prose-word check in parsers.py still applies to it.
        return _flatten(children)

    def quoted_none(self, children) -> NoneMark:
        return NoneMark()

    def none(self, children) -> NoneMark:
        return NoneMark()

    def run(self, children) -> tuple[Node, ...]:
        return _flatten(children)

    def list(self, children) -> Group:
        return Group(_flatten(children))

    def empty_list(self, children) -> Group:
        return Group(())

    def line(self, children) -> Line:
        return Line(_flatten(children), bullet=False)

    def answer(self, children) -> Answer:
        lines: list[Line] = []
        bullet = False
        for child in children:
            if isinstance(child, Token) and child.type == "BULLET":
                bullet = True
            elif isinstance(child, Line):
                lines.append(Line(child.elements, bullet))
                bullet = False
        return Answer(tuple(lines))

    def index(self, children) -> int:
        digits = next(c.value for c in children if isinstance(c, Token) and c.type == "NUMBER")
        if len(digits) > 9:
            raise ValueError(f"index with {len(digits)} digits")
        return int(digits)

    def group(self, children) -> tuple[ScanPiece, ...]:
        return _classify_group(None, children)

    def call_group(self, children) -> tuple[ScanPiece, ...]:
        head = next(c for c in children if isinstance(c, Token) and c.type == "CALL")
        rest = [c for c in children if c is not head]
        return _classify_group(head.value.rstrip("(").strip(), rest, head)

    def scan(self, children) -> tuple[ScanPiece, ...]:
        out: list[ScanPiece] = []
        for child in children:
            if isinstance(child, tuple):
                out.extend(child)
            elif isinstance(child, (Token, Found)):
                out.append(child)
        return tuple(out)


answer_parser = lazy_parser("acp_answer.lark", parser="lalr", start=list(START_RULES),
                            transformer=AnswerTransformer(), maybe_placeholders=False,
                            cache=True)
"""The LALR(1) parser with the transformer built in; built once per process. ``cache``:
lark keeps the grammar analysis in a file of the temporary folder (keyed by the grammar's
text, these options and lark's version; as the PDDL parser does), so a process loads the
tables in about 8 ms instead of building them in about 60 ms, once per ``acp score``
process that reads any answer with the grammar."""


def parse_with(prepared: str, start: str):
    """Parse text prepared by ``text.for_grammar`` from rule ``start``.

    Lark's errors become :class:`UnparseableAnswer` with the line and column in the
    prepared text (whose first line is the added empty one, so line 2 is the answer's
    first line). An item the transformer rejects (``ValueError``) is reported likewise.
    """
    try:
        return answer_parser().parse(prepared, start=start)
    except UnexpectedInput as err:
        line = getattr(err, "line", None)
        column = getattr(err, "column", None)
        line = line - 1 if isinstance(line, int) and line > 1 else line
        found = getattr(getattr(err, "token", None), "value", None)
        if found is None and hasattr(err, "char"):
            found = err.char
        what = "end of answer" if found in (None, "", "$END") else repr(found.strip() or found)
        if start == "scan":  # prose accepts every token: only an unclosed "(" fails
            what = "end of answer: a parenthesis is not closed"
        raise UnparseableAnswer(f"unexpected {what}", line=line, column=column) from None
    except ValueError as err:
        raise UnparseableAnswer(f"malformed item: {err}") from None
    except LarkError as err:  # any other lark failure is still a bad answer, not a crash
        raise UnparseableAnswer(f"unreadable answer: {type(err).__name__}") from None
