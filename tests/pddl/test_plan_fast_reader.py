"""The plan fast reader reads exactly what the grammar reads, or declines.

``parse_plan`` reads a file of plain steps with one regex per line (so a ``validate`` call
imports no lark); every other file goes to the grammar. Wherever the fast reader answers,
its steps (names, arguments, line, column, text) must equal the grammar's.
"""
from __future__ import annotations

import json

import pytest

from conftest import DOMAINS, SHARED_DATA
from planning_core.pddl import plans

HOSTILE = [
    "", "\n", "(a b)", "(A B)\r\n(c)\n", "  ( a  b )  ; x\n", "(a b) (c d)\n", "0.0: (a)",
    "(a\u00a0b)", "\u00a0(a b)", "(a ; b)\n c)", "(a b)\x0b", "(a [1])", "(a)(b)", ";only\n;c\n",
    "(a)\n\n\n(b c d)   \t", "(\u0391\u03a3 \u0392\u03a3)", "(a\x00)", "\ufeff(a)", "(a)\f",
    "()", "( )", "(a) ;; (b)", "(a )\r", "(1. 2)", "(step 1)", "(a\tb\fc)", "(a\nb)",
    "(a b) [2]", "step 1: (a)", "1. (a)", "(a\u2028b)", "(a\x7f)", "(İ)", "((a))", "(a))",
    "(a b\\c)", "(a b,c)", "(a 'b')", "(é)", ") (", "(a) x",
    # timed plans (VAL, LPG, TAMER): read by the fast reader since issue 28
    "0.000: (a x) [1]\n", "0: (a)[5]", " 2.5 : ( c  d )[ 3 ] ; x\n", "1.5: (a) [", "1.: (a)",
    "0.5 (a)", ": (a)", "1e3: (a)", "0: (a) [1e3]", "0: (a) [2] [3]", "-1: (a)", "0: (a) [-1]",
]


def _grammar(text: str) -> plans.Plan:
    saved = plans._simple_steps
    plans._simple_steps = lambda _text: None
    try:
        return plans.parse_plan(text)
    finally:
        plans._simple_steps = saved


def _same(text: str) -> bool:
    fast = plans._simple_steps(text)
    if fast is None:
        return False
    slow = _grammar(text)
    assert slow.ok and tuple(fast) == slow.steps, (text, fast, slow)
    return True


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_texts(text):
    _same(text)
    assert plans.parse_plan(text) == _grammar(text)


def test_the_fast_reader_declines_what_is_not_plain():
    for text in ("(a [1])", "(a\nb)", "(a\u00a0b)", "1. (a)", "(a ; b)\n c)", "1.5: (a) ["):
        assert plans._simple_steps(text) is None


def test_the_fast_reader_reads_timed_steps():
    steps = plans._simple_steps("0.000: (A x) [1.5]\n3: (b)")
    assert [(s.name, s.time, s.duration, s.column) for s in steps] == [
        ("a", 0.0, 1.5, 8), ("b", 3.0, None, 4)]


def test_bundled_plans_read_the_same():
    files = sorted(DOMAINS.glob("*/*.plan"))
    assert files
    fast = sum(_same(f.read_text()) for f in files)
    assert fast >= len(files) // 2


def test_the_val_oracle_plans_read_the_same(shared_data):
    cases = [json.loads(line) for line in
             (SHARED_DATA / "val_oracle" / "ipc_cases.jsonl").read_text().splitlines()]
    fast = sum(_same(case["plan"]) for case in cases)
    assert fast > len(cases) // 2


def _regex_groups(line: str):
    m = plans._simple_line_regex().fullmatch(line)
    if m is None:
        return None
    return m.group(1), m.group(2), m.start(2) if m.group(2) is not None else None, \
        m.group(3), m.group(4)


def _hand_groups(line: str):
    read = plans._read_line(line)
    if read is plans._UNSURE:
        return read
    time, step, start, names, duration = read
    return time, step, start if step is not None else None, names, duration


def test_the_hand_line_reader_answers_what_the_regex_answers():
    # _read_line reads an ASCII line without compiling the regex (issue 28); wherever it
    # answers, its groups are the regex's fullmatch groups, and it answers every line that
    # does match unless a character outside ASCII is in it
    import random

    pieces = ["(", ")", "[", "]", ";", ":", " ", "\t", "\f", "\r", "\x0b", "\x1c", "\x7f",
              "\x00", "\xa0", "\u0663", "0", "1", "25", ".", "0.5", "a", "B", "-", "_", "x1",
              "move", "é", "\\", "'", ",", "; c", "[1]", "(a b)", "0.01: ", " [2.5]"]
    rng = random.Random(28)
    lines = [h for text in HOSTILE for h in text.split("\n")]   # lines, as the reader gets them
    for _ in range(30000):
        lines.append("".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))))
    for _ in range(10000):   # near misses of real step lines
        line = list(rng.choice(["0.0003: (lift h0 c1 p0 d0) [1.0000]", "(drive t0 d0 d1)",
                                " 12: ( a  b )[ 3 ] ; x", "(a)"]))
        for _ in range(rng.randint(1, 2)):
            line.insert(rng.randrange(len(line) + 1), rng.choice(pieces))
        lines.append("".join(line))
    answered = 0
    lines = [line for part in lines for line in part.split("\n")]
    for line in lines:
        hand, regex = _hand_groups(line), _regex_groups(line)
        if hand is plans._UNSURE:
            assert regex is None or not line.isascii(), repr(line)
        else:
            answered += 1
            assert hand == regex, repr(line)
    assert answered > 5000


def test_the_planners_plans_need_no_regex():
    # every line of every planner's plan in the differential is read by hand: a call on
    # them compiles no regex (the module compiles it on first use only)
    from conftest import ROOT

    files = sorted((ROOT / "benchmarks" / "pddl21_plans").rglob("*.plan"))
    assert len(files) > 100
    for file in files:
        for line in file.read_text().split("\n"):
            assert plans._read_line(line) is not plans._UNSURE, (file, line)
