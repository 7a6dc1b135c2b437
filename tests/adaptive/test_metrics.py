"""Metrics on hand-made trajectories equal hand-computed values (AdaPlanBench's formulas,
Appendix "Metric Details")."""
from __future__ import annotations

import math

import pytest

from planning_core.validators.adaptive.agents import run_episode
from planning_core.validators.adaptive.env import AdaptiveEnv, Episode, Turn
from planning_core.validators.adaptive.metrics import metrics, metrics_by_tier, per_turn, \
    plot_degradation, render_markdown

Z = 1.959964


def _turn(i, violated=(), *, solves=True, revealed=(), rtype=None, repeated=(),
          stall=False):
    success = solves and not violated
    return Turn(i, "(step)", "valid" if solves else "goal_not_satisfied", True, solves, None,
                tuple(violated), tuple(revealed), rtype, tuple(repeated), success, stall)


WORLD = ("w1", "w2")
# u1 disclosed; then w1 (u1 broken again, withheld); then u1 again; then w1 again: stop
EP_MIX = Episode("t1", "low", (
    _turn(1, ("u1",), solves=False, revealed=("u1",), rtype="user"),
    _turn(2, ("w1", "u1"), revealed=("w1",), rtype="world"),
    _turn(3, ("u1",), repeated=("u1",), rtype="user", stall=True),
    _turn(4, ("w1", "u1"), repeated=("w1",), rtype="world", stall=True)),
    "early_stop", 2, 2, WORLD)
EP_OK = Episode("t2", "low", (
    _turn(1, ("w1", "u1"), revealed=("w1",), rtype="world"),
    _turn(2, ("u1", "u2"), revealed=("u1", "u2"), rtype="user"),
    _turn(3)), "success", 2, 2, WORLD)
EP_UNSOLVED = Episode("t3", "low", (
    _turn(1, ("w2",), revealed=("w2",), rtype="world"),
    _turn(2, solves=False)), "unsolved", 2, 2, WORLD)
EP_HIGH = Episode("t4", "high", (_turn(1, ("w1",), revealed=("w1",), rtype="world"),),
                  "max_turns", 1, 0, ("w1",))


def test_hand_computed_values():
    m = metrics([EP_MIX, EP_OK, EP_UNSOLVED])
    assert m["Acc"].value == pytest.approx(1 / 3) and m["Acc"].n == 3
    assert m["Acc"].half_width == pytest.approx(Z * math.sqrt(2 / 9 / 3), rel=1e-6)
    assert m["VPR"].value == pytest.approx(2 / 3)     # EP_OK and EP_UNSOLVED end valid
    assert m["VPR"].half_width == pytest.approx(Z * math.sqrt(2 / 9 / 3), rel=1e-6)
    assert m["Avg Turns"].value == 3.0                # (4 + 3 + 2) / 3
    assert m["Avg Turns"].half_width == pytest.approx(Z * 1.0 / math.sqrt(3), rel=1e-6)
    assert m["AWRV"].value == pytest.approx(1 / 3)    # EP_MIX turn 4 only
    assert m["AURV"].value == pytest.approx(1 / 3)    # EP_MIX turn 3 (turn 2 withheld it)
    assert m["ATWC"].value == pytest.approx((1 / 4 + 1 / 3 + 1 / 2) / 3)   # 13/36
    assert m["ATUC"].value == pytest.approx((1 / 4 + 2 / 3 + 0) / 3)       # 11/36


def test_by_tier_and_overall():
    table = metrics_by_tier([EP_MIX, EP_OK, EP_UNSOLVED, EP_HIGH], overall=True)
    assert list(table) == ["low", "high", "overall"]
    assert list(metrics_by_tier([EP_MIX, EP_HIGH])) == ["low", "high"]   # pooled if asked
    assert table["high"]["Acc"].value == 0.0 and table["high"]["VPR"].value == 0.0
    assert table["high"]["ATWC"].value == 1.0
    assert table["high"]["Avg Turns"].half_width is None      # one episode: no interval
    assert table["overall"]["Acc"].value == pytest.approx(1 / 4)
    text = render_markdown([EP_MIX, EP_OK, EP_UNSOLVED, EP_HIGH])
    # Table 3's precision: shares with two decimals, means with three
    assert "| low | symbolic | pddl | 3 | 0 | 33.33 ± 53.34 | 66.67 ± 53.34 | " \
        "3.000 ± 1.132 |" in text
    assert "has no symbolic counterpart" in text


