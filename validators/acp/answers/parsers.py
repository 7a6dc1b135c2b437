"""Reading a model's answer to an ACPBench Hard question: one parser per answer shape.

The tasks are those of Kokel et al., "ACPBench Hard: Unrestrained Reasoning about
Action, Change, and Planning" (arXiv 2503.24378). Each parser takes the raw model
output and returns a value, or raises :class:`UnparseableAnswer` with a short reason;
it never raises anything else and never guesses:

* Only what is written is extracted. Inside prose, only parenthesised actions
  ``(sail l0 l1)`` and call forms ``sail(l0, l1)`` count; an unparenthesised item
  ``sail l0 l1`` counts only when the text (or one paragraph, or the lines above its
  trailing prose) is answer-shaped throughout and the item has no English function
  word (:data:`.text.PROSE_WORDS`).
* A single-answer task (reach, areach, land, nexta) needs one committed answer. The
  text after the last ``Answer:``-style marker is the commitment; several different
  actions, or an action next to an answer that starts "None ...", are ``ambiguous``.
* None is written ``None`` (any case, ``None.``, ``"None"``, ``[None]``), ``[]`` or, in
  prose with no action at all, "N/A", "null", "nil", "nothing", "no such action",
  "there is no atom", "no landmarks", ... (:func:`.text.says_none`).

Each parser reads the regions of :func:`.text.answer_regions` in turn (a
``\\boxed{}`` answer first) and, in a region, tries: the whole region as answer-shaped
text; the one answer-shaped paragraph (header lines such as "Applicable actions:"
dropped), or the lines above its trailing prose ("(a x)" then "This holds because
(b y) ..."); else prose, scanned for parenthesised actions.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

from planning_core.validators.acp.answers.grammar import (Answer, Found, Group, Item, NoneMark,
                                                          Node, parse_with)
from planning_core.validators.acp.answers.text import (MAX_ANSWER_CHARS, MAX_BARE_WORDS,
                                                       PROSE_WORDS,
                                                       answer_regions, for_grammar, paragraphs,
                                                       says_none, split_effects,
                                                       starts_with_none)
from planning_core.validators.acp.answers.values import GroundName, UnparseableAnswer

__all__ = ["ANSWER_PARSERS", "Effects", "GroundName", "UnparseableAnswer", "parse_action",
           "parse_action_list", "parse_action_or_none", "parse_atom_or_none",
           "parse_effects", "parse_index"]

Effects = tuple[tuple[GroundName, ...], tuple[GroundName, ...]]


# ------------------------------------------------------------------ fast path

_PLAIN_ITEM = (r"\(([ \t]*[A-Za-z][A-Za-z0-9_\-]*"
               r"(?:[ \t]+(?:[A-Za-z][A-Za-z0-9_\-]*|[0-9]+))*)[ \t]*\)")
# Separators are unambiguous (spaces before a comma only with the comma), so a failing
# match backtracks linearly, not exponentially, on a long answer.
_PLAIN_LIST = re.compile(rf"\s*(?:{_PLAIN_ITEM}(?:[ \t]*,)?\s*)+")
_PLAIN_FIND = re.compile(_PLAIN_ITEM)


def _plain(text: object) -> tuple[GroundName, ...] | None:
    """The actions of an answer that is nothing but parenthesised actions, else None.

    Most answers are written ``(a x) (b y)``, one per line or comma-separated; one regex
    reads those about 20 times faster than the grammar (issue 12), with the grammar's
    result: names and arguments as its ``NAME``/``NUMBER`` terminals spell them, and no
    markers, prose, brackets or ``None`` (a word ``none`` anywhere leaves it to the
    grammar). Anything else returns None and goes through the full reading below.
    """
    if (not isinstance(text, str) or len(text) > MAX_ANSWER_CHARS
            or _PLAIN_LIST.fullmatch(text) is None):
        return None
    out = []
    for match in _PLAIN_FIND.finditer(text):
        words = match.group(1).split()
        if any(w.lower() == "none" for w in words):
            return None
        out.append(GroundName(words[0], tuple(words[1:])))
    return tuple(out)


_PLAIN_SIDE = (rf"\[[ \t]*(?:{_PLAIN_ITEM}(?:[ \t]*(?:[,;][ \t]*)?{_PLAIN_ITEM})*)?"
               rf"[ \t]*\]")
_PLAIN_EFFECTS = re.compile(
    rf"\s*(?P<pos>{_PLAIN_SIDE})[ \t]*(?:,[ \t]*)?(?P<neg>{_PLAIN_SIDE})\s*")


def _plain_effects(text: object) -> Effects | None:
    """``[(a x), (b y)] [(c z)]``: two bracketed lists of plain actions on one line, read
    without the grammar, with its reading (positive, then negative); else None."""
    if not isinstance(text, str) or len(text) > MAX_ANSWER_CHARS:
        return None
    match = _PLAIN_EFFECTS.fullmatch(text)
    if match is None:
        return None
    sides = []
    for side in (match.group("pos"), match.group("neg")):
        inner = side[1:-1]
        found = _plain(inner) if inner.strip() else ()
        if found is None:
            return None
        sides.append(found)
    return sides[0], sides[1]


def _plain_single(text: object) -> GroundName | None:
    """The one action of a plain answer (:func:`_plain`) naming exactly one, else None."""
    found = _plain(text)
    if found and len(set(found)) == 1:
        return found[0]
    return None


# ------------------------------------------------------------------ shared steps

def _over_regions(text: object, read: Callable[[str], object]):
    """Apply ``read`` to each answer region in turn; the last region's error wins."""
    error: UnparseableAnswer | None = None
    for region in answer_regions(text):
        try:
            for_grammar(region)  # size and nesting limits apply to every region
            return read(region)
        except UnparseableAnswer as err:
            error = err
    assert error is not None  # answer_regions never returns an empty list
    raise error


