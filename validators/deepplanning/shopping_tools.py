"""The fifteen shopping tools as OpenAI function schemas over one case's :class:`Cart`.

Names and parameters are the released ones (paper Table 4, lines 342-384; released
``shopping_tool_schema.json``); descriptions, search and delivery model are ours:

* ``search_products`` ranks by BM25 (k1 1.5, b 0.75) over brand, colour, size, season,
  demographic and name, as the released tool does with ``rank_bm25``; ours is a few lines of
  standard library and keeps every product with a positive score.
* ``calculate_transport_time``: 1 day within a province, 2 within one of the seven
  geographic regions, 3 across regions, +2 to or from a remote province; the provider moves
  it (``sf_express``/``jd_logistics`` -1, ``china_post``/``ems`` +1); never below 1.  The
  released matrix is finer; tasks we generate are built against this model, and a user with
  the official data gets the official numbers only from the official tools.
"""
from __future__ import annotations

import json
import math
import re
from functools import reduce
from typing import Any, Callable

from planning_core.validators.deepplanning.argcheck import call_arguments
from planning_core.validators.deepplanning.shopping_db import Cart, CartError
from planning_core.validators.deepplanning.units import cents

__all__ = ["SHOPPING_TOOLS", "shopping_schemas", "ShoppingTools", "delivery_days",
           "feature", "RANGE_KEYS"]

RANGE_KEYS = ("price", "stock_quantity", "sales_volume.monthly", "sales_volume.total",
              "rating.average_score", "rating.total_reviews")
SORT_KEYS = ("price", "sales_volume.monthly", "sales_volume.total", "rating.average_score",
             "stock_quantity", "name")
_IDS = {"type": "array", "items": {"type": "string"},
        "description": "optional product ids; without them the whole catalogue"}


def _fn(name: str, description: str, props: dict, required: list[str]) -> dict:
    return {"type": "function", "function": {"name": name, "description": description,
                                             "parameters": {"type": "object",
                                                            "properties": props,
                                                            "required": required}}}


def _s(d: str, **kw) -> dict:
    return {"type": "string", "description": d, **kw}


def _i(d: str) -> dict:
    return {"type": "integer", "description": d}


def _a(d: str) -> dict:
    return {"type": "array", "items": {"type": "string"}, "description": d}


SHOPPING_TOOLS: tuple[dict, ...] = (
    _fn("search_products", "Search the catalogue with a natural-language query; returns "
        "product ids, best match first.",
        {"query": _s("what to look for"), "limit": _i("most ids returned (default 20)")},
        ["query"]),
    _fn("filter_by_brand", "Keep products of any of the brands (OR).",
        {"product_ids": _IDS, "brand_names": _a("brands")}, ["brand_names"]),
    _fn("filter_by_color", "Keep products of any of the colours (OR).",
        {"product_ids": _IDS, "colors": _a("colours")}, ["colors"]),
    _fn("filter_by_size", "Keep products of any of the sizes (OR).",
        {"product_ids": _IDS, "sizes": _a("sizes, e.g. M or 42")}, ["sizes"]),
    _fn("filter_by_applicable_coupons", "Keep products whose applicable coupons include all "
        "the given coupon names.",
        {"product_ids": _IDS, "coupon_names": _a("coupon names")}, ["coupon_names"]),
    _fn("filter_by_range", "Keep products whose numeric feature compares to a value.",
        {"product_ids": _IDS,
         "condition_key": _s("feature", enum=list(RANGE_KEYS)),
         "operator": _s("comparison", enum=[">", ">=", "<", "<=", "=="]),
         "value": {"type": "number", "description": "threshold"}},
        ["condition_key", "operator", "value"]),
    _fn("sort_products", "Sort products by a feature.",
        {"product_ids": _IDS, "sort_by": _s("feature", enum=list(SORT_KEYS)),
         "order": _s("asc or desc (default desc)", enum=["asc", "desc"])}, ["sort_by"]),
    _fn("get_product_details", "Every field of the given products.",
        {"product_ids": {"type": "array", "items": {"type": "string"},
                         "description": "product ids"}}, ["product_ids"]),
    _fn("calculate_transport_time", "Delivery days of a product to a province (pinyin).",
        {"product_id": _s("product id"),
         "destination_address": _s("destination province in pinyin, e.g. guangdong"),
         "provider": _s("optional shipping provider, e.g. sf_express")},
        ["product_id", "destination_address"]),
    _fn("get_user_info", "The user's profile: sizes, address, VIP status, coupons owned.",
        {"user_id": _s("optional user id")}, []),
    _fn("add_product_to_cart", "Add a product (checks stock).",
        {"product_id": _s("product id"), "quantity": _i("how many (default 1)")},
        ["product_id"]),
    _fn("delete_product_from_cart", "Remove a product or lower its quantity.",
        {"product_id": _s("product id"), "quantity": _i("how many (default 1)")},
        ["product_id"]),
    _fn("get_cart_info", "The cart: items, coupons, totals.", {}, []),
    _fn("add_coupon_to_cart", "Use a coupon (checks ownership, VIP, thresholds).",
        {"coupon_name": _s("coupon name"), "quantity": _i("how many (default 1)")},
        ["coupon_name"]),
    _fn("delete_coupon_from_cart", "Stop using a coupon or lower its quantity.",
        {"coupon_name": _s("coupon name"), "quantity": _i("how many (default 1)")},
        ["coupon_name"]),
)

