"""Explaining a PDDL syntax error: what was found, what was expected, and where.

lark reports an unexpected character or token with the terminals it would have accepted.
This module turns that into the message a user can act on: terminal names made readable
(``'(:predicates'``, "a variable (?x)"), a keyword glued to more letters reported as the
word the user wrote (``(:initial-state`` is not ``:init`` + ``ial-state``), an unclosed
parenthesis located, a numeric-fluent construct or an unsupported section named as
unsupported rather than as a syntax error, and a breadcrumb of where in the file it
happened ("in action 'move' > :precondition"), in the spirit of Fast Downward's parser.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from planning_core.errors import PDDLSyntaxError, UnsupportedFeature
from planning_core.pddl.breadcrumbs import breadcrumb, unclosed_paren

__all__ = ["UNSUPPORTED_SECTIONS", "explain_syntax_error"]

UNSUPPORTED_SECTIONS = {
    ":process": "processes (PDDL+)",
    ":event": "events (PDDL+)",
    "within": "time windows in trajectory constraints (PDDL3 'within')",
    "always-within": "time windows in trajectory constraints (PDDL3 'always-within')",
    "hold-during": "time windows in trajectory constraints (PDDL3 'hold-during')",
    "hold-after": "time windows in trajectory constraints (PDDL3 'hold-after')",
    "preference": "preferences (PDDL3)",
}


def _expected(names: Iterable[str], readable: Mapping[str, str]) -> str:
    shown = sorted({readable.get(n, n) for n in names})
    if len(shown) > 8:
        shown = shown[:8] + ["..."]
    return ", ".join(shown) if shown else "nothing more"


_NAME_CHAR = re.compile(r"[a-zA-Z0-9_\-?:]")
_DELIMITER = re.compile(r"[\s();]")


def _glued_word(text: str, start: int) -> tuple[str, int] | None:
    """The whole word around ``start`` if the lexer split it, else None.

    String keywords are matched as prefixes: ``(:initial-state`` lexes as ``:init`` then
    ``ial-state``, which would make the message quote a fragment. Reporting the word the user
    wrote, from its first character, says what is actually wrong.
    """
    if not (0 < start < len(text)) or not _NAME_CHAR.match(text[start - 1]):
        return None
    if not _NAME_CHAR.match(text[start]):
        return None
    begin = start
    while begin > 0 and not _DELIMITER.match(text[begin - 1]):
        begin -= 1
    end = start
    while end < len(text) and not _DELIMITER.match(text[end]):
        end += 1
    return text[begin:end], start - begin


def _split_word(word: str, cut: int) -> str:
    return f"'{word}' (read as '{word[:cut]}' followed by '{word[cut:]}')"



_PREFERENCE = re.compile(r"\(\s*preference(?![\w-])[^()]*$", re.I)


def _numeric_feature(text: str, pos: int | None) -> str | None:
    """Name the unsupported construct a syntax error stopped at, if it is one.

    A continuous effect's ``#t`` (PDDL 2.1 level 4) would otherwise read as a stray
    character. A PDDL3 preference
    ``(preference name (at a))`` reads as an atom ``(preference name`` followed by a stray
    ``(``; it is named too."""
    if pos is None or pos >= len(text):
        return None
    before = text[max(0, pos - 40):pos]
    if _PREFERENCE.search(before):
        return "preference"
    if text[pos] == "#":
        return "continuous"
    return None


def explain_syntax_error(text: str, err: UnexpectedInput, filename: str | None,
                         readable: Mapping[str, str]) -> PDDLSyntaxError:
    """The located error for lark's ``err`` on ``text``; ``readable`` names the terminals."""
    line, column = getattr(err, "line", None), getattr(err, "column", None)
    numeric = _numeric_feature(text, getattr(err, "pos_in_stream", None)
                               if isinstance(err, UnexpectedCharacters)
                               else getattr(getattr(err, "token", None), "start_pos", None))
    if numeric == "preference":
        return UnsupportedFeature(f"'preference' is not supported: "
                                  f"{UNSUPPORTED_SECTIONS['preference']}",
                                  file=filename, line=line, column=column)
    if numeric == "continuous":
        return UnsupportedFeature("'#t' is not supported here: continuous effects (PDDL 2.1 "
                                  "level 4) are read as linear rates only; expected a number "
                                  "or a fluent, or '(increase f (* #t e))' / '(decrease f "
                                  "(* #t e))' in a durative action's :effect",
                                  file=filename, line=line, column=column)
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else "?"
        found = f"character {ch!r}" if ch.isprintable() else f"byte {ord(ch):#04x}"
        glued = _glued_word(text, err.pos_in_stream)
        if glued is not None and column is not None:
            found, column = _split_word(*glued), max(1, column - glued[1])
        expected = _expected(err.allowed or (), readable)
    elif isinstance(err, (UnexpectedEOF,)) or (
            isinstance(err, UnexpectedToken) and err.token.type == "$END"):
        open_pos = unclosed_paren(text)
        where = (f": the '(' opened at line {open_pos[0]}, column {open_pos[1]} is never closed"
                 if open_pos else "")
        lines = text.splitlines() or [""]
        line, column = len(lines), len(lines[-1]) + 1
        return PDDLSyntaxError(
            f"unexpected end of file{where}; expected "
            f"{_expected(getattr(err, 'expected', ()) or (), readable)}",
            file=filename, line=line, column=column)
    else:  # UnexpectedToken
        tok = err.token
        if tok.value in UNSUPPORTED_SECTIONS:
            return UnsupportedFeature(f"'{tok.value}' is not supported: "
                                      f"{UNSUPPORTED_SECTIONS[tok.value]}",
                                      file=filename, line=line, column=column)
        found = "')'" if tok.value == ")" else f"'{tok.value}'"
        glued = _glued_word(text, tok.start_pos) if tok.start_pos is not None else None
        if glued is not None and column is not None:
            found, column = _split_word(*glued), max(1, column - glued[1])
        if tok.type == "$END":
            found = "end of file"
        expected = _expected(err.expected, readable)
        if set(err.expected) <= {"$END", "<END-OF-FILE>"}:
            expected = "end of file (the definition is already complete)"
        elif tok.type == "NAME" and all(readable.get(n, "").startswith("':")
                                        for n in err.expected):
            expected += " (is a section header such as '(:predicates' missing?)"
    crumb = breadcrumb(text, line, column) if line else ""
    where = f" in {crumb}" if crumb else ""
    return PDDLSyntaxError(f"unexpected {found}{where}; expected {expected}",
                           file=filename, line=line, column=column)
