"""Plain-text preparation of a model's answer before the grammar sees it.

Models wrap answers in reasoning, markdown and prose. Each step here is one explicit,
separately tested transformation, cheap (linear in the text) so that even a megabyte
of output is handled quickly:

1. :func:`normalise` -- newlines to ``\\n``, invisible characters dropped.
2. :func:`strip_thinking` -- ``<think>...</think>`` reasoning removed (the answer follows it).
3. :func:`strip_fences` -- markdown code-fence lines removed (their content kept).
3b. :func:`first_answer` -- a follow-on question the model invents after its answer
   (``**Question**: ... **Final Answer**: ...``) cut off with everything after it: the
   first answer counts, as it does where the server honours the paper's stop sequences.
4. :func:`answer_regions` -- where the answer is committed: after the last
   ``Answer:`` / ``Final answer:`` / ``The answer is`` / ``Simplified plan:`` marker or
   inside the last ``\\boxed{...}``; earlier markers and the whole text are fall-backs.
5. :func:`for_grammar` -- size limit, nesting limit, newlines inside ``(...)`` joined
   (a newline inside an action is whitespace), leading ``\\n`` added for the lexer.

Also here, because they are judgements about prose rather than grammar:
:func:`paragraphs` (blank-line blocks without their header lines), :func:`says_none`
(phrasings that mean "there is no such action/atom"), :func:`split_effects` (the
"Positive effects: ... Negative effects: ..." layout of task prog) and
:data:`PROSE_WORDS` (English words that make an unparenthesised item prose).
"""
from __future__ import annotations

import re

from planning_core.validators.acp.answers.values import UnparseableAnswer

#: Longest answer region (after reasoning and text before the last answer marker are
#: dropped) handed to the grammar. The dev set's gold answers, written out, are at most
#: 5.6 kB. Lark's LALR parser reads about 50-100 kB/s on the project's machines and a
#: region may be read up to four times (whole, per paragraph, above trailing prose,
#: scanned), so a longer region -- prose or a runaway generation -- is rejected cleanly
#: instead of being parsed for seconds.
MAX_ANSWER_CHARS = 20_000
#: Deepest nesting of brackets/parentheses accepted (tree transforms recurse per level).
MAX_NESTING = 32

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)
_INVISIBLE.update({0xA0: " ", 0x2028: "\n", 0x2029: "\n"})


def normalise(text: object) -> str:
    """Return ``text`` with ``\\r\\n``/``\\r`` as ``\\n`` and zero-width characters gone."""
    if not isinstance(text, str):
        raise UnparseableAnswer(f"answer is not text but {type(text).__name__}")
    return text.replace("\r\n", "\n").replace("\r", "\n").translate(_INVISIBLE)


_THINK_TAG = re.compile(r"<(/?)think(?:ing)?>", re.IGNORECASE)


def strip_thinking(text: str) -> str:
    """Remove reasoning blocks ``<think>...</think>`` (also ``<thinking>``).

    A close tag without an opening one (chat templates often put ``<think>`` in the
    prompt) means everything before it was reasoning; an opening tag that is never
    closed means everything after it is unfinished reasoning. One linear pass over
    the tags.
    """
    kept: list[str] = []
    inside = False
    start = 0
    for tag in _THINK_TAG.finditer(text):
        closing = bool(tag.group(1))
        if not closing and not inside:
            kept.append(text[start:tag.start()])
            inside = True
        elif closing:
            if not inside:
                kept.clear()
            inside = False
            start = tag.end()
    if not inside:
        kept.append(text[start:])
    return "".join(kept)


_FENCE = re.compile(r"^[ \t]*(?:```|~~~)[\w+.-]*[ \t]*$", re.MULTILINE)


def strip_fences(text: str) -> str:
    """Drop markdown code-fence lines (```` ``` ````, ```` ```json ````, ``~~~``)."""
    return _FENCE.sub("", text)


