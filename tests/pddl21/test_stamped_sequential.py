"""Time-stamped plans of instantaneous actions are happenings, as VAL reads them.

VAL gives every plan happening semantics: ``t: (a)`` lines run in time order, and steps at
one time point are one happening where interfering steps are a mutex violation. The
sequential simulation (file order, no mutex) is only VAL's answer when the stamps increase
by more than the tolerance; otherwise the timed simulation decides. Each expectation below
is VAL 4's (KCL-Planning/VAL) verdict on the same file (found by the PDDL 2.1 differential,
``benchmarks/results/pddl21_differential.md``).
"""
from __future__ import annotations

import pytest

from conftest import DOMAINS
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.validate.report import Verdict
from planning_core.validate.simulator import _happenings_matter, validate_plan
from planning_core.pddl.plans import parse_plan

TANKER = DOMAINS / "pddl21" / "tanker"
TAIL = "5: (drive t1 b c)\n6: (unload t1 c)\n7: (unload t1 c)\n"


@pytest.fixture(scope="module")
def task():
    return (parse_domain((TANKER / "domain.pddl").read_text()),
            parse_problem((TANKER / "p01.pddl").read_text()))


@pytest.mark.parametrize("head, verdict, step", [
    # strictly increasing: as the sequential plan (VAL: valid, value 10)
    ("1: (load t1 a)\n2: (load t1 a)\n3: (drive t1 a b)\n4: (refuel t1 b)\n", Verdict.VALID, None),
    # two loads at one time point both read and change (drums t1): VAL "Mutex violation:
    # (load t1 a) (expression (drums t1))"
    ("1: (load t1 a)\n1: (load t1 a)\n3: (drive t1 a b)\n4: (refuel t1 b)\n",
     Verdict.MUTEX_VIOLATED, 1),
    # refuel at b at the time the truck drives there: its precondition is read before the
    # happening (VAL: unsatisfied precondition in (refuel t1 b))
    ("1: (load t1 a)\n2: (load t1 a)\n3: (drive t1 a b)\n3: (refuel t1 b)\n",
     Verdict.PRECONDITION_FAILED, 4),
    # out of file order: VAL runs them in time order (valid)
    ("3: (drive t1 a b)\n1: (load t1 a)\n2: (load t1 a)\n4: (refuel t1 b)\n", Verdict.VALID, None),
    # 0.005 apart, more than a tenth of the tolerance: two happenings (VAL: valid)
    ("1: (load t1 a)\n1.005: (load t1 a)\n3: (drive t1 a b)\n4: (refuel t1 b)\n",
     Verdict.VALID, None),
])
def test_stamped_plans_get_vals_verdict(task, head, verdict, step):
    report = validate_plan(*task, head + TAIL)
    assert report.verdict is verdict, report.message
    assert report.step == step
    if verdict is Verdict.VALID:
        assert report.cost == 10


def test_only_stamps_that_do_not_increase_leave_the_sequential_simulation():
    assert not _happenings_matter(parse_plan("(a)\n(b)\n"), None)
    assert not _happenings_matter(parse_plan("1: (a)\n2: (b)\n"), None)
    assert _happenings_matter(parse_plan("1: (a)\n1: (b)\n"), None)
    assert _happenings_matter(parse_plan("2: (a)\n1: (b)\n"), None)
    assert _happenings_matter(parse_plan("1: (a)\n1.005: (b)\n"), None)      # within 0.01
    assert not _happenings_matter(parse_plan("1: (a)\n1.005: (b)\n"), 0.001)
    # an unstamped step of a stamped plan is at 1, 2, 3, ... in file order (VAL's defaultTime)
    assert _happenings_matter(parse_plan("(a)\n1: (b)\n"), None)
