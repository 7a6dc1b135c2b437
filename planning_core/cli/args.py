"""Argument types shared by every ``planning-core`` command (argparse ``type=`` callables).

A time limit must be a finite, positive number of seconds: ``nan`` would silently disable
the limit and ``1e12`` overflows the operating system's timers, so both are refused at the
command line with a message instead of failing deep inside a solver.
"""
from __future__ import annotations

import math

__all__ = ["MAX_SECONDS", "add_bad_row_options", "seconds", "positive_int", "non_negative_int",
           "non_negative_float", "whole_number_between", "number_between"]

MAX_SECONDS = 1_000_000.0  # about 11.5 days: far beyond any real run, far below time_t limits


def _type_error(message: str) -> Exception:
    """``argparse.ArgumentTypeError(message)``; argparse is imported only for a bad value
    (``validate``'s small argument reader calls :func:`seconds` without argparse)."""
    import argparse

    return argparse.ArgumentTypeError(message)


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _type_error(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value <= 0 or value > MAX_SECONDS:
        raise _type_error(
            f"must be a positive number of seconds, at most {MAX_SECONDS:.0f}: {text!r}")
    return value


def _whole_number(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise _type_error(f"not a whole number: {text!r}") from None
    if value < least:
        raise _type_error(f"must be at least {least}: {text!r}")
    return value


def positive_int(text: str) -> int:
    return _whole_number(text, 1)


def non_negative_int(text: str) -> int:
    return _whole_number(text, 0)


def whole_number_between(least: int, most: int):
    """An argparse type: a whole number from ``least`` to ``most``."""
    def whole_number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise _type_error(f"not a whole number: {text!r}") from None
        if not least <= value <= most:
            raise _type_error(f"must be between {least} and {most}: {text!r}")
        return value
    return whole_number


def number_between(least: float, most: float):
    """An argparse type: a number from ``least`` to ``most`` (NaN is not between)."""
    def number(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise _type_error(f"not a number: {text!r}") from None
        if not least <= value <= most:
            raise _type_error(f"must be between {least} and {most}: {text!r}")
        return value
    return number


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise _type_error(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise _type_error(f"must be a finite number >= 0: {text!r}")
    return value


def add_bad_row_options(parser, *, default_bytes: int, too_large: str, bad_row: str,
                        bad_rows: str) -> None:
    """The two options every batch command shares: the response size cap and ``--strict``.

    ``too_large`` names what an oversized response becomes, ``bad_row`` the error row's
    name, ``bad_rows`` what makes an input row unusable (for the help texts).
    """
    parser.add_argument("--max-response-bytes", type=positive_int, default=default_bytes,
                        metavar="N", help=f"longest response read; a longer one is "
                                          f"{too_large}, unread (default {default_bytes})")
    parser.add_argument("--strict", action="store_true",
                        help=f"stop at the first unusable input row ({bad_rows}) instead "
                             f"of recording it as a {bad_row} row and going on")


def add_retry_option(parser) -> None:
    """``--retry-unknown``, for every batch command whose rows can hit a limit (the rows
    are taken out by :class:`planning_core.results_file.LimitRetry`)."""
    parser.add_argument("--retry-unknown", action="store_true",
                        help="compute again the rows of --out that ran into their limit "
                             "(rows whose limit was below --time-limit are always computed "
                             "again)")
