"""JSON from untrusted text (model answers, outputs files, manifests, program output) that
fails only with ``json.JSONDecodeError``.

``json.loads`` raises two other errors on hostile but small input, which readers that
catch ``JSONDecodeError`` let through to abort a whole batch (issue 19 item 9):

* ``ValueError`` for an integer literal over 4,300 digits (CPython's limit on int-string
  conversion, ``sys.get_int_max_str_digits``; a 4,301-digit line is 4 KB);
* ``RecursionError`` for nesting deeper than the interpreter's recursion limit
  (``[[[[...`` of 100,000 brackets is 100 KB).

:func:`loads` and :func:`raw_decode` turn both into ``JSONDecodeError`` (a ``ValueError``
subclass) with a message that says what was wrong and, for the integer, where. Every
reader of untrusted JSON uses them, so one bad row is a ``bad_input`` row or an error
verdict, never a crash.
"""
from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["loads", "raw_decode", "MAX_INT_DIGITS"]

#: Longest integer literal read (CPython's default int-string limit).
MAX_INT_DIGITS = 4300


class _LongInteger(Exception):
    def __init__(self, literal: str) -> None:
        super().__init__(literal)
        self.literal = literal


def _parse_int(literal: str) -> int:
    limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
    limit = min(limit or MAX_INT_DIGITS, MAX_INT_DIGITS)
    if len(literal) - literal.startswith("-") > limit:
        raise _LongInteger(literal)
    return int(literal)


_DECODER = json.JSONDecoder(parse_int=_parse_int)
_LENIENT = json.JSONDecoder(parse_int=_parse_int, strict=False)   # control characters in strings


def _error(err: BaseException, doc: str, start: int = 0) -> json.JSONDecodeError:
    if isinstance(err, _LongInteger):
        digits = len(err.literal) - err.literal.startswith("-")
        pos = doc.find(err.literal[:64], start)
        return json.JSONDecodeError(f"an integer of {digits} digits (at most {MAX_INT_DIGITS})",
                                    doc, max(pos, start))
    return json.JSONDecodeError("nested too deeply", doc, start)


def loads(text: str | bytes) -> Any:
    """``json.loads(text)`` raising only ``json.JSONDecodeError`` (see the module doc)."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise json.JSONDecodeError(f"not UTF-8 ({err.reason})", "", err.start) from None
    try:
        return _DECODER.decode(text)
    except (_LongInteger, RecursionError) as err:
        raise _error(err, text) from None


def raw_decode(text: str, idx: int = 0, *, strict: bool = True) -> tuple[Any, int]:
    """``json.JSONDecoder(strict=strict).raw_decode(text, idx)`` raising only
    ``json.JSONDecodeError``."""
    try:
        return (_DECODER if strict else _LENIENT).raw_decode(text, idx)
    except (_LongInteger, RecursionError) as err:
        raise _error(err, text, idx) from None
