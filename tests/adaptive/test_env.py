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
    assert "other type" not in ep.turns[0].feedback          # withheld without a word


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


def test_an_answer_without_steps_is_no_valid_plan(task, profile):
    # an empty answer (or comments only) proposes nothing: it must not end the episode as
    # the paper's "valid plan found" and earn VPR; it stalls like any turn that discloses
    # nothing, and the agent is told it held no step
    env = _env(task, profile)
    rows = _trace(env, ["", "; nothing\n\n"])
    assert rows == [((), None, (), True, False), ((), None, (), True, True)]
    assert env.outcome == "early_stop"
    assert not any(t.constraints_met for t in env.turns)
    assert not env.episode().ends_valid
    text = env.turns[0].feedback
    assert "holds no plan steps" in text and "goal" not in text


def test_unreadable_plans_stall_and_other_non_executable_plans_are_judged(task, profile):
    env = _env(task, profile)
    rows = _trace(env, ["(((", "((("])
    assert rows == [((), None, (), True, False), ((), None, (), True, True)]
    assert env.outcome == "early_stop"
    assert "cannot be read" in env.turns[0].feedback          # the one validator word
    assert not any(t.constraints_met for t in env.turns)
    # a readable plan that cannot execute but breaks no constraint meets every constraint:
    # the paper's valid plan found (ConPass), failing the rubric (here: the task check)
    env = _env(task, profile)
    text, done, info = env.step("(pick-up cloth kitchen)")   # the cloth is in the hall
    assert done and env.outcome == "unsolved" and info["turn"].constraints_met
    assert not info["turn"].executable and info["verdict"]["failing_step"] == 1
    assert "The episode is over" in text                      # told only once it is over
    # mid-episode, executability is recorded but not told (the paper's feedback holds
    # the violations only)
    env = _env(task, profile)
    text, done, info = env.step("(pick-up cloth kitchen)\n(pick-up vacuum kitchen)")
    assert not done and info["verdict"]["failing_step"] == 1
    assert "precondition" not in text and "cannot be executed" not in text


def test_refinement_follows_only_a_failed_not_early_stopped_episode(task, profile):
    env = _env(task, profile, refine=3)
    rows = _trace(env, ["(move kitchen hall)", PLAN_VACUUM, "(move kitchen hall)",
                        PLAN_CLOTH])
    # turn 1 meets every constraint but fails the task: the standard protocol ends
    # (unsolved) and three refinement turns follow; a violation gets the standard feedback
    assert rows == [((), None, (), False, False), (("w1",), "world", (), False, False),
                    ((), None, (), False, False), ((), None, (), False, True)]
    assert env.outcome == "success"
    ep = env.episode()
    assert ep.main_outcome == "unsolved" and ep.refine == 3
    assert [t.phase for t in ep.turns] == ["main", "refine", "refine", "refine"]
    assert "refinement turn(s) follow" in ep.turns[0].feedback
    assert "does not reach the goal" in ep.turns[2].feedback  # the rubric feedback
    # refinement turns used up
    env = _env(task, profile, refine=2)
    _trace(env, ["(move kitchen hall)"] * 3)
    assert env.outcome == "refine_exhausted" and env.episode().main_outcome == "unsolved"
    # an early stop is final
    env = _env(task, profile, refine=2)
    _trace(env, [PLAN_VACUUM] * 3)
    assert env.outcome == "early_stop" and len(env.turns) == 3
    with pytest.raises(ValueError, match="refine"):
        _env(task, profile, refine=-1)


def test_max_turns_and_bad_input_are_recorded_turns(task, profile):
    env = _env(task, profile, max_turns=1, refine=4)
    answers = ["", "(((", "(fly kitchen)", "(pick-up hammer kitchen)", None]
    env.reset()
    feedback = []
    for a in answers:
        text, done, info = env.step(a)
        feedback.append(text)
    assert done and env.outcome == "refine_exhausted" and len(env.turns) == 5
    # the empty answer is no plan: the turn budget (1) ends the standard protocol
    assert env.episode().main_outcome == "max_turns"
    assert "holds no plan steps" in feedback[0] and "refinement turn(s)" in feedback[0]
    assert "cannot be read" in feedback[1]
    assert "no action 'fly'" in feedback[2]
    assert "'hammer' is neither an object" in feedback[3]
    assert "refinement turns are used up" in feedback[4]
    assert env.turns[0].stall                       # a main turn that disclosed nothing
    assert all(not t.stall and not t.revealed for t in env.turns[1:])   # refinement turns
    with pytest.raises(PlanningError, match="episode is over"):
        env.step(PLAN_CLOTH)
    env = _env(task, profile, max_turns=2)
    _trace(env, [PLAN_VACUUM, PLAN_SPONGE])
    assert env.outcome == "max_turns" and "budget of 2 turns" in env.turns[-1].feedback


