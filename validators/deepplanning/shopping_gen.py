"""Generated shopping cases (levels 1-3) with proved unique optimal carts, released layout.

A case: a user (sizes, province, VIP status, coupons owned), 2-4 requested items, and a
catalogue holding for each item several variants under the same name (brands, colours,
sizes, prices, ratings, stock, sales, shipping) plus unrelated products.  An item's filters
(name, the user's size -- found only through ``get_user_info``, paper line 71 -- and one or
two thresholds) leave one candidate at level 1 and two or three at levels 2 and 3, where
the cart-level objective (:mod:`.shopping_problem`) must pick them.  Level 3 also
records the optimum's coupon timing (:func:`~.shopping_problem.prove_timing`): whether
its coupons fit only the whole cart, and the cheapest "stale" cart (coupons applied on
costlier candidates, products switched after) when it undercuts the optimum; odd-indexed
level-3 cases are drawn until one does, so their optimum depends on the timing rule.  The draw is kept only
if z3 proves the optimum unique; ``attempts`` records the draws used.  The layout is the
release's: ``database_level{L}/case_{i}/{products.jsonl, user_info.json, cart.json,
validation_cases.json}`` and ``level_{L}_query_meta.json`` (``id``, ``query``), plus our
``proof.json``.
"""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from planning_core.validators.deepplanning.shopping_db import (VALID_COUPONS, Cart,
                                                               ShoppingCase, case_dir,
                                                               parse_coupon)
from planning_core.validators.deepplanning.shopping_problem import (CartProblem, prove_cart,
                                                                    prove_timing)
from planning_core.validators.deepplanning.shopping_tools import (REGIONS, delivery_days,
                                                                  feature)
from planning_core.validators.deepplanning.units import cents, fmt_cents

__all__ = ["generate_case", "generate_level", "case_problem", "ITEMS"]

ITEMS = {  # name -> size kind
    "Canvas Low-Top Sneakers": "shoes", "Heritage Leather Ankle Boots": "shoes",
    "Trail Running Shoes": "shoes", "Linen Button Shirt": "tops",
    "Merino Crew Sweater": "tops", "Packable Down Jacket": "tops",
    "Cotton Graphic Tee": "tops", "Stretch Chino Pants": "bottoms",
    "Relaxed Denim Jeans": "bottoms", "Quick-Dry Hiking Shorts": "bottoms",
}
BRANDS = ("UNIQLO", "Nike", "ZARA", "Li-Ning", "Anta", "Decathlon", "Semir", "Bosideng")
COLORS = ("Black", "White", "Navy", "Grey", "Olive", "Beige", "Red")
SIZES = {"tops": ("S", "M", "L", "XL"), "bottoms": ("S", "M", "L", "XL"),
         "shoes": ("39", "40", "41", "42", "43")}
# providers by the names the released delivery model knows (each moves delivery its way)
PROVIDERS = ("SF Express", "JD Logistics", "YTO Express", "ZTO Express", "China Post")
PROVINCES = tuple(p for ps in REGIONS.values() for p in ps
                  if p not in ("hongkong", "macau", "taiwan"))
THRESHOLDS = (("rating.average_score", "an average rating above {v}", 1),
              ("sales_volume.monthly", "monthly sales over {v}", 0),
              ("stock_quantity", "more than {v} units in stock", 0),
              ("rating.total_reviews", "more than {v} reviews", 0))


