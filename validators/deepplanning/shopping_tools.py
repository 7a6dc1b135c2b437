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

import copy
import json
import math
import re
from functools import reduce
from typing import Any, Callable

from planning_core.validators.deepplanning.shopping_db import NEW_CART, VALID_COUPONS, Cart

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
         "order": _s("asc or desc (default desc)", enum=["asc", "desc"], default="desc")}, ["sort_by"]),
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


#: Delivery (the released ``calculate_transport_time``, whose behaviour is the spec): the
#: address is lower-cased, spaces and the words "province"/"city" dropped, then looked up
#: among the province aliases -- whole, else the first alias (in this order) contained in
#: it; the province's region gives base days (region x region), +2 to or from a remote
#: province, plus the product's provider's modifier, never below 1.
_ALIASES = (  # province: its aliases, in the order they are tried
    ("beijing", "beijing bj 北京"), ("shanghai", "shanghai sh 上海"),
    ("tianjin", "tianjin tj 天津"), ("chongqing", "chongqing cq 重庆"),
    ("hebei", "hebei ji 河北"), ("shanxi", "shanxi jin 山西"),
    ("liaoning", "liaoning liao 辽宁"), ("jilin", "jilin ji_ln 吉林"),
    ("heilongjiang", "heilongjiang hei 黑龙江"), ("jiangsu", "jiangsu su 江苏"),
    ("zhejiang", "zhejiang zhe 浙江"), ("anhui", "anhui wan 安徽"),
    ("fujian", "fujian min 福建"), ("jiangxi", "jiangxi gan 江西"),
    ("shandong", "shandong lu 山东"), ("henan", "henan yu 河南"), ("hubei", "hubei e 湖北"),
    ("hunan", "hunan xiang 湖南"), ("guangdong", "guangdong yue gd 广东"),
    ("hainan", "hainan qiong 海南"), ("sichuan", "sichuan chuan shu 四川"),
    ("guizhou", "guizhou qian gui_gz 贵州"), ("yunnan", "yunnan yun dian 云南"),
    ("shaanxi", "shaanxi shan qin 陕西"), ("gansu", "gansu gan_gs 甘肃"),
    ("qinghai", "qinghai qing 青海"),
    ("inner mongolia", "inner_mongolia neimenggu meng 内蒙古"),
    ("guangxi", "guangxi gui 广西"), ("tibet", "tibet xizang zang 西藏"),
    ("ningxia", "ningxia ning 宁夏"), ("xinjiang", "xinjiang xin 新疆"),
    ("hongkong", "hongkong hk xianggang 香港"), ("macau", "macau mo aomen 澳门"),
    ("taiwan", "taiwan tw 台湾"))
_ALIAS: dict[str, str] = {}
for _p, _names in _ALIASES:
    for _a in _names.split():
        _ALIAS[_a.replace("_", " ") if _a == "inner_mongolia" else _a] = _p
REGIONS = {
    "NC": ("beijing", "tianjin", "hebei", "shanxi", "inner mongolia"),
    "NE": ("liaoning", "jilin", "heilongjiang"),
    "EC": ("shanghai", "jiangsu", "zhejiang", "anhui", "fujian", "jiangxi", "shandong"),
    "CC": ("henan", "hubei", "hunan"),
    "SC": ("guangdong", "guangxi", "hainan", "hongkong", "macau", "taiwan"),
    "SW": ("sichuan", "chongqing", "guizhou", "yunnan", "tibet"),
    "NW": ("shaanxi", "gansu", "qinghai", "ningxia", "xinjiang"),
}
_REGION_OF = {p: r for r, ps in REGIONS.items() for p in ps}
_ORDER = "NC NE EC CC SC SW NW".split()
_DAYS = {a: dict(zip(_ORDER, map(int, row))) for a, row in zip(_ORDER, (
    "1222333", "2133444", "2312234", "2321223", "3422134", "3432313", "3443431"))}
