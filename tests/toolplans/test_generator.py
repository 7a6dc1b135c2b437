"""The APB generator's properties: chain lengths as the paper's (Table 10, line 856), no
withheld value stated, every case's own reference judged correct; and the part-by-part
search (``split.py``) that makes proving long chains' optima cheap, checked against the
search of the whole task."""
from __future__ import annotations

import json
import math
import random
import re

import pytest

from planning_core.search.astar import astar
from planning_core.search.hstar import h_star
from planning_core.validators.toolplans import TaskContext, parse_task
from planning_core.validators.toolplans.apb import (build_sets, holistic_bases, length_buckets,
                                                    load_domains, make_holistic)
from planning_core.validators.toolplans.apb_report import check_case
from planning_core.validators.toolplans.split import parts, split_h_star
from tests.toolplans.test_run import reference_answer


@pytest.fixture(scope="module")
def domains():
    return load_domains()


def _stated(value, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(str(value))}(?![\w])", text) is not None


@pytest.mark.slow
def test_holistic_chains_average_ten_calls_with_the_papers_long_tail(domains):
    """111 requests (the holistic set at scale 0.1): the paper has mean 12.48 and 434 / 590
    / 85 chains of 1-10 / 11-20 / >20 calls (39% / 53% / 8%)."""
    bases = holistic_bases(domains, 0, 111)
    lengths = [len(ref) for _, _, ref in bases]
    assert len(lengths) == 111
    short, middle, long_ = length_buckets(lengths)
    assert sum(lengths) / len(lengths) >= 10
    assert middle >= 0.4 * len(lengths)          # the paper's largest bucket
    assert long_ >= 0.04 * len(lengths)          # the tail over 20 calls
    assert short >= 0.2 * len(lengths)
    assert max(lengths) > 20
    # long requests join other services to the domain's own tools
    assert any(len({t.name for t in task.tools}) > len(domains[d]) for d, task, _ in bases)


@pytest.mark.slow
def test_each_reference_is_a_proved_optimum_of_its_request(domains):
    """The reference is the solver's optimal chain; its cost equals the optimum of a fresh
    analysis, and a long request over several services splits into parts."""
    split_seen = False
    for d, task, ref in holistic_bases(domains, 1, 11):
        ctx = TaskContext(parse_task(json.loads(json.dumps(_task_json(task)))))
        feas = ctx.feasibility(engine="internal", time_limit=60)
        assert feas.status.name == "SOLVED", task.id
        assert feas.cost == sum(task.tool(c["name"]).cost for c in ref), task.id
        split_seen |= parts(ctx.ground) is not None
    assert split_seen


def _task_json(task):
    from planning_core.validators.toolplans.apb import task_to_json
    return task_to_json(task)


@pytest.mark.slow
def test_every_cases_reference_is_correct_and_no_withheld_value_is_stated(domains):
    cases = build_sets(domains, seed=5, scale=0.02)
    assert {c["setting"] for c in cases} == {"holistic", "stepwise", "extraneous", "broken",
                                             "unsolvable"}
    hidden = [c for c in cases if c.get("kind") in ("missing_input", "visual_missing")]
    assert hidden
    for c in hidden:
        assert c["withheld"], c["id"]
        for w in c["withheld"]:
            assert not _stated(w["value"], c["task"]["request"]), (c["id"], w)
    for c in cases:
        row = check_case(TaskContext(parse_task(c["task"])), c, reference_answer(c))
        assert row["correct"] is True, (c["id"], row.get("faults"))


# ------------------------------------------------------------------ split.py

def _two_services(domains, seed):
    """A generated request over more than one service (the first found from ``seed``)."""
    for k in range(200):
        made = make_holistic("banking", domains, random.Random(f"{seed}:{k}"), f"t{k}")
        if made is not None and parts(TaskContext(made[0]).ground) is not None:
            return made
    raise AssertionError("no request over two services")


def test_the_parts_optimum_and_h_star_equal_the_whole_tasks(domains):
    """On a short enough request the whole task is searched too: the same optimum, and the
    same h* from states along the reference."""
    for seed in range(3):
        task, ref = _two_services(domains, seed)
        ctx = TaskContext(task)
        whole = ctx.ground
        assert not whole.axioms     # the folded form states outputs as facts: LM-cut applies
        ps = parts(whole)
        assert len(ps) >= 2
        assert sum(len(p.actions) for p in ps) <= len(whole.actions)
        full = astar(whole, time_limit=120)
        feas = ctx.feasibility(engine="internal", time_limit=60)
        assert full.status.name == "SOLVED" and feas.engine == "internal-split"
        assert math.isclose(feas.cost, full.cost)
        state = whole.init
        for step in feas.plan[: len(feas.plan) // 2]:
            assert math.isclose(split_h_star(whole, state, time_limit=60),
                                h_star(whole, state, time_limit=120))
            state = whole.progress(state, whole.action_by_name(step, state))
        assert whole.is_goal(_run(whole, feas.plan))


def _run(task, plan):
    state = task.init
    for step in plan:
        state = task.progress(state, task.action_by_name(step, state))
    return state


def test_an_unsolvable_part_makes_the_task_unsolvable(domains):
    from dataclasses import replace
    task, _ = _two_services(domains, 0)
    ctx = TaskContext(task)
    last = parts(ctx.ground)[-1]
    # every maker of a required output of the last part removed: that part has no plan
    goal = next(g for g in task.goal if any(
        a.name in {t.name for t in task.tools if g in t.produces} for a in last.actions))
    gone = TaskContext(replace(task, tools=tuple(t for t in task.tools
                                                 if goal not in t.produces)))
    assert gone.feasibility(engine="internal", time_limit=60).status.name == "UNSOLVABLE"
    assert split_h_star(gone.ground, time_limit=60) == math.inf
