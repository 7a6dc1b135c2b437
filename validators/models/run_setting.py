"""What a resumable run is keyed on, and what happens when a rerun's setting differs.

A run (``acp run``, ``cope run``) appends rows to its ``--out`` file and, when run again,
asks only what is missing. That is right only if the rows already there were produced by
the same *setting*: the same model at the same base URL, with the same system prompt and
sampling parameters (temperature, top-p, token limits, stop sequences, seed, reasoning
effort, extra request fields) and the same command options that shape the prompts (shots
and their source for ``acp run``; mode and revisions for ``cope run``). Otherwise the file
would mix two models' answers under one report.

:func:`setting_of` describes the setting of a run; every row carries its fields (``model``,
``base_url``, ``params``, ``system`` where one is sent, and the command's own fields), so
:func:`setting_of_row` reads the setting back from any row, also rows written before this
module existed (their success rows have the same fields). :func:`mismatch` compares the two
and says, in one line, what differs. A command refuses such a rerun with that line (exit 2)
unless given ``--force``, which starts a new run: :func:`supersede` moves the old rows to a
numbered copy beside the file (``OUT.1``, ``OUT.2``, ...) and empties the file, under the
lock the run holds.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import IO, Any, Callable, Hashable, Iterable, Mapping, Sequence

from planning_core.errors import InputError

__all__ = ["latest_rows_by", "setting_of", "setting_of_row", "run_sample", "sample_field", "mismatch",
           "cached_samples_note",
           "check_resume", "supersede", "resume_or_supersede", "superseded_note"]

#: Client parameters that do not shape an answer (a command model's time limit): not part
#: of the setting, so changing them does not make a rerun a new run.
NOT_SETTING = frozenset({"timeout_s"})


def _params(params) -> dict:
    return {k: v for k, v in (params or {}).items()
            if v is not None and k not in NOT_SETTING}


def run_sample(model) -> int:
    """The run-level sample index of ``model`` (``--sample K``) that makes its answers
    differ from another run's: K when the client samples, else 0 (a deterministic client
    gives the same answers whatever K says)."""
    k = getattr(model, "run_sample", 0) or 0
    return k if k and getattr(model, "sampling", False) else 0


def sample_field(model) -> dict:
    """``{"sample": K}`` for a row of a run that is sample K > 0, else ``{}`` (rows of
    sample 0 look as they always did)."""
    k = run_sample(model)
    return {"sample": k} if k else {}


def cached_samples_note(model, cached: int) -> str | None:
    """A note for a run of a sampling model at sample 0 (the default) that took
    ``cached`` answers from the response cache: they are an earlier run's samples, not new
    ones, unless the run asks for another sample (``--sample K``)."""
    if not cached or not getattr(model, "sampling", False) or run_sample(model):
        return None
    return (f"{cached} answer(s) came from the response cache: at this temperature they "
            "are the samples an earlier run drew (sample 0); give --sample K (K = 1, 2, "
            "...) for another independent sample, or --no-cache")


def setting_of(model, **fields: Any) -> dict:
    """The setting of a run with ``model`` and the command's own ``fields`` (and its
    ``sample`` when it is sample K > 0 of a sampling model)."""
    params = _params(getattr(model, "params", None))
    return {"model": getattr(model, "name", type(model).__name__),
            "base_url": _url(getattr(model, "base_url", None)), "params": params,
            "system": getattr(model, "system", None) or None, **sample_field(model),
            **fields}


#: a field a row does not have (written before it was recorded): not compared
UNKNOWN = type("Unknown", (), {"__repr__": lambda self: "unknown"})()


def setting_of_row(row: Mapping[str, Any], fields: Sequence[str]) -> dict | None:
    """The setting a row was produced with, or None when the row does not say (an error
    row written before rows carried their parameters). A ``cope run`` row written before
    rows carried the setting says it through its first turn (each turn records the call's
    model, base URL and parameters); a command field the row lacks is :data:`UNKNOWN`."""
    source = row
    if not isinstance(row.get("params"), Mapping):
        turns = row.get("turns")
        first = turns[0] if isinstance(turns, list) and turns else None
        if not isinstance(first, Mapping) or not isinstance(first.get("params"), Mapping):
            return None
        source = first
    params = _params(source["params"])
    sample = row.get("sample")
    return {"model": source.get("model"), "base_url": _url(source.get("base_url")),
            "params": params, "system": row.get("system") or None,
            **({"sample": sample} if sample else {}),
            **{f: row.get(f, UNKNOWN) for f in fields}}


def _url(url):
    """A base URL as rows compare it: ``.../v1/`` is ``.../v1`` (older rows kept the slash)."""
    return url.rstrip("/") or url if isinstance(url, str) else url


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def mismatch(old: Mapping[str, Any], new: Mapping[str, Any]) -> str | None:
    """What differs between two settings, one line (None when they are the same)."""
    diffs = []
    for name in dict.fromkeys([*new, *old]):   # "sample" is only where it is not 0
        if name == "params" or old.get(name) is UNKNOWN:
            continue
        if name == "sample":
            if (old.get(name) or 0) != (new.get(name) or 0):
                diffs.append(f"sample {old.get(name) or 0} there, {new.get(name) or 0} now")
            continue
        if _canon(old.get(name)) != _canon(new.get(name)):
            diffs.append(f"{name} {_short(old.get(name))} there, {_short(new.get(name))} now")
    op, np_ = old.get("params") or {}, new.get("params") or {}
    for name in sorted(set(op) | set(np_)):
        if _canon(op.get(name)) != _canon(np_.get(name)):
            diffs.append(f"{name} {_short(op.get(name))} there, {_short(np_.get(name))} now")
    return "; ".join(diffs) or None


def check_resume(rows: Iterable[Mapping[str, Any]], current: Mapping[str, Any],
                 fields: Sequence[str], out: str | Path,
                 select=lambda row: True) -> None:
    """Raise :class:`InputError` when a row of ``out`` (among those ``select`` keeps) was
    produced with another setting than ``current``."""
    for row in rows:
        if not select(row):
            continue
        old = setting_of_row(row, fields)
        if old is None:
            continue
        diff = mismatch(old, current)
        if diff:
            raise InputError(f"holds rows of another setting ({diff}); resuming would mix "
                             "them: give another --out, or --force to start a new run "
                             "(the old rows are moved beside the file)", file=str(out))


def supersede(handle: IO[str], path: str | Path) -> Path:
    """Move the rows of ``path`` (open and locked as ``handle``) to the first free
    ``path.N`` and empty ``path``; returns where they went."""
    path = Path(path)
    n = 1
    while Path(f"{path}.{n}").exists():
        n += 1
    target = Path(f"{path}.{n}")
    try:
        handle.flush()
        shutil.copyfile(path, target)
        handle.truncate(0)
        handle.seek(0)
    except OSError as err:
        raise InputError(f"cannot move the old rows aside: {err.strerror or err}",
                         file=str(path)) from None
    return target


def resume_or_supersede(check: Callable[[], None], handle: IO[str], path: str | Path,
                        force: bool) -> Path | None:
    """Run ``check`` (a :func:`check_resume` call); on a setting mismatch re-raise it, or
    with ``force`` move the earlier run's rows aside (:func:`supersede`) and return where
    they went. None: the rows of ``path`` may be resumed."""
    try:
        check()
    except InputError:
        if not force:
            raise
        return supersede(handle, path)
    return None


def superseded_note(moved: Path, path: str | Path) -> str:
    """The one line a command prints after ``--force`` moved the earlier run aside."""
    return f"--force: the rows of the earlier run moved to {moved}; a new run starts in {path}"


def latest_rows_by(rows: Iterable[dict], key: Callable[[dict], Hashable]) -> list[dict]:
    """One row per ``key(row)``: the last success, else the last failure (a run's results
    file keeps every attempt; its report reads the latest)."""
    best: dict[Hashable, dict] = {}
    for row in rows:
        k = key(row)
        old = best.get(k)
        if old is None or "error" in row and "error" in old or "error" not in row:
            best[k] = row
    return list(best.values())
