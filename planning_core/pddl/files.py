"""Reading a user's file, bounded, with every failure a located, actionable error.

:func:`read_bytes` and :func:`read_text` are the one reader of user-named files: a regular
file only (a FIFO or a device is refused, never opened for a blocking read), read in
chunks that tick the caller's budget, at most ``max_bytes`` (docs/limits.md).
:func:`read_lines` is the same reader for JSON Lines files a run appends to (results files,
their journals): streamed line by line, each line at most ``max_line_bytes`` (a longer one
is skipped, its number given), so a results file of gigabytes costs one line of memory.
:func:`refuse_irregular` is the same check for a path about to be opened for writing."""
from __future__ import annotations

import os
import stat

from planning_core.errors import InputError

#: typing.TYPE_CHECKING, without importing typing (~2 ms of every `validate` call)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["FileTooLarge", "Line", "MAX_LINE_BYTES", "read_bytes", "read_lines",
           "read_text", "refuse_irregular"]

#: a CR not followed by LF (compiled by ``re`` on first use: most files have no CR at all)
_LONE_CR = r"\r(?!\n)"


class FileTooLarge(InputError):
    """The file holds more than ``read_text``'s ``max_bytes`` (a memory limit): only that
    much was read."""

    def __init__(self, max_bytes: int, file: str) -> None:
        super().__init__(f"larger than the memory limit ({max_bytes / 2**20:g} MB); "
                         "not read past it", file=file)
        self.max_bytes = max_bytes


