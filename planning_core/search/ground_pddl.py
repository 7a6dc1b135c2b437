"""A ground Task printed as propositional PDDL, so Fast Downward can search it from any state.

Why ground: a question about one state of a task (its h*, or whether an atom is a landmark)
is a question about the ground task, possibly modified. Printing the ground task keeps every
normalisation the grounder did (split disjunctions, compiled quantifiers, derived facts) and
lets the modification be exact, instead of re-deriving it at the lifted level.

Facts keep their atoms (``(at c0 l0)``: predicates untyped, objects declared), each action
``k`` becomes the parameterless action ``a<k>`` (a comment gives its original name), axioms
become ``:derived`` rules and action costs a ``(total-cost)`` metric. Keeping the lifted
predicates matters: Fast Downward's invariant synthesis works per predicate, and printing
every fact as its own 0-ary predicate made translation ~35x slower on blocks (3.4 s
instead of 0.1 s).

The landmark compilation of ACPBench Hard (Kokel et al. 2025) is ``forbidden``: a fresh fact
``(guard)`` holds initially and is a goal, and every action or conditional effect that adds a
forbidden fact deletes it, so the compiled task is solvable iff some plan never makes a
forbidden fact true. A forbidden *derived* fact cannot be deleted by actions; for it the
compilation adds ``(not f)`` to every action precondition and to the goal instead, which says
the same thing (the fact is false in every state of the plan).
"""
from __future__ import annotations

import math

from planning_core.errors import UnsupportedFeature
from planning_core.ground.facts import bits
from planning_core.ground.task import Task
from planning_core.result import SolveResult, Status


def _names(task: Task) -> tuple[list[str], dict[str, int], str]:
    """Fact i printed as its own atom (predicate renamed only when not a PDDL name), the
    arity of every printed predicate, and a fresh guard predicate name."""
    names, arity = [], {}
    for atom in task.facts.atoms:
        pred = atom[0] if atom[0][:1].isalpha() else "p" + atom[0].lstrip("_-") or "p"
        arity[pred] = len(atom) - 1
        names.append("(" + " ".join((pred,) + tuple(atom[1:])) + ")")
    guard = "guard"
    while guard in arity:
        guard += "-x"
    return names, arity, guard


def _lits(names: list[str], pos: int, neg: int) -> list[str]:
    return [names[i] for i in bits(pos)] + [f"(not {names[i]})" for i in bits(neg)]


def _and(parts: list[str]) -> str:
    if not parts:
        return "(and)"
    return parts[0] if len(parts) == 1 else "(and " + " ".join(parts) + ")"


def _cost_text(cost: float) -> str:
    if cost < 0 or cost != math.floor(cost):
        raise UnsupportedFeature(f"Fast Downward needs non-negative integer costs, not {cost}")
    return str(int(cost))


def ground_pddl(task: Task, state: int | None = None, *, forbidden: int = 0) -> tuple[str, str]:
    """(domain text, problem text) of ``task`` from ``state``, with ``forbidden`` compiled in."""
    s = task.init if state is None else state
    names, arity, guard_name = _names(task)
    g_atom = f"({guard_name})"
    derived_forbidden = forbidden & task.derived
    basic_forbidden = forbidden & ~task.derived
    guard = bool(basic_forbidden)
    reqs = [":strips", ":negative-preconditions"]
    if task.has_conditional_effects or guard:
        reqs.append(":conditional-effects")
    if task.axioms:
        reqs.append(":derived-predicates")
    costs = task.has_costs
    if costs:
        reqs.append(":action-costs")
    out = [f"(define (domain ground-{task.name or 'task'})", f"(:requirements {' '.join(reqs)})",
           "(:predicates " + " ".join(
               "(" + " ".join([p] + [f"?x{j}" for j in range(n)]) + ")"
               for p, n in sorted(arity.items())) + (f" {g_atom}" if guard else "") + ")"]
    objects = sorted({x for atom in task.facts.atoms for x in atom[1:]})
    if objects:  # constants, since derived rules may name them
        out.append(f"(:constants {' '.join(objects)})")
    if costs:
        out.append("(:functions (total-cost))")
    for k, a in enumerate(task.actions):
        pre = _lits(names, a.pre_pos, a.pre_neg | derived_forbidden)
        eff = _lits(names, a.add, a.delete & ~a.add)
        if guard and a.add & basic_forbidden:
            eff.append(f"(not {g_atom})")
        for ce in a.cond_effects:
            inner = _lits(names, ce.add, ce.delete & ~ce.add)
            if guard and ce.add & basic_forbidden:
                inner.append(f"(not {g_atom})")
            if inner:
                eff.append(f"(when {_and(_lits(names, ce.cond_pos, ce.cond_neg))} {_and(inner)})")
        if costs:
            eff.append(f"(increase (total-cost) {_cost_text(a.cost)})")
        out.append(f"(:action a{k} ;; {a}\n  :parameters ()\n  :precondition {_and(pre)}\n"
                   f"  :effect {_and(eff)})")
    for ax in task.axioms:
        head = names[ax.head]
        if head.count(" "):  # a derived head with arguments needs variables in PDDL
            pred, *args = head.strip("()").split()
            eqs = [f"(= ?x{j} {arg})" for j, arg in enumerate(args)]
            vars_ = " ".join(f"?x{j}" for j in range(len(args)))
            out.append(f"(:derived ({pred} {vars_}) "
                       f"{_and(eqs + _lits(names, ax.body_pos, ax.body_neg))})")
        else:
            out.append(f"(:derived {head} {_and(_lits(names, ax.body_pos, ax.body_neg))})")
    out.append(")")
    domain = "\n".join(line for line in out if line)
    init = [names[i] for i in bits(s & ~task.derived)] + ([g_atom] if guard else [])
    if costs:
        init.append("(= (total-cost) 0)")
    goal = _lits(names, task.goal_pos, task.goal_neg | derived_forbidden) + ([g_atom] if guard else [])
    problem = (f"(define (problem ground-{task.name or 'task'}) (:domain ground-{task.name or 'task'})\n"
               f"(:init {' '.join(init)})\n(:goal {_and(goal)})"
               + ("\n(:metric minimize (total-cost))" if costs else "") + ")\n")
    return domain, problem


def solve_ground(task: Task, state: int | None = None, *, forbidden: int = 0, optimal: bool = True,
                 time_limit: float = 60.0, cpu_budget: bool = False) -> SolveResult:
    """Fast Downward on the printed ground task; the plan comes back in original names."""
    from planning_core.search.fast_downward import run_fast_downward
    domain, problem = ground_pddl(task, state, forbidden=forbidden)
    res = run_fast_downward(domain, problem, optimal=optimal, time_limit=time_limit,
                            cpu_budget=cpu_budget)
    if res.plan is None:
        return res
    names = []
    for step in res.plan:
        k = int(step.strip("()").split()[0][1:])
        names.append(str(task.actions[k]))
    cost = res.cost
    if cost is None:
        cost = float(sum(task.actions[int(x.strip("()").split()[0][1:])].cost for x in res.plan))
    return SolveResult(res.status, tuple(names), cost, res.engine, res.time_s, res.stats,
                       res.reason)
