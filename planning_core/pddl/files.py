"""Reading a user's file as text, with every failure a located, actionable error."""
from __future__ import annotations

import re

from planning_core.errors import InputError

#: typing.TYPE_CHECKING, without importing typing (~2 ms of every `validate` call)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["FileTooLarge", "read_text"]

_LONE_CR = re.compile(r"\r(?!\n)")


class FileTooLarge(InputError):
    """The file holds more than ``read_text``'s ``max_bytes`` (a memory limit): only that
    much was read."""

    def __init__(self, max_bytes: int, file: str) -> None:
        super().__init__(f"larger than the memory limit ({max_bytes / 2**20:g} MB); "
                         "read that much and stopped", file=file)
        self.max_bytes = max_bytes


_CHUNK = 1 << 20


def _read_at_most(path: str | Path, limit: int) -> bytearray:
    """Up to ``limit`` bytes of the file, read a megabyte at a time: ``f.read(limit)``
    allocates ``limit`` bytes before reading any, and with the default memory limit (half
    the machine's memory) that failed under a ``ulimit -v`` smaller than it, or with strict
    overcommit, for every file however small ("out of memory reading the files")."""
    data = bytearray()
    with open(path, "rb") as f:
        while len(data) < limit:
            chunk = f.read(min(_CHUNK, limit - len(data)))
            if not chunk:
                break
            data += chunk
    return data


def read_text(path: str | Path, *, expected: str = "PDDL text",
              max_bytes: int | None = None) -> str:
    """The file's text; OS and encoding failures become :class:`InputError`.

    A UTF-8 byte-order mark (Windows editors write one) is dropped, and a lone carriage
    return (classic Mac OS) ends a line as in every editor; otherwise the first ``;``
    comment would run to the end of the file. A byte that is not UTF-8 is reported at its
    line and column, with ``expected`` saying what the file should have held. With
    ``max_bytes``, a longer file raises :class:`FileTooLarge` after reading that much.
    """
    try:
        if max_bytes is None:   # (open, not pathlib: importing pathlib costs each call ~2 ms)
            with open(path, "rb") as f:
                data = f.read()
        else:   # /dev/zero, a FIFO or a huge file: never more than the limit in memory
            data = _read_at_most(path, max_bytes + 1)
            if len(data) > max_bytes:
                raise FileTooLarge(max_bytes, str(path))
    except FileNotFoundError:
        raise InputError("no such file", file=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, expected a file", file=str(path)) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror}", file=str(path)) from None
    except ValueError:   # open() refuses a name holding a NUL byte (a manifest can hold one)
        raise InputError("not a file name: it holds a NUL byte",
                         file=str(path).replace("\0", "\\0")) from None
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
    return _LONE_CR.sub("\n", text) if "\r" in text else text