#: each tool's parameter schema, by name: what a call's arguments are checked against
_PARAMETERS = {t["function"]["name"]: t["function"]["parameters"] for t in SHOPPING_TOOLS}


def shopping_schemas() -> list[dict]:
    return [json.loads(json.dumps(t)) for t in SHOPPING_TOOLS]


def feature(product: dict, key: str) -> Any:
    """A possibly nested feature (``'rating.average_score'``)."""
    return reduce(lambda d, k: d.get(k) if isinstance(d, dict) else None, key.split("."),
                  product)


REGIONS = {
    "NC": ("beijing", "tianjin", "hebei", "shanxi", "inner mongolia"),
    "NE": ("liaoning", "jilin", "heilongjiang"),
    "EC": ("shanghai", "jiangsu", "zhejiang", "anhui", "fujian", "jiangxi", "shandong"),
    "CC": ("henan", "hubei", "hunan"),
    "SC": ("guangdong", "guangxi", "hainan"),
    "SW": ("sichuan", "chongqing", "guizhou", "yunnan", "tibet"),
    "NW": ("shaanxi", "gansu", "qinghai", "ningxia", "xinjiang"),
}
_REGION_OF = {p: r for r, ps in REGIONS.items() for p in ps}
_REMOTE = {"tibet", "xinjiang", "qinghai", "inner mongolia"}
_PROVIDER = {"sf_express": -1, "jd_logistics": -1, "china_post": 1, "ems": 1}


def _province(text: object) -> str | None:
    if not isinstance(text, str):
        return None
    t = re.sub(r"\s+", " ", text.lower().replace("province", "").replace("city", "")).strip()
    return t if t in _REGION_OF else None


def delivery_days(origin: object, destination: object, provider: object) -> int | None:
    o, d = _province(origin), _province(destination)
    if o is None or d is None:
        return None
    base = 1 if o == d else 2 if _REGION_OF[o] == _REGION_OF[d] else 3
    if o in _REMOTE or d in _REMOTE:
        base += 2
    key = str(provider or "default").lower().replace(" ", "_")
    return max(1, base + _PROVIDER.get(key, 0))


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


