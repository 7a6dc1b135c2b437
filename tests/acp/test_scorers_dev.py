"""The scorers on the 320 dev questions of ACPBench Hard (../shared/data/acpbench_hard).

* every gold answer built from the stored data scores 1 -- except the nine whose stored
  None is refuted by a proof (floor-tile reach: relaxed-unreachable atoms; grid-visit-all
  land: landmarks); trusting the stored None (the dataset's verdict) all 320 score 1;
* four constructed wrong answers per question all score 0;
* the stored right answers of reach and land are proved again by computation, with the
  stored sets hidden.
"""
from __future__ import annotations

import dataclasses
import json

import pytest

from planning_core.validators.acp.gold import gold_answer
from planning_core.validators.acp.perturb import perturbations
from planning_core.validators.acp.records import TASKS, Question
from planning_core.validators.acp.scoring import AnswerScorer

#: Dev questions whose stored None is refuted by computation, with the proof's first atom.
REFUTED_GOLD = {
    ("reach", "-8682376828094741291"): "(clear tile_4)",
    ("reach", "7344892383778863426"): "(clear tile_14)",
    ("reach", "2064180602739641629"): "(clear tile_1)",
    ("reach", "-2134372784773760055"): "(clear tile_10)",
    ("land", "374220601309851534"): "(at-robot loc-x2-y1)",
    ("land", "-3519325945012220404"): "(at-robot loc-x1-y0)",
    ("land", "-6363950698238859515"): "(at-robot loc-x0-y0)",
    ("land", "1051296040055604884"): "(at-robot loc-x0-y1)",
    ("land", "2769321894672039299"): "(at-robot loc-x1-y2)",
}


def dev_questions(shared_data, task: str) -> list[Question]:
    rows = json.loads((shared_data / "acpbench_hard" / task / "dev.gen.json").read_text())
    return [Question.from_record(r) for r in rows]


@pytest.fixture(scope="module")
def scorer() -> AnswerScorer:
    return AnswerScorer(time_limit=10)


@pytest.mark.parametrize("task", TASKS)
def test_gold_answers_score_one(shared_data, scorer, task):
    trusting = AnswerScorer(time_limit=10, cache=scorer.cache, trust_stored_none=True)
    for q in dev_questions(shared_data, task):
        gold = gold_answer(q, scorer.cache)
        assert trusting(q, gold).value == 1, (q.id, gold)
        s = scorer(q, gold)
        witness = REFUTED_GOLD.get((task, q.id))
        if witness is None:
            assert s.value == 1, (q.id, gold, s)
        else:
            assert gold == "None" and s.value == 0 and witness in s.reason, (q.id, s)


@pytest.mark.parametrize("task", TASKS)
def test_constructed_wrong_answers_score_zero(shared_data, scorer, task):
    kinds = set()
    for q in dev_questions(shared_data, task):
        made = perturbations(q, scorer.context(q).info)
        assert len(made) == 4, (q.id, made)
        for p in made:
            kinds.add(p.kind)
            s = scorer(q, p.response)
            assert s.value == 0, (q.id, p, s)
    assert len(kinds) >= 4


def test_stored_unreachable_atoms_are_proved_again(shared_data, scorer):
    for q in dev_questions(shared_data, "reach"):
        hidden = dataclasses.replace(q, answer=[])
        for atom in q.answer:
            s = scorer(hidden, f"({atom})")
            assert s.value == 1 and s.evidence != "stored-yes", (q.id, atom, s)


def test_stored_landmarks_are_proved_again(shared_data, scorer):
    for q in dev_questions(shared_data, "land"):
        hidden = dataclasses.replace(q, answer={"yes": [], "no": []})
        for atom in q.answer["yes"]:
            s = scorer(hidden, atom)
            assert (s.value, s.evidence) == (1, "landmark-test"), (q.id, atom, s)


