"""Reading the CoPE constrained-planning ground truth into immutable ``Pair`` records.

CoPE ("Language Model as Planner and Formalizer under Constraints", Huang et al.) pairs a
planning problem with one natural-language constraint and a hand-edited ground-truth
domain/problem (``df``/``pf``) that encodes it. One dataset folder looks like::

    descriptions/pNN_{domain,problem}.txt      natural-language task given to a model
    pddl/domain.pddl, pddl/pNN.pddl            the unconstrained task
    action_heads/action_heads.txt              action signatures of the unconstrained domain
    constraints/<category>/descriptions/constraintK.txt
    constraints/<category>/action_heads/pNN_constraintK.txt
    constraints/<category>/pddl/pNN/pNN_constraintK_{df,pf}.pddl
    constraints/<category>/pddl/groundtruth_plan_info.jsonl

How the baseline is represented. The data ships a ``baseline`` category folder like the four
constraint categories (initial, goal, action, state): one pair per problem, numbered
``pNN_constraintNN``, with an empty constraint description and df/pf files byte-identical to
``pddl/domain.pddl`` and ``pddl/pNN.pddl``. So baseline pairs are read from that folder
exactly like the others and nothing is synthesised from ``pddl/``. Some problems have no
baseline pair (BlocksWorld p58-p60, eight CoinCollector problems); that is reported as a
dataset-level note by :func:`load_dataset_report`, not papered over. Every pair also carries
``base_domain_path``/``base_problem_path`` (the unconstrained files) for editing formalizers.

The ground truth marks its edits with ``;; BEGIN ADD|EDIT|DELETE`` / ``;; END ...`` comment
lines; regions may nest (an EDIT around ADDs) and some are unbalanced. :func:`parse_edits`
reads them with a stack and records every unbalanced region as ``balanced=False`` instead
of failing. Odd files never raise: anything missing or unreadable becomes a string in the
pair's ``defects`` (and a ``None`` field), because the data is real-world input.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from planning_core import safe_json

CATEGORIES = ("baseline", "initial", "goal", "action", "state")
EDIT_KINDS = ("add", "edit", "delete")

_MARKER = re.compile(r"^\s*;+\s*(BEGIN|END)\b[ \t]*(.*?)\s*$", re.IGNORECASE)
_CONSTRAINT_COMMENT = re.compile(r"^\s*;+\s*CONSTRAINT\b\s*(.*?)\s*$", re.IGNORECASE)
_PAIR_FILE = re.compile(r"(p\d+)_(constraint\d+)_(df|pf)\.pddl")
_HEADS_FILE = re.compile(r"(p\d+)_(constraint\d+)\.txt")
_HEAD = re.compile(r"\(\s*([^\s()]+)((?:\s+[^\s()]+)*)\s*\)")


@dataclass(frozen=True, slots=True)
class ActionHead:
    """One action signature as shown to a model, e.g. ``(stack block1 block2)``."""

    name: str
    params: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Edit:
    """One ``;; BEGIN KIND`` ... ``;; END KIND`` region of a ground-truth file.

    Lines are 1-based and point at the markers; ``text`` is the lines strictly between them.
    An unclosed region runs to the end of the file (``end_line`` = last line); an END without
    a BEGIN has ``start_line == end_line`` and empty text. Both have ``balanced=False``.
    """

    kind: str
    file: str
    start_line: int
    end_line: int
    text: str
    balanced: bool


@dataclass(frozen=True, slots=True)
class Pair:
    """A (problem, constraint) instance with its ground truth and what the model is shown."""

    dataset: str
    category: str
    problem: str
    constraint: str
    constraint_text: str
    domain_path: Path | None
    problem_path: Path | None
    domain_description: str | None
    problem_description: str | None
    action_heads_text: str | None
    action_heads: tuple[ActionHead, ...]
    plan_exists: bool | None
    edits: tuple[Edit, ...]
    constraint_comment: str | None = None
    base_domain_path: Path | None = None
    base_problem_path: Path | None = None
    defects: tuple[str, ...] = ()

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.dataset, self.category, self.problem, self.constraint)


def _number(name: str) -> int:
    digits = re.sub(r"\D", "", name)
    return int(digits) if digits else -1


def _read(path: Path, root: Path, defects: list[str]) -> str | None:
    """File text, or None with a defect; undecodable bytes are replaced, never fatal."""
    rel = _rel(path, root)
    if not path.exists():
        defects.append(f"missing file {rel}")
        return None
    if not path.is_file():
        defects.append(f"not a file: {rel}")
        return None
    try:
        data = path.read_bytes()
    except OSError as exc:
        defects.append(f"unreadable file {rel}: {exc.strerror or exc}")
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        defects.append(f"file {rel} is not UTF-8; undecodable bytes replaced")
        return data.decode("utf-8", errors="replace")


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


def parse_action_heads(text: str) -> tuple[tuple[ActionHead, ...], tuple[str, ...]]:
    """Signatures from an action-heads file (one ``(name param ...)`` per group).

    Returns the heads in file order plus complaints about text that is not a head. Names and
    parameters are lower-cased, as the PDDL parser lower-cases names.
    """
    heads: list[ActionHead] = []
    problems: list[str] = []
    pos = 0
    for match in _HEAD.finditer(text):
        stray = text[pos:match.start()].strip()
        if stray:
            problems.append(f"unexpected text in action heads: {stray[:40]!r}")
        heads.append(ActionHead(match.group(1).lower(),
                                tuple(p.lower() for p in match.group(2).split())))
        pos = match.end()
    if text[pos:].strip():
        problems.append(f"unexpected text in action heads: {text[pos:].strip()[:40]!r}")
    return tuple(heads), tuple(problems)


def parse_edits(text: str, file: str) -> tuple[tuple[Edit, ...], tuple[str, ...]]:
    """Edit regions of one ground-truth file plus complaints about malformed markers.

    A stack matches each END with the innermost open BEGIN of the same kind; regions opened
    above it and never closed are popped as unbalanced (ending on the line before that END).
    A BEGIN/END whose word is not ADD/EDIT/DELETE (the data has ``;; BEGIN You start by ...``)
    is not an edit: it is reported as a complaint. Output is sorted by start line.
    """
    lines = text.splitlines()
    stack: list[tuple[str, int]] = []
    edits: list[Edit] = []
    problems: list[str] = []

    def body(start: int, end: int) -> str:
        return "\n".join(lines[start:end - 1])

    for number, line in enumerate(lines, start=1):
        match = _MARKER.match(line)
        if match is None:
            continue
        which, rest = match.group(1).upper(), match.group(2)
        kind = rest.split()[0].lower() if rest.split() else ""
        if kind not in EDIT_KINDS or len(rest.split()) > 1:
            problems.append(f"{file}:{number}: malformed marker {line.strip()!r}")
            continue
        if which == "BEGIN":
            stack.append((kind, number))
            continue
        depth = next((i for i in range(len(stack) - 1, -1, -1) if stack[i][0] == kind), None)
        if depth is None:
            edits.append(Edit(kind, file, number, number, "", False))
            problems.append(f"{file}:{number}: END {kind.upper()} without BEGIN")
            continue
        while len(stack) > depth + 1:
            open_kind, start = stack.pop()
            edits.append(Edit(open_kind, file, start, number - 1, body(start, number), False))
            problems.append(f"{file}:{start}: BEGIN {open_kind.upper()} never closed")
        open_kind, start = stack.pop()
        edits.append(Edit(open_kind, file, start, number, body(start, number), True))
    last = len(lines)
    while stack:
        open_kind, start = stack.pop()
        edits.append(Edit(open_kind, file, start, last, body(start, last + 1), False))
        problems.append(f"{file}:{start}: BEGIN {open_kind.upper()} never closed")
    edits.sort(key=lambda e: (e.start_line, e.end_line, e.kind))
    return tuple(edits), tuple(problems)


def constraint_comment(text: str) -> str | None:
    """The ``;; CONSTRAINT ...`` comment the annotators left in a ground-truth file."""
    for line in text.splitlines():
        match = _CONSTRAINT_COMMENT.match(line)
        if match:
            return match.group(1)
    return None


def _plan_info(path: Path, root: Path, notes: list[str]) -> dict[tuple[str, str], dict]:
    """Records of ``groundtruth_plan_info.jsonl`` keyed by (problem, constraint)."""
    text = _read(path, root, notes)
    records: dict[tuple[str, str], dict] = {}
    for number, line in enumerate((text or "").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{_rel(path, root)}:{number}"
        try:
            record = safe_json.loads(line)
        except json.JSONDecodeError as exc:
            notes.append(f"{where}: not JSON ({exc.msg})")
            continue
        if not isinstance(record, dict) or not isinstance(record.get("problem"), str) \
                or not isinstance(record.get("constraint"), str):
            notes.append(f"{where}: record lacks problem/constraint")
            continue
        key = (record["problem"], record["constraint"])
        if key in records:
            notes.append(f"{where}: duplicate record for {key[0]} {key[1]}")
        records[key] = record
    return records


def _plan_exists(record: dict | None, defects: list[str]) -> bool | None:
    if record is None:
        defects.append("no groundtruth_plan_info record")
        return None
    value = record.get("plan_exists")
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        defects.append(f"plan_exists given as string {value!r}")
        return value.strip().lower() == "true"
    defects.append("plan_exists missing or empty" if value in (None, "")
                   else f"plan_exists is not a boolean: {value!r}")
    return None


def _category_keys(folder: Path, records: dict) -> set[tuple[str, str]]:
    """Pairs named by the plan-info records, the pddl files, or the action-heads files."""
    keys = set(records)
    pddl = folder / "pddl"
    if pddl.is_dir():
        for sub in pddl.iterdir():
            if sub.is_dir():
                for file in sub.iterdir():
                    match = _PAIR_FILE.fullmatch(file.name)
                    if match:
                        keys.add((match.group(1), match.group(2)))
    heads = folder / "action_heads"
    if heads.is_dir():
        for file in heads.iterdir():
            match = _HEADS_FILE.fullmatch(file.name)
            if match:
                keys.add((match.group(1), match.group(2)))
    return keys


def _load_pair(root: Path, category: str, problem: str, constraint: str,
               record: dict | None) -> Pair:
    folder = root / "constraints" / category
    defects: list[str] = []
    paths: dict[str, Path | None] = {}
    texts: dict[str, str | None] = {}
    for role in ("df", "pf"):
        path = folder / "pddl" / problem / f"{problem}_{constraint}_{role}.pddl"
        texts[role] = _read(path, root, defects)
        paths[role] = path if texts[role] is not None else None
    edits: list[Edit] = []
    comment = None
    for role in ("df", "pf"):
        if texts[role] is not None:
            found, problems = parse_edits(texts[role], _rel(paths[role], root))
            edits.extend(found)
            defects.extend(problems)
            comment = comment or constraint_comment(texts[role])
    described = _read(folder / "descriptions" / f"{constraint}.txt", root, defects)
    listed = record.get("constraint_description") if record else None
    constraint_text = (described if described is not None else listed or "").strip()
    if isinstance(listed, str) and described is not None \
            and listed.strip() != described.strip():
        defects.append("constraint description differs from groundtruth_plan_info")
    if category != "baseline" and not constraint_text:
        defects.append("empty constraint description")
    heads_text = _read(folder / "action_heads" / f"{problem}_{constraint}.txt", root, defects)
    heads: tuple[ActionHead, ...] = ()
    if heads_text is not None:
        heads, problems = parse_action_heads(heads_text)
        defects.extend(problems)
        if not heads:
            defects.append("action heads file names no action")
    base_domain = root / "pddl" / "domain.pddl"
    base_problem = root / "pddl" / f"{problem}.pddl"
    return Pair(
        dataset=root.name, category=category, problem=problem, constraint=constraint,
        constraint_text=constraint_text,
        domain_path=paths["df"], problem_path=paths["pf"],
        domain_description=_read(root / "descriptions" / f"{problem}_domain.txt", root, defects),
        problem_description=_read(root / "descriptions" / f"{problem}_problem.txt", root,
                                  defects),
        action_heads_text=heads_text, action_heads=heads,
        plan_exists=_plan_exists(record, defects),
        edits=tuple(edits),
        constraint_comment=comment,
        base_domain_path=base_domain if base_domain.is_file() else None,
        base_problem_path=base_problem if base_problem.is_file() else None,
        defects=tuple(defects),
    )


def _sort_key(pair: Pair) -> tuple:
    rank = CATEGORIES.index(pair.category) if pair.category in CATEGORIES else len(CATEGORIES)
    return (pair.dataset, rank, pair.category, _number(pair.problem), pair.problem,
            _number(pair.constraint), pair.constraint)


#: Longest model output read, in UTF-8 bytes (``cope eval --max-response-bytes``); here,
#: not in :mod:`.evaluate`, so that ``cope --help`` shows it without importing the executors.
MAX_RESPONSE_BYTES = 1_000_000

#: How deep below ``--dataset`` dataset folders are looked for: the CoPE release's
#: ``data/`` root holds ``<domain>/<dataset>/constraints`` (two levels).
MAX_DATASET_DEPTH = 3


def _dataset_roots(root: Path, depth: int = MAX_DATASET_DEPTH) -> tuple[Path, ...]:
    """Dataset folders (holding ``constraints/``) at or below ``root``, sorted by path.

    ``root`` may be one dataset, a folder of datasets, or the release's ``data/`` root
    (``data/blocksworld/BlocksWorld-100``, ``data/coin_collector/...``).
    """
    if (root / "constraints").is_dir():
        return (root,)
    if depth == 0 or not root.is_dir():
        return ()
    found: list[Path] = []
    for child in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        found.extend(_dataset_roots(child, depth - 1))
    return tuple(found)


def _load_one(root: Path, notes: list[str]) -> list[Pair]:
    pairs: list[Pair] = []
    folders = sorted(p for p in (root / "constraints").iterdir() if p.is_dir())
    for category in CATEGORIES:
        if not (root / "constraints" / category).is_dir():
            notes.append(f"{root.name}: no constraints/{category} folder")
    for folder in folders:
        local: list[str] = []
        records = _plan_info(folder / "pddl" / "groundtruth_plan_info.jsonl", root, local)
        notes.extend(f"{root.name}: {note}" for note in local)
        for problem, constraint in sorted(_category_keys(folder, records)):
            pairs.append(_load_pair(root, folder.name, problem, constraint,
                                    records.get((problem, constraint))))
    base = root / "pddl"
    problems = sorted(p.stem for p in base.glob("p*.pddl")) if base.is_dir() else []
    covered = {pair.problem for pair in pairs if pair.category == "baseline"}
    for problem in sorted(set(problems) - covered, key=lambda p: (_number(p), p)):
        notes.append(f"{root.name}: problem {problem} has no baseline pair")
    return pairs


def load_dataset_report(root: Path) -> tuple[tuple[Pair, ...], tuple[str, ...]]:
    """Pairs under ``root`` plus dataset-level notes (bad plan-info lines, absent folders).

    ``root`` is one dataset folder (it has ``constraints/``) or a folder holding several,
    directly or one level further down (the release's ``data/<domain>/<dataset>``). Two
    datasets with the same folder name would share pair keys, so that is a note and the
    second is left out.
    """
    root = Path(root)
    notes: list[str] = []
    roots = _dataset_roots(root)
    if not roots:
        notes.append(f"no CoPE dataset under {root}")
    pairs: list[Pair] = []
    names: dict[str, Path] = {}
    for dataset in roots:
        if dataset.name in names:
            notes.append(f"{dataset}: a dataset named {dataset.name} was already read from "
                         f"{names[dataset.name]}; left out")
            continue
        names[dataset.name] = dataset
        pairs.extend(_load_one(dataset, notes))
    return tuple(sorted(pairs, key=_sort_key)), tuple(notes)


def load_dataset(root: Path) -> tuple[Pair, ...]:
    """Every pair under ``root``, sorted by dataset, category, problem and constraint number."""
    return load_dataset_report(root)[0]


def read_objects(text: str) -> tuple[tuple[str, str | None], ...]:
    """(name, type) for each object in a problem's ``:objects`` (or a domain's ``:constants``).

    A deliberately tolerant scan, not a parser: it strips comments, finds the section by
    parenthesis depth and reads ``name ... - type`` lists, so it works on the ground-truth
    files that a strict parser rejects (missing headers, undeclared requirements).
    """
    clean = re.sub(r";[^\n]*", "", text)
    found: list[tuple[str, str | None]] = []
    for match in re.finditer(r"\(\s*:(?:objects|constants)\b", clean, re.IGNORECASE):
        depth, end = 1, match.end()
        while end < len(clean) and depth:
            depth += {"(": 1, ")": -1}.get(clean[end], 0)
            end += 1
        tokens = clean[match.end():end - 1].lower().replace("(", " ").split()
        pending: list[str] = []
        index = 0
        while index < len(tokens):
            if tokens[index] == "-" and index + 1 < len(tokens):
                found.extend((name, tokens[index + 1]) for name in pending)
                pending, index = [], index + 2
                continue
            pending.append(tokens[index])
            index += 1
        found.extend((name, None) for name in pending)
    seen: dict[str, str | None] = {}
    for name, kind in found:
        seen.setdefault(name, kind)
    return tuple(seen.items())


def pair_objects(pair: Pair) -> tuple[tuple[str, str | None], ...]:
    """Objects of the pair's ground-truth problem plus its domain's constants; () if unreadable."""
    found: dict[str, str | None] = {}
    for path in (pair.problem_path, pair.domain_path):
        if path is None:
            continue
        from planning_core.errors import InputError
        from planning_core.pddl.files import read_bytes

        try:   # the shared bounded reader: a regular file only
            text = read_bytes(path).decode("utf-8", errors="replace")
        except (OSError, InputError):
            continue
        for name, kind in read_objects(text):
            found.setdefault(name, kind)
    return tuple(found.items())
