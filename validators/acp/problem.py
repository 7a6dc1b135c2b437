"""What the scorers need to know about one (domain, problem) pair, computed once.

A question's problem is its current state, so every answer to it is judged on the same
parsed domain, ground task and type tables. :class:`ProblemInfo` holds them and, in typed
tables, what scorers ask repeatedly (h* of states, simulations, verdicts, applicable actions);
:class:`ProblemCache` keeps the last few by text, so a batch that scores several answers
per question, or several questions on one problem, parses and grounds each problem once.

Well-formedness follows the PDDL declarations (:mod:`planning_core.pddl.wellformed`, the
check the validator makes of plan steps): a ground atom or action is well formed when its
predicate or action is declared, it has the declared number of arguments, every argument
is a declared object or constant, and each argument's type fits the parameter's type
(``either`` types are unions, subtypes fit their supertypes). An ill-typed atom such
as ``(at l0 c1)`` in a typed domain is not a proposition of the task: the scorers call it
ill-formed rather than "unreachable".
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from typing import TYPE_CHECKING

from planning_core.errors import PlanningError
from planning_core.limits import LimitReached, Limits, active_budget
from planning_core.pddl import ast as pddl
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.pddl.types import TypeHierarchy, object_types, objects_by_type
from planning_core.pddl.wellformed import Fault, ground_faults
from planning_core.validate.report import ValidationReport

from planning_core.validators.acp.answers.values import GroundName
from planning_core.validators.acp.records import Score

if TYPE_CHECKING:   # the grounder is imported when a task is first ground (ProblemInfo.task)
    from planning_core.ground.facts import GroundAction
    from planning_core.ground.task import Task

__all__ = ["GROUND_TIME_LIMIT_S", "ProblemCache", "ProblemInfo", "atom_key",
           "parse_domain_cached"]

#: CPU seconds (and the default memory limit) for grounding one question's problem: an
#: ACPBench problem grounds in milliseconds, a hostile one must not run on. A limit is
#: remembered (the budget is CPU time, so the same problem hits it again) and every answer
#: to the question is then scored unknown.
GROUND_TIME_LIMIT_S = 60.0


def atom_key(name: GroundName) -> tuple[str, ...]:
    """The ground task's spelling of an atom: ``("at", "c0", "l1")``."""
    return (name.name, *name.args)


def _effect_predicates(effects: tuple[pddl.Effect, ...], out: set[str]) -> None:
    for e in effects:
        if isinstance(e, (pddl.Add, pddl.Delete)):
            out.add(e.atom.predicate)
        elif isinstance(e, (pddl.When, pddl.ForallEffect)):
            _effect_predicates(e.effects, out)


def _goal_atoms(goal: pddl.Formula) -> frozenset[tuple[str, ...]] | None:
    """Positive atoms of a conjunctive goal, or None when the goal is not a conjunction."""
    if isinstance(goal, pddl.Atom):
        return frozenset({(goal.predicate, *goal.args)})
    if isinstance(goal, pddl.And):
        out: set[tuple[str, ...]] = set()
        for part in goal.parts:
            if isinstance(part, pddl.Atom):
                out.add((part.predicate, *part.args))
            elif isinstance(part, pddl.And):
                inner = _goal_atoms(part)
                if inner is None:
                    return None
                out |= inner
            elif isinstance(part, pddl.Not):
                continue
            else:
                return None
        return frozenset(out)
    return None


