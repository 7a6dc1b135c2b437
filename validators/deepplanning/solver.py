"""Proved unique optima: z3's optimiser finds the optimum, a second query proves it alone.

The paper adjusts each task's database "so that exactly one optimal solution exists"
(line 97).  We make that a proof.  A task's decision is a :class:`ChoiceProblem`: variables
(take one transport option each way, one hotel, one restaurant, ...) each with the options
the constraints allow and a lexicographic cost vector per option (e.g. ``(price,)`` for
"cheapest", ``(-rating, price)`` for "highest rated, then cheapest"), plus optional linear
budget rows.  :func:`prove_unique` asks ``z3.Optimize`` for the lexicographic optimum, then
certifies it (``z3.Solver``: no assignment is lexicographically better, ``unsat``), then
asks for a different assignment with the same objective values: ``unsat`` is the proof that
the optimum is unique.  :func:`brute_force` re-checks by enumeration.

Budgets inside the solver are deterministic (z3's ``rlimit``), never wall-clock; a proof
that runs out answers UNKNOWN and the generator draws another task.
"""
from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ChoiceProblem", "Proof", "prove_unique", "brute_force", "RLIMIT", "Z3_LOCK"]

RLIMIT = 50_000_000   # z3 resource units per query (deterministic)
# z3's Python API shares one context, which is not thread-safe (concurrent agent runs
# crashed the interpreter); every proof holds this lock -- proofs take milliseconds
Z3_LOCK = threading.Lock()


@dataclass
class ChoiceProblem:
    # variable -> option ids (only the options its constraints allow)
    options: dict[str, list[str]]
    # variable -> option id -> cost vector (minimised lexicographically, variables in order)
    costs: dict[str, dict[str, tuple[int, ...]]]
    # rows: ({variable: {option: coefficient}}, bound): sum <= bound
    budgets: list[tuple[dict[str, dict[str, int]], int]] = field(default_factory=list)


@dataclass
class Proof:
    status: str                      # "unique" | "not-unique" | "infeasible" | "unknown"
    optimum: dict[str, str] | None
    objective: list[int] | None
    second: dict[str, str] | None = None   # a second optimum, when not unique
    cpu_seconds: float = 0.0
    solver: str = "z3"
    improvements: int = 0    # steps past z3.Optimize's model before "no better" was unsat

    def to_json(self) -> dict[str, Any]:
        return {"solver": self.solver, "status": self.status, "optimum": self.optimum,
                "objective": self.objective,
                "better": "unsat" if self.optimum is not None and self.solver == "z3"
                and self.status in ("unique", "not-unique") else None,
                "second_optimum": "unsat" if self.status == "unique" else self.second,
                "improvements": self.improvements,
                "cpu_seconds": round(self.cpu_seconds, 4)}


def _objectives(p: ChoiceProblem) -> list[tuple[str, int]]:
    """(variable, position) per lexicographic objective, in priority order."""
    out = []
    for var in p.options:
        width = max((len(v) for v in p.costs[var].values()), default=0)
        out += [(var, k) for k in range(width)]
    return out


def _lex_better(objs: list, values: list[int]):
    import z3

    return z3.Or([z3.And(*[objs[j] == values[j] for j in range(k)], objs[k] < values[k])
                  for k in range(len(objs))]) if objs else z3.BoolVal(False)


def prove_unique(p: ChoiceProblem) -> Proof:
    with Z3_LOCK:
        return _prove_unique(p)


