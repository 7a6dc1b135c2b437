"""Every constraint kind: a plan that violates exactly it and one that satisfies it; the
compiled task agrees with the checker; profiles load with located errors."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from planning_core.validate import Validator, Verdict
from planning_core.validators.adaptive.check import ConstraintChecker
from planning_core.validators.adaptive.compile import check_profile, constrained_task, \
    prove_solvable
from planning_core.validators.adaptive.profile import ProfileError, ProfileUnsolvable, \
    loads_profile

from tests.adaptive.conftest import PLAN_CLOTH, PLAN_SPONGE, PLAN_VACUUM, profile_json

# kind -> (constraint id, violating plan, satisfying plan)
CASES = {
    "object_unavailable": ("w1", PLAN_VACUUM, PLAN_SPONGE),
    "limited_use": ("w2", PLAN_SPONGE, PLAN_VACUUM),
    "action_unusable": ("w3", PLAN_SPONGE, PLAN_VACUUM),
    "avoid_attribute": ("u1", PLAN_VACUUM, PLAN_SPONGE),
    "avoid_attribute_use": ("u5", PLAN_VACUUM, PLAN_SPONGE),
    "order": ("u2", PLAN_VACUUM, PLAN_CLOTH),
    "avoid_fact": ("u3", PLAN_SPONGE, PLAN_VACUUM),
    "at_most_once": ("u4", PLAN_SPONGE, PLAN_VACUUM),
}


def _one(profile, cid):
    c = profile.constraint(cid)
    return replace(profile, tiers=()), (c,)


@pytest.mark.parametrize("kind", sorted(CASES))
def test_kind_violated_and_satisfied(kind, task, profile):
    cid, bad, good = CASES[kind]
    assert profile.constraint(cid).kind == kind
    checker = ConstraintChecker(*task, profile, profile.constraints)
    found = checker.check(bad)
    assert found.solves_task and cid in found.violated
    assert cid not in checker.check(good).violated
    # the constraint alone: the bad plan violates exactly it, the good one nothing
    alone = ConstraintChecker(*task, profile, (profile.constraint(cid),))
    assert alone.check(bad).violated == (cid,)
    assert alone.check(good).violated == ()


@pytest.mark.parametrize("kind", sorted(CASES))
def test_compiled_task_agrees_with_checker(kind, task, profile):
    """The PDDL the solver gets rejects the violating plan and accepts the other."""
    cid, bad, good = CASES[kind]
    dom, prob = constrained_task(*task, profile, (profile.constraint(cid),))
    validator = Validator(dom, prob)
    assert not validator.validate(bad).valid
    assert validator.validate(good).valid


def test_nl_text_and_formal_forms(profile):
    w2 = profile.constraint("w2")
    assert w2.formal == "(at-most 1 (uses sponge))"
    assert "at most once" in w2.text
    assert profile.constraint("w1").text.startswith("The vacuum is not available")
    assert "noisy" in profile.constraint("u1").text
    u5 = profile.constraint("u5")
    assert u5.formal == "(avoid-use noisy)" and u5.type == "user" and u5.on_steps
    assert "rather not use anything noisy" in u5.text


def test_attribute_use_is_judged_on_steps_that_cannot_execute(task, profile):
    checker = ConstraintChecker(*task, profile, (profile.constraint("u5"),))
    # step 1 fails (the robot is not in the hall); step 2 names the noisy vacuum
    found = checker.check("(pick-up cloth hall)\n(put-down vacuum garage)")
    assert not found.executable and found.violated == ("u5",)
    assert found.violations[0].step == 2 and "which is noisy" in found.violations[0].detail


def test_an_undeclared_attribute_is_refused(task):
    from tests.adaptive.conftest import CONSTRAINTS
    data = profile_json(constraints=CONSTRAINTS + [
        {"id": "u6", "kind": "avoid_attribute_use", "attribute": "shiny"}])
    with pytest.raises(ProfileError, match=r"constraints\[8\]\.attribute: .*'shiny'"):
        check_profile(*task, loads_profile(json.dumps(data), "p.json"))


def test_profile_round_trip(profile):
    again = loads_profile(json.dumps(profile.to_json()), "again.json")
    assert again.constraints == profile.constraints and again.tiers == profile.tiers


def _load(data, text=None):
    return loads_profile(text if text is not None else json.dumps(data), "p.json")


def test_located_errors(task):
    with pytest.raises(ProfileError, match=r"p\.json:2:1: not JSON"):
        _load(None, '{"format": 1,\n]')
    bad_kind = profile_json(constraints=[{"id": "x", "kind": "teleport"}])
    with pytest.raises(ProfileError, match=r"constraints\[0\]: unknown kind 'teleport'"):
        _load(bad_kind)
    missing = profile_json(constraints=[{"id": "x", "kind": "limited_use", "object": "mop"}])
    with pytest.raises(ProfileError, match=r"constraints\[0\]: missing required field 'limit'"):
        _load(missing)
    unknown_tier = profile_json(tiers=[{"name": "t", "constraints": ["nope"]}])
    with pytest.raises(ProfileError, match=r"tiers\[0\]\.constraints\[0\]: unknown constraint"):
        _load(unknown_tier)
    with pytest.raises(ProfileError, match=r"base_plan: must be a list of plan steps"):
        _load(dict(profile_json(), base_plan="(move kitchen hall)"))
    with pytest.raises(ProfileError, match=r"seed: 'seed' must be an integer"):
        _load(dict(profile_json(), seed="0"))
    unknown_obj = _load(profile_json(constraints=[
        {"id": "x", "kind": "object_unavailable", "object": "hammer"}], tiers=[
        {"name": "t", "constraints": ["x"]}]))
    with pytest.raises(ProfileError, match=r"constraints\[0\]\.object: the task has no object"):
        check_profile(*task, unknown_obj)
    bad_formal = _load(profile_json(constraints=[
        {"id": "x", "kind": "avoid_fact", "fact": "(shiny x)",
         "formal": "(always (not (shiny window)))"}], tiers=[{"name": "t", "constraints": ["x"]}]))
    with pytest.raises(ProfileError, match=r"constraints\[0\]\.formal: .*shiny.*column 15"):
        check_profile(*task, bad_formal)
    wrong_op = _load(profile_json(constraints=[
        {"id": "x", "kind": "order", "first": "a", "then": "b",
         "formal": "(always (not (robot-at hall)))"}], tiers=[{"name": "t", "constraints": ["x"]}]))
    with pytest.raises(ProfileError, match=r"written with \(sometime-before \.\.\.\)"):
        check_profile(*task, wrong_op)
    syntax = _load(profile_json(constraints=[
        {"id": "x", "kind": "avoid_fact", "fact": "f", "formal": "(always (not (robot-at hall)"}],
        tiers=[{"name": "t", "constraints": ["x"]}]))
    with pytest.raises(ProfileError, match=r"constraints\[0\]\.formal"):
        check_profile(*task, syntax)


def test_unsolvable_profile_refused_with_proof(task):
    data = profile_json(tiers=[{"name": "t", "constraints": ["w1", "w3", "u3"]}])
    profile = _load(data)
    with pytest.raises(ProfileUnsolvable) as err:
        prove_solvable(*task, profile, "t")
    assert err.value.proof["status"] == "unsolvable"
    assert err.value.proof["reason"]


def test_solvable_tier_plan_satisfies_it(task):
    profile = _load(profile_json())
    result = prove_solvable(*task, profile, "main")
    check = ConstraintChecker(*task, profile, profile.tier_constraints("main"))
    found = check.check("\n".join(result.plan))
    assert found.solves_task and not found.violations


def test_malformed_plans_are_checked_not_raised(task, profile):
    checker = ConstraintChecker(*task, profile, profile.constraints)
    for text in ("", "(((", "(fly kitchen)", "(pick-up hammer kitchen)", "(move kitchen)"):
        found = checker.check(text)
        assert not found.solves_task
    prefix = checker.check("(pick-up vacuum kitchen)\n(clean vacuum floor kitchen)")
    assert prefix.report.verdict is Verdict.UNKNOWN_OBJECT and prefix.executed == 1
    assert set(prefix.violated) == {"w1", "u1", "u5"}


def test_a_long_plan_of_failing_steps_is_judged_in_one_pass(task, profile):
    """5,000 steps that all fail: every one is skipped in the described trajectory (one
    pass, not a validation per skipped step) and the world constraint is still found."""
    checker = ConstraintChecker(*task, profile, profile.constraints)
    plan = "\n".join(["(clean vacuum window kitchen)"] * 5000)
    found = checker.check(plan)
    assert len(found.skipped) == 5000 and found.executed == 0
    assert set(found.violated) == {"w1", "u5"}          # the vacuum named at step 1


def test_unreadable_lines_do_not_hide_the_readable_steps(task, profile):
    checker = ConstraintChecker(*task, profile, profile.constraints)
    found = checker.check("(pick-up vacuum kitchen)\n)))(\n(clean vacuum window kitchen)")
    assert not found.readable and not found.executable
    assert {"w1", "u1", "u5"} <= set(found.violated)    # judged on the readable steps