_LABEL = r"(?:(?:final|correct)\s+answer|answer|(?:simplified|resulting)\s+plan)"
_MARKER = re.compile(
    rf"(?<![A-Za-z0-9]){_LABEL}[\s*_`#]*(?:is[\s*_`]*)?[:=][*_`]*"
    rf"|(?<![A-Za-z0-9])(?:(?:the|my)\s+{_LABEL}|final\s+answer)[\s*_`]+is\b[\s*_`]*:?",
    re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\s*\{")


_BRACE = re.compile(r"[{}]")


def _boxed_content(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` (braces balanced), or None."""
    at = text.rfind("\\boxed")
    start = _BOXED.match(text, at) if at >= 0 else None
    if start is None:
        return None
    depth = 1
    for brace in _BRACE.finditer(text, start.end()):
        depth += 1 if brace.group() == "{" else -1
        if depth == 0:
            return text[start.end():brace.start()]
    return None


#: Where a model starts inventing the next question: the paper's setting stops generation at
#: ``**Question**:``, ``**Question:**`` and ``Q:`` (lm-evaluation-harness's ACPBench Hard
#: tasks). ``Q:`` counts only at the start of a line or after whitespace.
_NEXT_QUESTION = re.compile(r"\*\*Question\*\*:|\*\*Question:\*\*|(?:(?<=\s)|^)Q:",
                            re.MULTILINE)


def first_answer(text: str) -> str:
    """``text`` up to the first invented follow-on question (see :data:`_NEXT_QUESTION`).

    A marker with nothing but blank space before it (a model restating the question before
    answering) is not a follow-on: the cut is at the first marker after some content.
    """
    for m in _NEXT_QUESTION.finditer(text):
        if text[:m.start()].strip():
            return text[:m.start()]
    return text


def answer_regions(text: str) -> list[str]:
    """Where the answer is, most committed first (at most two regions).

    The content of the last ``\\boxed{...}`` comes first when there is one; then the
    text after the last answer marker (``Answer:``, ``Final answer:``, ``**Answer**:``,
    ``The answer is``, ``Simplified plan:`` ...), or the whole text when no marker is
    followed by anything. Text before the last marker is never used: it is reasoning
    the model moved past. The result is never empty (the text may be).
    """
    text = first_answer(strip_fences(strip_thinking(normalise(text))))
    regions: list[str] = []
    boxed = _boxed_content(text)
    if boxed is not None and boxed.strip():
        regions.append(boxed)
    end = _last_marker_end(text)
    regions.append(text if end is None else text[end:])
    return regions


def _last_marker_end(text: str) -> int | None:
    """End of the last answer marker followed by some text, or None.

    One forward pass of the marker pattern over the text: linear, where a backwards search
    that rescanned the prefix for each key word made a 1.3 MB answer take 15 s. "Followed by
    some text" compares with the end of the text's last non-blank character instead of
    copying the rest of the text per candidate.
    """
    content_end = len(text.rstrip())
    last = None
    for m in _MARKER.finditer(text):
        if m.end() < content_end:
            last = m.end()
    return last

_INNER_PARENS = re.compile(r"\([^()]*\)")
_NESTING = re.compile(r"[\[\]()]")


def _max_nesting(text: str) -> int:
    depth = deepest = 0
    for m in _NESTING.finditer(text):
        if m.group() in "([":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


def for_grammar(region: str) -> str:
    """Prepare one region for the lark grammar (see grammars/acp_answer.lark).

    Raises :class:`UnparseableAnswer` for an empty, too long or too deeply nested region.
    """
    region = region.strip()
    if not region:
        raise UnparseableAnswer("empty answer")
    if len(region) > MAX_ANSWER_CHARS:
        raise UnparseableAnswer(
            f"answer too long ({len(region)} characters, limit {MAX_ANSWER_CHARS})")
    if _max_nesting(region) > MAX_NESTING:
        raise UnparseableAnswer(f"brackets nested deeper than {MAX_NESTING}")
    if "\n" in region:
        region = _INNER_PARENS.sub(lambda m: m.group().replace("\n", " "), region)
    return "\n" + region


_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_HEADER = re.compile(r"^(?:[ \t]*#.*|[^()\n]*:[\s*_`]*)$")


def paragraphs(region: str) -> list[str]:
    """Blank-line separated blocks, each without leading header lines.

    A header line ("Here are the applicable actions:", "**Plan:**") ends with a colon and
    holds no parenthesis; it introduces the list below it and is not part of it.
    """
    blocks = []
    for block in _BLANK_LINE.split(region):
        lines = block.strip("\n").split("\n")
        while lines and (_HEADER.match(lines[0]) or not lines[0].strip()):
            lines.pop(0)
        if lines:
            blocks.append("\n".join(lines))
    return blocks


_NONE_PHRASE = re.compile(
    r"(?<![A-Za-z0-9-])(?:none|n/a|null|nil|nothing"
    r"|no\s+(?:such\s+)?(?:ground\s+|valid\s+|possible\s+)?"
    r"(?:action|atom|proposition|fact|landmark)s?"
    r"|there\s+(?:is|are|exists?)\s+no)(?![A-Za-z0-9-])",
    re.IGNORECASE)


def says_none(text: str) -> bool:
    """Whether prose says there is no such action/atom.

    Accepted: ``None`` (any case, with punctuation), ``N/A``, ``null``, ``nil``,
    ``nothing``, ``no action``/``no such atom``/``no valid proposition``/``no landmarks``
    ..., ``there is no ...``/``there are no ...``/``there exists no ...``. Callers use it
    only when no action was found, so "None of them except (a x)" is not read as None.
    """
    return _NONE_PHRASE.search(text) is not None


def starts_with_none(text: str) -> bool:
    """Whether the text opens with a None phrase ("None.", "There is no such action ...")."""
    return _NONE_PHRASE.match(text.lstrip(" \t\n*_`#>-:\"'")) is not None


_POS_LABEL = r"(?:positive|pos|add(?:ed)?|add[_ -]list)(?:[\s_-]+effects?)?"
_NEG_LABEL = r"(?:negative|neg|delete[ds]?|del(?:ete)?[_ -]list)(?:[\s_-]+effects?)?"
_LABEL_TAIL = (r"(?:[\s*_`\"']*(?:\s(?:are|is))?[\s*_`\"']*(?:[:=]|\n)"
               r"|\s+(?:are|is)\b(?=[\s*_`]*[(\[]))")
_EFFECT_LABEL_PATTERN = (
    rf"(?<![A-Za-z0-9-])(?:(?P<pos>{_POS_LABEL})|(?P<neg>{_NEG_LABEL})){_LABEL_TAIL}")
_EFFECT_LABEL: list[re.Pattern] = []     # compiled on first use: only prog answers need it


def _effect_label() -> re.Pattern:
    """The effect-label pattern, compiled once per process when first needed (about 4 ms:
    a process scoring other tasks' answers does not pay it)."""
    if not _EFFECT_LABEL:
        _EFFECT_LABEL.append(re.compile(_EFFECT_LABEL_PATTERN, re.IGNORECASE))
    return _EFFECT_LABEL[0]
_SIDE_JUNK = " \t\n,;:={}\"'*_`#"


def split_effects(region: str) -> tuple[str, str] | None:
    """Split "Positive effects: ... Negative effects: ..." into the two sides' texts.

    Labels: ``positive``/``pos``/``add``/``added``/``add list`` and
    ``negative``/``neg``/``delete``/``deleted``/``del``/``delete list``, optionally
    followed by ``effects``, then a colon, ``=``, "are:" or a line break (a heading).
    JSON keys work too: ``{"pos": [...], "neg": [...]}``. The last label of each kind
    counts; a side runs to the next label or the end. A missing side is ``""``. Returns
    ``None`` when there is no label at all.
    """
    labels = list(_effect_label().finditer(region))
    if not labels:
        return None
    sides = {"pos": "", "neg": ""}
    for i, m in enumerate(labels):
        end = labels[i + 1].start() if i + 1 < len(labels) else len(region)
        kind = "pos" if m.group("pos") else "neg"
        sides[kind] = region[m.end():end].strip(_SIDE_JUNK)
    return sides["pos"], sides["neg"]


#: Words that never name a PDDL object or predicate in practice but fill English prose.
#: An item written without parentheses that contains one of them is prose, not an atom
#: ("I cannot determine this" is not the action ``(i cannot determine this)``).
PROSE_WORDS = frozenset("""
    the an is are was were be been being am there here this that these those which what
    who whom whose will would should could can cannot may might must shall not no yes
    because since so therefore thus hence we i you he she it its they them their our my
    your answer answers of if then else and or but as by with without for all any some
    only also such than too very do does did done has have had having let lets me us ok
    okay sure action actions atom atoms proposition propositions effect effects none
    following below above given possible applicable inapplicable reachable unreachable
    null nil nothing unknown
""".split())
#: Longest item written without parentheses that is still read as an atom.
MAX_BARE_WORDS = 8