def test_shares_of_early_stops_and_max_turns():
    m = metrics([EP_MIX, EP_OK, EP_UNSOLVED, EP_HIGH])
    assert m["ES"].value == pytest.approx(1 / 4) and m["MT"].value == pytest.approx(1 / 4)
    # a refined episode counts by how its standard protocol ended
    refined = Episode("t5", "low", EP_UNSOLVED.turns, "refine_exhausted", 2, 2, WORLD,
                      refine=2, main_outcome="max_turns")
    assert metrics([refined])["MT"].value == 1.0
    assert Episode.from_json(refined.to_json()) == refined


def test_failed_queries_count_in_n():
    """A profile that did not load is a failed query: in N, never a success (the paper
    divides by all 307); the means stay over the episodes that ran."""
    failures = [{"task": "x.json", "tier": "low", "error": "not JSON"}]
    table = metrics_by_tier([EP_MIX, EP_OK, EP_UNSOLVED], failures, overall=True)
    assert table["low"]["Acc"].n == 4 and table["low"]["Acc"].value == pytest.approx(1 / 4)
    assert table["low"]["VPR"].value == pytest.approx(2 / 4)
    assert table["low"]["Avg Turns"].value == 3.0 and table["overall"]["Acc"].n == 4
    text = render_markdown([EP_MIX, EP_OK, EP_UNSOLVED], failures=failures)
    assert "| low | symbolic | pddl | 4 | 1 | 25.00" in text


def test_read_results_keeps_failure_rows(tmp_path):
    import json
    from planning_core.errors import InputError
    from planning_core.validators.adaptive.metrics import read_results

    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(EP_OK.to_json()) + "\n" +
                    json.dumps({"task": "x", "tier": "low", "error": "boom"}) + "\n")
    episodes, failures = read_results(path)
    assert episodes == [EP_OK] and failures[0]["error"] == "boom"
    path.write_text("[1, 2]\n")
    with pytest.raises(InputError, match="not an episode row"):
        read_results(path)


def test_per_turn_curve():
    curve = per_turn([EP_MIX, EP_OK, EP_UNSOLVED])
    assert [curve[t]["acc"].value for t in (1, 2, 3, 4)] == \
        pytest.approx([0, 0, 1 / 3, 1 / 3])
    assert [curve[t]["valid"].value for t in (1, 2, 3, 4)] == pytest.approx([0, 1 / 3, 0.5, 0])
    assert [curve[t]["solves"].value for t in (1, 2, 3, 4)] == \
        pytest.approx([2 / 3, 2 / 3, 1, 1])


