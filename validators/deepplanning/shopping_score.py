"""Shopping scores (paper lines 160-170): Match Score and Case Accuracy.

* ``paper``: Match = |cart products ∩ ground-truth products| / |ground-truth products|;
  Case Accuracy = 1 iff the cart's products are exactly the ground truth's (an extra
  product fails the case, line 170).  A run averages both over cases.
* ``released`` (``evaluation_pipeline.py``): coupons count as items -- a used coupon
  matches when its name and quantity equal the ground truth's; the case scores 1 when every
  expected product and coupon is matched, extra products unpenalised; the run's match rate
  pools matched and expected counts over cases (a micro average); a run is valid only if at
  most 10% of cases are incomplete.

Paper mode, given the case, also judges the final cart's coupons under the cart rules
(:func:`~.shopping_db.coupon_breaks`): a coupon the user does not own in that quantity, a
VIP coupon for a non-VIP, or coupons whose thresholds the final products no longer reach
(coupon timing: applied, then products removed -- the released sandbox allows it) make
the cart one the rules do not allow, so not the ground truth's (``coupon:<name>``,
``coupon_threshold``; Match unchanged), and when the ground truth uses coupons (level 3:
the lowest price after coupons, lines 97 and 211) a cart whose coupons take off less than
the proved optimum's fails (``not_lowest_after_coupons``: the right products without the
coupons, say; products are a set, so on the right products that is a higher price).  Released mode re-checks nothing (the release's
evaluation compares coupon names and quantities only).

A cart that is not an object with an ``items`` list, or names a product the case does not
have, is a recorded verdict (``parse_error`` / ``unknown_products``), never a crash.
"""
from __future__ import annotations

import json

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from planning_core.validators.deepplanning.jsontext import loads
from planning_core.validators.deepplanning.shopping_db import (ShoppingCase, coupon_breaks,
                                                               parse_coupon)

__all__ = ["ShoppingVerdict", "score_cart", "read_cart"]


