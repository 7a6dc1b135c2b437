"""The shopping sandbox: products, the user (with coupons) and the cart of one case.

Paper lines 57 and 479-523 name the three sub-databases (products, users, coupons/cart); the
released code keeps them per case under ``database_level{L}/case_{N}/`` as
``products.jsonl`` (one product a line), ``user_info.json`` (the user, with ``coupons``
{name: count} and ``is_vip``), ``cart.json`` (``items``, ``used_coupons``, ``summary``) and
``validation_cases.json`` (``ground_truth_products``, ``ground_truth_coupons``).  Numeric
product features are nested as the released tools read them (``sales_volume.monthly``,
``rating.average_score``, ``shipping_info.origin``).

:class:`Cart` is the cart state machine.  Coupons are ``"<Kind>: ¥D off every ¥T"``.  The
rules are the released tool's (``add_coupon_to_cart.py``), since the paper states none
beyond "coupon-stacking rules" (line 97): a coupon must be on the valid list, owned in the
quantity used, VIP coupons need a VIP user, and the cart's undiscounted total must reach the
sum of ``T x quantity`` over every coupon in use.  The final price is the total minus the
sum of ``D x quantity``, never below 0.  All money is integer cents.

Coupon timing (paper line 211; what the release shows, ``docs/deepplanning.md``): a coupon
is judged when it is added, against the products in the cart at that moment -- added
before the products that reach its threshold it is refused -- and removing products later
neither removes nor re-checks it (the released ``delete_product_from_cart.py``).  The cart
keeps that behaviour; :func:`coupon_breaks` judges a final cart, which is how paper-mode
scoring catches a coupon applied and then left standing on a cart that no longer meets
its threshold (:meth:`Cart.stale`).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planning_core.errors import InputError
from planning_core.validators.deepplanning.jsontext import loads
from planning_core.validators.deepplanning.units import cents, fmt_cents

__all__ = ["NEW_CART", "VALID_COUPONS", "parse_coupon", "ShoppingCase", "Cart", "CartError", "case_dir",
           "coupon_breaks"]

VALID_COUPONS = (
    "Cross-store: ¥30 off every ¥300", "Cross-store: ¥60 off every ¥500",
    "Cross-store: ¥120 off every ¥900", "Cross-store: ¥200 off every ¥1,200",
    "Cross-store: ¥300 off every ¥1,500", "Same-brand: ¥25 off every ¥200",
    "Same-brand: ¥60 off every ¥400", "Same-brand: ¥180 off every ¥1,000",
    "Same-brand: ¥300 off every ¥1,200", "VIP: ¥200 off every ¥1,000",
)
_COUPON = re.compile(r"¥([\d,]+)\s+off\s+every\s+¥([\d,]+)")


def parse_coupon(name: str) -> tuple[int, int] | None:
    """``(discount, threshold)`` in cents, or ``None`` for a malformed name."""
    m = _COUPON.search(name or "")
    if not m:
        return None
    d, t = cents(m.group(1)), cents(m.group(2))
    return None if d is None or t is None else (d, t)


def case_dir(database: str | Path, case_id: str) -> Path:
    return Path(database) / f"case_{case_id}"


class CartError(Exception):
    """A refused cart operation (the tool answers it as ``{"error": ...}``)."""


#: :attr:`ShoppingCase.cart_doc` of a case made in memory: the empty cart :meth:`write` writes
NEW_CART: Any = object()


@dataclass
class ShoppingCase:
    products: list[dict[str, Any]]
    user: dict[str, Any]
    truth: dict[str, Any] = field(default_factory=dict)   # validation_cases.json
    #: ``cart.json`` as read (the tools start from it); ``None``: absent, empty or not an
    #: object (the released tools then start from an empty cart)
    cart_doc: Any = NEW_CART

    @property
    def by_id(self) -> dict[str, dict[str, Any]]:
        return {str(p.get("product_id")): p for p in self.products}

    @classmethod
    def load(cls, folder: str | Path) -> "ShoppingCase":
        folder = Path(folder)
        path = folder / "products.jsonl"
        products = []
        from planning_core.pddl.files import read_bytes

        try:   # the shared bounded reader: a regular file only (a FIFO is refused)
            text = read_bytes(path).decode("utf-8")
            # lines as a text-mode file gives them (universal newlines)
            lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
            for n, line in enumerate(lines, 1):
                if line.strip():
                    try:
                        product = loads(line)
                    except json.JSONDecodeError as err:
                        raise InputError(f"not JSON: {err.msg}", file=str(path), line=n,
                                         column=err.colno) from None
                    if not isinstance(product, dict) or \
                            not isinstance(product.get("product_id"), (str, int)):
                        raise InputError("a product must be an object with a "
                                         "product_id", file=str(path), line=n, column=1)
                    products.append(product)
        except OSError as err:
            raise InputError(f"cannot read: {err.strerror}", file=str(path)) from None
        except UnicodeDecodeError as err:
            raise InputError(f"not UTF-8 text ({err.reason} at byte {err.start})",
                             file=str(path)) from None
        user = _read_json(folder / "user_info.json", {})
        truth = _read_json(folder / "validation_cases.json", {})
        try:
            cart = _read_json(folder / "cart.json", None)
        except InputError:
            cart = None   # the released cart tools read an unreadable cart as an empty one
        return cls(products, user if isinstance(user, dict) else {},
                   truth if isinstance(truth, dict) else {},
                   cart if isinstance(cart, dict) else None)

    def write(self, folder: str | Path, cart: "Cart | None" = None) -> None:
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / "products.jsonl").open("w", encoding="utf-8") as f:
            for p in self.products:
                f.write(json.dumps(p, ensure_ascii=False) + "\n")
        (folder / "user_info.json").write_text(json.dumps(self.user, ensure_ascii=False,
                                                          indent=2), encoding="utf-8")
        (folder / "validation_cases.json").write_text(
            json.dumps(self.truth, ensure_ascii=False, indent=2), encoding="utf-8")
        (folder / "cart.json").write_text(json.dumps((cart or Cart(self)).to_json(),
                                                     ensure_ascii=False, indent=2),
                                          encoding="utf-8")


def _read_json(path: Path, default: Any) -> Any:
    if not path.is_file():
        return default
    try:
        text = path.read_text(encoding="utf-8").strip()
        return loads(text) if text else default
    except json.JSONDecodeError as err:
        raise InputError(f"not JSON: {err.msg}", file=str(path), line=err.lineno,
                         column=err.colno) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", file=str(path)) from None
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text ({err.reason} at byte {err.start})",
                         file=str(path)) from None


class Cart:
    """Items ``{product_id: quantity}`` and coupons ``{name: quantity}`` of one case."""

    def __init__(self, case: ShoppingCase) -> None:
        self.case = case
        self.items: dict[str, int] = {}
        self.coupons: dict[str, int] = {}

    # ---- money ----------------------------------------------------------------------------
    def price_of(self, pid: str) -> int:
        c = cents(self.case.by_id[pid].get("price"))
        if c is None or c < 0:
            raise CartError(f"product {pid!r} has no valid price")
        return c

    def base_total(self) -> int:
        return sum(self.price_of(pid) * q for pid, q in self.items.items())

    def discount(self) -> int:
        return sum(parse_coupon(n)[0] * q for n, q in self.coupons.items())

    def final_total(self) -> int:
        return max(0, self.base_total() - self.discount())

    def stale(self) -> bool:
        """Do the coupons in use need more than the products now in the cart (a coupon
        applied, then products removed)?"""
        return bool(self.coupons) and not self._coupons_fit(self.coupons)

    def _coupons_fit(self, coupons: dict[str, int]) -> bool:
        need = sum(parse_coupon(n)[1] * q for n, q in coupons.items())
        return self.base_total() >= need

    # ---- transitions ----------------------------------------------------------------------
    def add_product(self, pid: str, quantity: int = 1) -> None:
        _positive(quantity)
        product = self.case.by_id.get(pid)
        if product is None:
            raise CartError(f"Product not found: product_id {pid!r}")
        stock = product.get("stock_quantity", 0)
        have = self.items.get(pid, 0)
        if not isinstance(stock, int) or have + quantity > stock:
            raise CartError(f"Insufficient stock: {pid!r} has {stock} in stock, cart already "
                            f"has {have}, cannot add {quantity} more")
        self.price_of(pid)
        self.items[pid] = have + quantity

    def delete_product(self, pid: str, quantity: int = 1) -> None:
        _positive(quantity)
        if pid not in self.case.by_id:
            raise CartError(f"Product not found: product_id {pid!r}")
        if pid not in self.items:
            raise CartError(f"Product {pid!r} is not in the cart")
        left = self.items[pid] - quantity
        if left <= 0:
            del self.items[pid]
        else:
            self.items[pid] = left

    def add_coupon(self, name: str, quantity: int = 1) -> None:
        _positive(quantity)
        if name not in VALID_COUPONS:
            raise CartError(f"Coupon not found: {name!r}")
        owned = (self.case.user.get("coupons") or {}).get(name, 0)
        used = self.coupons.get(name, 0)
        if not isinstance(owned, int) or used + quantity > owned:
            raise CartError(f"Insufficient coupon quantity: user owns {owned} of {name!r}, "
                            f"cart already uses {used}, cannot add {quantity} more")
        if name.startswith("VIP:") and self.case.user.get("is_vip") is not True:
            raise CartError(f"VIP coupon {name!r} requires VIP status")
        trial = dict(self.coupons)
        trial[name] = used + quantity
        if not self._coupons_fit(trial):
            need = sum(parse_coupon(n)[1] * q for n, q in trial.items())
            raise CartError(f"Cart total {fmt_cents(self.base_total())} is insufficient for "
                            f"this combination of coupons (requires at least "
                            f"{fmt_cents(need)})")
        self.coupons = trial

    def delete_coupon(self, name: str, quantity: int = 1) -> None:
        _positive(quantity)
        if name not in VALID_COUPONS:
            raise CartError(f"Coupon not found: {name!r}")
        if name not in self.coupons:
            raise CartError(f"Coupon {name!r} is not in the cart")
        left = self.coupons[name] - quantity
        if left <= 0:
            del self.coupons[name]
        else:
            self.coupons[name] = left

    def sync(self, doc: Any) -> None:
        """Follow a released ``cart.json`` document (the tools' cart): its readable items and
        coupons, in their order."""
        self.items, self.coupons = {}, {}
        if not isinstance(doc, dict):
            return
        for key, into, name in (("items", self.items, "product_id"),
                                ("used_coupons", self.coupons, "coupon_name")):
            for entry in doc.get(key) or []:
                if isinstance(entry, dict) and isinstance(entry.get(name), str) and \
                        isinstance(entry.get("quantity"), int) and entry["quantity"] > 0:
                    into[entry[name]] = into.get(entry[name], 0) + entry["quantity"]

    # ---- the released cart.json -----------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The cart as the released tools write it: items in the order added, prices as
        decimals (``411.0``)."""
        by_id = self.case.by_id
        items = [{"product_id": pid, "name": by_id[pid].get("name", ""), "quantity": q,
                  "price": float(by_id[pid].get("price"))} for pid, q in self.items.items()]
        return {"items": items,
                "used_coupons": [{"coupon_name": n, "quantity": q}
                                 for n, q in self.coupons.items()],
                "summary": {"total_items_count": sum(self.items.values()),
                            "total_price": float(fmt_cents(self.final_total()))}}


def coupon_breaks(case: ShoppingCase, items: dict[str, int],
                  coupons: dict[str, int]) -> list[str]:
    """The cart rules a final cart's coupons break, one failed check each (empty: none).

    ``coupon:<name>`` -- not a valid coupon, a quantity that is not a positive integer,
    more than the user owns, or a VIP coupon for a user who is not one;
    ``coupon_threshold`` -- the products' undiscounted total is below the sum of
    ``threshold x quantity`` over the coupons: the state only timing reaches (a coupon
    applied while the cart met it, products removed after).  ``items`` holds readable
    product ids and positive quantities only; a product whose price cannot be read makes
    the total unknown, which fails ``coupon_threshold`` when coupons are used.  Never
    raises on hostile input (counts that are text, booleans, negative; a non-object
    ``coupons`` or ``is_vip`` that is not ``true``)."""
    out: list[str] = []
    owned = case.user.get("coupons") if isinstance(case.user, dict) else None
    owned = owned if isinstance(owned, dict) else {}
    vip = case.user.get("is_vip") is True if isinstance(case.user, dict) else False
    need = 0
    for name, q in sorted(coupons.items()):
        have = owned.get(name, 0)
        parsed = parse_coupon(name) if name in VALID_COUPONS else None
        if parsed is None or isinstance(q, bool) or not isinstance(q, int) or q <= 0 or \
                isinstance(have, bool) or not isinstance(have, int) or q > have or \
                (name.startswith("VIP:") and not vip):
            out.append(f"coupon:{name}"[:200])
            continue
        need += parsed[1] * q
    if need:
        by_id = case.by_id
        total = 0
        for pid, q in items.items():
            price = cents(by_id[pid].get("price")) if pid in by_id else None
            if price is None or price < 0:
                total = None
                break
            total += price * q
        if total is None or total < need:
            out.append("coupon_threshold")
    return out


def _positive(quantity: object) -> None:
    if isinstance(quantity, bool) or not isinstance(quantity, int) or quantity <= 0:
        raise CartError("quantity must be a positive integer")
