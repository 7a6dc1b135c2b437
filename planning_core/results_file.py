"""The JSON Lines results file that batch commands append to, and its one writer.

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

The batch commands (``acp score``, ``cope check --out``, ``cope eval``, ``validate --batch
--out``, ``toolplans batch``) write their rows in input order while their tasks finish in any
order (on an executor, :mod:`planning_core.executor`), so a finished row waits until the rows
before it are written. So that killing the command loses none of those, one writer,
:class:`ResultsWriter`, also appends every row the moment it arrives to a sidecar journal,
``OUT.pending``. A resumed run takes the journal's rows that ``OUT`` lacks instead of
computing their items again and writes them to ``OUT`` in their input places; a clean end
removes the journal, an exception or a kill leaves it for the next run. All of it happens
under the lock of ``OUT``. Only journal rows whose items the resumed run no longer has (its
input was edited in between) cannot be placed; they are appended before the run's rows.
Killing a run therefore loses no computed row (at most the one being journalled) and
duplicates none. A journal is only taken by a run on the same ``OUT``: when ``OUT`` no longer
exists (deleted to start over), its journal is moved aside to ``OUT.pending.stale``, unused.
As with rows already in ``OUT``, an item is known by its command's key (an answer's id and
response hash for ``acp score``; an id or pair for the others), so an item edited in place
under the same key keeps the row computed before the edit.

A row that ran into its limit (``unknown``) is not a final answer at a *larger* limit. A
command that has a limit gives its writer a :class:`LimitRetry`: every row it writes is
stamped with the limit it was computed under (``time_limit_s``), and on opening, the writer
removes from ``OUT`` (and from the journal's recovered rows) the rows that hit a limit
smaller than the one now asked for, or every row that hit its limit with
``--retry-unknown``, so the run computes them again and ``OUT`` keeps one row per item;
:meth:`ResultsWriter.note` says how many on stderr. A row with the same or a larger limit is
kept (rerunning the same command does not redo its unknowns). Rows written before the stamp
existed name no limit: they are retried only with ``--retry-unknown``, and the note says so.
"""
from __future__ import annotations

import fcntl
import io
import json
import os
from typing import IO, TYPE_CHECKING, Callable, Hashable, Iterable, Iterator, Mapping, Sequence

from planning_core import safe_json
from planning_core.cli.args import add_bad_row_options, add_retry_option  # noqa: F401
from planning_core.errors import InputError

if TYPE_CHECKING:   # pathlib is imported where used: `validate` imports this module for its
    from pathlib import Path   # options, once per plan, and pathlib costs it ~2 ms

__all__ = ["ResultsLocked", "ResultsWriter", "LimitRetry", "LIMIT_FIELD", "open_results",
           "append_row", "add_bad_row_options", "add_retry_option", "json_objects",
           "pending_path"]

#: The field in which a row records the ``--time-limit`` (seconds) it was computed under.
LIMIT_FIELD = "time_limit_s"


