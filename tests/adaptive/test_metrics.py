"""Metrics on hand-made trajectories equal hand-computed values."""
from __future__ import annotations

import math

import pytest

from planning_core.validators.adaptive.agents import run_episode
from planning_core.validators.adaptive.env import AdaptiveEnv, Episode, Turn
from planning_core.validators.adaptive.metrics import metrics, metrics_by_tier, per_turn, \
    plot_degradation, render_markdown


def _turn(i, *, solves=True, revealed=(), rtype=None, repeated=(), success=False):
    return Turn(i, "", "valid" if solves else "precondition_failed", solves, solves,
                None if solves else 1, tuple(revealed) + tuple(repeated), tuple(revealed),
                rtype, tuple(repeated), success, bool(repeated) and not revealed)


EP_FAIL = Episode("t1", "low", (
    _turn(1, revealed=("w1",), rtype="world"),
    _turn(2, revealed=("u1", "u2"), rtype="user", repeated=("w1",)),
    _turn(3, repeated=("w1", "u1", "u2")),
    _turn(4, repeated=("w1", "u1", "u2"))), "early_stop", 2, 2, ("w1", "w2"))
EP_OK = Episode("t2", "low", (
    _turn(1, revealed=("w1",), rtype="world"),
    _turn(2, revealed=("w2",), rtype="world"),
    _turn(3, success=True)), "success", 2, 2, ("w1", "w2"))
EP_BAD = Episode("t3", "high", (_turn(1, solves=False),), "max_turns", 1, 0, ("w1",))


def test_hand_computed_values():
    m = metrics([EP_FAIL, EP_OK])
    assert m["Acc"].value == 0.5
    assert m["Acc"].half_width == pytest.approx(1.959964 * math.sqrt(0.25 / 2), rel=1e-6)
    assert m["VPR"].value == pytest.approx(4 / 7)    # t1 of each, t2..t3 of the second
    assert m["VPR"].n == 7
    assert m["Avg Turns"].value == 3.5
    assert m["Avg Turns"].half_width == pytest.approx(1.959964 * math.sqrt(0.5) / math.sqrt(2),
                                                      rel=1e-6)
    assert m["AWRV"].value == 1.5 and m["AURV"].value == 2.0
    assert m["ATWC"].value == 1.5 and m["ATUC"].value == 1.0


def test_by_tier_and_overall():
    table = metrics_by_tier([EP_FAIL, EP_OK, EP_BAD])
    assert list(table) == ["low", "high", "overall"]
    assert table["high"]["Acc"].value == 0.0 and table["high"]["VPR"].value == 0.0
    assert table["high"]["Avg Turns"].half_width is None      # one episode: no interval
    assert table["overall"]["Acc"].value == pytest.approx(1 / 3)
    text = render_markdown([EP_FAIL, EP_OK, EP_BAD])
    assert "| low | 2 | 50.0 ± 69.3 |" in text


def test_per_turn_curve():
    curve = per_turn([EP_FAIL, EP_OK])
    assert [curve[t]["acc"].value for t in (1, 2, 3, 4)] == [0, 0, 0.5, 0.5]
    assert [curve[t]["vpr"].value for t in (1, 2, 3, 4)] == [1.0, 0.5, 0.5, 0.0]


def test_plot_written(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "curve.png"
    plot_degradation([EP_FAIL, EP_OK, EP_BAD], out)
    assert out.stat().st_size > 1000


def test_json_round_trip(task, profile):
    from planning_core.validators.adaptive.agents import SamePlanAgent
    from tests.adaptive.conftest import PLAN_VACUUM

    env = AdaptiveEnv(*task, profile, "main")
    ep = run_episode(env, SamePlanAgent(tuple(PLAN_VACUUM.splitlines())))
    assert Episode.from_json(ep.to_json()) == ep
