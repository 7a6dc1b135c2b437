"""The JSON Lines results file that batch commands append to (``acp score``, ``cope eval``,
``cope check --out``).

Runs resume by reading what is already in the file and skipping it, so the file must stay
readable whatever happened to an earlier run:

* :func:`open_results` takes an exclusive ``fcntl.flock`` on the file for the whole run. A
  second run on the same file would otherwise evaluate every row again and append it
  twice (the summary then counts each pair twice); it now stops at once with
  :class:`ResultsLocked` naming the file. The lock belongs to the open file, so the
  kernel releases it when the process ends, however it ends.
* Under the lock, a torn last line (a run killed while writing) is cut off before
  anything is appended: appended rows would otherwise be glued to it, and the row after
  the tear would be lost on the next resume along with the torn one.

Rows are written one per line and flushed as each is produced, so a killed run loses at
most the row being written.

A command whose rows follow the input order while its tasks finish in any order (on an
executor, :mod:`planning_core.executor`) holds finished rows back until the rows before them
are written. So that killing the CLI loses none of those, it also appends every row the
moment it is computed to a sidecar journal, ``OUT.pending`` (:func:`open_pending`). A
resumed run first moves the journal's rows that ``OUT`` lacks into ``OUT``
(:func:`recover_pending`) and so never computes a finished row again; a clean end removes
the journal (:func:`close_pending`). Both happen under the lock of ``OUT``. ``acp score``
journals this way; recovered rows are appended in the order they were computed, so after a
resume ``OUT`` is in input order except for them. ``cope check --out``, ``cope eval`` and
``validate --batch --out`` do not journal yet: killing them loses the rows held back
behind a slow earlier item (their items are recomputed on resume, nothing is duplicated).
"""
from __future__ import annotations

import fcntl
import io
import json
import os
from pathlib import Path
from typing import IO, Callable, Iterable, Iterator

from planning_core.errors import InputError

__all__ = ["ResultsLocked", "open_results", "append_row", "add_bad_row_options",
           "json_objects", "pending_path", "open_pending", "recover_pending", "close_pending"]


class ResultsLocked(InputError):
    """Another process holds the results file."""


def _cut_torn_tail(handle: IO[bytes]) -> int:
    """Truncate the file after its last newline; return how many bytes were cut."""
    size = handle.seek(0, os.SEEK_END)
    if size == 0:
        return 0
    handle.seek(size - 1)
    if handle.read(1) == b"\n":
        return 0
    # read backwards in blocks for the last newline (a results line can be long)
    position, block = size, 1 << 16
    cut = 0
    while position > 0:
        start = max(0, position - block)
        handle.seek(start)
        chunk = handle.read(position - start)
        found = chunk.rfind(b"\n")
        if found >= 0:
            cut = start + found + 1
            break
        position = start
    handle.truncate(cut)
    return size - cut


def open_results(path: str | Path) -> tuple[IO[str], int]:
    """Open ``path`` for appending under an exclusive lock, its torn tail cut off.

    Returns the text handle (close it to release the lock) and the number of bytes cut.
    Raises :class:`ResultsLocked` when another run holds the file, and
    :class:`~planning_core.errors.InputError` when it cannot be opened.
    """
    path = Path(path)
    if path.is_dir():
        raise InputError("is a folder, not a file", file=str(path))
    if not path.parent.exists():
        raise InputError("the folder does not exist", file=str(path.parent))
    try:
        raw = open(path, "a+b")
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=str(path)) from None
    try:
        fcntl.flock(raw.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raw.close()
        raise ResultsLocked("another run is writing to this results file; wait for it to "
                            "finish or choose another --out", file=str(path)) from None
    try:
        cut = _cut_torn_tail(raw)
        raw.seek(0, os.SEEK_END)
    except OSError as err:
        raw.close()
        raise InputError(f"cannot write: {err.strerror or err}", file=str(path)) from None
    # a text wrapper over the locked binary handle: closing it closes (and unlocks) both
    return io.TextIOWrapper(raw, encoding="utf-8", write_through=True), cut


def append_row(handle: IO[str], row: dict) -> None:
    """Write one row as one line and flush it to the operating system."""
    handle.write(json.dumps(row) + "\n")
    handle.flush()


def pending_path(path: str | Path) -> Path:
    """The journal of ``path``: ``path`` with ``.pending`` appended."""
    return Path(f"{path}.pending")


def recover_pending(handle: IO[str], path: str | Path,
                    is_new: Callable[[dict], bool]) -> int:
    """Move the rows a killed run computed but had not yet written into the results.

    Appends to ``handle`` (the locked results file ``path``) every complete row of
    ``path.pending`` that ``is_new(row)`` accepts (the caller knows what ``path`` already
    holds; ``is_new`` is asked in journal order and should remember what it accepted, so a
    row journalled twice is written once), then removes the journal. A torn last line (the
    run died while journalling it) is dropped: that row is computed again. Returns how many
    rows were moved.
    """
    journal = pending_path(path)
    try:
        text = journal.read_text(encoding="utf-8", errors="surrogateescape")
    except FileNotFoundError:
        return 0
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=str(journal)) from None
    moved = 0
    for line in text.split("\n"):
        try:
            row = json.loads(line)
        except json.JSONDecodeError:   # an empty or torn line
            continue
        if isinstance(row, dict) and is_new(row):
            append_row(handle, row)
            moved += 1
    journal.unlink()
    return moved


def open_pending(path: str | Path) -> IO[str]:
    """A fresh journal for ``path`` (call :func:`recover_pending` first: this empties it)."""
    journal = pending_path(path)
    try:
        return open(journal, "w", encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=str(journal)) from None


def close_pending(handle: IO[str], path: str | Path) -> None:
    """End a run cleanly: every journalled row is in ``path`` now, so the journal goes."""
    handle.close()
    pending_path(path).unlink(missing_ok=True)


def json_objects(lines: Iterable[tuple[int, str]]
                 ) -> Iterator[tuple[int, dict | None, str | None]]:
    """``(line number, object, None)`` for every non-blank ``(number, line)`` of a JSON
    Lines input that holds a JSON object, ``(line number, None, why not)`` for every other
    one: the one reading of input rows the batch commands share (bad rows name the line)."""
    for number, line in lines:
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            yield number, None, f"not JSON ({err.msg} at column {err.colno})"
            continue
        except RecursionError:
            yield number, None, "not JSON (nested too deeply)"
            continue
        if not isinstance(record, dict):
            yield number, None, "expected a JSON object"
            continue
        yield number, record, None


def add_bad_row_options(parser, *, default_bytes: int, too_large: str, bad_row: str,
                        bad_rows: str) -> None:
    """The two options every batch command shares: the response size cap and ``--strict``.

    ``too_large`` names what an oversized response becomes, ``bad_row`` the error row's
    name, ``bad_rows`` what makes an input row unusable (for the help texts).
    """
    from planning_core.cli.args import positive_int

    parser.add_argument("--max-response-bytes", type=positive_int, default=default_bytes,
                        metavar="N", help=f"longest response read; a longer one is "
                                          f"{too_large}, unread (default {default_bytes})")
    parser.add_argument("--strict", action="store_true",
                        help=f"stop at the first unusable input row ({bad_rows}) instead "
                             f"of recording it as a {bad_row} row and going on")
