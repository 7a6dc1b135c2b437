"""``cope check``: solve and validate every ground-truth pair, and compare with its label.

CoPE's ``plan_exists`` labels were produced by the authors with a remote planner and VAL;
the ground-truth files were edited by hand. Before scoring a model against them we check
them: each pair is parsed and checked (syntax and semantic errors become located
:class:`~planning_core.validators.cope.groundtruth.Issue` records), solved with planning_core's solver,
and a plan found is validated by planning_core's lifted validator (which shares no code with
the grounder, so an engine bug cannot hide a validation bug). The outcome is one
:class:`PairCheck` with a ``verdict``:

``agrees``
    the solver's answer matches ``plan_exists`` (a validated plan, or a proof of
    unsolvability: relaxed unreachability or an exhausted complete search);
``defect``
    the ground truth cannot be judged: a file is missing, does not parse, or names
    undeclared things; or the pair has no label. ``issues`` hold the positions;
``label_disagreement``
    the solver contradicts the label, with the evidence: the validated plan when the label
    says no plan exists, the proof when it says one does;
``unknown``
    the solver hit its time or memory limit (never guessed);
``engine_disagreement``
    the solver's plan fails validation, or the engine rejected a task the checker accepted:
    a bug in planning_core, reported rather than hidden.

Checks run on an executor (:mod:`planning_core.executor`: this process, local worker
processes, or a Dask cluster; :func:`iter_checks`, :func:`check_pairs`). Each task is one
pair (:func:`check_task`), so that a few pairs that run into the time limit do not queue
behind one worker; each worker memoises parsed files in its own
:class:`~planning_core.validators.cope.groundtruth.GroundTruthCache`, built once per run
(:func:`~planning_core.executor.worker_state`). :func:`iter_checks` gives the checks in
dataset order, whatever order they finish in; :func:`check_arrivals` as they finish, for
``cope check --out``, whose writer journals them and writes them in dataset order on every
executor. A pair whose task produced nothing (its worker kept dying, or the task raised)
becomes an ``unknown`` check that says why (:func:`failed_check`), and the run goes on.
"""
from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from planning_core.errors import PlanningError
from planning_core.executor import Executor, TaskFailed, in_input_order, make_executor, \
    worker_state
from planning_core.result import Status
from planning_core.validate.simulator import validate_plan

from planning_core.validators.cope.dataset import Pair
from planning_core.validators.cope.groundtruth import UNREADABLE, GroundTruth, GroundTruthCache, \
    Issue
from planning_core.validators.cope.naming import squash
from planning_core.validators.cope.solving import DEFAULT_TIME_LIMIT, proof_kind, solve_task

__all__ = ["PairCheck", "VERDICTS", "CheckSettings", "check_pair", "check_truth", "check_task",
           "failed_check", "is_final", "check_arrivals", "iter_checks", "check_pairs", "count_verdicts"]

VERDICTS = ("agrees", "defect", "label_disagreement", "unknown", "engine_disagreement")


@dataclass(frozen=True, slots=True)
class PairCheck:
    """What ``cope check`` found for one pair (see the module doc for ``verdict``)."""

    dataset: str
    category: str
    problem: str
    constraint: str
    plan_exists: bool | None
    status: str                       # solved | unsolvable | unknown | error
    verdict: str
    plan: tuple[str, ...] | None = None
    plan_valid: bool | None = None
    error: str | None = None
    reason: str = ""                  # the solver's reason: proof or limit
    engine: str = ""
    time_s: float = 0.0
    issues: tuple[Issue, ...] = ()    # blocking ground-truth errors, located
    notes: tuple[str, ...] = ()       # non-blocking oddities (edit markers, descriptions)
    validation: str = ""              # the validator's message on an invalid plan
    proof: str | None = None          # the kind of unsolvability proof (solving.proof_kind)
    time_limit_s: float | None = None  # the limit the solver had (a rerun with a larger
                                      # one checks an unknown pair again: results_file)

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.dataset, self.category, self.problem, self.constraint)

    @property
    def agrees(self) -> bool | None:
        """Whether the solver's answer matches the label; None when either is missing."""
        if self.plan_exists is None or self.status not in ("solved", "unsolvable"):
            return None
        if self.status == "solved" and self.plan_valid is not True:
            return None
        return (self.status == "solved") == self.plan_exists

    @property
    def solvable(self) -> bool | None:
        """Our own answer to "does a plan exist?", or None when we could not tell."""
        if self.status == "solved" and self.plan_valid:
            return True
        if self.status == "unsolvable":
            return False
        return None

    def evidence(self) -> str:
        """One line saying why the verdict is what it is, for reports."""
        if self.verdict in ("defect", "engine_disagreement") and self.error:
            return self.error
        if self.status == "solved":
            steps = " ".join(self.plan or ()) or "the empty plan"
            return f"plan of {len(self.plan or ())} steps valid under the ground truth: {steps}"
        if self.status == "unsolvable":
            return f"proved unsolvable ({self.reason})"
        if self.status == "unknown":
            return f"no answer within limits ({self.reason})"
        return self.error or ""

    def to_json(self) -> dict:
        return {
            "dataset": self.dataset, "category": self.category, "problem": self.problem,
            "constraint": self.constraint, "plan_exists": self.plan_exists,
            "status": self.status,
            "plan": list(self.plan) if self.plan is not None else None,
            "plan_valid": self.plan_valid, "agrees": self.agrees, "error": self.error,
            "verdict": self.verdict, "reason": self.reason, "engine": self.engine,
            "time_s": round(self.time_s, 4),
            "issues": [i.to_json() for i in self.issues],
            "notes": list(self.notes), "proof": self.proof,
            **({} if self.time_limit_s is None else {"time_limit_s": self.time_limit_s}),
        }

    @classmethod
    def from_json(cls, row: dict) -> "PairCheck":
        """Read back a :meth:`to_json` row (``cope check --json``); raises KeyError or
        TypeError on a row that is not one."""
        plan = row.get("plan")
        return cls(
            dataset=row["dataset"], category=row["category"], problem=row["problem"],
            constraint=row["constraint"], plan_exists=row["plan_exists"],
            status=row["status"], verdict=row["verdict"],
            plan=tuple(plan) if plan is not None else None, plan_valid=row.get("plan_valid"),
            error=row.get("error"), reason=row.get("reason", ""),
            engine=row.get("engine", ""), time_s=float(row.get("time_s", 0.0)),
            issues=tuple(Issue(**issue) for issue in row.get("issues", ())),
            notes=tuple(row.get("notes", ())), proof=row.get("proof"),
            time_limit_s=row.get("time_limit_s"))


