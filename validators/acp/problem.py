"""What the scorers need to know about one (domain, problem) pair, computed once.

A question's problem is its current state, so every answer to it is judged on the same
parsed domain, ground task and type tables. :class:`ProblemInfo` holds them and memoises
what scorers ask repeatedly (h* of states, solvability, applicable actions);
:class:`ProblemCache` keeps the last few by text, so a batch that scores several answers
per question, or several questions on one problem, parses and grounds each problem once.

Well-formedness follows the PDDL declarations: a ground atom or action is well formed
when its predicate or action is declared, it has the declared number of arguments, every
argument is a declared object or constant, and each argument's type fits the parameter's
type (``either`` types are unions, subtypes fit their supertypes). An ill-typed atom such
as ``(at l0 c1)`` in a typed domain is not a proposition of the task: the scorers call it
ill-formed rather than "unreachable".
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from planning_core.errors import PlanningError
from planning_core.ground.grounder import ground
from planning_core.ground.facts import GroundAction
from planning_core.ground.task import Task
from planning_core.pddl import ast as A
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.pddl.types import TypeHierarchy, object_types

from planning_core.validators.acp.answers.values import GroundName

__all__ = ["ProblemCache", "ProblemInfo", "atom_key"]


def atom_key(name: GroundName) -> tuple[str, ...]:
    """The ground task's spelling of an atom: ``("at", "c0", "l1")``."""
    return (name.name, *name.args)


def _effect_predicates(effects: tuple[A.Effect, ...], out: set[str]) -> None:
    for e in effects:
        if isinstance(e, (A.Add, A.Delete)):
            out.add(e.atom.predicate)
        elif isinstance(e, (A.When, A.ForallEffect)):
            _effect_predicates(e.effects, out)


def _goal_atoms(goal: A.Formula) -> frozenset[tuple[str, ...]] | None:
    """Positive atoms of a conjunctive goal, or None when the goal is not a conjunction."""
    if isinstance(goal, A.Atom):
        return frozenset({(goal.predicate, *goal.args)})
    if isinstance(goal, A.And):
        out: set[tuple[str, ...]] = set()
        for part in goal.parts:
            if isinstance(part, A.Atom):
                out.add((part.predicate, *part.args))
            elif isinstance(part, A.And):
                inner = _goal_atoms(part)
                if inner is None:
                    return None
                out |= inner
            elif isinstance(part, A.Not):
                continue
            else:
                return None
        return frozenset(out)
    return None


@dataclass(eq=False)
class ProblemInfo:
    """Parsed domain and problem, the ground task of the current state, and memo tables.

    The ground task is built lazily (``task``): questions such as ``val`` and ``just`` are
    decided by the lifted simulator and never need it.
    """

    domain: A.Domain
    problem: A.Problem
    fluent_predicates: frozenset[str]
    init_atoms: frozenset[tuple[str, ...]]
    goal_atoms: frozenset[tuple[str, ...]] | None
    types: dict[str, tuple[str, ...]]
    hierarchy: TypeHierarchy
    _task: Task | None = None
    memo: dict = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, domain_text: str, problem_text: str) -> ProblemInfo:
        domain = parse_domain(domain_text, "<PDDL_domain>")
        problem = parse_problem(problem_text, "<PDDL_problem>")
        fluent: set[str] = set()
        for action in domain.actions:
            _effect_predicates(action.effects, fluent)
        fluent |= {d.head.name for d in domain.derived}
        init = frozenset((a.predicate, *a.args) for a in problem.init)
        return cls(domain, problem, frozenset(fluent), init, _goal_atoms(problem.goal),
                   object_types(domain, problem), TypeHierarchy.of(domain))

    # ------------------------------------------------------------------ ground task

    @property
    def task(self) -> Task:
        """The ground task whose initial state is the question's state (built once)."""
        if self._task is None:
            with self._lock:
                if self._task is None:
                    self._task = ground(self.domain, self.problem)
        return self._task

    @property
    def state(self) -> int:
        return self.task.init

    def applicable_names(self) -> frozenset[tuple[str, ...]]:
        """Names ``(name, *args)`` of the ground actions applicable in the state."""
        found = self.memo.get("applicable")
        if found is None:
            task = self.task
            found = frozenset((a.name, *a.args) for a in task.applicable(task.init))
            self.memo["applicable"] = found
        return found

    def ground_actions(self, name: GroundName) -> tuple[GroundAction, ...]:
        """The ground actions printed as ``name`` (empty: never relaxed-reachable)."""
        return self.task.actions_by_name(str(name))

    # ------------------------------------------------------------------ well-formedness

    def _fits(self, obj: str, types: tuple[str, ...]) -> bool:
        own = self.types.get(obj)
        if own is None:
            return False
        return any(t in self.hierarchy.ancestors(o) for o in own for t in types)

    def _check_args(self, what: str, name: GroundName,
                    params: tuple[A.TypedName, ...]) -> str | None:
        if len(name.args) != len(params):
            return (f"{what} {name.name} takes {len(params)} argument(s), "
                    f"{len(name.args)} given in {name}")
        for k, (arg, param) in enumerate(zip(name.args, params)):
            if arg not in self.types:
                return f"{arg} in {name} is not an object of the problem"
            if not self._fits(arg, param.types):
                return (f"argument {k + 1} of {name} ({arg}: {' '.join(self.types[arg])}) "
                        f"is not of type {' '.join(param.types)}")
        return None

    def atom_problem(self, name: GroundName) -> str | None:
        """Why ``name`` is not a well-formed ground atom of the task, or None if it is."""
        pred = self.domain.predicate(name.name)
        if pred is None:
            return f"the domain declares no predicate {name.name}"
        return self._check_args("predicate", name, pred.parameters)

    def action_problem(self, name: GroundName) -> str | None:
        """Why ``name`` is not a well-formed ground action of the task, or None if it is."""
        action = self.domain.action(name.name)
        if action is None:
            return f"the domain declares no action {name.name}"
        return self._check_args("action", name, action.parameters)

    def is_static(self, predicate: str) -> bool:
        """Whether no action changes the predicate (its atoms keep their initial truth)."""
        return predicate not in self.fluent_predicates


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