def _walk(nodes: Iterable[Node]) -> Iterator[Item | NoneMark]:
    for node in nodes:
        if isinstance(node, Group):
            yield from _walk(node.elements)
        else:
            yield node


def _nodes(answer: Answer) -> Iterator[Item | NoneMark]:
    for line in answer.lines:
        yield from _walk(line.elements)


def _items(nodes: Iterable[Node]) -> tuple[GroundName, ...]:
    return tuple(n.value for n in _walk(nodes) if isinstance(n, Item))


def _is_prose(item: Item) -> bool:
    if not item.bare:
        return False
    words = (item.value.name, *item.value.args)
    return len(words) > MAX_BARE_WORDS or any(w in PROSE_WORDS for w in words)


def _strict(text: str) -> tuple[Answer | None, int | None]:
    """``text`` read as answer-shaped throughout, else ``(None, line)``.

    ``line`` is the first line (of the prepared text) that is not answer-shaped: where
    the grammar failed, or the first prose item. It is None when the failure is at the
    very end (an unclosed parenthesis: a cut-off answer is not silently shortened).
    """
    try:
        prepared = for_grammar(text)
        answer = parse_with(prepared, "answer")
    except UnparseableAnswer as err:
        return None, None if err.reason.startswith("unexpected end") else err.line
    prose = [n for n in _nodes(answer) if isinstance(n, Item) and _is_prose(n)]
    if prose:
        return None, prose[0].line
    return answer, None


def _before(text: str, line: int | None) -> Answer | None:
    """The lines above the first non-answer ``line``, when they are answer-shaped.

    This is how trailing prose -- a line "This holds because (b y) ..." under the
    answer "(a x)" -- is cut off: the answer comes first and its explanation after it.
    """
    if line is None or line <= 1:
        return None
    lines = for_grammar(text)[1:].split("\n")
    head = "\n".join(lines[:line - 1])
    if not head.strip():
        return None
    answer, _ = _strict(head)
    return answer if answer is not None and any(_nodes(answer)) else None


def _structure(region: str) -> Answer | None:
    """The answer-shaped reading of a region, or None when it is prose.

    First the whole region; else, per paragraph (header lines dropped), the paragraph or
    its lines above trailing prose -- used when exactly one paragraph gives one.
    """
    whole, whole_line = _strict(region)
    if whole is not None:
        return whole
    found = []
    for block in paragraphs(region):
        if block.strip() == region.strip():
            answer, line = whole, whole_line
        else:
            answer, line = _strict(block)
        if answer is None:
            answer = _before(block, line)
        if answer is not None and any(_nodes(answer)):
            found.append(answer)
            if len(found) > 1:  # several answer-shaped paragraphs: none is "the" answer
                return None
    return found[0] if found else None


def _found(region: str) -> tuple[GroundName, ...]:
    """Parenthesised actions in prose, in order (raises on unbalanced parentheses)."""
    pieces = parse_with(for_grammar(region), "scan")
    return tuple(p.value for p in pieces if isinstance(p, Found))


def _distinct(values: Iterable[GroundName]) -> list[GroundName]:
    return list(dict.fromkeys(values))


# ------------------------------------------------------------------ single answers