def read_cart(obj: Any) -> tuple[list[str], dict[str, int]]:
    """Product ids and ``{coupon: quantity}`` of a cart.json object; ``ValueError`` if it is
    not one."""
    if isinstance(obj, str):
        try:
            obj = loads(obj)
        except json.JSONDecodeError as err:
            raise ValueError(f"the cart is not JSON: {err.msg}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("items", []), list):
        raise ValueError("the cart must be an object with an 'items' list")
    ids = []
    for item in obj.get("items", []):
        if not isinstance(item, dict) or not isinstance(item.get("product_id"), str):
            raise ValueError(f"a cart item without a product_id: {item!r}"[:200])
        ids.append(item["product_id"])
    coupons: dict[str, int] = {}
    used = obj.get("used_coupons", []) or []
    if not isinstance(used, list):
        raise ValueError("used_coupons must be a list")
    for c in used:
        if not isinstance(c, dict) or not isinstance(c.get("coupon_name"), str):
            raise ValueError(f"a used coupon without a coupon_name: {c!r}"[:200])
        q = c.get("quantity", 0)
        if isinstance(q, bool) or not isinstance(q, int):
            raise ValueError(f"coupon quantity {q!r} is not an integer")
        coupons[c["coupon_name"]] = coupons.get(c["coupon_name"], 0) + q
    return ids, coupons


@dataclass
class ShoppingVerdict:
    task_id: str
    mode: str
    parse_error: str | None
    cart_products: list[str]
    truth_products: list[str]
    unknown_products: list[str] = field(default_factory=list)
    matched_coupons: int = 0
    expected_coupons: int = 0
    completed: bool = True
    # paper mode: products whose quantity the cart could not hold (not a positive integer,
    # or more than the stock) -- such a cart is not the ground truth's, whatever its ids
    bad_quantities: list[str] = field(default_factory=list)
    # paper mode: the final cart's coupon rule breaks (coupon:<name>, coupon_threshold)
    coupon_breaks: list[str] = field(default_factory=list)

    @property
    def matched(self) -> int:
        return len(set(self.cart_products) & set(self.truth_products)) + \
            (self.matched_coupons if self.mode == "released" else 0)

    @property
    def expected(self) -> int:
        return len(set(self.truth_products)) + \
            (self.expected_coupons if self.mode == "released" else 0)

    @property
    def match(self) -> Fraction:
        return Fraction(self.matched, self.expected) if self.expected else Fraction(0)

    @property
    def case_acc(self) -> int:
        if self.parse_error is not None:
            return 0
        if self.mode == "released":
            return int(self.expected > 0 and self.matched == self.expected)
        return int(set(self.cart_products) == set(self.truth_products) and
                   not self.unknown_products and not self.bad_quantities and
                   not self.coupon_breaks)

    @property
    def failed(self) -> list[str]:
        out = []
        if self.parse_error:
            out.append("parse")
        if self.unknown_products:
            out.append("unknown_products")
        if self.bad_quantities and self.mode == "paper":
            out += [f"quantity:{p}" for p in self.bad_quantities]
        if self.mode == "paper":
            out += self.coupon_breaks
        missing = set(self.truth_products) - set(self.cart_products)
        extra = set(self.cart_products) - set(self.truth_products)
        out += [f"missing:{p}" for p in sorted(missing)]
        if self.mode == "paper":
            out += [f"extra:{p}" for p in sorted(extra)]
        elif self.matched_coupons < self.expected_coupons:
            out.append("coupons")
        return out

    def to_json(self) -> dict[str, Any]:
        return {"task": self.task_id, "domain": "shopping", "mode": self.mode,
                "parse_error": self.parse_error, "match": float(self.match),
                "matched": self.matched, "expected": self.expected,
                "case_acc": self.case_acc, "completed": self.completed,
                "cart_products": sorted(self.cart_products),
                "truth_products": sorted(self.truth_products),
                "unknown_products": self.unknown_products,
                "bad_quantities": self.bad_quantities,
                "coupon_breaks": self.coupon_breaks, "failed": self.failed}


def _bad_quantities(obj: Any, stock: dict[str, object] | None) -> list[str]:
    held: dict[str, int] = {}
    bad = set()
    for item in obj.get("items", []):
        pid, q = item["product_id"], item.get("quantity", 1)
        if isinstance(q, bool) or not isinstance(q, int) or q <= 0:
            bad.add(pid)
        else:
            held[pid] = held.get(pid, 0) + q
    for pid, q in held.items():
        have = (stock or {}).get(pid)
        if stock is not None and isinstance(have, int) and not isinstance(have, bool) and \
                q > have:
            bad.add(pid)
    return sorted(bad)


def score_cart(cart: Any, truth: dict, known_ids: set[str] | None = None, *,
               task_id: str = "", mode: str = "paper", completed: bool = True,
               stock: dict[str, object] | None = None,
               case: ShoppingCase | None = None) -> ShoppingVerdict:
    """Score a cart (cart.json object or text) against ``validation_cases.json``.
    ``stock`` (product id -> stock_quantity) lets paper mode refuse quantities beyond it;
    ``case`` (prices, the user's coupons and VIP status) lets it judge the coupons."""
    gt_raw = truth.get("ground_truth_products", [])
    gt = [str(p.get("product_id")) for p in (gt_raw if isinstance(gt_raw, list) else [])
          if isinstance(p, dict)]
    gt_coupons = truth.get("ground_truth_coupons") or {}
    if not isinstance(gt_coupons, dict):
        gt_coupons = {}
    try:
        if isinstance(cart, str):
            try:
                cart = loads(cart)
            except json.JSONDecodeError as err:
                raise ValueError(f"the cart is not JSON: {err.msg}") from None
        ids, coupons = read_cart(cart)
    except ValueError as err:
        return ShoppingVerdict(task_id, mode, str(err), [], gt,
                               expected_coupons=len(gt_coupons), completed=completed)
    unknown = sorted(set(ids) - known_ids) if known_ids is not None else []
    matched_c = sum(1 for n, q in coupons.items() if gt_coupons.get(n) == q)
    bad_q = _bad_quantities(cart, stock) if mode == "paper" else []
    breaks = _coupon_breaks(cart, coupons, case) if mode == "paper" and case else []
    if mode == "paper" and case and gt_coupons and not breaks and \
            not _at_optimum(coupons, gt_coupons):
        breaks.append("not_lowest_after_coupons")
    return ShoppingVerdict(task_id, mode, None, ids, gt, unknown, matched_c,
                           len(gt_coupons), completed, bad_q, breaks)


def _discount(coupons: dict[str, int]) -> int | None:
    """Cents off for ``{coupon: quantity}``; ``None`` if a name or quantity cannot be read."""
    total = 0
    for name, q in coupons.items():
        parsed = parse_coupon(name)
        if parsed is None or isinstance(q, bool) or not isinstance(q, int) or q < 0:
            return None
        total += parsed[0] * q
    return total


def _at_optimum(coupons: dict[str, int], gt_coupons: dict) -> bool:
    """Level 3 asks for the lowest price after coupons (paper lines 97, 211).  The products
    are judged as a set (a quantity is not read, as for Case Accuracy), so on the ground
    truth's products the price after coupons is at the proved optimum iff the cart's
    coupons take off at least what the optimum's do (that the final cart's products reach
    its coupons' thresholds is :func:`coupon_breaks`'s check)."""
    mine, best = _discount(coupons), _discount(gt_coupons)
    return mine is not None and best is not None and mine >= best


def _coupon_breaks(obj: Any, coupons: dict[str, int], case: ShoppingCase) -> list[str]:
    if not coupons:
        return []
    items: dict[str, int] = {}
    for item in obj.get("items", []):
        q = item.get("quantity", 1)
        if not isinstance(q, bool) and isinstance(q, int) and q > 0:
            items[item["product_id"]] = items.get(item["product_id"], 0) + q
    return coupon_breaks(case, items, coupons)