def test_non_executable_plan_is_judged_on_every_step(task, profile):
    env = _env(task, profile)
    text, done, info = env.step("(pick-up vacuum kitchen)\n(clean cloth window kitchen)")
    turn = info["turn"]
    assert turn.failing_step == 2 and not turn.executable
    # w1 at step 1, u1 (the noisy vacuum held after step 1); u2 not: step 2 is skipped in
    # the described trajectory, so the window never becomes clean
    assert set(turn.violated) == {"w1", "u1"}
    assert turn.revealed == ("w1",)
    fb = info["feedback"]
    assert fb["revealed"][0]["formal"] == "(unavailable vacuum)"
    assert "hidden_violations" not in fb and "advice" not in fb
    assert info["verdict"]["withheld"] == ["u1"]


def test_hand_trace_unavailable_tool_after_the_failing_step_is_disclosed(task, profile):
    """Step 1 fails (the cloth is in the hall), step 2 takes the unavailable vacuum. Judged
    on the executed prefix (the old checker) nothing would be disclosed and two such turns
    would stop the episode; judged on the whole plan, w1 is disclosed at step 2, and u1 (the
    noisy vacuum held: step 2 applies to the initial state, step 1 being skipped) and u2
    (the window clean at step 3 before the cloth was ever held) are withheld.
    Turn 2 repeats it (one stall); turn 3 fails at step 1 again but uses the sponge twice
    later (steps 3 and 5): w2 is new, so no early stop; turn 4 is the cloth plan: success."""
    env = _env(task, profile)
    bad = "(pick-up cloth kitchen)\n(pick-up vacuum kitchen)\n(clean vacuum window kitchen)"
    sponge_twice = ("(pick-up cloth kitchen)\n(move kitchen hall)\n(pick-up sponge hall)\n"
                    "(move hall kitchen)\n(clean sponge window kitchen)")
    rows = _trace(env, [bad, bad, sponge_twice, PLAN_CLOTH])
    assert rows == [(("w1",), "world", (), False, False),
                    ((), "world", ("w1",), True, False),
                    (("w2",), "world", (), False, False),
                    ((), None, (), False, True)]
    assert env.outcome == "success"
    t1, t2, t3, _ = env.turns
    assert t1.failing_step == 1 and not t1.executable
    assert set(t1.violated) == {"w1", "u1", "u2"}
    # the feedback says what the user would say; the step is in the record
    assert t1.feedback.endswith("There is no vacuum at home.")
    assert {v.id: v.detail for v in env.checker.check(bad).violations}["w1"] == \
        "step 2 (pick-up vacuum kitchen) uses vacuum"
    assert t2.repeated == ("w1",) and "As I told you before: there is no vacuum" in \
        t2.feedback
    assert t3.failing_step == 1 and "The sponge can be used at most once." in t3.feedback
    assert {v.id: v.detail for v in env.checker.check(sponge_twice).violations}["w2"] == \
        "step 5 (clean sponge window kitchen) uses sponge for the 2nd time (limit 1)"
    # u2 (hold the cloth before the window is clean) breaks on the described trajectory of
    # turn 3 (step 1 skipped, the window cleaned with the sponge at step 5), withheld
    assert set(t3.violated) == {"w2", "u2"}
    check = env.checker.check(sponge_twice)
    assert check.skipped == (1,)
    assert {v.id: v.step for v in check.violations} == {"w2": 5, "u2": 5}


def test_withheld_violations_stay_silent_unless_hinted(task, profile):
    env = _env(task, profile)
    text, _, info = env.step(PLAN_VACUUM)            # breaks w1, u1 and u2
    assert set(info["turn"].violated) == {"w1", "u1", "u2"}
    for word in ("u1", "u2", "noisy", "cloth", "other type", "also breaks", "withheld"):
        assert word not in text, word
    assert set(info["feedback"]) == {"turn", "phase", "accepted", "revealed",
                                     "revealed_type", "repeated", "done", "outcome"}
    assert "u1" not in json.dumps(info["feedback"])
    env = _env(task, profile, hint_withheld=True)    # the old behaviour, on request
    text, _, info = env.step(PLAN_VACUUM)
    assert "other type" in text and info["feedback"]["hidden_violations"] == 2


