"""A response cache on disk (SQLite): a rerun costs nothing, a crashed run resumes.

The key is a SHA-256 of everything that determines a response: the model, the base URL,
the full message list and the sampling parameters (temperature, max tokens, seed, stop
sequences, ...), serialised as canonical JSON. Only successful responses are stored, so a
failed request is asked again on the next run.

Concurrent writers are safe: the database is in WAL mode (readers never block the writer),
every thread and every process opens its own connection (SQLite connections must not cross
threads or ``fork``), writes are single ``INSERT OR IGNORE`` statements in their own
transaction, and a busy database is waited for (``busy_timeout``) rather than failed on.
Two runs asking the same question at once both pay for it, and the first answer stored wins.

When the client samples (temperature above 0, or not sent), the key also holds the turn and
the sample index the caller names (:meth:`~.client.Client.complete_messages`), so the same
prompt asked at another turn of a revision loop, or as another sample, is a new request,
while a rerun of the same run still finds its answers. The ``extra`` column (added to older
cache files on first use) keeps the finish reason and a reasoning model's reasoning text.

A response marked :data:`OVERSIZED` (longer than its reader's cap, cut there) is never
stored: a rerun asks again rather than serving a cut answer, and the file does not grow by
whatever a runaway program wrote.

The file is the user's (``--cache``, ``$PLANNING_CORE_CACHE``), so reading it is bounded
like every other read: a path that is not a regular file (a FIFO, a device) is refused
before SQLite opens it, SQLite will not hold a value longer than :data:`MAX_VALUE_BYTES`
(``SQLITE_LIMIT_LENGTH``: a cached row of a gigabyte is refused by its length, unread),
and a row that is too long, not JSON where JSON belongs (nesting too deep included, through
:mod:`planning_core.safe_json`) or of the wrong types is a miss: the request is asked again
and its answer replaces the row.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

from planning_core.errors import InputError
from planning_core.validators.models.completion import Completion

__all__ = ["MAX_VALUE_BYTES", "OVERSIZED", "ResponseCache", "cache_key", "default_cache_path"]

#: the ``finish_reason`` of a response longer than the reader's byte cap (cut there)
OVERSIZED = "oversized"
#: the longest value (a response, its prompt, its reasoning) the cache reads or stores
MAX_VALUE_BYTES = 64 << 20

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key        TEXT PRIMARY KEY,
    model      TEXT NOT NULL,
    base_url   TEXT,
    messages   TEXT NOT NULL,
    params     TEXT NOT NULL,
    text       TEXT NOT NULL,
    usage      TEXT,
    latency_s  REAL,
    created    REAL NOT NULL,
    extra      TEXT
)
"""


def default_cache_path() -> Path:
    """``$PLANNING_CORE_CACHE``, else ``~/.cache/planning-core/responses.sqlite``."""
    env = os.environ.get("PLANNING_CORE_CACHE")
    if env:
        return Path(env)
    return Path.home() / ".cache" / "planning-core" / "responses.sqlite"


def cache_key(model: str, base_url: str | None, messages: Sequence[Mapping[str, Any]],
              params: Mapping[str, Any]) -> str:
    blob = json.dumps({"model": model, "base_url": base_url, "messages": list(messages),
                       "params": dict(params)}, sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """Get and put :class:`Completion` records by :func:`cache_key`."""

    def __init__(self, path: str | Path) -> None:
        from planning_core.pddl.files import refuse_irregular

        self.path = Path(path)
        if self.path.is_dir():
            raise InputError("is a folder; the cache is a file", file=str(self.path))
        refuse_irregular(self.path)     # a FIFO or a device: never handed to SQLite
        self._bad: set[str] = set()     # keys whose stored row could not be used
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise InputError(f"cannot create the cache folder: {err.strerror or err}",
                             file=str(self.path.parent)) from None
        self._local = threading.local()
        self._connect()  # fail early on an unusable file

    def _connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and self._local.pid == os.getpid():
            return conn
        try:
            conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=60000")
            conn.execute(_SCHEMA)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(responses)")}
            if "extra" not in columns:   # a cache file written before the column existed
                try:
                    conn.execute("ALTER TABLE responses ADD COLUMN extra TEXT")
                except sqlite3.OperationalError:   # another process added it meanwhile
                    pass
        except sqlite3.DatabaseError as err:
            raise InputError(f"not a usable response cache: {err}", file=str(self.path)) from None
        self._local.conn, self._local.pid = conn, os.getpid()
        return conn

    def get(self, key: str) -> Completion | None:
        """The stored response of ``key``, or None (not stored, or a row that cannot be
        used: too long, malformed; see the module doc)."""
        try:
            row = self._connect().execute(
                "SELECT model, base_url, params, text, usage, latency_s, extra FROM responses "
                "WHERE key = ?", (key,)).fetchone()
        except sqlite3.DataError:       # a value past MAX_VALUE_BYTES: refused unread
            self._bad.add(key)
            return None
        if row is None:
            return None
        found = _completion(row)
        if found is None:
            self._bad.add(key)
        return found

    def put(self, key: str, messages: Sequence[Mapping[str, Any]], c: Completion) -> None:
        """Store ``c`` under ``key``, unless it is :data:`OVERSIZED` (then nothing)."""
        if c.finish_reason == OVERSIZED:
            return
        verb = "INSERT OR REPLACE" if key in self._bad else "INSERT OR IGNORE"
        try:
            self._connect().execute(
                f"{verb} INTO responses (key, model, base_url, messages, params, text, "
                "usage, latency_s, created, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, c.model, c.base_url, json.dumps(list(messages), ensure_ascii=False),
                 json.dumps(dict(c.params), sort_keys=True), c.text,
                 json.dumps(dict(c.usage)) if c.usage is not None else None, c.latency_s,
                 time.time(), json.dumps({"finish_reason": c.finish_reason,
                                          "reasoning": c.reasoning}, ensure_ascii=False)))
        except sqlite3.DataError:       # a value past MAX_VALUE_BYTES: not stored
            return
        self._bad.discard(key)

    def __len__(self) -> int:
        return self._connect().execute("SELECT COUNT(*) FROM responses").fetchone()[0]


def _completion(row) -> Completion | None:
    """The :class:`Completion` a stored row holds, or None when it is not one (JSON fields
    that are not JSON or nested past :mod:`planning_core.safe_json`'s depth, wrong types)."""
    from planning_core import safe_json

    model, base_url, params, text, usage, latency, extra = row
    try:
        params = safe_json.loads(params)
        usage = safe_json.loads(usage) if usage else None
        extra = safe_json.loads(extra) if extra else {}
    except (TypeError, ValueError, RecursionError):
        return None
    if not (isinstance(model, str) and isinstance(text, str) and isinstance(params, dict)
            and isinstance(extra, dict) and (base_url is None or isinstance(base_url, str))
            and (usage is None or isinstance(usage, dict))
            and (latency is None or isinstance(latency, (int, float)))):
        return None
    finish, reasoning = extra.get("finish_reason"), extra.get("reasoning")
    if not (finish is None or isinstance(finish, str)) or not (
            reasoning is None or isinstance(reasoning, str)):
        return None
    return Completion(text, model, base_url, params, usage, latency or 0.0, cache_hit=True,
                      attempts=0, finish_reason=finish, reasoning=reasoning)