class LimitRetry:
    """Which recorded rows a rerun computes again because of their limit (module doc).

    ``limit`` is this run's limit in seconds; ``hit_limit(row)`` says whether a row's answer
    is the limit's (``unknown``), a command's own test; ``retry_unknown`` retries every such
    row whatever its limit."""

    def __init__(self, limit: float | None, hit_limit: Callable[[dict], bool], *,
                 retry_unknown: bool = False, field: str = LIMIT_FIELD,
                 unit: str = "s") -> None:
        self.limit = limit
        self.field = field      # where rows record it (acp score: its --budget, "budget")
        self.unit = unit
        self.hit_limit = hit_limit
        self.retry_unknown = retry_unknown
        self.retried = 0        # rows taken out of OUT to be computed again
        self.unstamped = 0      # rows that hit a limit not recorded (left as they are)

    def stamp(self, row: dict) -> dict:
        """``row`` with this run's limit recorded (unless it already names one)."""
        if self.limit is not None and isinstance(row, dict):
            row.setdefault(self.field, self.limit)
        return row

    def wants(self, row: dict) -> bool:
        """Whether ``row`` is to be computed again by this run."""
        try:
            if not self.hit_limit(row):
                return False
        except (KeyError, TypeError, AttributeError, ValueError):
            return False
        if self.retry_unknown:
            return True
        recorded = row.get(self.field)
        if isinstance(recorded, bool) or not isinstance(recorded, (int, float)):
            return False
        return self.limit is not None and recorded < self.limit

    def takes(self, row: dict) -> bool:
        """:meth:`wants`, counting in ``unstamped`` a row kept that hit a limit it does not
        record (its command's note then names ``--retry-unknown``)."""
        if self.wants(row):
            return True
        try:
            hit = self.hit_limit(row)
        except (KeyError, TypeError, AttributeError, ValueError):
            hit = False
        if hit and self.field not in row:
            self.unstamped += 1
        return False

    def note(self, path) -> str | None:
        parts = []
        if self.retried:
            # a count (expanded states) as the integer it is, not 2e+06
            limit = (f"{self.limit:,}" if isinstance(self.limit, int) else
                     f"{self.limit:g}")
            why = ("--retry-unknown" if self.retry_unknown else
                   f"their limit was below this run's {limit}{' ' if self.unit else ''}"
                   f"{self.unit}")
            parts.append(f"{self.retried} row(s) of {path} that ran into their limit are "
                         f"computed again ({why})")
        if self.unstamped and not self.retry_unknown:
            parts.append(f"{self.unstamped} row(s) of {path} ran into a limit that they do "
                         f"not record (written by an older version); kept, --retry-unknown "
                         f"computes them again")
        return "; ".join(parts) or None



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