class ShoppingTools:
    """The tools bound to one case's cart; :meth:`call` answers one tool call."""

    def __init__(self, cart: Cart) -> None:
        self.cart = cart
        self.case = cart.case
        self._impl: dict[str, Callable[[dict], Any]] = {
            "search_products": self._search, "filter_by_brand": self._brand,
            "filter_by_color": self._color, "filter_by_size": self._size,
            "filter_by_applicable_coupons": self._coupons, "filter_by_range": self._range,
            "sort_products": self._sort, "get_product_details": self._details,
            "calculate_transport_time": self._transport, "get_user_info": self._user,
            "add_product_to_cart": self._add, "delete_product_from_cart": self._delete,
            "get_cart_info": self._info, "add_coupon_to_cart": self._add_coupon,
            "delete_coupon_from_cart": self._delete_coupon}

    def call(self, name: str, arguments: str | dict) -> str:
        impl = self._impl.get(name)
        if impl is None:
            return json.dumps({"error": f"unknown tool {name!r}"})
        arguments, bad = call_arguments(arguments, _PARAMETERS[name])
        if bad:
            return json.dumps({"error": bad}, ensure_ascii=False)
        try:
            return json.dumps(impl(arguments), ensure_ascii=False)
        except CartError as err:
            return json.dumps({"error": str(err)}, ensure_ascii=False)
        except (TypeError, ValueError, AttributeError) as err:
            return json.dumps({"error": f"bad arguments: {err}"}, ensure_ascii=False)

    # ---- search and filters ---------------------------------------------------------------
    def _space(self, a: dict) -> list[dict]:
        ids = a.get("product_ids")
        if not ids:
            return list(self.case.products)
        if not isinstance(ids, list):
            raise ValueError("product_ids must be a list")
        by_id = self.case.by_id
        missing = [i for i in ids if str(i) not in by_id]
        if missing:
            raise ValueError(f"unknown product ids: {missing}")
        return [by_id[str(i)] for i in ids]

    def _search(self, a: dict) -> Any:
        query = _tokens(str(a.get("query", "")))
        limit = a.get("limit", 20)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
            raise ValueError("limit must be a positive integer")
        docs = [_tokens(" ".join(str(p.get(k, "")) for k in
                                 ("brand", "color", "size", "thickness", "elasticity",
                                  "version_type", "collar_type", "suitable_season",
                                  "target_demographic", "name")))
                for p in self.case.products]
        n = len(docs) or 1
        avg = sum(map(len, docs)) / n or 1.0
        df: dict[str, int] = {}
        for d in docs:
            for t in set(d):
                df[t] = df.get(t, 0) + 1
        scored = []
        for p, d in zip(self.case.products, docs):
            s = 0.0
            for t in query:
                f = d.count(t)
                if not f:
                    continue
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * f * 2.5 / (f + 1.5 * (0.25 + 0.75 * len(d) / avg))
            if s > 0:
                scored.append((-s, str(p.get("product_id")), p))
        scored.sort(key=lambda x: (x[0], x[1]))
        return {"product_ids": [pid for _, pid, _ in scored[:limit]]}

    def _match(self, a: dict, key: str, arg: str) -> Any:
        wanted = a.get(arg)
        if not isinstance(wanted, list):
            raise ValueError(f"{arg} must be a list")
        wanted = {str(w).lower() for w in wanted}
        return {"filtered_products_ids": [p["product_id"] for p in self._space(a)
                                          if str(p.get(key, "")).lower() in wanted]}

    def _brand(self, a: dict) -> Any:
        return self._match(a, "brand", "brand_names")

    def _color(self, a: dict) -> Any:
        return self._match(a, "color", "colors")

    def _size(self, a: dict) -> Any:
        return self._match(a, "size", "sizes")

    def _coupons(self, a: dict) -> Any:
        names = a.get("coupon_names")
        if not isinstance(names, list):
            raise ValueError("coupon_names must be a list")
        return {"filtered_products_ids": [p["product_id"] for p in self._space(a)
                                          if set(names) <= set(p.get("applicable_coupons")
                                                               or [])]}

    def _range(self, a: dict) -> Any:
        key, op, value = a.get("condition_key"), a.get("operator"), a.get("value")
        if key not in RANGE_KEYS:
            raise ValueError(f"condition_key must be one of {list(RANGE_KEYS)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("value must be a number")
        cmp = {">": lambda x, y: x > y, ">=": lambda x, y: x >= y, "<": lambda x, y: x < y,
               "<=": lambda x, y: x <= y, "==": lambda x, y: x == y}.get(op)
        if cmp is None:
            raise ValueError("operator must be one of > >= < <= ==")
        # exact comparison: both sides in hundredths (prices and ratings have two decimals)
        v = cents(value)
        if v is None:
            raise ValueError("value must have at most two decimals")
        out = []
        for p in self._space(a):
            x = cents(feature(p, key))
            if x is not None and cmp(x, v):
                out.append(p["product_id"])
        return {"filtered_products_ids": out}

    def _sort(self, a: dict) -> Any:
        key, order = a.get("sort_by"), a.get("order", "desc")
        if key not in SORT_KEYS or order not in ("asc", "desc"):
            raise ValueError(f"sort_by must be one of {list(SORT_KEYS)}, order asc or desc")
        space = self._space(a)
        if key == "name":
            ranked = sorted(space, key=lambda p: (str(p.get("name", "")), p["product_id"]))
        else:
            ranked = sorted(space, key=lambda p: (cents(feature(p, key)) or 0,
                                                  p["product_id"]))
        if order == "desc":
            ranked.reverse()
        return {"sorted_product_ids": [p["product_id"] for p in ranked]}

    def _details(self, a: dict) -> Any:
        ids = a.get("product_ids")
        if not isinstance(ids, list) or not ids:
            raise ValueError("product_ids must be a non-empty list")
        by_id = self.case.by_id
        return [by_id.get(str(i), {"product_id": i, "error": "not found"}) for i in ids]

    def _transport(self, a: dict) -> Any:
        p = self.case.by_id.get(str(a.get("product_id")))
        if p is None:
            raise ValueError(f"product {a.get('product_id')!r} not found")
        info = p.get("shipping_info") or {}
        days = delivery_days(info.get("origin"), a.get("destination_address"),
                             a.get("provider") or info.get("provider"))
        if days is None:
            raise ValueError("destination_address must be a province name in pinyin")
        return {"product_id": p["product_id"], "origin": info.get("origin"),
                "destination": a.get("destination_address"), "estimated_delivery_days": days}

    def _user(self, a: dict) -> Any:
        uid = a.get("user_id")
        if uid and uid != self.case.user.get("user_id"):
            return {"error": f"user {uid!r} not found"}
        return self.case.user

    # ---- the cart -------------------------------------------------------------------------
    def _add(self, a: dict) -> Any:
        self.cart.add_product(str(a["product_id"]), a.get("quantity", 1))
        return self.cart.to_json()

    def _delete(self, a: dict) -> Any:
        self.cart.delete_product(str(a["product_id"]), a.get("quantity", 1))
        return self.cart.to_json()

    def _info(self, a: dict) -> Any:
        return self.cart.to_json()

    def _add_coupon(self, a: dict) -> Any:
        self.cart.add_coupon(str(a["coupon_name"]), a.get("quantity", 1))
        return self.cart.to_json()

    def _delete_coupon(self, a: dict) -> Any:
        self.cart.delete_coupon(str(a["coupon_name"]), a.get("quantity", 1))
        return self.cart.to_json()
