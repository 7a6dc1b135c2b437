"""``validate``'s small argument reader answers what argparse answers, or leaves the line to it.

:func:`planning_core.cli.validate.read_common_argv` reads a common ``validate`` line without
importing argparse (issue 28: argparse and building the parser were ~10 ms of a call). For
every line it reads, the values must be argparse's; every line it cannot read (None) goes to
argparse unchanged. Lines are drawn from a fixed vocabulary with a fixed seed (deterministic).
"""
from __future__ import annotations

import contextlib
import io
import random

import pytest

from planning_core.cli.validate import FileArgs, _add_arguments, read_common_argv

WORDS = ["plan.txt", "domain.pddl", "problem.pddl", "p2.plan", "", "a b", "-v", "--verbose",
         "--json", "--no-warnings", "-s", "-S", "-c", "-t", "0.01", "1e-3", "-0.5", "nan",
         "abc", "--time-limit", "5", "0", "inf", "1e7", "--memory-limit", "100", "-h",
         "--version", "--batch", "m.jsonl", "--out", "--", "-vs", "--verb", "--time-limit=5",
         "-t0.1", "-", "-1", "--no-progress", "--strict", "--executor", "local", "-x"]


def _argparse(argv: list[str]):
    from planning_core.cli.parser import ArgumentParser

    parser = ArgumentParser(prog="validate")
    _add_arguments(parser)
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        try:
            return parser.parse_args(argv)
        except SystemExit:
            return None


def _lines() -> list[list[str]]:
    rng = random.Random(28)
    files = ["plan.txt", "domain.pddl", "problem.pddl"]
    lines = [files, ["-v", *files], [*files, "-t", "0.001"], ["-t", "0.001", "-v", *files],
             [*files, "--json", "--time-limit", "2"], ["-s", "-S", *files], ["-S", "-s", *files],
             [files[0], "-v", *files[1:]], ["-t", "-0.5", *files], ["-t", "abc", *files],
             ["--time-limit", "0", *files], ["--time-limit", "nan", *files], [],
             ["-v"], ["--memory-limit", "100", "-c", "--no-warnings", *files]]
    for _ in range(3000):
        lines.append([rng.choice(WORDS) for _ in range(rng.randint(1, 7))])
        lines.append(rng.sample(files, 3) + [rng.choice(WORDS) for _ in range(rng.randint(0, 3))])
    return lines


def test_the_reader_answers_argparse_or_leaves_the_line_to_it():
    read = 0
    for argv in _lines():
        mine = read_common_argv(argv)
        if mine is None:
            continue
        theirs = _argparse(argv)
        assert theirs is not None, f"argparse refuses {argv!r}; the reader took it"
        for name in FileArgs.__slots__:
            assert getattr(mine, name) == getattr(theirs, name) or (
                getattr(mine, name) != getattr(mine, name)   # nan == nan is False
                and getattr(theirs, name) != getattr(theirs, name)), (argv, name)
        # the line used nothing of --batch: cmd_validate would run the FILEs as the reader does
        assert theirs.batch is None and not (theirs.out or theirs.no_progress or theirs.strict
                                             or theirs.retry_unknown)
        read += 1
    assert read > 500   # the common shapes are read (the comparison above really ran)


@pytest.mark.parametrize("argv", [
    ["-h"], ["--version"], ["--batch", "m.jsonl"], ["--", "plan"], ["-vs", "a", "b", "c"],
    ["--verb", "a", "b", "c"], ["--time-limit=5", "a", "b", "c"], ["-t0.1", "a", "b", "c"],
    ["a", "-v", "b", "c"], ["-t", "-1", "a", "b", "c"], ["-t", "x", "a", "b", "c"],
    ["--time-limit", "0", "a"], ["-v"], [], ["-", "a"], ["a", "-t"],
])
def test_lines_the_reader_leaves_to_argparse(argv):
    assert read_common_argv(argv) is None


def test_a_common_line():
    args = read_common_argv(["-t", "0.001", "p.plan", "d.pddl", "q.pddl", "-v", "-S"])
    assert (args.files, args.tolerance, args.verbose, args.silent, args.time_limit) == \
        (["p.plan", "d.pddl", "q.pddl"], 0.001, True, "values", 60.0)


def test_classify_says_what_the_regex_says():
    # classify reads an ASCII head without compiling its regex (issue 28); every text,
    # ASCII or not (characters re.I folds onto ASCII letters, Unicode blank space), gets
    # the regex's answer
    import re

    from planning_core.cli.validate import _DEFINE, classify

    def reference(text: str) -> str:
        m = re.match(_DEFINE, text, re.I)
        return m.group(1).lower() if m else "plan"

    pieces = ["(", ")", " ", "\t", "\n", "\r", "\x0b", "\x1c", "\x85", "\xa0", "\u2003", ";",
              "; a comment\n", ";x", "define", "DEFINE", "DeFiNe", "def\u0131ne", "defIne",
              "domain", "DOMAIN", "problem", "Problem", "probl\u0131m", "\u017f", "\u212a",
              "\u0130", "_", "x", "1", "-", "é", "domains", "problem_", "(define", "(domain",
              "(problem", "\u0131"]
    rng = random.Random(28)
    texts = ["", "(define (domain d))", "(define(problem p)", " ;c\n(define\t(Domain", ";",
             "(define (domain", "(define (domain_", "(define (domain-x", "(define (problemx",
             "(define (probl\u0131m x", "(def\u0131ne (domain x", "\u2003(define (domain x",
             "(define (domain\u00e9", "(define (domain\xa0"]
    for _ in range(20000):
        texts.append("".join(rng.choice(pieces) for _ in range(rng.randint(0, 9))))
    for _ in range(5000):   # near misses of a real head
        head = list("(define (domain x)" if rng.random() < 0.5 else " ;c\n( define(problem p")
        for _ in range(rng.randint(1, 2)):
            head.insert(rng.randrange(len(head) + 1), rng.choice(pieces))
        texts.append("".join(head))
    for text in texts:
        assert classify(text) == reference(text), repr(text)
