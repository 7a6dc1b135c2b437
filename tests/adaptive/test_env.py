"""The protocol turn by turn against hand-computed traces (household p01, tier ``main``:
w1 vacuum unavailable, w2 sponge at most once, u1 nothing noisy held (the vacuum is noisy),
u2 hold the cloth before the window is clean). The rules are AdaPlanBench's (Appendix
"Runtime Interaction Details"): the feedback set is the violated world constraints if any,
else the violated user ones; a turn that discloses nothing new stalls; two stalls stop."""
from __future__ import annotations

import json

import pytest

from planning_core.errors import PlanningError
from planning_core.validators.adaptive.env import AdaptiveEnv
from planning_core.validators.adaptive.profile import loads_profile

from tests.adaptive.conftest import PLAN_CLOTH, PLAN_SPONGE, PLAN_VACUUM, profile_json


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


def test_world_violations_hide_user_ones_and_repeats_stop_early(task, profile):
    env = _env(task, profile)
    rows = _trace(env, [PLAN_VACUUM] * 10)
    # the vacuum plan breaks w1, u1 and u2: only the world one is ever in the feedback
    assert rows == [
        (("w1",), "world", (), False, False),
        ((), "world", ("w1",), True, False),            # nothing new: stalled once
        ((), "world", ("w1",), True, True),             # stalled twice: early stop
    ]
    assert env.outcome == "early_stop"
    ep = env.episode()
    assert set(ep.turns[1].violated) == {"w1", "u1", "u2"}
    assert ep.repeated_of("world") == 2 and ep.repeated_of("user") == 0
    assert ep.revealed_of("world") == 1 and ep.revealed_of("user") == 0
    assert "other type" in ep.turns[0].feedback


def test_adapting_agent_succeeds_and_hidden_type_waits(task, profile):
    env = _env(task, profile)
    rows = _trace(env, [PLAN_VACUUM, PLAN_SPONGE, PLAN_CLOTH])
    # the sponge plan breaks w2 (world, new) and u2 (user): only w2 is disclosed
    assert rows == [(("w1",), "world", (), False, False),
                    (("w2",), "world", (), False, False),
                    ((), None, (), False, True)]
    assert env.outcome == "success"
    assert set(env.turns[1].violated) == {"w2", "u2"}


def _user_first(task):
    text = json.dumps(profile_json(tiers=[{"name": "main", "constraints": ["w2", "u1", "u2"]}]))
    return _env(task, loads_profile(text, "hand.json"))


def test_user_feedback_only_without_world_violations_even_for_repeats(task):
    env = _user_first(task)
    rows = _trace(env, [PLAN_VACUUM, PLAN_SPONGE, PLAN_VACUUM, PLAN_VACUUM])
    assert rows == [
        (("u1", "u2"), "user", (), False, False),       # no world constraint broken
        (("w2",), "world", (), False, False),           # u2 broken again, but withheld
        ((), "user", ("u1", "u2"), True, False),
        ((), "user", ("u1", "u2"), True, True),
    ]
    assert set(env.turns[1].violated) == {"w2", "u2"}
    ep = env.episode()
    assert ep.repeated_of("world") == 0 and ep.repeated_of("user") == 4


def test_a_new_revelation_resets_the_stall_count(task, profile):
    env = _env(task, profile)
    rows = _trace(env, [PLAN_VACUUM, PLAN_VACUUM, PLAN_SPONGE, PLAN_VACUUM, PLAN_VACUUM,
                        PLAN_VACUUM])
    assert [r[3] for r in rows] == [False, True, False, True, True]
    assert rows[2][:3] == (("w2",), "world", ())
    assert env.outcome == "early_stop" and len(env.turns) == 5


def test_a_plan_meeting_every_constraint_ends_the_episode_even_unsolved(task, profile):
    env = _env(task, profile)
    text, done, info = env.step("(move kitchen hall)")
    assert done and env.outcome == "unsolved" and info["turn"].constraints_met
    assert not info["turn"].success and "does not reach the goal" in text
    env = _env(task, profile)
    text, done, _ = env.step("")                    # doing nothing meets every constraint
    assert done and env.outcome == "unsolved" and "holds no plan steps" in text


def test_plans_that_do_not_execute_never_end_valid_and_stall(task, profile):
    env = _env(task, profile)
    rows = _trace(env, ["(((", "(pick-up cloth kitchen)"])
    assert rows == [((), None, (), True, False), ((), None, (), True, True)]
    assert env.outcome == "early_stop"
    assert not any(t.constraints_met for t in env.turns)


def test_refine_protocol_feeds_the_validator_back_without_stalling(task, profile):
    env = _env(task, profile, protocol="refine")
    rows = _trace(env, ["(move kitchen hall)", "(move kitchen hall)", PLAN_VACUUM,
                        PLAN_CLOTH])
    assert rows == [((), None, (), False, False), ((), None, (), False, False),
                    (("w1",), "world", (), False, False), ((), None, (), False, True)]
    assert env.outcome == "success"
    with pytest.raises(ValueError, match="protocol"):
        _env(task, profile, protocol="lenient")


def test_max_turns_and_bad_input_are_recorded_turns(task, profile):
    env = _env(task, profile, max_turns=5, protocol="refine")
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
    assert fb["hidden_violations"] == 1              # u1 on the prefix, withheld


def test_feedback_json_flags_repeats(task, profile):
    env = _env(task, profile)
    env.step(PLAN_VACUUM)
    _, _, info = env.step(PLAN_VACUUM)
    assert [r["id"] for r in info["feedback"]["repeated"]] == ["w1"]
    assert info["revealed"] == ["w1"]


def test_defaults_are_the_papers(task, profile):
    env = _env(task, profile)
    assert (env.max_turns, env.patience, env.protocol) == (20, 2, "paper")