def test_stored_next_actions_agree_with_h_star(shared_data, scorer):
    """Stored yes/no of nexta, recomputed from h* (states with h* <= 6, to stay fast)."""
    checked = 0
    for q in dev_questions(shared_data, "nexta"):
        if int(q.answer["opt"]) > 6:
            continue
        hidden = dataclasses.replace(q, answer={"yes": [], "no": [], "maybe": []})
        for lst, value in (("yes", 1), ("no", 0)):
            for action in q.answer[lst]:
                s = scorer(hidden, action)
                assert (s.value, s.evidence) == (value, "h-star"), (q.id, action, s)
                checked += 1
    assert checked > 40


def test_app_stored_sets_are_sound_and_the_shortcut_agrees_with_computation(shared_data,
                                                                             scorer):
    """app decides from the stored applicable set (``stored-set``) and lifted checks of one
    action (``lifted-check``); both must give the computed verdict on every dev question.
    The stored set equals the computed one on every question (what makes ``stored-set``
    sound), and gold, the four wrong answers and a None answer get the verdict that the
    comparison with the computed set gives."""
    from planning_core.validators.acp.problem import atom_key
    from planning_core.validators.acp.answers.parsers import ANSWER_PARSERS

    kinds = set()
    for q in dev_questions(shared_data, "app"):
        info = scorer.context(q).info
        truth = info.applicable_names()
        assert {atom_key(a) for a in ANSWER_PARSERS["app"](", ".join(q.answer))} == truth, q.id
        responses = [gold_answer(q, scorer.cache), "None",
                     *(p.response for p in perturbations(q, info))]
        for response in responses:
            s = scorer(q, response)
            computed = int({atom_key(a) for a in ANSWER_PARSERS["app"](response)} == truth)
            assert s.value == computed and s.evidence != "computed-set", (q.id, response, s)
            kinds.add(s.evidence)
    assert kinds == {"stored-set", "lifted-check"}


def test_prog_stored_effects_are_sound_and_the_shortcut_agrees_with_computation(shared_data,
                                                                                scorer):
    """prog takes an answer equal to the stored effects as right (``stored-set``); on every
    dev question the stored effects equal the computed ones, and gold and the four wrong
    answers get the verdict that the comparison with the computed effects gives."""
    from planning_core.validators.acp.answers.parsers import ANSWER_PARSERS
    from planning_core.validators.acp.problem import atom_key
    from planning_core.validators.acp.question_text import (effects_of, prog_action,
                                                            stored_effects)

    kinds = set()
    for q in dev_questions(shared_data, "prog"):
        info = scorer.context(q).info
        task = info.task
        truth = effects_of(task, task.init, prog_action(q, task))
        assert stored_effects(q) == truth, q.id
        for response in [gold_answer(q, scorer.cache),
                         *(p.response for p in perturbations(q, info))]:
            pos, neg = ANSWER_PARSERS["prog"](response)
            computed = int(({atom_key(a) for a in pos}, {atom_key(a) for a in neg}) == truth)
            s = scorer(q, response)
            assert s.value == computed, (q.id, response, s)
            kinds.add(s.evidence)
    assert "stored-set" in kinds and kinds <= {"stored-set", "simulation", "computed-set"}


def test_prog_action_found_without_grounding_is_the_ground_tasks(shared_data, scorer):
    """The lifted search for a prog question's action (simulating the actions over the
    objects it mentions) picks the action and effects that the ground task gives."""
    from planning_core.validators.acp.question_text import effects_of, prog_action
    from planning_core.validators.acp.scorers.base import ScoreContext
    from planning_core.validators.acp.scorers.state import lifted_prog_effects

    lifted = 0
    for q in dev_questions(shared_data, "prog"):
        info = scorer.context(q).info
        found = lifted_prog_effects(q, ScoreContext(info))
        if found is None:
            continue
        task = info.task
        action = prog_action(q, task)
        assert (str(found[0]), found[1]) == (str(action), effects_of(task, task.init, action))
        lifted += 1
    assert lifted >= 35