def test_constraint_set_ablation(task, profile):
    world = _env(task, profile, constraints="world")
    assert [c.id for c in world.constraints] == ["w1", "w2"]
    user = _env(task, profile, constraints="user")
    _, _, info = user.step(PLAN_VACUUM)
    assert info["turn"].revealed == ("u1", "u2") and user.episode().world_total == 0
    with pytest.raises(ValueError, match="constraints"):
        _env(task, profile, constraints="neither")


def test_attributes_hidden_unless_shown(task, profile):
    assert "(noisy vacuum)" not in _env(task, profile).reset()
    assert "(noisy vacuum)" in _env(task, profile, show_attributes=True).reset()


def test_validator_feedback_on_request(task, profile):
    env = _env(task, profile, validator_feedback=True)
    text, _, info = env.step("(pick-up vacuum kitchen)\n(clean cloth window kitchen)")
    assert "precondition not satisfied" in text and "(holding cloth)" in text
    assert info["feedback"]["advice"]


def test_feedback_json_flags_repeats(task, profile):
    env = _env(task, profile)
    env.step(PLAN_VACUUM)
    _, _, info = env.step(PLAN_VACUUM)
    assert [r["id"] for r in info["feedback"]["repeated"]] == ["w1"]
    assert info["revealed"] == ["w1"]


def test_defaults_are_the_papers(task, profile):
    env = _env(task, profile)
    assert (env.max_turns, env.patience, env.refine, env.constraint_set) == (20, 2, 0, "both")
    assert not (env.hint_withheld or env.validator_feedback or env.show_attributes)


def test_patience_is_a_switch(task, profile):
    env = _env(task, profile, patience=3)
    _trace(env, [PLAN_VACUUM] * 5)
    assert env.outcome == "early_stop" and len(env.turns) == 4


def test_a_huge_answer_is_an_unreadable_turn_and_is_not_kept_whole(task, profile):
    from planning_core.validators.adaptive.env import KEPT_CHARS, MAX_PLAN_CHARS

    env = _env(task, profile)
    huge = "x" * (MAX_PLAN_CHARS + 1)
    text, done, info = env.step(huge)
    turn = info["turn"]
    assert not turn.readable and turn.stall and not done
    assert "too long" in text and len(text) < 1_000
    assert len(turn.plan) < KEPT_CHARS + 100                  # the record stays small
    assert len(json.dumps(env.episode().to_json())) < 10_000
    # under the limit, a long unreadable token is quoted in the feedback, but cut short
    env = _env(task, profile)
    text, _, info = env.step("y" * 100_000)
    assert "cannot be read" in text and len(text) < 1_000
    assert len(info["verdict"]["message"]) < 1_000
    # a plan right at a (small) limit is judged as usual
    env = _env(task, profile, max_plan_chars=len(PLAN_CLOTH))
    _, done, info = env.step(PLAN_CLOTH)
    assert done and env.outcome == "success"


def test_a_plan_over_the_step_limit_is_unreadable_and_one_at_it_is_judged(task, profile):
    from planning_core.validators.adaptive.env import MAX_PLAN_STEPS

    env = _env(task, profile)
    over = "(pick-up vacuum kitchen)\n" * (MAX_PLAN_STEPS + 1)
    text, done, info = env.step(over)
    assert not info["turn"].readable and info["turn"].stall and not info["turn"].violated
    assert f"{MAX_PLAN_STEPS + 1} steps, limit {MAX_PLAN_STEPS}" in text
    assert len(info["turn"].plan) < 3_000
    env = _env(task, profile, max_plan_steps=4)        # comments and blanks are no steps
    _, done, info = env.step("; a comment\n\n" + PLAN_CLOTH)
    assert done and env.outcome == "success"
    env = _env(task, profile)
    _, _, info = env.step("(pick-up vacuum kitchen)\n" * MAX_PLAN_STEPS)   # at the limit
    assert info["turn"].readable and info["turn"].revealed == ("w1",)
