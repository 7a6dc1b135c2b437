"""The protocol turn by turn against hand-computed traces (household p01, tier ``main``:
w1 vacuum unavailable, w2 sponge at most once, u1 nothing noisy held (the vacuum is noisy),
u2 hold the cloth before the window is clean)."""
from __future__ import annotations

import pytest

from planning_core.errors import PlanningError
from planning_core.validators.adaptive.env import AdaptiveEnv

from tests.adaptive.conftest import PLAN_CLOTH, PLAN_SPONGE, PLAN_VACUUM


def _env(task, profile, **kw):
    return AdaptiveEnv(*task, profile, "main", **kw)


def _trace(env, plans):
    env.reset()
    rows = []
    for plan in plans:
        _, done, info = env.step(plan)
        t = info["turn"]
        rows.append((t.revealed, t.revealed_type, t.repeated, t.stall, done))
        if done:
            break
    return rows


def test_same_plan_reveals_world_first_then_user_then_stops_early(task, profile):
    env = _env(task, profile)
    rows = _trace(env, [PLAN_VACUUM] * 10)
    assert rows == [
        (("w1",), "world", (), False, False),           # w1, u1, u2 broken: world first
        (("u1", "u2"), "user", ("w1",), False, False),  # now the user ones, w1 repeated
        ((), None, ("w1", "u1", "u2"), True, False),    # stalled once
        ((), None, ("w1", "u1", "u2"), True, True),     # stalled twice: early stop
    ]
    assert env.outcome == "early_stop"
    ep = env.episode()
    assert ep.repeated_of("world") == 3 and ep.repeated_of("user") == 4
    assert ep.revealed_of("world") == 1 and ep.revealed_of("user") == 2
    assert [t.respects_revealed for t in ep.turns] == [True, False, False, False]


def test_adapting_agent_succeeds_and_hidden_type_waits(task, profile):
    env = _env(task, profile)
    rows = _trace(env, [PLAN_VACUUM, PLAN_SPONGE, PLAN_CLOTH])
    # the sponge plan breaks w2 (world, new) and u2 (user, hidden): only w2 is revealed
    assert rows == [(("w1",), "world", (), False, False),
                    (("w2",), "world", (), False, False),
                    ((), None, (), False, True)]
    assert env.outcome == "success"
    second = env.turns[1]
    assert set(second.violated) == {"w2", "u2"}
    assert "another type" in second.feedback


def test_a_new_revelation_resets_the_stall_count(task, profile):
    env = _env(task, profile)
    rows = _trace(env, [PLAN_VACUUM, PLAN_VACUUM, PLAN_VACUUM, PLAN_SPONGE, PLAN_VACUUM,
                        PLAN_VACUUM, PLAN_VACUUM])
    assert [r[3] for r in rows] == [False, False, True, False, True, True]
    assert rows[3][:3] == (("w2",), "world", ("u2",))
    assert env.outcome == "early_stop" and len(env.turns) == 6


def test_max_turns_and_bad_input_are_recorded_turns(task, profile):
    env = _env(task, profile, max_turns=5)
    answers = ["", "(((", "(fly kitchen)", "(pick-up hammer kitchen)", None]
    env.reset()
    feedback = []
    for a in answers:
        text, done, info = env.step(a)
        feedback.append(text)
    assert done and env.outcome == "max_turns" and len(env.turns) == 5
    assert "holds no plan steps" in feedback[0]
    assert "cannot be read" in feedback[1]
    assert "no action 'fly'" in feedback[2]
    assert "'hammer' is neither an object" in feedback[3]
    assert "budget of 5 turns" in feedback[4]
    assert all(not t.stall and not t.revealed for t in env.turns)
    with pytest.raises(PlanningError, match="episode is over"):
        env.step(PLAN_CLOTH)


def test_non_executable_plan_gets_failing_step_advice_and_prefix_revelations(task, profile):
    env = _env(task, profile)
    text, done, info = env.step("(pick-up vacuum kitchen)\n(clean cloth window kitchen)")
    turn = info["turn"]
    assert turn.failing_step == 2 and not turn.executable
    assert turn.revealed == ("w1",)                  # the executed prefix broke w1
    assert "precondition not satisfied" in text and "(holding cloth)" in text
    fb = info["feedback"]
    assert fb["advice"] and fb["revealed"][0]["formal"] == "(unavailable vacuum)"
    assert fb["hidden_violations"] == 1              # u1 on the prefix, revealed later


def test_feedback_json_flags_repeats(task, profile):
    env = _env(task, profile)
    env.step(PLAN_VACUUM)
    _, _, info = env.step(PLAN_VACUUM)
    assert [r["id"] for r in info["feedback"]["repeated"]] == ["w1"]
    assert info["revealed"] == ["w1", "u1", "u2"]