def _product(rng: random.Random, pid: str, name: str, kind: str) -> dict[str, Any]:
    reviews = rng.randint(50, 3000)
    return {
        "product_id": pid, "name": name, "price": rng.randint(60, 900) + rng.choice((0, .5)),
        "brand": rng.choice(BRANDS), "color": rng.choice(COLORS),
        "size": rng.choice(SIZES[kind]), "stock_quantity": rng.randint(5, 600),
        "material_composition": [{"material": "Cotton", "percentage": 100}],
        "thickness": rng.choice(("Thin", "Regular", "Thick")),
        "elasticity": rng.choice(("Non-stretch", "Slightly-stretch")),
        "version_type": rng.choice(("Regular Fit", "Slim Fit", "Loose Fit")),
        "collar_type": "Round Neck", "suitable_season": rng.choice(("Spring", "All Season")),
        "target_demographic": "Unisex", "details_craftsmanship": "Side Pockets",
        "washing_instructions": "Machine wash cold",
        "sales_volume": {"monthly": rng.randint(10, 900), "total": rng.randint(900, 20000)},
        "rating": {"average_score": rng.randint(38, 50) / 10, "total_reviews": reviews},
        "review_summary": "comfortable;true to size",
        "shipping_info": {"origin": rng.choice(PROVINCES), "provider": rng.choice(PROVIDERS)},
        "applicable_coupons": sorted(rng.sample(VALID_COUPONS[:9], 3))}


def _passes(p: dict, f: dict, user: dict) -> bool:
    if p["name"] != f["name"] or p["size"] != f["size"]:
        return False
    for key, value in f["above"]:
        x = cents(feature(p, key))
        if x is None or x <= cents(value):
            return False
    if f.get("days") is not None:
        d = delivery_days(p["shipping_info"]["origin"], user["shipping_province"],
                          p["shipping_info"]["provider"])
        if d is None or d > f["days"]:
            return False
    return p["stock_quantity"] >= 1


def case_problem(case: ShoppingCase, spec: dict) -> CartProblem:
    """The decision from the case's catalogue and the query's structured spec (never the
    ground truth)."""
    items = []
    for f in spec["items"]:
        items.append({p["product_id"]: cents(p["price"]) for p in case.products
                      if _passes(p, f, case.user)})
    coupons = {}
    if spec["level"] == 3:
        for name, n in (case.user.get("coupons") or {}).items():
            if name.startswith("VIP:") and not case.user.get("is_vip"):
                continue
            if n > 0 and parse_coupon(name):
                coupons[name] = n
    return CartProblem(items, coupons, cents(spec["floor"]) if spec.get("floor") else None,
                       {1: "none", 2: "total", 3: "final"}[spec["level"]])


def _query(spec: dict) -> str:
    parts = ["I need to order one of each of these items; use my profile for sizes and "
             "address."]
    for f in spec["items"]:
        conds = [f"in my size"] + [text.format(v=v) for k, v in f["above"]
                                   for key, text, _ in THRESHOLDS if key == k]
        if f.get("days") is not None:
            conds.append(f"delivered within {f['days']} day(s)")
        parts.append(f"- {f['name']}: " + ", ".join(conds) + ".")
    if spec["level"] == 2:
        parts.append(f"Keep the total at or above {spec['floor']} yuan, and otherwise as low "
                     "as possible.")
    if spec["level"] == 3:
        parts.append("Use my coupons so that the final price after discounts is as low as "
                     "possible. A coupon is checked when you apply it, against the products "
                     "then in the cart, and the final cart must still meet the thresholds of "
                     "every coupon applied: coupons stack only while the products' total "
                     "before discounts is at least the sum of every applied coupon's "
                     "threshold times its quantity (same-brand coupons included, counted "
                     "against the whole cart).")
    return "\n".join(parts)


