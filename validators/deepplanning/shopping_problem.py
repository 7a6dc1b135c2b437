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

__all__ = ["CartProblem", "prove_cart", "brute_force_cart", "Timing", "prove_timing",
           "brute_force_timing"]


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


def _product_choice(p: CartProblem, ids: list[list[str]], tag: str) -> tuple[list, object, list]:
    """One z3 choice of a product per requested item: the index variables ``tag0..``, their
    total price and the constraints that keep each index in range."""
    import z3

    v = [z3.Int(f"{tag}{i}") for i in range(len(ids))]
    cons, terms = [], []
    for i, opts in enumerate(ids):
        cons += [v[i] >= 0, v[i] < len(opts)]
        e = z3.IntVal(0)
        for k, pid in enumerate(opts):
            e = z3.If(v[i] == k, z3.IntVal(p.items[i][pid]), e)
        terms.append(e)
    return v, z3.Sum(terms), cons


def _prove_cart(p: CartProblem) -> Proof:
    import z3

    started = time.process_time()
    if any(not item for item in p.items):
        return Proof("infeasible", None, None, cpu_seconds=time.process_time() - started)
    ids = [sorted(item) for item in p.items]
    x, base, cons = _product_choice(p, ids, "x")
    q = {c: z3.Int(f"q{n}") for n, c in enumerate(sorted(p.coupons))}
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


# ---- coupon timing (paper line 211) ---------------------------------------------------------
# The released cart judges a coupon when it is added, against the products in the cart then,
# and never re-checks it when products are removed (docs/deepplanning.md, "Coupon timing").
# For a level-3 optimum (proved under the final-state rule above) two facts follow, each
# proved by z3 and re-checked by enumeration:
#   * ``coupons_last``: the optimum's coupons fit the whole optimum cart and no part of it,
#     so they can be applied only after the last product is in the cart;
#   * ``stale``: the cheapest cart reachable when coupons are judged only when applied --
#     coupons applied on one choice of the query's candidates, products then switched to
#     another choice -- when it is cheaper than the optimum.  Such a task's optimum depends
#     on the timing rule: judged when applied only, another, cheaper cart would win.

@dataclass
class Timing:
    coupons_last: bool | None            # None: the optimum uses no coupon
    stale: dict[str, object] | None      # the cheapest stale cart, when below the optimum
    last_proof: str = "n/a"              # "unsat": no proper part of the cart fits
    stale_proof: str = "unsat"           # "unsat": no stale cart below the optimum;
    cpu_seconds: float = 0.0             # "min": the witness is the cheapest one
    solver: str = "z3"

    def to_json(self) -> dict[str, object]:
        return {"solver": self.solver, "coupons_last": self.coupons_last,
                "last_proof": self.last_proof, "stale": self.stale,
                "stale_proof": self.stale_proof, "cpu_seconds": round(self.cpu_seconds, 4)}


def _need(coupons: dict[str, int]) -> int:
    return sum(parse_coupon(c)[1] * q for c, q in coupons.items())


def _stale_json(p: CartProblem, applied_on: list[str], products: list[str],
                qs: dict[str, int], final: int) -> dict[str, object]:
    return {"applied_on": applied_on, "products": products,
            "coupons": {c: q for c, q in qs.items() if q}, "final": final}


def prove_timing(p: CartProblem, optimum: dict, value: int) -> Timing:
    """The timing facts of ``optimum`` (products, coupons) whose final price is ``value``."""
    with Z3_LOCK:
        return _prove_timing(p, optimum, value)