def _base(truth: GroundTruth) -> dict:
    pair = truth.pair
    notes = pair.defects
    if truth.domain is not None and pair.action_heads:
        listed = {squash(head.name) for head in pair.action_heads}
        unlisted = sorted(a.name for a in truth.domain.actions if squash(a.name) not in listed)
        if unlisted:
            notes += (f"the action heads do not list the ground truth's action(s) "
                      f"{', '.join(unlisted)}",)
    return {"dataset": pair.dataset, "category": pair.category, "problem": pair.problem,
            "constraint": pair.constraint, "plan_exists": pair.plan_exists, "notes": notes}


def check_truth(truth: GroundTruth, *, time_limit: float = DEFAULT_TIME_LIMIT) -> PairCheck:
    """Check one parsed ground truth (see the module doc)."""
    pair = truth.pair
    start = time.perf_counter()
    base = _base(truth)
    if not truth.sound:
        issues = truth.errors
        return PairCheck(**base, status="error", verdict="defect", issues=issues,
                         error="; ".join(str(i) for i in issues),
                         time_s=time.perf_counter() - start)
    try:
        result = solve_task(truth.domain, truth.problem, time_limit=time_limit)
    except PlanningError as err:
        return PairCheck(**base, status="error", verdict="engine_disagreement",
                         error=f"the engine rejected a task the checker accepts: {err}",
                         time_s=time.perf_counter() - start)
    common = dict(reason=result.reason, engine=result.engine)
    if pair.plan_exists is None:
        common["error"] = "no plan_exists label"
    if result.status is Status.UNKNOWN:
        return PairCheck(**base, status="unknown", verdict=_verdict(pair, None), **common,
                         time_s=time.perf_counter() - start)
    if result.status is Status.UNSOLVABLE:
        return PairCheck(**base, status="unsolvable", verdict=_verdict(pair, False),
                         proof=proof_kind(result), **common, time_s=time.perf_counter() - start)
    plan = tuple(result.plan)
    report = validate_plan(truth.domain, truth.problem, "".join(s + "\n" for s in plan))
    if not report.valid:
        common["error"] = (f"the solver's plan fails validation at step {report.step}: "
                           f"{report.message or report.verdict.value}")
        return PairCheck(**base, status="solved", verdict="engine_disagreement", plan=plan,
                         plan_valid=False, **common, validation=report.message,
                         time_s=time.perf_counter() - start)
    return PairCheck(**base, status="solved", verdict=_verdict(pair, True), plan=plan,
                     plan_valid=True, **common, time_s=time.perf_counter() - start)


def _verdict(pair: Pair, solvable: bool | None) -> str:
    if pair.plan_exists is None:
        return "defect"
    if solvable is None:
        return "unknown"
    return "agrees" if solvable == pair.plan_exists else "label_disagreement"


def check_pair(pair: Pair, *, time_limit: float = DEFAULT_TIME_LIMIT,
               cache: GroundTruthCache | None = None) -> PairCheck:
    """Load (through ``cache``) and check one pair."""
    start = time.perf_counter()
    truth = (cache or GroundTruthCache()).load(pair)
    result = check_truth(truth, time_limit=time_limit)
    return replace(result, time_s=time.perf_counter() - start, time_limit_s=time_limit)