def generate_case(seed: int, level: int, index: int, max_attempts: int = 400) -> dict:
    for attempt in range(max_attempts):
        rng = random.Random(f"shopping:{seed}:{level}:{index}:{attempt}")
        user = {"user_id": f"U{index:04d}", "username": f"user{index}",
                "is_vip": rng.random() < 0.5, "gender": rng.choice(("Male", "Female")),
                "age": rng.randint(18, 60), "standard_size_tops": rng.choice(SIZES["tops"]),
                "standard_size_bottoms": rng.choice(SIZES["bottoms"]),
                "standard_size_shoes": rng.choice(SIZES["shoes"]),
                "shipping_province": rng.choice(PROVINCES), "shipping_city": "",
                "coupons": {}}
        names = rng.sample(sorted(ITEMS), rng.randint(2, 4) if level < 3 else
                           rng.randint(2, 3))
        products: list[dict] = []
        spec_items = []
        want = 1 if level == 1 else rng.choice((2, 3))
        for name in names:
            kind = ITEMS[name]
            size = user[f"standard_size_{kind}"]
            key, _, decimals = rng.choice(THRESHOLDS)
            variants = [_product(rng, f"{rng.getrandbits(32):08x}", name, kind)
                        for _ in range(rng.randint(5, 8))]
            for v in variants[:want + 2]:
                v["size"] = size
            vals = sorted(feature(v, key) for v in variants[:want + 2])
            # a threshold that keeps exactly the `want` best of the same-size variants
            cut = vals[-want - 1]
            if cut == vals[-want]:
                break
            above = [(key, cut)]
            f = {"name": name, "size": size, "above": above}
            if rng.random() < 0.4:
                f["days"] = 3
            spec_items.append(f)
            products += variants
        else:
            for k in range(rng.randint(6, 12)):
                other = rng.choice(sorted(ITEMS))
                products.append(_product(rng, f"{rng.getrandbits(32):08x}", other,
                                         ITEMS[other]))
            if len({p["product_id"] for p in products}) != len(products):
                continue
            spec = {"level": level, "items": spec_items}
            case = ShoppingCase(products, user)
            if level == 3:
                kinds = rng.sample(VALID_COUPONS[:5] + VALID_COUPONS[9:], 2)
                case.user["coupons"] = {c: rng.randint(1, 2) for c in kinds}
            problem = case_problem(case, spec)
            if level == 2:
                lo = sum(min(i.values()) for i in problem.items if i)
                hi = sum(max(i.values()) for i in problem.items if i)
                if hi <= lo:
                    continue
                spec["floor"] = fmt_cents(lo + (hi - lo) // 2 // 100 * 100)
                problem = case_problem(case, spec)
            proof = prove_cart(problem)
            if proof.status != "unique":
                continue
            if level == 3 and not proof.optimum["coupons"]:
                continue   # a level-3 case whose optimum uses no coupon teaches nothing
            timing = prove_timing(problem, proof.optimum, proof.objective[0]) \
                if level == 3 else None
            if timing is not None and (timing.stale_proof == "unknown" or
                                       (index % 2 == 1 and timing.stale is None)):
                continue   # odd level-3 cases: the optimum depends on coupon timing
            by_id = case.by_id
            case.truth = {
                "query": _query(spec),
                "ground_truth_products": [{"product_id": pid, "name": by_id[pid]["name"]}
                                          for pid in proof.optimum["products"]],
                "ground_truth_coupons": dict(proof.optimum["coupons"])}
            cart = Cart(case)
            for pid in proof.optimum["products"]:
                cart.add_product(pid)
            for c, q in proof.optimum["coupons"].items():
                cart.add_coupon(c, q)
            return {"entry": {"id": str(index), "query": case.truth["query"]},
                    "spec": spec, "case": case,
                    "proof": dict(proof.to_json(), attempts=attempt + 1,
                                  **({"timing": timing.to_json()} if timing else {})),
                    "oracle_cart": cart.to_json()}
    raise RuntimeError(f"no unique shopping case for seed {seed} level {level} index {index}")


def generate_level(n: int, seed: int, level: int, out: str | Path, on_done=None) -> list:
    out = Path(out)
    entries, rows = [], []
    for i in range(n):
        task = generate_case(seed, level, i)
        folder = case_dir(out / f"database_level{level}", str(i))
        task["case"].write(folder)
        (folder / "proof.json").write_text(json.dumps(task["proof"], indent=2),
                                           encoding="utf-8")
        (folder / "spec.json").write_text(json.dumps(task["spec"], indent=2),
                                          encoding="utf-8")
        entries.append(task["entry"])
        row = {"id": str(i), "level": level, "items": len(task["spec"]["items"]),
               "proof": task["proof"]}
        rows.append(row)
        if on_done:
            on_done(row)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"level_{level}_query_meta.json").write_text(json.dumps(entries, indent=1),
                                                        encoding="utf-8")
    return rows