def _one(values: list[GroundName], has_none: bool, allow_none: bool, what: str):
    if values and has_none:
        raise UnparseableAnswer(f"ambiguous: both None and {what} {values[0]}")
    if len(values) > 1:
        listed = ", ".join(str(v) for v in values[:3])
        raise UnparseableAnswer(f"ambiguous: {len(values)} different {what}s ({listed}"
                                f"{', ...' if len(values) > 3 else ''})")
    if values:
        return values[0]
    if allow_none:
        return None
    raise UnparseableAnswer(f"no {what}: the answer says None, but one {what} is needed")


def _read_single(region: str, *, allow_none: bool, what: str) -> GroundName | None:
    answer = _structure(region)
    if answer is not None:
        nodes = list(_nodes(answer))
        values = _distinct(n.value for n in nodes if isinstance(n, Item))
        has_none = any(isinstance(n, NoneMark) for n in nodes) or not nodes
        return _one(values, has_none, allow_none, what)
    values = _distinct(_found(region))
    if values:
        return _one(values, allow_none and starts_with_none(region), allow_none, what)
    if says_none(region):
        return _one([], True, allow_none, what)
    raise UnparseableAnswer(f"no {what} found")


def parse_atom_or_none(text: object) -> GroundName | None:
    """One ground atom, or None (tasks reach and land). ``at a0 l0-2`` is accepted."""
    return _plain_single(text) or _over_regions(text, lambda r: _read_single(r, allow_none=True, what="atom"))


def parse_action_or_none(text: object) -> GroundName | None:
    """One ground action, or None (task areach)."""
    return _plain_single(text) or _over_regions(text, lambda r: _read_single(r, allow_none=True, what="action"))


def parse_action(text: object) -> GroundName:
    """Exactly one ground action (task nexta); None is not an answer here."""
    return _plain_single(text) or _over_regions(text, lambda r: _read_single(r, allow_none=False, what="action"))


# ------------------------------------------------------------------ lists

def _read_list(region: str, *, prose_may_be_empty: bool = False) -> tuple[GroundName, ...]:
    answer = _structure(region)
    if answer is not None:
        return tuple(n.value for n in _nodes(answer) if isinstance(n, Item))
    found = _found(region)
    if found or prose_may_be_empty or says_none(region):
        return found
    raise UnparseableAnswer("no action found")


def parse_action_list(text: object) -> tuple[GroundName, ...]:
    """Ground actions in the order written, repeats kept (tasks app and just).

    For app the answer is a set (the scorer takes ``set()``); for just it is a plan, a
    sequence. ``None`` or ``[]`` gives ``()``.
    """
    found = _plain(text)
    return found if found is not None else _over_regions(text, _read_list)


# ------------------------------------------------------------------ effects (prog)

def _effects_of(answer: Answer) -> Effects:
    """Positive and negative effects from answer-shaped text.

    One line: ``[..] [..]`` (two lists), ``[[..], [..]]`` (a pair), or one list
    (positive only). Several lines: all bullets is one list; exactly two lines are
    positive then negative; more one-item lines are one newline-separated list.
    """
    lines = answer.lines
    if len(lines) == 1:
        elements = lines[0].elements
        if not any(isinstance(e, Group) for e in elements):
            return _items(elements), ()
        # "[...] None": an explicit None beside a list is an empty list.
        groups = [Group(()) if isinstance(e, NoneMark) else e for e in elements]
        if not all(isinstance(e, Group) for e in groups):
            raise UnparseableAnswer("expected two lists, found a list mixed with items")
        if len(groups) == 1:
            inner = groups[0].elements
            if len(inner) == 2 and all(isinstance(e, Group) for e in inner):
                return _items(inner[:1]), _items(inner[1:])
            return _items(inner), ()
        if len(groups) == 2:
            return _items(groups[:1]), _items(groups[1:])
        raise UnparseableAnswer(f"expected two lists, found {len(groups)}")
    if all(line.bullet for line in lines):
        return _items(e for line in lines for e in line.elements), ()
    if len(lines) == 2:
        return _items(lines[0].elements), _items(lines[1].elements)
    if all(len(line.elements) == 1 and isinstance(line.elements[0], Item) for line in lines):
        return _items(e for line in lines for e in line.elements), ()
    raise UnparseableAnswer(f"expected two lists, found {len(lines)} lines")


def _untuple(region: str) -> str:
    """``([..], [..])`` -- the two lists written as a Python tuple -- without the tuple's
    parentheses (IBM's parser accepts this form too). Linear: only the ends are looked at."""
    s = region.strip().rstrip(".").rstrip()
    if s.startswith("(") and s.endswith(")"):
        inner = s[1:-1].strip()
        if inner.startswith("[") and inner.rstrip(",").rstrip().endswith("]"):
            return inner.rstrip(",").rstrip()
    return region


