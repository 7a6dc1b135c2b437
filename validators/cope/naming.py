"""Mapping the names a model writes onto the object names of a ground-truth problem.

Models name CoPE objects the way the descriptions do, not the way the PDDL does: "Block 3"
for ``block3``, "b3" or a bare "3", "Block A" for ``a``, "the red block" for ``red``, "the
living room" for ``living_room``, "step 1" for ``step1``. :class:`ObjectIndex` resolves such
mentions, and only ever to a name that exists in the problem: a mention that fits no object
(or fits several) stays unresolved so that the validator reports it instead of this layer
guessing. Each successful mapping names the rule that produced it, so a scorer can tell a
verbatim answer from a repaired one.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

COLOURS = frozenset({"red", "blue", "green", "yellow", "orange", "purple", "pink", "black",
                     "white", "brown", "grey", "gray", "cyan", "magenta", "violet"})

_FAMILY = re.compile(r"([a-z][a-z_-]*?)[_-]?(\d+)")
_ABBREVIATION = re.compile(r"([a-z]+)[_-]?(\d+)")
_SEPARATORS = re.compile(r"[-_\s]+")


def squash(name: str) -> str:
    """Case- and separator-free key: ``Pick-Up``, ``pick_up`` and ``pick up`` agree."""
    return _SEPARATORS.sub("", name.lower())


def _number(digits: str) -> int | None:
    """``digits`` as an int, or None when no object can carry that number: a superscript
    (``isdigit`` but not ``int``-able) or more digits than any object name has (``int`` of
    a 4,301-digit model token raises ``ValueError``, issue 19 item 12)."""
    if not digits.isdecimal() or len(digits) > 18:
        return None
    return int(digits)


def type_hint(param: str) -> str:
    """The type a head parameter names: ``block1`` -> ``block``, ``room2`` -> ``room``."""
    return re.sub(r"\d+$", "", param.lower().lstrip("?"))


@dataclass(frozen=True, slots=True)
class Resolution:
    name: str
    consumed: int
    rule: str | None


class ObjectIndex:
    """Lookup tables over one problem's objects (built once per plan, never mutated)."""

    __slots__ = ("names", "types", "type_words", "_squashed", "_families", "_aliases")

    def __init__(self, objects: Iterable[str] | Mapping[str, str | None],
                 description: str | None = None) -> None:
        if isinstance(objects, Mapping):
            types = {str(k).lower(): (str(v).lower() if v else None) for k, v in objects.items()}
        else:
            types = {}
            for item in objects:
                if isinstance(item, tuple):
                    types[str(item[0]).lower()] = str(item[1]).lower() if item[1] else None
                else:
                    types[str(item).lower()] = None
        self.names = frozenset(types)
        self.types = types
        self.type_words = frozenset(t for t in types.values() if t) - self.names
        squashed: dict[str, set[str]] = {}
        families: dict[str, dict[int, str]] = {}
        for name in sorted(self.names):
            squashed.setdefault(squash(name), set()).add(name)
            match = _FAMILY.fullmatch(name)
            if match:
                families.setdefault(match.group(1), {})[int(match.group(2))] = name
        self._squashed = {k: next(iter(v)) for k, v in squashed.items() if len(v) == 1}
        self._families = families
        self._aliases = description_aliases(description or "", self.names)

    def resolve(self, tokens: list[str], start: int, hint: str | None) -> Resolution | None:
        """The object named by ``tokens[start:]`` (longest mention first), or None."""
        for width in (3, 2):
            words = [t.lower() for t in tokens[start:start + width]]
            if len(words) < width:
                continue
            joined = "_".join(words)
            if joined in self.names:
                return Resolution(joined, width, "object-multiword")
            if "".join(words) in self.names:
                return Resolution("".join(words), width, "object-spaced")
            if " ".join(words) in self._aliases:
                return Resolution(self._aliases[" ".join(words)], width,
                                  "object-description-alias")
        single = self.resolve_token(tokens[start], hint)
        if single is not None:
            return Resolution(single[0], 1, single[1])
        return None

    def resolve_token(self, raw: str, hint: str | None) -> tuple[str, str | None] | None:
        token = raw.lower()
        if token in self.names:
            return token, (None if token == raw else "object-case")
        if token in self._aliases:
            return self._aliases[token], "object-description-alias"
        key = squash(token)
        if key in self._squashed:
            return self._squashed[key], "object-separator"
        for prefix in ("block", "room", "the"):
            if token.startswith(prefix) and token[len(prefix):].strip("_-") in self.names:
                return token[len(prefix):].strip("_-"), "object-prefixed"
        if token.isdigit():
            number = _number(token)
            found = self._by_number(number, None, hint) if number is not None else None
            return (found, "object-number") if found else None
        match = _ABBREVIATION.fullmatch(token)
        if match:
            number = _number(match.group(2))
            found = self._by_number(number, match.group(1), hint) if number is not None else None
            return (found, "object-abbreviation") if found else None
        return None

    def _by_number(self, number: int, abbreviation: str | None,
                   hint: str | None) -> str | None:
        """The numbered object a short form means, if exactly one family fits.

        ``abbreviation`` must be a prefix of the family name (``b3``/``bl3`` for ``block3``);
        a bare number uses the head parameter's type hint to choose between families
        (``block3`` or token ``t3``). Ambiguity resolves to nothing rather than a guess.
        """
        candidates = [(prefix, members[number]) for prefix, members in self._families.items()
                      if number in members
                      and (abbreviation is None or prefix.startswith(abbreviation))]
        if len(candidates) > 1 and hint:
            candidates = [c for c in candidates
                          if c[0] == hint or self.types.get(c[1]) == hint]
        return candidates[0][1] if len(candidates) == 1 else None

    def type_of(self, name: str) -> str | None:
        return self.types.get(name)


def description_aliases(description: str, names: Iterable[str]) -> dict[str, str]:
    """Colour words the description ties to a block, e.g. "Block 3 is red" -> red: block3.

    The CoPE BlocksWorld descriptions that use colours name the objects by the colour itself
    (objects ``red blue green yellow``), which needs no alias. Descriptions that instead
    attach a colour to a numbered or lettered block are read with three patterns:
    "Block 3 is red", "the red block (Block 3)" and "block 3 (red)". Both "red" and
    "red block" become aliases; a colour tied to two different blocks is dropped.
    """
    known = set(names)
    text = description.lower()
    ident = r"block\s*([a-z0-9_]+)"
    colour = "(" + "|".join(sorted(COLOURS)) + ")"
    patterns = (
        (rf"\b{ident}\s+is\s+(?:coloured\s+|colored\s+)?{colour}\b", 1, 2),
        (rf"\b{colour}\s+block\s*[,(:]\s*{ident}", 2, 1),
        (rf"\b{ident}\s*\(\s*{colour}\s*\)", 1, 2),
    )
    found: dict[str, set[str]] = {}
    for pattern, which_block, which_colour in patterns:
        for match in re.finditer(pattern, text):
            block = match.group(which_block)
            for candidate in (f"block{block}", block):
                if candidate in known:
                    found.setdefault(match.group(which_colour), set()).add(candidate)
                    break
    aliases: dict[str, str] = {}
    for word, blocks in sorted(found.items()):
        if len(blocks) == 1 and word not in known:
            aliases[word] = aliases[f"{word} block"] = next(iter(blocks))
    return aliases