_REMOTE = {"tibet", "xinjiang", "qinghai", "inner mongolia"}
_PROVIDER = {"sf express": -2, "sf": -2, "jd logistics": -1, "jd": -1, "yto express": 1,
             "yto": 0, "zto express": 1, "zto": 0, "sto express": 1, "sto": 0,
             "yunda express": 1, "yunda": 0, "cainiao": 1, "china post": 2, "ems": 0,
             "deppon express": 0, "deppon": 0, "default": 0}


def _province(text: object) -> str | None:
    if not text:
        return None
    t = text.lower().replace(" ", "").replace("province", "").replace("city", "")  # type: ignore[union-attr]
    if t in _ALIAS:
        return _ALIAS[t]
    for alias, province in _ALIAS.items():
        if alias in t:
            return province
    return None


def delivery_days(origin: object, destination: object, provider: object) -> int | None:
    """Days from a product's origin to an address with the product's provider, as the
    released tool computes them (``None``: an address it cannot place)."""
    o, d = _province(origin), _province(destination)
    if o is None or d is None or o not in _REGION_OF or d not in _REGION_OF:
        return None
    base = _DAYS[_REGION_OF[o]][_REGION_OF[d]]
    if o in _REMOTE or d in _REMOTE:
        base += 2
    key = str(provider if provider is not None else "default").lower()
    return max(1, base + _PROVIDER.get(key, _PROVIDER["default"]))


def _bm25(docs: list[list[str]], query: list[str]) -> list[float]:
    """Okapi BM25 (k1 1.5, b 0.75, idf floor 0.25 x the mean idf), the released search's
    ``rank_bm25.BM25Okapi`` computed the same way, term by term."""
    k1, b, eps = 1.5, 0.75, 0.25
    n = len(docs)
    lens = [len(d) for d in docs]
    avgdl = sum(lens) / n
    freqs = []
    nd: dict[str, int] = {}
    for d in docs:
        f: dict[str, int] = {}
        for w in d:
            f[w] = f.get(w, 0) + 1
        freqs.append(f)
        for w in f:
            nd[w] = nd.get(w, 0) + 1
    idf: dict[str, float] = {}
    total = 0.0
    negative = []
    for w, c in nd.items():
        v = math.log(n - c + 0.5) - math.log(c + 0.5)
        idf[w] = v
        total += v
        if v < 0:
            negative.append(w)
    floor = eps * (total / len(idf)) if idf else 0.0
    for w in negative:
        idf[w] = floor
    scores = [0.0] * n
    for q in query:
        weight = idf.get(q) or 0
        for i, f in enumerate(freqs):
            qf = f.get(q) or 0
            scores[i] += weight * (qf * (k1 + 1) / (qf + k1 * (1 - b + b * lens[i] / avgdl)))
    return scores


_SEARCH_FIELDS = ("brand", "color", "size", "thickness", "elasticity", "version_type",
                  "collar_type", "suitable_season", "target_demographic", "name")


class _Refused(Exception):
    """A tool's own error answer (``{"error": ...}``, indented as the released tools do)."""


def _dump(result: Any) -> str:
    return json.dumps(result, ensure_ascii=False, indent=2)


def _nested(product: Any, key: Any) -> Any:
    try:
        return feature(product, key)
    except (TypeError, AttributeError):
        return None


