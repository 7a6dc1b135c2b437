"""Finding tasks in the released layout (official data or ours) and scoring one answer.

Travel: ``travelplanning_query_{lang}.json`` (a list of ``{id, query, meta_info}``) and
``database_{lang}/id_{N}/``.  Shopping: ``level_{L}_query_meta.json`` (``{id, query}``) and
``database_level{L}/case_{N}/`` (the ground truth is in the case's
``validation_cases.json``).  A folder made by ``deepplanning generate`` holds both.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from planning_core.errors import InputError
from planning_core.validators.deepplanning.jsontext import loads
from planning_core.validators.deepplanning.shopping_db import ShoppingCase, case_dir
from planning_core.validators.deepplanning.travel_db import TravelDB, task_dir

__all__ = ["Task", "load_query_file", "find_tasks", "bad_task_id"]


@dataclass
class Task:
    domain: str            # "travel" | "shopping"
    task_id: str
    query: str
    meta: dict[str, Any]   # travel: meta_info; shopping: {"level": L}
    folder: Path           # the task's database folder
    lang: str = ""         # travel: the query file's language (the paper averages en and zh)
    bad: str = ""          # why the task cannot be read (an id that is not a folder name)

    @property
    def key(self) -> str:
        # travel: the language is part of the key, so that the zh run of a task is not taken
        # for its en run when both go to one results file (paper line 176 averages both)
        return f"{self.domain}:{self.meta.get('level', '') or self.lang}:{self.task_id}"

    def _check(self) -> None:
        if self.bad:
            raise InputError(self.bad)

    def travel_db(self) -> TravelDB:
        self._check()
        return TravelDB.load(self.folder)

    def shopping_case(self) -> ShoppingCase:
        self._check()
        return ShoppingCase.load(self.folder)

    def spec(self) -> dict | None:
        self._check()
        p = self.folder / "spec.json"
        return loads(p.read_text(encoding="utf-8")) if p.is_file() else None


def load_query_file(path: str | Path) -> list[dict[str, Any]]:
    from planning_core.pddl.files import read_bytes

    path = Path(path)
    try:   # the shared bounded reader: a regular file only (a FIFO is refused)
        data = loads(read_bytes(path).decode("utf-8"))
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", file=str(path)) from None
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text ({err.reason} at byte {err.start})",
                         file=str(path)) from None
    except json.JSONDecodeError as err:
        raise InputError(f"not JSON: {err.msg}", file=str(path), line=err.lineno,
                         column=err.colno) from None
    if not isinstance(data, list) or not all(isinstance(e, dict) and "id" in e for e in data):
        raise InputError("expected a JSON list of objects with an 'id'", file=str(path))
    return data


def bad_task_id(task_id: str, folder: Path, database: Path) -> str:
    """Why ``task_id`` cannot name the task's folder, or ``""``: the id comes from a query
    file and becomes a path, so it must be one plain folder name inside the database (no
    separator, no NUL, at most 200 bytes so that every file name made from it -- the
    longest is a plan's ``id_{id}_converted.json`` -- fits the usual 255), never a way out
    of it such as ``../../etc``."""
    if (not task_id or any(c in task_id for c in "/\\\0") or len(task_id.encode(
            "utf-8", "surrogatepass")) > 200 or folder.parent != database
            or folder.name in (".", "..")):
        return (f"task id {task_id[:80]!r} is not a plain folder name; refused (the id "
                "names the task's folder in the database)")
    return ""


def find_tasks(root: str | Path, domain: str, database: str | Path | None = None,
               queries: str | Path | None = None, lang: str = "en",
               levels: tuple[int, ...] = (1, 2, 3)) -> Iterator[Task]:
    root = Path(root)
    if domain == "travel":
        qfile = Path(queries) if queries else root / f"travelplanning_query_{lang}.json"
        db = Path(database) if database else root / f"database_{lang}"
        named = re.search(r"_(en|zh)\.json$", qfile.name)
        file_lang = named.group(1) if named else lang
        for e in load_query_file(qfile):
            meta = e.get("meta_info") if isinstance(e.get("meta_info"), dict) else {}
            tid = str(e["id"])
            folder = task_dir(db, tid)
            yield Task("travel", tid, str(e.get("query", "")), meta, folder, file_lang,
                       bad=bad_task_id(tid, folder, db))
        return
    for level in levels:
        qfile = Path(queries) if queries else root / f"level_{level}_query_meta.json"
        if not qfile.is_file() and not queries:
            continue
        db = Path(database) if database else root / f"database_level{level}"
        for e in load_query_file(qfile):
            tid = str(e["id"])
            folder = case_dir(db, tid)
            yield Task("shopping", tid, str(e.get("query", "")), {"level": level}, folder,
                       bad=bad_task_id(tid, folder, db))
        if queries:
            return
