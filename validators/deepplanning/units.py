"""Money in integer cents and clock times in integer minutes, read without floats.

The paper checks minute-level schedules and itemised costs (lines 57, 79); doing that in
floats makes ``0.1 + 0.2 != 0.3`` a scoring bug.  Every reader here returns ``None`` for a
value it cannot read (a checkpoint turns that into a recorded failure, never a crash).
"""
from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

__all__ = ["cents", "clock", "fmt_cents", "fmt_clock", "slot", "ALL_DAY", "seats", "leg_time"]

# the released attraction data writes "Open 24 Hours" (en) or "全天开放" (zh) for both opening
# and closing time (the released parser's is_all_day reads both)
ALL_DAY = frozenset({"open 24 hours", "24 hours", "all day", "00:00-24:00", "全天开放",
                     "24小时开放"})

_CLOCK = re.compile(r"\s*(\d{1,2}):(\d{2})\s*$")
_SLOT = re.compile(r"\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s*$")


# an amount of 10**15 yuan or more is not a price (and would overflow Decimal arithmetic or
# Python's int-to-text limit when written in a reason)
MAX_YUAN = 10 ** 15


def cents(value: object) -> int | None:
    """``value`` (a number or a numeric string, at most two decimals) in cents.

    ``None`` for anything else: booleans, NaN, infinities, text, more than two decimals
    (a price of 12.345 yuan is not a price), amounts of ``MAX_YUAN`` or more.  Exact: the
    decimal digits are read as written, never rounded."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        value = repr(value)
    if isinstance(value, int):
        return value * 100 if abs(value) < MAX_YUAN else None
    if not isinstance(value, str):
        return None
    text = value.strip().replace(",", "")
    if not text:
        return None
    try:
        d = Decimal(text)
    except InvalidOperation:
        return None
    if not d.is_finite():
        return None
    sign, digits, exp = d.as_tuple()
    digits = list(digits)
    while len(digits) > 1 and digits[-1] == 0:   # trailing zeros: 1.50 is 1.5
        digits.pop()
        exp += 1
    if digits == [0]:
        return 0
    if exp < -2 or d.adjusted() >= 15:
        return None
    n = int("".join(map(str, digits))) * 10 ** (exp + 2)
    return -n if sign else n


def fmt_cents(c: int) -> str:
    """Cents as the shortest decimal string (``44100 -> '441'``, ``4410 -> '44.1'``)."""
    sign = "-" if c < 0 else ""
    whole, frac = divmod(abs(c), 100)
    if frac == 0:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{frac:02d}".rstrip("0")


def clock(text: object) -> int | None:
    """``'HH:MM'`` as minutes after midnight; ``'24:00'`` is 1440 (end of day)."""
    if not isinstance(text, str):
        return None
    m = _CLOCK.match(text)
    if not m:
        return None
    h, mi = int(m.group(1)), int(m.group(2))
    if mi >= 60 or h > 24 or (h == 24 and mi):
        return None
    return h * 60 + mi


def fmt_clock(minutes: int) -> str:
    h, m = divmod(minutes % 1440, 60)
    return f"{h:02d}:{m:02d}"


def slot(text: object) -> tuple[int, int] | None:
    """``'HH:MM-HH:MM'`` as ``(start, end)`` minutes; an end before the start is on the next
    day (``end + 1440``)."""
    if not isinstance(text, str):
        return None
    m = _SLOT.match(text)
    if not m:
        return None
    s, e = clock(m.group(1)), clock(m.group(2))
    if s is None or e is None:
        return None
    if e < s:
        e += 1440
    return s, e


def seats(status: str) -> int:
    """Remaining seats of a leg's ``seat_status``: a count, 0 for 'sold out'/'none', or
    unlimited for a word such as 'Available'."""
    s = (status or "").strip()
    if s.isdigit():
        return int(s)
    return 0 if s.lower() in ("sold out", "none") else 10 ** 6


def leg_time(dt: str) -> int | None:
    """The minute of the day of a leg's ``YYYY-MM-DD HH:MM`` time (0 without a time part,
    None when the time part is not a clock)."""
    return clock((dt or "").split(" ", 1)[1][:5]) if " " in (dt or "") else 0