class ShoppingTools:
    """The tools bound to one case's cart; :meth:`call` answers one tool call exactly as the
    released tool does on the same case (``docs/deepplanning.md``, "Tool answers").

    The cart is the released ``cart.json`` document (:attr:`doc`): items in the order added
    with the price as a decimal, coupons in use, and a summary whose ``total_price`` is what
    the last operation wrote (a product added or removed: the total before coupons; a coupon
    added or removed: after them).  :attr:`cart` follows it for scoring."""

    def __init__(self, cart: Cart) -> None:
        self.cart = cart
        self.case = cart.case
        #: the cart file's content (``None``: no file, or one the released tools read as none)
        self.doc: Any = copy.deepcopy(self.case.cart_doc if self.case.cart_doc is not NEW_CART
                                      else Cart(self.case).to_json())
        self._products = list(self.case.products)
        self._by_id = {}
        for p in self._products:
            self._by_id[p.get("product_id")] = p
        self._index: tuple[list[list[str]], bool] | None = None
        self._impl: dict[str, Callable[[dict], str]] = {
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
            return json.dumps({"error": f"tool '{name}' not found"}, ensure_ascii=False)
        try:
            if name == "search_products" and not self._corpus()[1]:
                raise _Refused("BM25 index is not available. Check database loading.")
            if name == "get_cart_info" and not arguments:
                params: Any = {}
            else:
                params = self._params(name, arguments)
            return impl(params)
        except _Refused as err:
            return _dump({"error": str(err)})
        except Exception as err:   # noqa: BLE001 - the released agent answers every failure
            return json.dumps({"error": str(err)}, ensure_ascii=False)

    @staticmethod
    def _params(name: str, arguments: Any) -> Any:
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except json.JSONDecodeError as err:
                raise _Refused(f"Parameters must be a valid JSON string! Error: {err}") \
                    from None
        for key in _PARAMETERS[name].get("required", []):
            if key not in arguments:
                raise _Refused(f"Missing required argument: {key}")
        return arguments

    # ---- search and filters ---------------------------------------------------------------
    def _corpus(self) -> tuple[list[list[str]], bool]:
        if self._index is None:
            try:
                docs = [" ".join([p.get(k, "") for k in _SEARCH_FIELDS]).lower().split()
                        for p in self._products]
                self._index = (docs, bool(docs))
            except Exception:   # noqa: BLE001 - the released tool then has no index
                self._index = ([], False)
        return self._index

    def _search(self, a: dict) -> str:
        query, limit = a.get("query"), a.get("limit", 20)
        if not query:
            return _dump({"product_ids": []})
        scores = _bm25(self._corpus()[0], query.lower().split())
        hits = [(s, i) for i, s in enumerate(scores) if s > 2]
        hits.sort(key=lambda h: h[0], reverse=True)
        return _dump({"product_ids": [self._products[i]["product_id"]
                                      for _, i in hits[:limit]]})

    def _space(self, a: dict, strict: bool = True) -> list[dict]:
        ids = a.get("product_ids")
        if not ids:
            return self._products
        space = [self._by_id[i] for i in ids if i in self._by_id]
        missing = [i for i in ids if i not in self._by_id]
        if strict and missing:
            raise _Refused(f"Some product_ids not found in database: {missing}")
        return space

    def _match(self, a: dict, key: str, arg: str) -> str:
        wanted = a.get(arg, [])
        space = self._space(a)
        wanted = set(w.lower() for w in wanted)
        return _dump({"filtered_products_ids": [p.get("product_id") for p in space
                                                if p.get(key, "").lower() in wanted]})

    def _brand(self, a: dict) -> str:
        return self._match(a, "brand", "brand_names")

    def _color(self, a: dict) -> str:
        return self._match(a, "color", "colors")

    def _size(self, a: dict) -> str:
        return self._match(a, "size", "sizes")

    def _coupons(self, a: dict) -> str:
        names = a.get("coupon_names", [])
        if not all(c in VALID_COUPONS for c in names):
            raise _Refused(f"Invalid coupon names: {names}. Valid coupons are: "
                           f"{list(VALID_COUPONS)}")
        if not names:
            return _dump({"filtered_products_ids": []})
        space = self._space(a)
        wanted = set(names)
        return _dump({"filtered_products_ids": [
            p.get("product_id") for p in space
            if wanted.issubset(set(p.get("applicable_coupons", [])))]})

    def _range(self, a: dict) -> str:
        key, op, value = a.get("condition_key"), a.get("operator"), a.get("value")
        if not all([key, op, value is not None]):
            raise _Refused("Missing required parameters: condition_key, operator, or value.")
        space = self._space(a)
        out = []
        for p in space:
            x = _nested(p, key)
            if x is None:
                raise ValueError("condition_key cannot be found in product data, please "
                                 "check again.")
            try:
                xf, vf = float(x), float(value)
            except (ValueError, TypeError):
                continue
            if (op == ">" and xf > vf) or (op == ">=" and xf >= vf) or \
                    (op == "<" and xf < vf) or (op == "<=" and xf <= vf) or \
                    (op == "==" and xf == vf):
                out.append(p)
        return _dump({"filtered_products_ids": [p.get("product_id") for p in out]})

    def _sort(self, a: dict) -> str:
        key = a.get("sort_by", "").lower()
        order = a.get("order", "desc").lower()
        if not key:
            raise _Refused("Missing required parameter: sort_by.")
        if order not in ("asc", "desc"):
            raise _Refused(f"Invalid value for 'order': '{a.get('order')}'. Must be 'asc' or "
                           "'desc'.")
        space = self._space(a, strict=False)
        if not space:
            return _dump({"sorted_product_ids": []})
        try:
            if _nested(space[0], key) is None:
                raise ValueError(f"Sort key '{key}' cannot be found in product data or is "
                                 "null. Please check again.")

            def rank(p: dict) -> Any:
                v = _nested(p, key)
                if isinstance(v, str):
                    return v.lower()
                if isinstance(v, (int, float)):
                    return v
                return -float("inf") if order == "desc" else float("inf")
            ids = [p["product_id"] for p in sorted(space, key=rank, reverse=order == "desc")]
        except ValueError as err:
            raise _Refused(str(err)) from None
        except Exception as err:   # noqa: BLE001 - as released
            raise _Refused(f"An error occurred during sorting on key '{key}': {err}") from None
        return _dump({"sorted_product_ids": ids})

    def _details(self, a: dict) -> str:
        ids = a.get("product_ids", [])
        if not ids:
            return _dump({"products": []})
        return _dump({"products": [self._by_id[i] for i in ids if i in self._by_id]})

    def _transport(self, a: dict) -> str:
        pid, dest = a.get("product_id"), a.get("destination_address")
        p = self._by_id.get(pid)
        if not p:
            raise _Refused(f"Product with ID '{pid}' not found.")
        info = p.get("shipping_info", {})
        origin = info.get("origin")
        provider = info.get("provider", "default").lower()
        if not origin:
            raise _Refused(f"Shipping origin not found for product '{pid}'.")
        o, d = _province(origin), _province(dest)
        if not o:
            raise _Refused(f"Could not determine a valid province from origin address: "
                           f"'{origin}'.")
        if not d:
            raise _Refused(f"Could not determine a valid province from destination address: "
                           f"'{dest}'. Please provide a valid Chinese province name.")
        if o not in _REGION_OF or d not in _REGION_OF:
            raise _Refused("Could not map provinces to geographical regions.")
        return _dump({"product_id": pid, "origin": origin, "destination": dest,
                      "estimated_delivery_days": delivery_days(origin, dest, provider)})

    def _user(self, a: dict) -> str:
        user = self.case.user
        users = [user] if isinstance(user, dict) else []
        by_id = {user["user_id"]: user} if isinstance(user, dict) and "user_id" in user \
            else {}
        uid = a.get("user_id")
        if uid:
            found = by_id.get(uid)
            if found:
                return _dump(found)
            return _dump({"error": f"User with user_id '{uid}' not found", "user": None})
        return _dump(users[0] if users else {})

    # ---- the cart: the released cart.json, read before and written after every change ----
    def _load(self, with_coupons: bool) -> dict:
        doc = copy.deepcopy(self.doc)
        if not isinstance(doc, dict):
            doc = {"items": []}
            if with_coupons:
                doc["used_coupons"] = []
            doc["summary"] = {"total_items_count": 0, "total_price": 0.0}
            return doc
        doc.setdefault("items", [])
        if with_coupons:
            doc.setdefault("used_coupons", [])
        if "summary" not in doc:
            doc["summary"] = {"total_items_count": len(doc.get("items", [])),
                              "total_price": 0.0}
        return doc

    def _save(self, doc: dict) -> str:
        self.doc = json.loads(json.dumps(doc, ensure_ascii=False))
        self.cart.sync(self.doc)
        return _dump(doc)

    @staticmethod
    def _quantity(a: dict) -> int:
        q = a.get("quantity", 1)
        if not isinstance(q, (int, float)) or q <= 0:
            raise _Refused("quantity must be a positive number")
        return q

    @staticmethod
    def _items_summary(doc: dict) -> None:
        items = doc.get("items", [])
        doc.setdefault("summary", {})
        doc["summary"]["total_items_count"] = sum(i.get("quantity", 0) for i in items)
        doc["summary"]["total_price"] = round(sum(i.get("price", 0.0) * i.get("quantity", 0)
                                                  for i in items), 2)

    def _cart_arguments(self, a: dict) -> tuple[dict, str, int]:
        """The cart, product id and quantity of an add or delete call, refused in the
        released order: no product id, a bad quantity, an unknown product."""
        doc = self._load(False)
        pid = a.get("product_id")
        if not pid:
            raise _Refused("product_id is required")
        q = int(self._quantity(a))
        if pid not in self._by_id:
            raise _Refused(f"Product not found: product_id '{pid}'")
        return doc, pid, q

    def _add(self, a: dict) -> str:
        doc, pid, q = self._cart_arguments(a)
        p = self._by_id[pid]
        name, price = p.get("name", ""), float(p.get("price", 0.0))
        stock = int(p.get("stock_quantity", 0))
        items = doc.get("items", [])
        have, at = 0, -1
        for k, item in enumerate(items):
            if item.get("product_id") == pid:
                have, at = item.get("quantity", 0), k
                break
        if have + q > stock:
            raise _Refused(f"Insufficient stock: Product '{name}' (ID: {pid}) has {stock} in "
                           f"stock, cart already has {have}, cannot add {q} more")
        if at >= 0:
            items[at]["quantity"] = have + q
            items[at]["price"] = price
        else:
            items.append({"product_id": pid, "name": name, "quantity": q, "price": price})
        doc["items"] = items
        self._items_summary(doc)
        return self._save(doc)

    def _delete(self, a: dict) -> str:
        doc, pid, q = self._cart_arguments(a)
        items = doc.get("items", [])
        at = next((k for k, item in enumerate(items) if item.get("product_id") == pid), -1)
        if at < 0:
            raise _Refused(f"Product not in cart: product_id '{pid}'")
        left = max(0, items[at].get("quantity", 0) - q)
        items[at]["quantity"] = left
        if left == 0:
            items.pop(at)
        doc["items"] = [i for i in items if i.get("quantity", 0) > 0]
        self._items_summary(doc)
        return self._save(doc)

    def _info(self, a: dict) -> str:
        return _dump(self._load(False))

    @staticmethod
    def _coupon_money(name: str) -> tuple[float, float] | tuple[None, None]:
        m = re.search(r"¥([\d,]+)\s+off\s+every\s+¥([\d,]+)", name)
        if not m:
            return None, None
        try:
            return float(m.group(1).replace(",", "")), float(m.group(2).replace(",", ""))
        except ValueError:
            return None, None

    def _coupon_summary(self, doc: dict, short_form: bool = False) -> None:
        """The summary after a coupon change; ``short_form``: also read ``{name: n}``
        entries (the released delete reads both forms, the add only the long one)."""
        base = self._base(doc)
        discount = 0.0
        for c in doc.get("used_coupons", []):
            if not short_form:
                name, n = c.get("coupon_name", ""), int(c.get("quantity", 0))
            elif not isinstance(c, dict):
                continue
            elif len(c) == 1:
                name = list(c)[0]
                n = int(c.get(name, 0))
            elif "coupon_name" in c:
                name, n = c.get("coupon_name", ""), int(c.get("quantity", 0))
            else:
                continue
            if short_form and not name:
                continue
            d, _ = self._coupon_money(name)
            if d is not None:
                discount += d * n
        doc.setdefault("summary", {})
        doc["summary"]["total_items_count"] = sum(i.get("quantity", 0)
                                                  for i in doc.get("items", []))
        doc["summary"]["total_price"] = round(max(0.0, base - round(discount, 2)), 2)

    @staticmethod
    def _base(doc: dict) -> float:
        total = 0.0
        for item in doc.get("items", []):
            total += float(item.get("price") or item.get("items_price", 0.0)) * \
                int(item.get("quantity", 0))
        return round(total, 2)

    def _add_coupon(self, a: dict) -> str:
        doc = self._load(True)
        user = self.case.user if isinstance(self.case.user, dict) else {}
        name = a.get("coupon_name")
        if not name:
            raise _Refused("coupon_name is required")
        q = int(self._quantity(a))
        if name not in VALID_COUPONS:
            raise _Refused(f"Coupon not found: '{name}'. Valid coupons are: "
                           f"{', '.join(VALID_COUPONS)}")
        owned = user.get("coupons", {}).get(name, 0)
        used_list = doc.get("used_coupons", [])
        used = sum(int(c.get("quantity", 0)) for c in used_list
                   if c.get("coupon_name") == name)
        if used + q > owned:
            raise _Refused(f"Insufficient coupon quantity: User owns {owned} of '{name}', "
                           f"cart already uses {used}, cannot add {q} more")
        if name.startswith("VIP:") and not user.get("is_vip", False):
            raise _Refused(f"VIP coupon '{name}' requires VIP status, but user is not a VIP")
        found = False
        for c in used_list:
            if c.get("coupon_name") == name:
                c["quantity"] = used + q
                found = True
                break
        if not found:
            used_list.append({"coupon_name": name, "quantity": q})
        base = self._base(doc)
        usage: dict[str, int] = {}
        for c in used_list:
            usage[c.get("coupon_name", "")] = usage.get(c.get("coupon_name", ""), 0) + \
                int(c.get("quantity", 0))
        need = 0.0
        for cname, n in usage.items():
            d, t = self._coupon_money(cname)
            if d is None or t is None:
                raise _Refused(f"Invalid coupon format: {cname}")
            need += t * n
        if base < need:
            raise _Refused(f"Cart total {base} is insufficient for this combination of coupons"
                           f" (requires at least {need})")
        self._coupon_summary(doc)
        doc["used_coupons"] = [dict(c) for c in used_list]
        return self._save(doc)

    def _delete_coupon(self, a: dict) -> str:
        doc = self._load(True)
        name = a.get("coupon_name")
        if not name:
            raise _Refused("coupon_name is required")
        q = self._quantity(a)
        if name not in VALID_COUPONS:
            raise _Refused(f"Invalid coupon name: '{name}'. Valid coupons are: "
                           f"{', '.join(VALID_COUPONS)}")
        q = int(q)
        used_list = doc.get("used_coupons", [])
        at, have = -1, 0
        for k, c in enumerate(used_list):
            if isinstance(c, dict):
                if len(c) == 1:
                    if list(c)[0] == name:
                        at, have = k, int(c.get(name, 0))
                        break
                elif "coupon_name" in c and c.get("coupon_name") == name:
                    at, have = k, int(c.get("quantity", 0))
                    break
        if at < 0:
            raise _Refused(f"Coupon not in cart: '{name}'")
        if have < q:
            raise _Refused(f"Insufficient coupon quantity in cart: Cart has {have} of "
                           f"'{name}', cannot remove {q}")
        if have - q == 0:
            used_list.pop(at)
        else:
            c = used_list[at]
            if len(c) == 1:
                c[list(c)[0]] = have - q
            else:
                c["quantity"] = have - q
        kept = []
        for c in used_list:
            if isinstance(c, dict):
                if len(c) == 1:
                    if int(c.get(list(c)[0], 0)) > 0:
                        kept.append(c)
                elif "coupon_name" in c and int(c.get("quantity", 0)) > 0:
                    kept.append(c)
        doc["used_coupons"] = kept
        self._coupon_summary(doc, short_form=True)
        return self._save(doc)