@dataclass(eq=False)
class ProblemInfo:
    """Parsed domain and problem, the ground task of the current state, and result tables.

    The ground task is built lazily (``task``): questions such as ``val`` and ``just`` are
    decided by the lifted simulator and never need it. The tables the scorers fill:

    * ``h_stars``: state -> h* (only values found; a search that hit its limit is not kept);
    * ``simulations``: a step sequence -> its validation report from the state;
    * ``verdicts``: (task, atom or action) -> a known verdict on it (reach, areach, land);
    * ``none_verdicts``: task -> the known verdict on a ``None`` answer;
    * ``prog_actions``: a prog question's text -> its action and effects found without
      grounding, or None when the ground task must decide;
    * ``goal_plan``: whether the goal is reachable from the state, and the facts true along
      one plan (atoms off that plan are not landmarks).

    Unknown verdicts are never stored, so a later answer (perhaps with a longer time limit)
    tries again.
    """

    domain: pddl.Domain
    problem: pddl.Problem
    fluent_predicates: frozenset[str]
    init_atoms: frozenset[tuple[str, ...]]
    goal_atoms: frozenset[tuple[str, ...]] | None
    types: dict[str, tuple[str, ...]]
    hierarchy: TypeHierarchy
    types_of: dict[str, frozenset[str]]  # every object with all the types it belongs to
    _task: Task | LimitReached | None = None
    _applicable: frozenset[tuple[str, ...]] | None = None
    _objects_by_type: dict[str, tuple[str, ...]] | None = None
    h_stars: dict[int, float] = field(default_factory=dict)
    simulations: dict[tuple[GroundName, ...], ValidationReport] = field(default_factory=dict)
    verdicts: dict[tuple[str, object], Score] = field(default_factory=dict)
    none_verdicts: dict[str, Score] = field(default_factory=dict)
    prog_actions: dict[str, tuple | None] = field(default_factory=dict)
    goal_plan: tuple | None = None  # (Status, facts along one plan), set by the land scorer
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, domain_text: str, problem_text: str) -> ProblemInfo:
        domain = parse_domain_cached(domain_text)
        problem = parse_problem(problem_text, "<PDDL_problem>")
        fluent: set[str] = set()
        for action in domain.actions:
            _effect_predicates(action.effects, fluent)
        fluent |= {d.head.name for d in domain.derived}
        init = frozenset((a.predicate, *a.args) for a in problem.init)
        types = object_types(domain, problem)
        hierarchy = TypeHierarchy.of(domain)
        return cls(domain, problem, frozenset(fluent), init, _goal_atoms(problem.goal),
                   types, hierarchy, {o: hierarchy.closure(ts) for o, ts in types.items()})

    # ------------------------------------------------------------------ ground task

    @property
    def task(self) -> Task:
        """The ground task whose initial state is the question's state (built once); raises
        ``LimitReached`` when grounding hits ``GROUND_TIME_LIMIT_S`` or the memory limit, or
        what is left of the active budget (:func:`planning_core.limits.metering`; the
        question generator's) when that is less. Only a stop at this task's own limit is
        remembered: one at the active budget's says nothing about the task."""
        if self._task is None:
            from planning_core.ground.grounder import ground

            with self._lock:
                if self._task is None:
                    outer = active_budget()
                    budget = (outer.sub(GROUND_TIME_LIMIT_S) if outer is not None
                              else Limits(time_s=GROUND_TIME_LIMIT_S).budget())
                    try:
                        self._task = ground(self.domain, self.problem, budget=budget)
                    except LimitReached as err:
                        spent = outer.exceeded() if outer is not None else None
                        if spent is not None:
                            raise spent from None
                        self._task = err
        if isinstance(self._task, LimitReached):
            raise self._task
        return self._task

    @property
    def state(self) -> int:
        return self.task.init

    def applicable_names(self) -> frozenset[tuple[str, ...]]:
        """Names ``(name, *args)`` of the ground actions applicable in the state."""
        found = self._applicable
        if found is None:
            task = self.task
            found = frozenset((a.name, *a.args) for a in task.applicable(task.init))
            self._applicable = found
        return found

    def objects_by_type(self) -> dict[str, tuple[str, ...]]:
        """Type -> sorted objects of that type or a subtype (built once)."""
        found = self._objects_by_type
        if found is None:
            found = self._objects_by_type = objects_by_type(self.domain, self.problem)
        return found

    def ground_actions(self, name: GroundName) -> tuple[GroundAction, ...]:
        """The ground actions printed as ``name`` (empty: never relaxed-reachable)."""
        return self.task.actions_by_name(str(name))

    # ------------------------------------------------------------------ well-formedness

    def _problem(self, what: str, name: GroundName,
                 params: tuple[pddl.TypedName, ...] | None) -> str | None:
        """The first fault of ``name`` against its declaration, worded for a reason."""
        faults = ground_faults(name.args, None if params is None else
                               tuple(frozenset(p.types) for p in params), self.types_of)
        if not faults:
            return None
        fault = faults[0]
        if fault.kind is Fault.UNKNOWN_NAME:
            return f"the domain declares no {what} {name.name}"
        if fault.kind is Fault.WRONG_ARITY:
            return (f"{what} {name.name} takes {len(params)} argument(s), "
                    f"{len(name.args)} given in {name}")
        k = fault.position
        arg = name.args[k]
        if fault.kind is Fault.UNKNOWN_OBJECT:
            return f"{arg} in {name} is not an object of the problem"
        return (f"argument {k + 1} of {name} ({arg}: {' '.join(self.types[arg])}) "
                f"is not of type {' '.join(params[k].types)}")

    def atom_problem(self, name: GroundName) -> str | None:
        """Why ``name`` is not a well-formed ground atom of the task, or None if it is."""
        pred = self.domain.predicate(name.name)
        return self._problem("predicate", name, None if pred is None else pred.parameters)

    def action_problem(self, name: GroundName) -> str | None:
        """Why ``name`` is not a well-formed ground action of the task, or None if it is."""
        action = self.domain.action(name.name)
        return self._problem("action", name, None if action is None else action.parameters)

    def is_static(self, predicate: str) -> bool:
        """Whether no action changes the predicate (its atoms keep their initial truth)."""
        return predicate not in self.fluent_predicates


_DOMAINS: OrderedDict[str, pddl.Domain] = OrderedDict()
_DOMAINS_LOCK = threading.Lock()
_DOMAINS_SIZE = 64


def parse_domain_cached(text: str) -> pddl.Domain:
    """The parsed domain of ``text``, parsed once per distinct text (keyed by its SHA-256).

    A benchmark split has a handful of domain texts shared by hundreds of problems, and the
    parsed :class:`~planning_core.pddl.ast.Domain` is immutable, so every problem of a domain
    shares one parse. A syntax error is not cached (it is raised on every call).
    """
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    with _DOMAINS_LOCK:
        found = _DOMAINS.get(key)
        if found is not None:
            _DOMAINS.move_to_end(key)
            return found
    found = parse_domain(text, "<PDDL_domain>")
    with _DOMAINS_LOCK:
        _DOMAINS[key] = found
        while len(_DOMAINS) > _DOMAINS_SIZE:
            _DOMAINS.popitem(last=False)
    return found


class ProblemCache:
    """The last ``size`` :class:`ProblemInfo` objects by (domain text, problem text).

    Thread-safe: concurrent requests for one problem build it once.
    """

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._items: OrderedDict[tuple[str, str], ProblemInfo | PlanningError] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, domain_text: str, problem_text: str) -> ProblemInfo:
        """The problem's info; a PDDL error is cached too and raised again on each call."""
        key = (domain_text, problem_text)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                self.hits += 1
        if found is None:
            self.misses += 1
            try:
                found = ProblemInfo.build(domain_text, problem_text)
            except PlanningError as err:
                found = err
            with self._lock:
                self._items[key] = found
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
        if isinstance(found, PlanningError):
            raise found
        return found
