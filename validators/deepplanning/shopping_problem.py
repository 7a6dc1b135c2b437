"""A shopping case's decision, solved and proved unique by z3, re-checked by enumeration.

The decision (paper lines 79, 97, 211): one product per requested item, from the products
that pass the item's filters (name, the user's size, thresholds, delivery time), and how
many of each owned coupon to use.  Level 1 has no objective beyond the filters; level 2
asks for the cheapest cart whose total reaches a floor ("keep my total spending above
X", line 95); level 3 asks for the lowest price after coupons under the cart rules of
:class:`~.shopping_db.Cart` (owned quantity, VIP only for VIPs, the undiscounted total at
least the sum of the used coupons' thresholds).  Money in cents throughout.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

from planning_core.validators.deepplanning.shopping_db import parse_coupon
from planning_core.validators.deepplanning.solver import RLIMIT, Z3_LOCK, Proof

__all__ = ["CartProblem", "prove_cart", "brute_force_cart"]


@dataclass
class CartProblem:
    items: list[dict[str, int]]            # per item: candidate product id -> price (cents)
    coupons: dict[str, int] = field(default_factory=dict)   # usable coupon -> owned count
    floor: int | None = None               # level 2: undiscounted total >= floor
    objective: str = "none"                # "none" | "total" | "final"

    def assignment(self, products: list[str], qs: dict[str, int]) -> dict[str, object]:
        return {"products": products, "coupons": {c: q for c, q in qs.items() if q}}


def _final(p: CartProblem, base: int, qs: dict[str, int]) -> int:
    return max(0, base - sum(parse_coupon(c)[0] * q for c, q in qs.items()))


def prove_cart(p: CartProblem) -> Proof:
    with Z3_LOCK:
        return _prove_cart(p)


def _prove_cart(p: CartProblem) -> Proof:
    import z3

    started = time.process_time()
    if any(not item for item in p.items):
        return Proof("infeasible", None, None, cpu_seconds=time.process_time() - started)
    ids = [sorted(item) for item in p.items]
    x = [z3.Int(f"x{i}") for i in range(len(ids))]
    q = {c: z3.Int(f"q{n}") for n, c in enumerate(sorted(p.coupons))}
    base_terms = []
    cons = []
    for i, opts in enumerate(ids):
        cons += [x[i] >= 0, x[i] < len(opts)]
        e = z3.IntVal(0)
        for k, pid in enumerate(opts):
            e = z3.If(x[i] == k, z3.IntVal(p.items[i][pid]), e)
        base_terms.append(e)
    base = z3.Sum(base_terms)
    for c, var in q.items():
        cons += [var >= 0, var <= p.coupons[c]]
    if q:
        cons.append(z3.Sum([parse_coupon(c)[1] * v for c, v in q.items()]) <= base)
        final = base - z3.Sum([parse_coupon(c)[0] * v for c, v in q.items()])
    else:
        final = base
    if p.floor is not None:
        cons.append(base >= p.floor)
    obj = {"none": z3.IntVal(0), "total": base, "final": final}[p.objective]
    opt = z3.Optimize()
    opt.set("rlimit", RLIMIT)
    opt.add(*cons)
    opt.minimize(obj)
    if p.objective != "final":
        for var in q.values():       # no coupon asked for: use none
            opt.add(var == 0)
            cons.append(var == 0)
    res = opt.check()
    if res != z3.sat:
        return Proof("infeasible" if res == z3.unsat else "unknown", None, None,
                     cpu_seconds=time.process_time() - started)
    m = opt.model()
    chosen_p = [ids[i][m.eval(x[i]).as_long()] for i in range(len(ids))]
    chosen_q = {c: m.eval(v, model_completion=True).as_long() for c, v in q.items()}
    value = m.eval(obj, model_completion=True).as_long()
    s = z3.Solver()
    s.set("rlimit", RLIMIT)
    s.add(*cons)
    improvements = 0
    while True:   # certify: nothing strictly better (see solver.prove_unique)
        s.push()
        s.add(obj < value)
        res = s.check()
        if res == z3.unsat:
            s.pop()
            break
        if res != z3.sat:
            return Proof("unknown", None, None, cpu_seconds=time.process_time() - started)
        m = s.model()
        chosen_p = [ids[i][m.eval(x[i]).as_long()] for i in range(len(ids))]
        chosen_q = {c: m.eval(v, model_completion=True).as_long() for c, v in q.items()}
        value = m.eval(obj, model_completion=True).as_long()
        improvements += 1
        s.pop()
    s.add(obj == value)
    s.add(z3.Or([x[i] != ids[i].index(chosen_p[i]) for i in range(len(ids))] +
                [v != chosen_q[c] for c, v in q.items()]))
    res2 = s.check()
    spent = time.process_time() - started
    best = p.assignment(chosen_p, chosen_q)
    if res2 == z3.unsat:
        return Proof("unique", best, [value], cpu_seconds=spent, improvements=improvements)
    if res2 == z3.sat:
        m2 = s.model()
        second = p.assignment([ids[i][m2.eval(x[i]).as_long()] for i in range(len(ids))],
                              {c: m2.eval(v, model_completion=True).as_long()
                               for c, v in q.items()})
        return Proof("not-unique", best, [value], second, cpu_seconds=spent)
    return Proof("unknown", best, [value], cpu_seconds=spent)


def brute_force_cart(p: CartProblem, limit: int = 2_000_000) -> Proof:
    started = time.process_time()
    ids = [sorted(item) for item in p.items]
    names = sorted(p.coupons) if p.objective == "final" else []
    ranges = [range(p.coupons[c] + 1) for c in names]
    size = 1
    for r in ids:
        size *= len(r)
    for r in ranges:
        size *= len(r)
    if size > limit or any(not r for r in ids):
        return Proof("unknown" if size > limit else "infeasible", None, None,
                     solver="brute-force")
    best: list[tuple[int, list[str], dict[str, int]]] = []
    for combo in itertools.product(*ids):
        base = sum(p.items[i][pid] for i, pid in enumerate(combo))
        if p.floor is not None and base < p.floor:
            continue
        for qv in itertools.product(*ranges):
            qs = dict(zip(names, qv))
            if sum(parse_coupon(c)[1] * n for c, n in qs.items()) > base:
                continue
            value = {"none": 0, "total": base, "final": _final(p, base, qs)}[p.objective]
            if not best or value < best[0][0]:
                best = [(value, list(combo), qs)]
            elif value == best[0][0]:
                best.append((value, list(combo), qs))
    spent = time.process_time() - started
    if not best:
        return Proof("infeasible", None, None, cpu_seconds=spent, solver="brute-force")
    v, prods, qs = best[0]
    second = p.assignment(best[1][1], best[1][2]) if len(best) > 1 else None
    return Proof("unique" if len(best) == 1 else "not-unique", p.assignment(prods, qs), [v],
                 second, cpu_seconds=spent, solver="brute-force")