_CHUNK = 1 << 20
#: The longest line :func:`read_lines` reads (64 MB): a results row holds at most a model's
#: answer (1-10 MB by the commands' ``--max-response-bytes``) with its JSON escapes.
MAX_LINE_BYTES = 64 << 20

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _open_regular(path: str | Path) -> tuple[int, int]:
    """A descriptor of the file and its size; the file must be a regular file. Opened
    without blocking: a FIFO's ``open`` waits for a writer forever (``validate`` and
    ``validate --batch`` hung on one, past every limit), and a device such as
    ``/dev/urandom`` never ends."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "Is a directory")
        if not stat.S_ISREG(info.st_mode):
            kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
            raise InputError(f"is {kind}, not a regular file; expected a file (its reading "
                             "could block or never end)", file=str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd, info.st_size


def _bounded(path: str | Path, max_bytes: int | None, budget) -> bytearray:
    """The bytes of a user-named file, the one bounded reader every command uses.

    Only a regular file is read (a FIFO, a device or a socket is an :class:`InputError`
    naming it, never opened for a blocking read). With ``max_bytes``, a file whose size is
    larger raises :class:`FileTooLarge` unread, and one that grows while read stops there.
    It is read a megabyte at a time, checking ``budget`` (else the active budget,
    :func:`planning_core.limits.metering`) after each whole megabyte, so the read counts
    against the caller's CPU, wall-clock and memory limits and stops at them
    (``LimitReached``); a file under a megabyte costs no check.
    (``f.read(limit)`` would allocate ``limit`` bytes before reading any: with the default
    memory limit, half the machine's memory, that failed under a smaller ``ulimit -v``.)
    OS failures become :class:`InputError` naming the file."""
    from planning_core.limits import active_budget

    budget = budget if budget is not None else active_budget()
    data = bytearray()
    limit = None if max_bytes is None else max_bytes + 1
    try:
        fd, size = _open_regular(path)
        with open(fd, "rb", buffering=0) as f:
            if max_bytes is not None and size > max_bytes:
                raise FileTooLarge(max_bytes, str(path))
            while limit is None or len(data) < limit:
                chunk = f.read(_CHUNK if limit is None else min(_CHUNK, limit - len(data)))
                if not chunk:
                    break
                data += chunk
                if budget is not None and len(chunk) == _CHUNK:
                    budget.check(rss=True)   # (not tick: that would charge the phase's
                    #                          unit_bytes per item to the memory estimate)
        if max_bytes is not None and len(data) > max_bytes:
            raise FileTooLarge(max_bytes, str(path))
    except (OSError, ValueError) as err:
        raise _read_error(err, path) from None
    return data


def _read_error(err: OSError | ValueError, path: str | Path) -> InputError:
    """The located error for a failed open or read of ``path``."""
    if isinstance(err, FileNotFoundError):
        return InputError("no such file", file=str(path))
    if isinstance(err, IsADirectoryError):
        return InputError("is a directory, expected a file", file=str(path))
    if isinstance(err, OSError):
        return InputError(f"cannot read: {err.strerror}", file=str(path))
    # open() refuses a name holding a NUL byte (a manifest can hold one)
    return InputError("not a file name: it holds a NUL byte",
                      file=str(path).replace("\0", "\\0"))


def read_bytes(path: str | Path, *, max_bytes: int | None = None, budget=None) -> bytes:
    """The bytes of a user-named file (:func:`_bounded`)."""
    return bytes(_bounded(path, max_bytes, budget))


def read_text(path: str | Path, *, expected: str = "PDDL text",
              max_bytes: int | None = None, budget=None) -> str:
    """The file's text; OS and encoding failures become :class:`InputError`.

    Read by :func:`read_bytes` (a regular file only, in budget-checked chunks, at most
    ``max_bytes``: a longer file raises :class:`FileTooLarge` after reading that much).
    A UTF-8 byte-order mark (Windows editors write one) is dropped, and a lone carriage
    return (classic Mac OS) ends a line as in every editor; otherwise the first ``;``
    comment would run to the end of the file. A byte that is not UTF-8 is reported at its
    line and column, with ``expected`` saying what the file should have held.
    """
    data = _bounded(path, max_bytes, budget)
    if data.startswith(b"\xef\xbb\xbf"):  # what decoding "utf-8-sig" drops (without
        data = data[3:]                      # importing that codec: one call per plan)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raw = err.object  # without the byte-order mark: err.start counts from there
        line = raw.count(b"\n", 0, err.start) + 1
        column = err.start - (raw.rfind(b"\n", 0, err.start) + 1) + 1
        raise InputError(f"not UTF-8 text (byte {raw[err.start]:#04x}); expected {expected}",
                         file=str(path), line=line, column=column) from None
    if "\r" not in text:
        return text
    import re   # only here: importing it costs each validate call ~5 ms (issue 28)

    return re.sub(_LONE_CR, "\n", text)


class Line:
    """One line of :func:`read_lines`: its number (from 1), its bytes without the newline
    (None when longer than the cap: skipped, not read into memory), where it starts and
    ends in the file (``end`` past its newline), and whether a newline ended it (not so for
    a last line torn by a kill)."""

    __slots__ = ("number", "data", "start", "end", "ended")

    def __init__(self, number: int, data: bytes | None, start: int, end: int,
                 ended: bool) -> None:
        self.number, self.data, self.start, self.end, self.ended = (
            number, data, start, end, ended)

    def text(self, errors: str = "strict") -> str | None:
        """The line decoded as UTF-8 (None when it was too long)."""
        return None if self.data is None else self.data.decode("utf-8", errors)


def read_lines(path: str | Path, *, max_line_bytes: int | None = None, budget=None):
    """The lines of a user-named file, streamed (a generator of :class:`Line`).

    The file is opened as :func:`read_bytes` opens it (a regular file only: a FIFO, a
    device or a socket is an :class:`InputError` naming it; never a blocking open) and read
    a megabyte at a time, checking ``budget`` (else the active one) after each; memory holds
    one line at most ``max_line_bytes`` long (None: :data:`MAX_LINE_BYTES`). A longer line is not kept: it is yielded with
    ``data`` None (the caller names it by number and skips it) and read past. OS failures
    become :class:`InputError` naming the file."""
    from planning_core.limits import active_budget

    budget = budget if budget is not None else active_budget()
    if max_line_bytes is None:
        max_line_bytes = MAX_LINE_BYTES
    try:
        fd, _ = _open_regular(path)
    except (OSError, ValueError) as err:
        raise _read_error(err, path) from None
    with open(fd, "rb", buffering=0) as f:
        number, start, offset = 1, 0, 0     # offset: of the first byte of ``chunk``
        line = bytearray()
        skipping = False                    # the current line passed the cap
        while True:
            try:
                chunk = f.read(_CHUNK)
            except OSError as err:
                raise InputError(f"cannot read: {err.strerror}", file=str(path)) from None
            if not chunk:
                break
            if budget is not None and len(chunk) == _CHUNK:
                budget.check(rss=True)
            position = 0
            while position < len(chunk):
                newline = chunk.find(b"\n", position)
                stop = len(chunk) if newline < 0 else newline
                if not skipping:
                    if len(line) + stop - position > max_line_bytes:
                        skipping = True
                        line = bytearray()
                    else:
                        line += chunk[position:stop]
                if newline < 0:
                    break
                end = offset + newline + 1
                yield Line(number, None if skipping else bytes(line), start, end, True)
                number, start, skipping = number + 1, end, False
                line = bytearray()
                position = newline + 1
            offset += len(chunk)
        if skipping or line:
            yield Line(number, None if skipping else bytes(line), start, offset, False)


def refuse_irregular(path: str | Path) -> None:
    """Raise :class:`InputError` when ``path`` exists and is not a regular file (a FIFO, a
    device, a socket): a file about to be opened for appending and read back, such as a
    results file or its journal, whose opening or reading could block or never end."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return            # absent (created by the caller) or unusable: the open says so
    if not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a file")
        raise InputError(f"is {kind}, not a regular file; expected a file (its reading "
                         "could block or never end)", file=str(path))