# ------------------------------------------------------------------ checking on an executor

@dataclass(frozen=True, slots=True)
class CheckSettings:
    """What every task of one ``cope check`` run shares (the executor's context); a worker
    keeps one ground-truth cache per settings (:func:`~planning_core.executor.worker_state`).
    ``run`` tells runs apart, so that no run reads files parsed by an earlier one (a
    long-lived Dask worker, or the CLI process itself when checking serially, outlives a
    run, and the files may have been edited in between)."""

    time_limit: float = DEFAULT_TIME_LIMIT
    run: str = ""


def check_task(settings: CheckSettings, pair: Pair) -> PairCheck:
    """One executor task: check ``pair`` with the worker's ground-truth cache."""
    cache = worker_state(settings, GroundTruthCache)
    return check_pair(pair, time_limit=settings.time_limit, cache=cache)


def failed_check(pair: Pair, failure: TaskFailed) -> PairCheck:
    """The check of a pair whose task produced nothing: ``unknown`` (never guessed), with
    why in ``reason``. It is not final (:func:`is_final`): a resumed ``cope check --out``
    checks the pair again, since a worker killed once (the out-of-memory killer of a busy
    machine) says nothing about the pair."""
    what = "worker-died" if failure.kind == "worker-died" else "internal-error"
    return PairCheck(dataset=pair.dataset, category=pair.category, problem=pair.problem,
                     constraint=pair.constraint, plan_exists=pair.plan_exists,
                     status="unknown", verdict=_verdict(pair, None),
                     reason=f"{what}: not checked: {failure.message}",
                     error=None if pair.plan_exists is not None else "no plan_exists label")


_NOT_DONE = ("worker-died:", "internal-error:")


def is_final(check: PairCheck) -> bool:
    """Whether a recorded check settles its pair, so that a resumed ``cope check --out``
    skips it: not one whose task produced nothing (:func:`failed_check`) and not one whose
    ground-truth files could not be read where it ran (a relative path on a worker started
    in another folder, a file system mounted on the client only)."""
    if check.status == "unknown" and check.reason.startswith(_NOT_DONE):
        return False
    return not any(issue.kind == UNREADABLE for issue in check.issues)


def check_arrivals(pairs: Sequence[Pair], executor: Executor, *,
                   time_limit: float = DEFAULT_TIME_LIMIT,
                   on_done: Callable[[PairCheck], None] | None = None
                   ) -> Iterator[tuple[int, PairCheck]]:
    """Check every pair on ``executor``; yield ``(k, check of pairs[k])`` in completion
    order (``cope check --out`` hands them to
    :class:`~planning_core.results_file.ResultsWriter`, which puts them in order).
    ``on_done`` is called as each check arrives (for a progress bar)."""
    settings = CheckSettings(time_limit, os.urandom(8).hex())
    for index, result in executor.run(check_task, settings, pairs):
        if isinstance(result, TaskFailed):
            result = failed_check(pairs[index], result)
        if on_done:
            on_done(result)
        yield index, result


def iter_checks(pairs: Iterable[Pair], executor: Executor, *,
                time_limit: float = DEFAULT_TIME_LIMIT,
                on_done: Callable[[PairCheck], None] | None = None) -> Iterator[PairCheck]:
    """Check every pair on ``executor``; yield the checks in the order of ``pairs``.

    ``on_done`` is called as each check arrives, in completion order (for a progress bar).
    """
    pairs = list(pairs)
    arrivals = check_arrivals(pairs, executor, time_limit=time_limit, on_done=on_done)
    for _, check in in_input_order(arrivals, len(pairs)):
        yield check


def check_pairs(pairs: Iterable[Pair], *, time_limit: float = DEFAULT_TIME_LIMIT,
                workers: int = 1, on_result: Callable[[PairCheck], None] | None = None,
                executor: Executor | None = None) -> tuple[PairCheck, ...]:
    """Check every pair; results in the order of ``pairs``.

    The work runs on ``executor``, or (without one) in ``workers`` local processes, or in
    this process with one shared cache when ``workers <= 1``. ``on_result`` is called as
    each check arrives (for a progress bar).
    """
    pairs = list(pairs)
    if executor is not None:
        return tuple(iter_checks(pairs, executor, time_limit=time_limit, on_done=on_result))
    with make_executor("local", workers=1 if len(pairs) <= 1 else workers) as own:
        return tuple(iter_checks(pairs, own, time_limit=time_limit, on_done=on_result))


def count_verdicts(checks: Iterable[PairCheck]) -> dict[str, Counter]:
    """Verdict counts per dataset, every verdict present (zeros included)."""
    counts: dict[str, Counter] = {}
    for check in checks:
        counts.setdefault(check.dataset, Counter({v: 0 for v in VERDICTS}))[check.verdict] += 1
    return dict(sorted(counts.items()))
