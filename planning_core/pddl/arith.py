"""PDDL's numeric comparisons, on doubles.

PDDL 2.1's numbers are rationals: ``0.1 + 0.1 + 0.1`` is ``0.3``. Doubles only approximate
them (``0.30000000000000004``), so a test on a sum of decimal amounts, such as a load
filled in steps of 0.1 up to a capacity of 0.3, would fail by rounding alone. Two values
closer than ``ROUNDING`` relative to the larger (and to 1: sums that cancel, such as
``0.3 - (0.1 + 0.2)``, are judged against their operands' scale, not their tiny result)
are therefore the same number; everything farther apart is compared as it is. That keeps
``>`` false at equality and ``>=`` false a ten-thousandth below, unlike VAL's 0.0001 margin
(``docs/pddl21.md``, "Comparisons are exact"), while ``(= (load) (capacity))`` holds after
three steps of 0.1.
"""
from __future__ import annotations

__all__ = ["COMPARE", "ROUNDING", "same_number"]

#: far above a double's rounding after thousands of operations (about 1e-16 each), far
#: below any difference a planning task means (VAL's own margin is 1e-4)
ROUNDING = 1e-12


def same_number(x: float, y: float) -> bool:
    """Whether ``x`` and ``y`` differ by rounding only. Two whole numbers never do: doubles
    hold integers exactly up to 2**53, so 2**40 + 1 stays above 2**40."""
    if x == y:
        return True
    if type(x) is float and type(y) is float and x.is_integer() and y.is_integer():
        return False
    return abs(x - y) <= ROUNDING * max(1.0, abs(x), abs(y))


COMPARE = {
    "<": lambda x, y: x < y and not same_number(x, y),
    "<=": lambda x, y: x <= y or same_number(x, y),
    "=": lambda x, y: x == y or same_number(x, y),
    ">=": lambda x, y: x >= y or same_number(x, y),
    ">": lambda x, y: x > y and not same_number(x, y),
}