def _open_append(path: Path, *, lock: bool) -> tuple[IO[str], int]:
    """``path`` opened for appending (created when absent) with its torn tail cut off, and
    the number of bytes cut; with ``lock`` under an exclusive ``flock``
    (:class:`ResultsLocked` when another run holds it). The text handle reads too."""
    if path.is_dir():
        raise InputError("is a folder, not a file", file=str(path))
    from planning_core.pddl.files import refuse_irregular

    refuse_irregular(path)     # a FIFO or a device: never opened, never read back
    if not path.parent.exists():
        raise InputError("the folder does not exist", file=str(path.parent))
    try:
        raw = open(path, "a+b")
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=str(path)) from None
    if lock:
        try:
            fcntl.flock(raw.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raw.close()
            raise ResultsLocked("another run is writing to this results file; wait for it "
                                "to finish or choose another --out", file=str(path)) from None
    try:
        cut = _cut_torn_tail(raw)
        raw.seek(0, os.SEEK_END)
    except OSError as err:
        raw.close()
        raise InputError(f"cannot write: {err.strerror or err}", file=str(path)) from None
    # a text wrapper over the binary handle: closing it closes (and unlocks) both
    return io.TextIOWrapper(raw, encoding="utf-8", write_through=True), cut


def _close(handle: IO[str], path: Path) -> InputError | None:
    """Close ``handle``; the "cannot write" error when its last flush failed (the file is
    closed either way)."""
    try:
        handle.close()
    except OSError as err:
        return InputError(f"cannot write: {err.strerror or err}", file=str(path))
    return None


def open_results(path: str | Path) -> tuple[IO[str], int]:
    """Open ``path`` for appending under an exclusive lock, its torn tail cut off.

    Returns the text handle (close it to release the lock) and the number of bytes cut.
    Raises :class:`ResultsLocked` when another run holds the file, and
    :class:`~planning_core.errors.InputError` when it cannot be opened.
    """
    from pathlib import Path

    return _open_append(Path(path), lock=True)


def append_row(handle: IO[str], row: dict) -> None:
    """Write one row as one line and flush it to the operating system."""
    handle.write(_line(row))
    handle.flush()


def pending_path(path: str | Path) -> Path:
    """The journal of ``path``: ``path`` with ``.pending`` appended."""
    from pathlib import Path

    return Path(f"{path}.pending")


def _line(row: dict) -> str:
    return json.dumps(row) + "\n"


def _lines(path: Path):
    """The lines of a results file or journal, streamed by the shared bounded reader
    (:func:`planning_core.pddl.files.read_lines`: a regular file only, one line of at most
    ``MAX_LINE_BYTES`` in memory; a longer one comes with ``data`` None)."""
    from planning_core.pddl.files import read_lines

    return read_lines(path)


def _row_of(line) -> dict | None:
    """The JSON object a line holds, or None (blank, torn, too long or another value)."""
    if line.data is None:
        return None
    try:
        row = safe_json.loads(line.text("surrogateescape"))
    except (json.JSONDecodeError, RecursionError):   # an empty or torn line
        return None
    return row if isinstance(row, dict) else None


def _json_rows(lines) -> Iterator[dict]:
    """The JSON objects of JSON Lines (:func:`_lines`); blank, torn, too long and other
    lines skipped."""
    for line in lines:
        row = _row_of(line)
        if row is not None:
            yield row


class ResultsWriter:
    """The one writer of a batch command's ``--out``: in input order, journalled, resumable.

    A run goes ``with ResultsWriter(out, key) as writer``, then ``writer.write(row)`` for
    rows made on the spot (bad input rows), ``fresh = writer.resume(keys)`` with the keys of
    the items still to do (those ``out`` lacks, in input order), and ``for position, row in
    writer.in_order(arrivals)`` over the rows computed for ``[todo[k] for k in fresh]``
    as they finish, ``(index into fresh, row)`` in any order:

    * opening locks ``out`` and cuts its torn tail (:func:`open_results`), and reads the
      journal ``out.pending`` a killed run left: its rows whose ``key(row)`` no row of
      ``out`` has (the first of each key; a torn last line is dropped, that row is
      computed again) are *recovered*;
    * :meth:`resume` takes for every key the recovered row of that key, so that item is
      not computed again, and returns the positions that must be; recovered rows no key
      asks for (the input changed since the killed run) are written to ``out`` at once;
    * :meth:`in_order` appends every arriving row to the journal first (flushed), then
      writes rows to ``out`` in input order, recovered ones in their places
      (:func:`~planning_core.executor.in_input_order`), and yields ``(position, row)`` as
      each is written;
    * leaving the ``with`` block normally removes the journal (every row it holds is in
      ``out``); an exception or a kill leaves it for the next run.

    ``key(row)`` names the item a row is the result of (hashable, equal to the keys given
    to :meth:`resume`); None for rows that never count as done (they are not recovered).
    """

    def __init__(self, path: str | Path, key: Callable[[dict], Hashable | None], *,
                 retry: LimitRetry | None = None) -> None:
        from pathlib import Path

        self.path = Path(path)
        self._key = key
        self._retry = retry
        existed = self.path.exists()
        self._out, self.cut = open_results(self.path)
        if retry is not None and existed:
            try:
                self._take_retries(retry)
            except BaseException:
                self._out.close()
                raise
        journal = pending_path(self.path)
        #: where a journal whose results file was gone was moved (not recovered), or None
        self.stale: Path | None = None
        if not existed and journal.exists():
            # OUT was deleted to start over: its journal belongs to that run, not this one
            self.stale = Path(f"{journal}.stale")
            try:
                journal.replace(self.stale)
            except OSError as err:
                self._out.close()
                raise InputError(f"cannot move aside: {err.strerror or err}",
                                 file=str(journal)) from None
        try:
            self._journal, _ = _open_append(journal, lock=False)
            try:
                self._recovered = self._unwritten(_lines(journal))
            except BaseException:
                self._journal.close()
                raise
        except OSError as err:
            self._out.close()
            raise InputError(f"cannot read: {err.strerror or err}", file=str(journal)) from None
        except BaseException:
            self._out.close()
            raise
        #: how many rows of the journal ``out`` lacked when the run started
        self.recovered = len(self._recovered)
        self._taken: dict[int, dict] = {}
        self._fresh: list[int] | None = None
        self._total = 0
        self._streaming: bool | None = None   # in_order(): None not begun, False under way

    def _take_retries(self, retry: LimitRetry) -> None:
        """Remove from ``out`` the rows ``retry`` wants computed again (module doc)."""
        retry.retried = self.drop(retry.takes)

    def note(self) -> str | None:
        """What a command says on stderr when the journal had rows for it, or was set aside
        because ``out`` had been deleted, or rows are computed again because of their limit
        (else None)."""
        notes = []
        if self._retry is not None:
            notes.append(self._retry.note(self.path))
        if self.stale is not None:
            notes.append(f"{self.path} did not exist, so the journal of an earlier run on "
                         f"it was not used; moved to {self.stale}")
        elif self.recovered:
            notes.append(f"{self.recovered} row(s) computed by an interrupted run recovered "
                         f"from {pending_path(self.path)}")
        return "\n".join(n for n in notes if n) or None

    def _key_of(self, row: dict) -> Hashable | None:
        try:
            key = self._key(row)
            hash(key)
        except (TypeError, AttributeError, KeyError):   # a row of another shape
            return None
        return key

    def _unwritten(self, journalled) -> dict[Hashable, dict]:
        """The journal's rows (its lines, streamed) whose key no row of ``out`` has, by
        key (first one wins)."""
        rows: dict[Hashable, dict] = {}
        for row in _json_rows(journalled):
            if self._retry is not None and self._retry.wants(row):
                continue   # hit a smaller limit: computed again, not recovered
            key = self._key_of(row)
            if key is not None:
                rows.setdefault(key, row)
        if rows:   # only then is ``out`` read: a clean run pays nothing
            for row in _json_rows(_lines(self.path)):
                rows.pop(self._key_of(row), None)
        return rows

    def _append(self, handle: IO[str], line: str, path: Path) -> None:
        try:
            handle.write(line)
            handle.flush()
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}", file=str(path)) from None

    def write(self, row: dict) -> None:
        """Append ``row`` to ``out`` now (a row made on the spot, not on an executor)."""
        if self._retry is not None:
            self._retry.stamp(row)
        self._append(self._out, _line(row), self.path)

    def drop(self, unwanted: Callable[[dict], bool]) -> int:
        """Remove from ``out`` the rows ``unwanted(row)`` names (rows that are not final,
        which this run is about to compute again: a rerun must not leave two rows for one
        item); return how many. Lines that are not rows are kept as they are.

        ``out`` is rewritten to a temporary file in its folder, locked before it is renamed
        over ``out`` (``os.replace``), so the lock is never let go and a kill leaves either
        the old file or the new one whole; its mode is kept. Nothing is written when no row
        is unwanted (a clean rerun pays one read)."""
        import stat
        import tempfile

        # one pass to find the lines that go (streamed: a results file of gigabytes costs
        # one line of memory), a second to copy the others when some go
        going = {line.number for line in _lines(self.path)
                 if (row := _row_of(line)) is not None and unwanted(row)}
        if not going:
            return 0
        try:
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.")
            raw = os.fdopen(fd, "w+b")
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}",
                             file=str(self.path)) from None
        try:
            fcntl.flock(raw.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            with open(self.path, "rb") as source:
                for line in _lines(self.path):
                    if line.number in going:
                        continue
                    if line.data is not None:
                        raw.write(line.data + b"\n" if line.ended else line.data)
                    else:   # a line past the cap: not a row, kept as it is, a MB at a time
                        source.seek(line.start)
                        left = line.end - line.start
                        while left > 0:
                            piece = source.read(min(left, 1 << 20))
                            if not piece:
                                break
                            raw.write(piece)
                            left -= len(piece)
            raw.flush()
            os.fsync(raw.fileno())
            os.chmod(tmp, stat.S_IMODE(os.fstat(self._out.fileno()).st_mode))
            os.replace(tmp, self.path)
        except OSError as err:
            raw.close()
            os.unlink(tmp)
            raise InputError(f"cannot write: {err.strerror or err}",
                             file=str(self.path)) from None
        except BaseException:
            raw.close()
            os.unlink(tmp)
            raise
        old, self._out = self._out, io.TextIOWrapper(raw, encoding="utf-8",
                                                     write_through=True)
        old.close()
        return len(going)

    def resume(self, keys: Sequence[Hashable],
               ready: Mapping[int, dict] | None = None) -> list[int]:
        """Start this run's rows: ``keys`` name the items still to do, in input order.

        ``ready`` maps positions in ``keys`` to rows already made on the spot (a bad input
        line's row): :meth:`in_order` writes them in their places, so rows follow the input's
        order whatever was wrong with a line. Returns the positions in ``keys`` whose rows
        must be computed; the journal holds the others', which :meth:`in_order` writes in
        their places."""
        if self._fresh is not None:
            raise RuntimeError("ResultsWriter: one resume() per run")
        self._fresh = []
        ready = ready or {}
        for position, key in enumerate(keys):
            if position in ready:
                self._taken[position] = ready[position]
                continue
            row = self._recovered.pop(key, None)
            if row is None:
                self._fresh.append(position)
            else:
                self._taken[position] = row
        self._total = len(keys)
        for row in self._recovered.values():   # for items this run does not have
            self.write(row)
        self._recovered = {}
        return self._fresh

    def in_order(self, arrivals: Iterable[tuple[int, dict]]) -> Iterator[tuple[int, dict]]:
        """Journal each ``(index into resume()'s list, row)`` as it arrives; write the rows
        to ``out`` in input order; yield ``(position in keys, row)`` as each is written."""
        if self._fresh is None or self._streaming is not None:
            raise RuntimeError("ResultsWriter: one resume(), then one in_order()")
        fresh, taken, self._taken = self._fresh, self._taken, {}
        journal = pending_path(self.path)
        self._streaming = False

        def arrived() -> Iterator[tuple[int, tuple[dict, str]]]:
            for position, row in taken.items():
                yield position, (row, _line(row))
            for index, row in arrivals:
                if self._retry is not None:
                    self._retry.stamp(row)
                line = _line(row)   # encoded once for the journal and for ``out``
                self._append(self._journal, line, journal)
                yield fresh[index], (row, line)

        from planning_core.executor.base import in_input_order  # not paid by option setup

        for position, (row, line) in in_input_order(arrived(), self._total):
            self._append(self._out, line, self.path)
            yield position, row
        self._streaming = True

    def close(self, clean: bool = True) -> None:
        """Release ``out``. After a ``clean`` run (:meth:`resume` called, :meth:`in_order`
        run to its end or not at all) every row the journal holds is in ``out`` (rows
        :meth:`in_order` never placed are written now) and the journal is removed; otherwise
        it stays for the next run (unless it is empty)."""
        finished = clean and self._fresh is not None and self._streaming is not False
        unwound = True                   # an exception is on its way out
        try:
            if finished:
                for _, row in sorted(self._taken.items()):
                    self.write(row)
                self._taken = {}
            unwound = False
        except BaseException:
            finished = False
            raise
        finally:
            try:
                if not finished:
                    finished = os.fstat(self._journal.fileno()).st_size == 0
            except OSError:
                finished = False
            # closing flushes what a full disk refused: it fails again (and still closes);
            # that is "cannot write", not a crash, and never hides the error before it
            failed = _close(self._journal, pending_path(self.path))
            if finished and failed is None:
                pending_path(self.path).unlink(missing_ok=True)
            failed = _close(self._out, self.path) or failed
            if failed is not None and not unwound:
                raise failed

    def __enter__(self) -> "ResultsWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(clean=exc_type is None)


def json_objects(lines: Iterable[tuple[int, str]]
                 ) -> Iterator[tuple[int, dict | None, str | None]]:
    """``(line number, object, None)`` for every non-blank ``(number, line)`` of a JSON
    Lines input that holds a JSON object, ``(line number, None, why not)`` for every other
    one: the one reading of input rows the batch commands share (bad rows name the line)."""
    for number, line in lines:
        if not line.strip():
            continue
        try:
            record = safe_json.loads(line)
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