def _prove_unique(p: ChoiceProblem) -> Proof:
    import z3

    started = time.process_time()
    for var, opts in p.options.items():
        if len(set(opts)) != len(opts) or set(opts) - set(p.costs.get(var, {})):
            raise ValueError(f"variable {var!r}: options must be distinct and each have "
                             "a cost")
    index = {var: {o: i for i, o in enumerate(opts)} for var, opts in p.options.items()}
    x = {var: z3.Int(f"x_{n}") for n, var in enumerate(p.options)}
    base = []
    for var, opts in p.options.items():
        if not opts:
            return Proof("infeasible", None, None, cpu_seconds=time.process_time() - started)
        base += [x[var] >= 0, x[var] < len(opts)]

    def term(var: str, value_of: dict[str, int]) -> Any:
        expr = z3.IntVal(0)
        for o, i in index[var].items():
            expr = z3.If(x[var] == i, z3.IntVal(value_of.get(o, 0)), expr)
        return expr

    for row, bound in p.budgets:
        base.append(z3.Sum([term(var, coef) for var, coef in row.items()]) <= bound)
    objs = [term(var, {o: c[k] for o, c in p.costs[var].items()})
            for var, k in _objectives(p)]

    opt = z3.Optimize()
    opt.set("rlimit", RLIMIT)
    opt.set(priority="lex")
    opt.add(*base)
    for o in objs:
        opt.minimize(o)
    res = opt.check()
    if res == z3.unsat:
        return Proof("infeasible", None, None, cpu_seconds=time.process_time() - started)
    if res != z3.sat:
        return Proof("unknown", None, None, cpu_seconds=time.process_time() - started)
    m = opt.model()
    chosen = {var: p.options[var][m.eval(x[var]).as_long()] for var in p.options}
    values = [m.eval(o, model_completion=True).as_long() for o in objs]

    # Certify the optimum: no assignment is lexicographically better (unsat).  z3's
    # lexicographic Optimize has been seen to stop at a non-optimal model on these If-chain
    # objectives, so its answer is only a starting point; each sat step here improves.
    s = z3.Solver()
    s.set("rlimit", RLIMIT)
    s.add(*base)
    improvements = 0
    while True:
        s.push()
        s.add(_lex_better(objs, values))
        res = s.check()
        if res == z3.unsat:
            s.pop()
            break
        if res != z3.sat:
            return Proof("unknown", chosen, values, cpu_seconds=time.process_time() - started)
        m = s.model()
        chosen = {var: p.options[var][m.eval(x[var]).as_long()] for var in p.options}
        values = [m.eval(o, model_completion=True).as_long() for o in objs]
        improvements += 1
        s.pop()
    s.add(*[o == v for o, v in zip(objs, values)])
    s.add(z3.Or([x[var] != index[var][chosen[var]] for var in p.options]))
    res2 = s.check()
    spent = time.process_time() - started
    if res2 == z3.unsat:
        return Proof("unique", chosen, values, cpu_seconds=spent, improvements=improvements)
    if res2 == z3.sat:
        m2 = s.model()
        second = {var: p.options[var][m2.eval(x[var]).as_long()] for var in p.options}
        return Proof("not-unique", chosen, values, second, cpu_seconds=spent)
    return Proof("unknown", chosen, values, cpu_seconds=spent)


def brute_force(p: ChoiceProblem, limit: int = 1_000_000) -> Proof:
    """Enumerate every assignment (at most ``limit``); the same verdict as
    :func:`prove_unique` by other means."""
    started = time.process_time()
    vars_ = list(p.options)
    size = 1
    for var in vars_:
        size *= len(p.options[var])
    if size > limit:
        return Proof("unknown", None, None, solver="brute-force")
    best: list[tuple[list[int], dict[str, str]]] = []
    for combo in itertools.product(*(p.options[v] for v in vars_)):
        a = dict(zip(vars_, combo))
        if any(sum(coef[var].get(a[var], 0) for var in coef) > bound
               for coef, bound in p.budgets):
            continue
        key = [p.costs[var][a[var]][k] if k < len(p.costs[var][a[var]]) else 0
               for var, k in _objectives(p)]
        if not best or key < best[0][0]:
            best = [(key, a)]
        elif key == best[0][0]:
            best.append((key, a))
    spent = time.process_time() - started
    if not best:
        return Proof("infeasible", None, None, cpu_seconds=spent, solver="brute-force")
    status = "unique" if len(best) == 1 else "not-unique"
    return Proof(status, best[0][1], best[0][0], best[1][1] if len(best) > 1 else None,
                 cpu_seconds=spent, solver="brute-force")
