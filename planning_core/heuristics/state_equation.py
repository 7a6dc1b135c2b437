"""The state equation as an unsolvability test: counting arguments that h^2 cannot make.

Some tasks are unsolvable because of a count, not a pair: in a BlocksWorld whose edited
``pickup`` and ``putdown`` toggle one fact (CoPE BlocksWorld-100 state/p12/constraint10,
"no more than 1 stack"), the number of blocks on the table can never drop by two, while
every pair of goal facts is reachable together. The state equation (Bonet 2013; the
operator-counting view of Pommerening et al. 2014) catches it: a plan applies each action
``a`` some ``x_a >= 0`` times, and each fact's final value is its initial value plus the
changes those applications make. If no non-negative ``x`` gives the goal, no plan exists.

Here the changes are read off the STRIPS task, with h^2 (:mod:`planning_core.heuristics.hm`)
telling when a fact's value before an action is known: an application of ``a`` changes fact
``f`` by exactly -1 when ``a`` requires and deletes ``f``, +1 when it adds ``f`` and ``f`` is
false before (a negative precondition, or h^2-mutex with a precondition), 0 when it deletes
``f`` that is false before; otherwise by something in [0, 1] (an add) or [-1, 0] (a delete).
Summed over a plan: ``init(f) + sum_a lo_a(f) x_a <= final(f) <= init(f) + sum_a hi_a(f) x_a``,
with ``final(f)`` in [0, 1], 1 for a goal fact and 0 for a fact h^2-mutex with a goal fact
(the goal state is reachable, so it holds no unreachable pair). Every plan gives a solution,
so when the linear program has none, no plan exists.

The linear program is solved by HiGHS through SciPy (an optional dependency, extra ``lp``;
without it the test answers None) with an iteration limit, never a clock. To keep a
floating-point answer from passing for a proof, the program is solved in its elastic form
(minimise the total violation of the bounds above, always feasible), and only a minimum
violation over :data:`PROOF_MARGIN` counts. Tasks with conditional effects or axioms are not
analysed (None).
"""
from __future__ import annotations

from planning_core.ground.facts import bits
from planning_core.ground.task import Task
from planning_core.heuristics.hm import DEFAULT_WORK, h2_reachability

__all__ = ["state_equation_unsolvable", "PROOF_MARGIN", "MAX_ITERATIONS"]

#: Least total bound violation (in units of one fact) that counts as infeasible; HiGHS's
#: feasibility tolerance is 1e-7.
PROOF_MARGIN = 1e-3
#: Simplex iterations before the test gives up (deterministic).
MAX_ITERATIONS = 200_000


def state_equation_unsolvable(task: Task, *, work: int = DEFAULT_WORK,
                              max_iterations: int = MAX_ITERATIONS) -> bool | None:
    """True when the state equation proves that no plan exists; False when it does not;
    None when the task is not analysed (conditional effects, axioms, SciPy missing) or a
    budget (h^2's ``work``, ``max_iterations``) ran out."""
    if task.axioms or any(a.cond_effects for a in task.actions):
        return None
    try:
        import numpy as np
        from scipy.optimize import linprog
        from scipy.sparse import coo_matrix
    except ImportError:
        return None
    h2 = h2_reachability(task, work=work, stop_mask=0)
    if not h2.complete:
        return None
    pairs = h2.pairs
    n, m = len(task.facts), len(task.actions)
    lo: dict[tuple[int, int], int] = {}
    hi: dict[tuple[int, int], int] = {}
    for k, a in enumerate(task.actions):
        known_false = a.pre_neg
        for p in a.pre_pos_ids:
            known_false |= ~pairs[p]          # facts never true beside precondition p
        for f in bits(a.add & ~a.pre_pos):
            hi[f, k] = 1
            if known_false >> f & 1:
                lo[f, k] = 1
        for f in bits(a.delete & ~a.add):
            if a.pre_pos >> f & 1:
                lo[f, k] = hi[f, k] = -1
            elif not known_false >> f & 1:
                lo[f, k] = -1
    goal = task.goal_pos
    final_lo, final_hi = [0.0] * n, [1.0] * n
    for f in range(n):
        if goal >> f & 1:
            final_lo[f] = 1.0
        elif goal & ~pairs[f]:                # never true together with a goal fact
            final_hi[f] = 0.0
    if any(final_lo[f] > final_hi[f] for f in range(n)):
        return True                           # a goal fact h^2-unreachable
    # variables: x (m), y (n), then slacks u (n: y above its upper sum), v (n: below lower)
    # rows: y_f - sum hi x - u_f <= init_f ;  -y_f + sum lo x - v_f <= -init_f
    rows, cols, vals = [], [], []
    for (f, k), c in hi.items():
        rows.append(f); cols.append(k); vals.append(-c)
    for (f, k), c in lo.items():
        rows.append(n + f); cols.append(k); vals.append(c)
    for f in range(n):
        rows += [f, f, n + f, n + f]
        cols += [m + f, m + n + f, m + f, m + 2 * n + f]
        vals += [1, -1, -1, -1]
    init = task.init
    b = [float(init >> f & 1) for f in range(n)] + [-float(init >> f & 1) for f in range(n)]
    size = m + 3 * n
    matrix = coo_matrix((vals, (rows, cols)), shape=(2 * n, size)).tocsr()
    cost = np.zeros(size)
    cost[m + n:] = 1.0
    bounds = [(0, None)] * m + list(zip(final_lo, final_hi)) + [(0, None)] * (2 * n)
    out = linprog(cost, A_ub=matrix, b_ub=np.array(b), bounds=bounds, method="highs",
                  options={"maxiter": max_iterations, "presolve": True})
    if out.status != 0:                       # iteration limit, or numerical trouble
        return None
    return bool(out.fun > PROOF_MARGIN)