def test_plot_written(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "curve.png"
    plot_degradation([EP_MIX, EP_OK, EP_UNSOLVED, EP_HIGH], out)
    assert out.stat().st_size > 1000


def test_plot_of_no_episode_warns_nothing(tmp_path):
    import warnings

    pytest.importorskip("matplotlib")
    out = tmp_path / "empty.png"
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # before: "No artists with labels found"
        plot_degradation([], out)
    assert out.stat().st_size > 1000


def test_json_round_trip(task, profile):
    from planning_core.validators.adaptive.agents import SamePlanAgent
    from tests.adaptive.conftest import PLAN_VACUUM

    env = AdaptiveEnv(*task, profile, "main", refine=2, constraints="user")
    ep = run_episode(env, SamePlanAgent(tuple(PLAN_VACUUM.splitlines())))
    assert Episode.from_json(ep.to_json()) == ep
    assert ep.refine == 2 and ep.constraints == "user"


def test_per_refinement_curve(task, profile):
    """Hand-computed: episode A meets every constraint at turn 1 without solving the task,
    then breaks w1 (refinement turn 1) and solves it (refinement turn 2); episode B stops
    early and is never refined."""
    from planning_core.validators.adaptive.metrics import per_refinement
    from tests.adaptive.conftest import PLAN_CLOTH, PLAN_VACUUM

    env = AdaptiveEnv(*task, profile, "main", refine=3)
    env.reset()
    for plan in ("(move kitchen hall)", PLAN_VACUUM, PLAN_CLOTH):
        env.step(plan)
    a = env.episode()
    env = AdaptiveEnv(*task, profile, "main", refine=3)
    env.reset()
    for _ in range(3):
        env.step(PLAN_VACUUM)
    b = env.episode()
    assert (a.outcome, a.main_outcome, b.outcome) == ("success", "unsolved", "early_stop")
    curve = per_refinement([a, b])
    assert [curve[k]["acc"].value for k in range(4)] == [0, 0, 0.5, 0.5]
    assert [curve[k]["vpr"].value for k in range(4)] == [0.5, 0, 0.5, 0.5]
    text = render_markdown([a, b])
    assert "Refinement (not part of Table 3)" in text
    # Table 3 is the standard protocol: A ended unsolved at turn 1, B early at turn 3
    assert "| main | symbolic | pddl | 2 | 0 | 0.00 ± 0.00 | 50.00 ± 69.30 | 2.000 ± " \
        in text


def _mutate(row: dict, path: tuple, value) -> dict:
    import copy

    row = copy.deepcopy(row)
    target = row
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return row


@pytest.mark.parametrize("path,value,message", [
    (("tier",), {"a": 1}, "tier must be a string"),           # was an internal error
    (("turns", 0, "revealed"), [["w1"]], "revealed must be a list of strings"),
    (("turns", 0, "revealed"), 5, "revealed must be a list of strings"),
    (("turns", 0, "success"), "no", "success must be a boolean"),
    (("turns", 0, "turn"), True, "turn must be an integer"),
    (("turns", 0, "revealed_type"), "both", "revealed_type"),
    (("turns",), [], "turns must be a non-empty list"),        # was Acc 100 %, VPR 0 %
    (("turns", 2, "success"), False, "outcome is success exactly when"),
    (("outcome",), 7, "outcome 7 is not one of"),
    (("world_ids",), None, "world_ids must be a list of strings"),
    (("constraints",), "neither", "constraints 'neither'"),
])
def test_read_results_refuses_ill_typed_rows_with_their_line(tmp_path, path, value, message):
    import json
    from planning_core.errors import InputError
    from planning_core.validators.adaptive.metrics import read_results

    bad = tmp_path / "r.jsonl"
    bad.write_text(json.dumps(EP_OK.to_json()) + "\n" +
                   json.dumps(_mutate(EP_OK.to_json(), path, value)) + "\n")
    with pytest.raises(InputError, match=message) as err:
        read_results(bad)
    assert err.value.line == 2


def test_read_results_refuses_bad_failure_rows_and_missing_fields(tmp_path):
    import json
    from planning_core.errors import InputError
    from planning_core.validators.adaptive.metrics import read_results

    bad = tmp_path / "r.jsonl"
    bad.write_text(json.dumps({"task": "x", "tier": ["low"], "error": "boom"}) + "\n")
    with pytest.raises(InputError, match="failure row's tier"):
        read_results(bad)
    row = EP_OK.to_json()
    del row["turns"][0]["plan"]
    bad.write_text(json.dumps(row) + "\n")
    with pytest.raises(InputError, match="no field 'plan'"):
        read_results(bad)
    bad.write_text(json.dumps(EP_OK.to_json())[:100] + "\n")     # a torn row
    with pytest.raises(InputError, match="not an episode row"):
        read_results(bad)


def test_read_results_refuses_a_query_twice(tmp_path):
    # before: two rows of one query (a file concatenated twice) weighed double in N
    import json
    from planning_core.errors import InputError
    from planning_core.validators.adaptive.metrics import read_results

    bad = tmp_path / "r.jsonl"
    row = dict(EP_OK.to_json(), agent="oracle")
    fail = {"task": "t2", "tier": "low", "agent": "oracle", "error": "boom"}
    bad.write_text(json.dumps(row) + "\n" + json.dumps(fail) + "\n")
    with pytest.raises(InputError, match="already at line 1") as err:
        read_results(bad)
    assert err.value.line == 2
    # the same query under another agent or setting is another row of the report
    other = dict(row, agent="same")
    ablation = dict(row, protocol={"constraints": "world"})
    bad.write_text("\n".join(json.dumps(r) for r in (row, other, ablation)) + "\n")
    episodes, _ = read_results(bad)
    assert len({e.group for e in episodes}) == 3
