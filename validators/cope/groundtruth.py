"""Parsed, checked ground truth of a CoPE pair, with its defects as located data.

Every judgement in CoPE (a planner's plan, a formalizer's plan, ``cope check``) is made
against the pair's hand-written ground-truth ``df``/``pf`` files. Those files are real-world
input: a few do not parse (a missing ``(:predicates`` header), a few name undeclared
predicates, objects or types (``visted-room-three-times``, ``within-distnace-room``). Such
problems are kept as :class:`Issue` records with file, line and column instead of being
raised, so that a batch never stops on one bad file and a report can point at the fault.

Parsing dominates the cost of loading (~10 ms per file), and the data repeats itself: every
baseline pair uses the same domain text, and constrained pairs of one problem share most
files. :class:`GroundTruthCache` therefore memoises parsed domains and problems by the
SHA-1 of their text. The parsed objects are immutable, so sharing them is safe, and sharing
them also lets the validator's per-domain compilation cache (keyed by object identity) hit.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from pathlib import Path

from planning_core.errors import InputError, PlanningError
from planning_core.pddl import ast as pddl
from planning_core.pddl.checker import check_domain, check_problem
from planning_core.pddl.parser import parse_domain, parse_problem, read_text

from planning_core.validators.cope.dataset import Pair

__all__ = ["Issue", "GroundTruth", "GroundTruthCache", "issue_from_error", "UNREADABLE"]

#: the kind of an Issue for a file that could not be read where the check ran
UNREADABLE = "unreadable"


@dataclass(frozen=True, slots=True)
class Issue:
    """One defect of a ground-truth file: ``kind`` is syntax, semantic, missing, unreadable
    (the file could not be read where it was checked) or warning."""

    kind: str
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def location(self) -> str:
        parts = [self.file or "<input>"]
        parts += [str(x) for x in (self.line, self.column) if x is not None]
        return ":".join(parts)

    def __str__(self) -> str:
        return f"{self.location()}: {self.kind}: {self.message}"

    def to_json(self) -> dict:
        return {"kind": self.kind, "file": self.file, "line": self.line,
                "column": self.column, "message": self.message}


def issue_from_error(err: PlanningError, kind: str = "syntax") -> Issue:
    return Issue(kind, err.message, err.file, err.line, err.column)


def _issue_from_diagnostic(d: pddl.Diagnostic) -> Issue:
    return Issue("semantic" if d.severity == "error" else "warning", d.message, d.file,
                 d.line, d.column)


@dataclass(frozen=True, slots=True)
class GroundTruth:
    """A pair's ground truth: the parsed task (None when unparsable) and what is wrong with it.

    ``errors`` block a trustworthy judgement (syntax errors, undeclared names, arity and type
    errors); ``warnings`` do not (undeclared requirements, which every CoPE file has).
    """

    pair: Pair
    domain: pddl.Domain | None
    problem: pddl.Problem | None
    errors: tuple[Issue, ...] = ()
    warnings: tuple[Issue, ...] = ()

    @property
    def parsed(self) -> bool:
        """The task could be read; a lenient validator can still simulate plans on it."""
        return self.domain is not None and self.problem is not None

    @property
    def sound(self) -> bool:
        """Parsed and free of semantic errors: judgements on it can be trusted."""
        return self.parsed and not self.errors


class GroundTruthCache:
    """Loads :class:`GroundTruth` records, memoising parses by the text's SHA-1.

    Not thread-safe; each worker process builds its own (see :mod:`planning_core.validators.cope.check`).
    """

    def __init__(self) -> None:
        self._domains: dict[str, pddl.Domain | PlanningError] = {}
        self._problems: dict[str, pddl.Problem | PlanningError] = {}
        self._truths: dict[tuple, GroundTruth] = {}

    def load(self, pair: Pair) -> GroundTruth:
        hit = self._truths.get(pair.key)
        if hit is not None:
            return hit
        truth = self._load(pair)
        self._truths[pair.key] = truth
        return truth

    def _parsed(self, path: Path, which: str):
        """Parsed domain/problem for ``path`` or the PlanningError that reading it raised."""
        try:
            text = read_text(path)
        except PlanningError as err:
            return err
        key = hashlib.sha1(text.encode("utf-8")).hexdigest()
        memo = self._domains if which == "domain" else self._problems
        hit = memo.get(key)
        if isinstance(hit, PlanningError) and hit.file != str(path):
            # an error names its file: one cached for a byte-identical file elsewhere (another
            # dataset) would name that file, so this one is parsed for its own message
            hit = None
        if hit is None:
            try:
                hit = (parse_domain if which == "domain" else parse_problem)(text, str(path))
            except PlanningError as err:
                hit = err
            memo[key] = hit
        if isinstance(hit, PlanningError):
            return hit
        # identical text under another path: same object, this path's name for messages
        return hit if hit.filename == str(path) else replace(hit, filename=str(path))

    def _load(self, pair: Pair) -> GroundTruth:
        errors: list[Issue] = []
        if pair.domain_path is None:
            errors.append(Issue("missing", "no ground-truth domain file (df)"))
        if pair.problem_path is None:
            errors.append(Issue("missing", "no ground-truth problem file (pf)"))
        if errors:
            return GroundTruth(pair, None, None, tuple(errors))
        domain = self._parsed(pair.domain_path, "domain")
        problem = self._parsed(pair.problem_path, "problem")
        for node in (domain, problem):
            if isinstance(node, PlanningError):
                # a file that cannot be read where the check ran (a worker in another
                # folder, a file system not mounted there) is "unreadable", not a syntax
                # error; a rerun checks the pair again (check.is_final)
                errors.append(issue_from_error(
                    node, UNREADABLE if isinstance(node, InputError) else "syntax"))
        if errors:
            return GroundTruth(pair, None if isinstance(domain, PlanningError) else domain,
                               None if isinstance(problem, PlanningError) else problem,
                               tuple(errors))
        diagnostics = check_domain(domain) + check_problem(domain, problem)
        issues = [_issue_from_diagnostic(d) for d in diagnostics]
        return GroundTruth(pair, domain, problem,
                           tuple(i for i in issues if i.kind == "semantic"),
                           tuple(i for i in issues if i.kind == "warning"))