def _read_effects(region: str) -> Effects:
    region = _untuple(region)
    sides = split_effects(region)
    if sides is not None:
        pos, neg = (_read_list(s, prose_may_be_empty=True) if s.strip() else () for s in sides)
        return pos, neg
    answer = _structure(region)
    if answer is not None:
        return _effects_of(answer)
    if _found(region):
        raise UnparseableAnswer("effects are not split into positive and negative")
    if says_none(region):
        return (), ()
    raise UnparseableAnswer("no effects found")


def parse_effects(text: object) -> Effects:
    """Positive, then negative effects of an action (task prog).

    Accepted: ``[(a)] [(b), (c)]``; ``[["(a)"], ["(b)"]]``; ``([(a)], [(b)])`` (a tuple of
    the two lists); two lines; one list alone
    (positive; negative empty); labelled sides ("Positive effects: ...", "Negative
    effects: ...", headings, ``{"pos": [...], "neg": [...]}``) in either order, each side
    any list shape, ``None``/``[]``/empty for an empty side.
    """
    found = _plain_effects(text)
    return found if found is not None else _over_regions(text, _read_effects)


# ------------------------------------------------------------------ index (val)

_MAX_INDEX_DIGITS = 9  # no plan is a billion steps long; keeps int() bounded
_INDEX_FILLERS = frozenset({":", "=", "#", "is", "number", "no", "no."})


def _glued_to_word(tokens: list, i: int) -> bool:
    """Whether number token ``i`` is part of a word: "1st", "0-based", "-1", "1.5"."""
    tok = tokens[i]
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    before = tokens[i - 1] if i > 0 else None
    if after is not None and after.start_pos == tok.end_pos:
        if after.type in ("NAME", "NUMBER") or (after.type == "OTHER" and after.value[0] in "-%"):
            return True
        if (after.type == "OTHER" and after.value == "." and i + 2 < len(tokens)
                and tokens[i + 2].type == "NUMBER" and tokens[i + 2].start_pos == after.end_pos):
            return True
    if before is not None and before.end_pos == tok.start_pos:
        if before.type in ("NAME", "NUMBER") or (before.type == "OTHER"
                                                  and before.value[-1] in "-."):
            return True
    return False


def _index_candidates(region: str) -> tuple[list[int], list[int]]:
    """Numbers in prose, and those right after the word "index" (preferred).

    A number glued to a word or a dash ("1st", "0-based", "-1") is not an index.
    """
    tokens = []
    for piece in parse_with(for_grammar(region), "scan"):
        tokens.extend(piece.tokens if isinstance(piece, Found) else (piece,))
    every: list[int] = []
    preferred: list[int] = []
    for i, tok in enumerate(tokens):
        if tok.type != "NUMBER":
            continue
        if _glued_to_word(tokens, i) or len(tok.value) > _MAX_INDEX_DIGITS:
            continue
        every.append(int(tok.value))
        j = i - 1
        while j >= 0 and j >= i - 3 and tokens[j].value.lower() in _INDEX_FILLERS:
            j -= 1
        if j >= 0 and tokens[j].value.lower() == "index":
            preferred.append(int(tok.value))
    return every, preferred


def _read_index(region: str) -> int:
    try:
        return parse_with(for_grammar(region), "index")
    except UnparseableAnswer:
        pass
    every, preferred = _index_candidates(region)
    for values in (preferred, every):
        distinct = sorted(set(values))
        if len(distinct) == 1:
            return distinct[0]
        if distinct:
            raise UnparseableAnswer(f"ambiguous: {len(distinct)} different indices "
                                    f"({', '.join(map(str, distinct[:3]))})")
    raise UnparseableAnswer("no index found")


def parse_index(text: object) -> int:
    """The 0-based index of the first inapplicable action (task val).

    ``3``, ``3.``, ``**3**``, ``[3]``, ``Index: 3``, "The first inapplicable action is
    at index 3 (0-based)". Ordinals ("the 4th action") are not read: their base is a guess.
    """
    return _over_regions(text, _read_index)


#: Task name -> parser, as the ACPBench Hard task names are spelled in the data.
ANSWER_PARSERS: dict[str, Callable[[object], object]] = {
    "app": parse_action_list,
    "prog": parse_effects,
    "reach": parse_atom_or_none,
    "areach": parse_action_or_none,
    "val": parse_index,
    "just": parse_action_list,
    "land": parse_atom_or_none,
    "nexta": parse_action,
}
