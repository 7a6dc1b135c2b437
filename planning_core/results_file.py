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
"""
from __future__ import annotations

import fcntl
import io
import json
import os
from pathlib import Path
from typing import IO, Iterable, Iterator

from planning_core.errors import InputError

__all__ = ["ResultsLocked", "open_results", "append_row", "add_bad_row_options",
           "json_objects"]


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