def _prove_timing(p: CartProblem, optimum: dict, value: int) -> Timing:
    import z3

    started = time.process_time()
    prices = [p.items[i][pid] for i, pid in enumerate(optimum["products"])]
    need = _need(optimum["coupons"])
    last: bool | None = None
    last_proof = "n/a"
    if need:
        keep = [z3.Bool(f"k{i}") for i in range(len(prices))]
        s = z3.Solver()
        s.set("rlimit", RLIMIT)
        s.add(z3.Or([z3.Not(k) for k in keep]))
        s.add(z3.Sum([z3.If(k, pr, 0) for k, pr in zip(keep, prices)]) >= need)
        res = s.check()
        last_proof = "unsat" if res == z3.unsat else "sat" if res == z3.sat else "unknown"
        last = {"unsat": True, "sat": False}.get(last_proof)
    ids = [sorted(item) for item in p.items]
    names = sorted(p.coupons)

    x, base_x, cx = _product_choice(p, ids, "x")      # the final products
    y, base_y, cy = _product_choice(p, ids, "y")      # the products when the coupons are applied
    q = {c: z3.Int(f"q{n}") for n, c in enumerate(names)}
    cons = cx + cy
    for c, var in q.items():
        cons += [var >= 0, var <= p.coupons[c]]
    thr = z3.Sum([parse_coupon(c)[1] * v for c, v in q.items()]) if q else z3.IntVal(0)
    disc = z3.Sum([parse_coupon(c)[0] * v for c, v in q.items()]) if q else z3.IntVal(0)
    final = z3.If(base_x - disc > 0, base_x - disc, 0)
    cons += [thr <= base_y, thr > base_x, final < value]     # final < value stays last
    s = z3.Solver()
    s.set("rlimit", RLIMIT)
    s.add(*cons)
    stale = None
    stale_proof = "unsat"
    while True:     # descend to the cheapest stale cart; each step is a strictly cheaper one
        res = s.check()
        if res == z3.unsat:
            break
        if res != z3.sat:
            return Timing(last, None, last_proof, "unknown",
                          time.process_time() - started)
        m = s.model()
        got = m.eval(final, model_completion=True).as_long()
        stale = _stale_json(p, [ids[i][m.eval(y[i]).as_long()] for i in range(len(ids))],
                            [ids[i][m.eval(x[i]).as_long()] for i in range(len(ids))],
                            {c: m.eval(v, model_completion=True).as_long()
                             for c, v in q.items()}, got)
        stale_proof = "min"
        s.add(final < got)
    if stale is not None:     # the canonical witness: each variable at its least value
        s = z3.Solver()
        s.set("rlimit", RLIMIT)
        s.add(*cons[:-1], final == stale["final"])
        fixed = {}
        for var in y + x + [q[c] for c in names]:
            lo = 0
            while True:
                s.push()
                s.add(var == lo)
                res = s.check()
                s.pop()
                if res == z3.sat:
                    break
                if res != z3.unsat or lo > 10 ** 6:
                    return Timing(last, None, last_proof, "unknown",
                                  time.process_time() - started)
                lo += 1
            s.add(var == lo)
            fixed[str(var)] = lo
        stale = _stale_json(p, [ids[i][fixed[f"y{i}"]] for i in range(len(ids))],
                            [ids[i][fixed[f"x{i}"]] for i in range(len(ids))],
                            {c: fixed[str(q[c])] for c in names}, stale["final"])
    return Timing(last, stale, last_proof, stale_proof, time.process_time() - started)


def brute_force_timing(p: CartProblem, optimum: dict, value: int) -> Timing:
    """:func:`prove_timing` by enumeration (the stale witness: its final price only)."""
    started = time.process_time()
    prices = [p.items[i][pid] for i, pid in enumerate(optimum["products"])]
    need = _need(optimum["coupons"])
    last = None
    if need:
        last = not any(sum(pr for k, pr in zip(keep, prices) if k) >= need
                       for keep in itertools.product((0, 1), repeat=len(prices))
                       if not all(keep))
    ids = [sorted(item) for item in p.items]
    names = sorted(p.coupons)
    bases = sorted({sum(p.items[i][pid] for i, pid in enumerate(c))
                    for c in itertools.product(*ids)}) or [-1]     # [-1]: no choice at all
    best: tuple[int, list[str], dict[str, int]] | None = None
    for combo in itertools.product(*ids):
        base_x = sum(p.items[i][pid] for i, pid in enumerate(combo))
        for qv in itertools.product(*[range(p.coupons[c] + 1) for c in names]):
            qs = dict(zip(names, qv))
            need_q = _need(qs)
            if not base_x < need_q <= bases[-1]:     # stale, and some choice reaches it
                continue
            f = _final(p, base_x, qs)
            if f < value and (best is None or f < best[0]):
                best = (f, list(combo), qs)
    stale = None if best is None else \
        _stale_json(p, [], best[1], best[2], best[0])
    return Timing(last, stale, "unsat" if last else ("sat" if last is False else "n/a"),
                  "min" if best else "unsat", time.process_time() - started, "brute-force")
