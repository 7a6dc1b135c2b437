"""z3 programs written the way a formalizer writes them, for the SMT pipeline's tests.

:func:`bounded_program` encodes a ground task as planning as satisfiability (Kautz & Selman
1992; linear encoding with one action per step and explanatory frame axioms): Boolean
fact variables per time step, action variables per step with exactly one true, and for
every fact ``f[t+1] = added or (f[t] and not deleted)``, conditional effects evaluated in
the pre-state. Horizons 0, 1, 2, ... are tried in turn, so the first plan found is a
shortest one. The task's data is written into the program as literals, so the program is
self-contained like a model's answer; the task itself comes from grounding the pair's
ground-truth PDDL with planning_core.

``style`` picks how the plan is printed (S-expressions, calls, a Python list of tuples,
numbered lines), exercising the output reader. ``drop_precondition`` names a predicate
whose preconditions the encoding forgets: a deliberately broken formalization.
"""
from __future__ import annotations

from planning_core.ground.grounder import ground
from planning_core.ground.facts import bits
from planning_core.ground.task import Task

STYLES = ("sexpr", "calls", "tuples", "indexed")

_TEMPLATE = '''\
from z3 import And, Bool, Implies, Not, Or, PbEq, Solver, is_true, sat

FACTS = {facts!r}
INIT = {init!r}
GOAL_POS = {goal_pos!r}
GOAL_NEG = {goal_neg!r}
# (name, args, pre_pos, pre_neg, add, delete, [(cond_pos, cond_neg, add, delete), ...])
ACTIONS = {actions!r}
MAX_STEPS = {max_steps}


def holds(state, pos, neg):
    return And([state[i] for i in pos] + [Not(state[i]) for i in neg])


def solve(horizon):
    n = len(FACTS)
    f = [[Bool(f"f_{{t}}_{{i}}") for i in range(n)] for t in range(horizon + 1)]
    a = [[Bool(f"a_{{t}}_{{j}}") for j in range(len(ACTIONS))] for t in range(horizon)]
    solver = Solver()
    solver.add([f[0][i] if i in INIT else Not(f[0][i]) for i in range(n)])
    solver.add(holds(f[horizon], GOAL_POS, GOAL_NEG))
    for t in range(horizon):
        solver.add(PbEq([(x, 1) for x in a[t]], 1))
        adders = [[] for _ in range(n)]
        deleters = [[] for _ in range(n)]
        for j, (name, args, pre_pos, pre_neg, add, delete, conds) in enumerate(ACTIONS):
            solver.add(Implies(a[t][j], holds(f[t], pre_pos, pre_neg)))
            for i in add:
                adders[i].append(a[t][j])
            for i in delete:
                deleters[i].append(a[t][j])
            for cond_pos, cond_neg, c_add, c_delete in conds:
                fires = And(a[t][j], holds(f[t], cond_pos, cond_neg))
                for i in c_add:
                    adders[i].append(fires)
                for i in c_delete:
                    deleters[i].append(fires)
        for i in range(n):
            solver.add(f[t + 1][i] == Or(Or(adders[i]), And(f[t][i], Not(Or(deleters[i])))))
    if solver.check() != sat:
        return None
    model = solver.model()
    plan = []
    for t in range(horizon):
        for j, action in enumerate(ACTIONS):
            if is_true(model.evaluate(a[t][j])):
                plan.append((action[0],) + tuple(action[1]))
    return plan


for horizon in range(MAX_STEPS + 1):
    plan = solve(horizon)
    if plan is not None:
        break
else:
    print(f"unsat: no plan with at most {{MAX_STEPS}} steps")
    raise SystemExit(0)
{printer}
'''

_PRINTERS = {
    "sexpr": 'print("sat")\nfor step in plan:\n    print("(" + " ".join(step) + ")")',
    "calls": 'for step in plan:\n    print(f"{step[0]}({\', \'.join(step[1:])})")',
    "tuples": 'print("Plan found:")\nprint(plan)',
    "indexed": 'for t, step in enumerate(plan):\n    print(t, " ".join(step))',
}


def _ids(mask: int) -> list[int]:
    return list(bits(mask))


def task_literals(task: Task, drop_precondition: str | None = None) -> dict:
    """The task as plain Python data (fact names, id lists) for the program template."""
    if task.axioms:
        raise ValueError("derived predicates are not encoded by this test program")
    facts = [" ".join(atom) for atom in task.facts.atoms]

    def keep(ids):
        return [i for i in ids if task.facts.atom(i)[0] != drop_precondition]

    actions = []
    for act in task.actions:
        conds = [(_ids(c.cond_pos), _ids(c.cond_neg), _ids(c.add), _ids(c.delete))
                 for c in act.cond_effects]
        actions.append((act.name, list(act.args), keep(_ids(act.pre_pos)),
                        keep(_ids(act.pre_neg)), _ids(act.add), _ids(act.delete), conds))
    return {"facts": facts, "init": sorted(_ids(task.init)), "goal_pos": _ids(task.goal_pos),
            "goal_neg": _ids(task.goal_neg), "actions": actions}


def bounded_program(domain, problem, *, style: str = "sexpr", max_steps: int = 16,
                    drop_precondition: str | None = None) -> str:
    """A z3 program that finds a shortest plan of the ground task (see the module doc)."""
    data = task_literals(ground(domain, problem), drop_precondition)
    return _TEMPLATE.format(max_steps=max_steps, printer=_PRINTERS[style], **data)
