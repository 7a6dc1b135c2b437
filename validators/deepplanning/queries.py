"""What a released query file asks, and which of it we can check.

For ``travelplanning_query_{en,zh}.json``: the number of queries, the count per
``meta_info.hard_constraints`` kind, and every kind (with its reason) that
:func:`~.travel_score.checkable_kind` cannot check.  With ``--database`` the structured
constraints are also checked for being answerable from the task's database (the named
hotel, trains, restaurant, attractions exist).  Shopping query files
(``level_{L}_query_meta.json``) carry only ``id`` and ``query``; their constraints live in
each case's ``validation_cases.json``.  A kind outside the table of released kinds
(:data:`~.travel_score.RELEASED_KINDS`) is flagged whatever its name; ``flagged`` says
whether anything was (``deepplanning queries`` then exits 1).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from planning_core.validators.deepplanning.tasks import bad_task_id, load_query_file
from planning_core.validators.deepplanning.travel_db import TravelDB, task_dir
from planning_core.validators.deepplanning.travel_score import RELEASED_KINDS, checkable_kind

__all__ = ["describe_queries"]


def _grounded(kind: str, data: dict, db: TravelDB) -> str | None:
    fam = kind.split("_", 1)[0]
    if fam in ("train", "flight"):
        key = "train_no" if fam == "train" else "flight_no"
        have = {r.get(key) for r in db.rows(fam + "s")}
        miss = [data[k] for k in (f"outbound_{fam}_no", f"inbound_{fam}_no")
                if data.get(k) and data[k] not in have]
        return f"{miss} not in {fam}s" if miss else None
    if fam == "hotel":
        return None if data["hotel_name"] in db.by_name("hotels") else "hotel not in database"
    if fam == "restaurant":
        return None if data["restaurant_name"] in db.by_name("restaurants") else \
            "restaurant not in database"
    if fam == "attraction":
        names = db.by_name("attractions")
        miss = [n for n in data["attraction_names"] if n not in names]
        return f"{miss} not in attractions" if miss else None
    return None


def describe_queries(path: str | Path, database: str | Path | None = None) -> dict[str, Any]:
    entries = load_query_file(path)
    kinds: Counter[str] = Counter()
    cannot: dict[str, str] = {}
    ungrounded: list[dict[str, str]] = []
    has_meta = False
    for e in entries:
        meta = e.get("meta_info")
        hard = meta.get("hard_constraints") if isinstance(meta, dict) else None
        if not isinstance(hard, dict):
            continue
        has_meta = True
        db = None
        if database is not None:
            folder = task_dir(database, str(e["id"]))
            bad = bad_task_id(str(e["id"]), folder, Path(database))
            db = TravelDB.load(folder) if not bad and folder.is_dir() else None
            if db is None:
                ungrounded.append({"id": str(e["id"]), "kind": "*",
                                   "reason": bad or f"no database folder {folder}"})
        for kind, data in hard.items():
            kinds[kind] += 1
            # the released kinds are a closed table: a kind outside it (an unknown
            # ``hotel_*`` too) is flagged, whatever family its name prefix suggests
            why = checkable_kind(kind, data) if kind in RELEASED_KINDS else \
                "not a kind of the released query files"
            if why is not None:
                cannot.setdefault(kind, why)
            elif db is not None:
                miss = _grounded(kind, data, db)
                if miss:
                    ungrounded.append({"id": str(e["id"]), "kind": kind, "reason": miss})
    out: dict[str, Any] = {"file": str(path), "queries": len(entries),
                           "domain": "travel" if has_meta else "shopping",
                           "kinds": dict(sorted(kinds.items())),
                           "cannot_check": dict(sorted(cannot.items())),
                           "not_in_release": sorted(set(kinds) - set(RELEASED_KINDS))}
    if not has_meta:
        out["note"] = ("no meta_info.hard_constraints: shopping constraints are in each "
                       "case's validation_cases.json")
    if database is not None:
        out["ungrounded"] = ungrounded
    out["flagged"] = bool(out["cannot_check"] or out["not_in_release"] or ungrounded)
    return out
