"""The range argument types shared by the commands (``--gamma``, ``--revisions``)."""
from __future__ import annotations

import argparse

import pytest

from planning_core.cli.args import number_between, whole_number_between


def test_whole_number_between_takes_the_ends_and_refuses_the_rest():
    check = whole_number_between(0, 20)
    assert [check("0"), check("20"), check(" 7 ")] == [0, 20, 7]
    for text, message in (("-1", "must be between 0 and 20: '-1'"),
                          ("21", "must be between 0 and 20: '21'"),
                          ("2.5", "not a whole number: '2.5'"), ("x", "not a whole number")):
        with pytest.raises(argparse.ArgumentTypeError, match=message):
            check(text)


def test_number_between_refuses_nan_and_infinity():
    check = number_between(1, 5)
    assert [check("1"), check("4.66"), check("5")] == [1.0, 4.66, 5.0]
    for text in ("0.99", "5.01", "nan", "inf", "-inf"):
        with pytest.raises(argparse.ArgumentTypeError, match="must be between 1 and 5"):
            check(text)
    with pytest.raises(argparse.ArgumentTypeError, match="not a number: 'four'"):
        check("four")


def test_the_commands_use_them(capsys):
    from planning_core.console import main

    for argv, message in ((["adaptive", "run", "--gamma", "nan"],
                           "--gamma: must be between 1 and 5"),
                          (["cope", "run", "--revisions", "21"],
                           "--revisions: must be between 0 and 20")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2 and message in capsys.readouterr().err
