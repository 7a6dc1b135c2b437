"""Generate, edit and revise with a scripted model; prompts follow the paper's structure."""
from __future__ import annotations

import pytest

from cope.minicope import DOMAIN, PROBLEM, write_minicope
from formalizations.pddl_answers import (answer, cosmetic, inject_keyword_typo,
                                         inject_undeclared_predicate)
from planning_core.validators.cope.dataset import load_dataset
from planning_core.validators.cope.results import EvalContext
from planning_core.validators.formalizations.loop import run_pddl_formalizer
from planning_core.validators.formalizations.prompts import TEMPLATES, render, template
from planning_core.validators.models.base import Model, ScriptedModel, ScriptExhausted


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    pairs = load_dataset(write_minicope(tmp_path_factory.mktemp("cope")))
    return {p.key[1:]: p for p in pairs}


@pytest.fixture
def context():
    return EvalContext(time_limit=20)


def goal_pair(mini):
    return mini[("goal", "p01", "constraint2")]


def base(mini):
    return mini[("baseline", "p01", "constraint1")]


def test_templates_render_every_field(mini):
    pair = goal_pair(mini)
    for name in TEMPLATES:
        prompt = render(name, pair, domain_file="DOMAIN-TEXT", problem_file="PROBLEM-TEXT",
                        error="ERROR-TEXT", program="PROGRAM", formula="FORMULA")
        assert "$" not in prompt, name
    generate = render("pddl_generate", pair)
    order = [generate.index(part) for part in (pair.domain_description,
                                               pair.problem_description,
                                               pair.constraint_text, "(stack block1 block2)",
                                               '"domain file"')]
    assert order == sorted(order)
    assert pair.constraint_text not in render("pddl_edit_original", pair)
    revise = render("pddl_revise", pair, domain_file="<DOM>", problem_file="<PROB>",
                    error="domain.pddl:1:2: syntax: oops")
    assert revise.index("1:2: syntax") < revise.index("<DOM>") < revise.index("<PROB>")
    planner = render("planner", pair)
    assert '{"plan": [' in planner and "(pickup block)" in planner


def test_a_missing_value_is_an_error_not_a_hole(mini):
    with pytest.raises(KeyError):
        template("pddl_revise").substitute({"error": "x"})
    with pytest.raises(KeyError):
        template("no-such-template")


def test_scripted_model_records_prompts_and_runs_out():
    model = ScriptedModel(["one"])
    assert isinstance(model, Model)
    assert model("hello") == "one" and model.prompts == ["hello"]
    with pytest.raises(ScriptExhausted):
        model("again")


def test_generate_without_revision(mini, context):
    model = ScriptedModel([answer(cosmetic(DOMAIN), cosmetic(PROBLEM))])
    trajectory = run_pddl_formalizer(model, base(mini), context=context)
    assert (trajectory.final.outcome, trajectory.revisions, len(model.prompts)) == \
        ("correct", 0, 1)
    assert model.prompts[0] == render("pddl_generate", base(mini))


@pytest.mark.parametrize("inject, kind", [(inject_keyword_typo, "syntax"),
                                          (inject_undeclared_predicate, "semantic")])
def test_revision_loop_recovers_when_the_model_applies_the_fix(mini, context, inject, kind):
    broken, (line, column) = inject(DOMAIN)
    expected = f"domain.pddl:{line}:{column}: {kind}:"

    def script(prompt: str, turn: int) -> str:
        if turn == 0:
            return answer(broken, PROBLEM)
        # the fix is applied only if the revision prompt shows the located error and the files
        assert expected in prompt and broken in prompt and PROBLEM.strip() in prompt
        return answer(DOMAIN, PROBLEM, "json")

    model = ScriptedModel(script)
    trajectory = run_pddl_formalizer(model, base(mini), revisions=3, context=context)
    outcomes = [a.judgement.outcome for a in trajectory.attempts]
    assert outcomes == [f"{kind}_error", "correct"]
    assert trajectory.revisions == 1 and trajectory.final.correct
    assert [a.template for a in trajectory.attempts] == ["pddl_generate", "pddl_revise"]


def test_revision_stops_after_k_tries(mini, context):
    broken, _ = inject_keyword_typo(DOMAIN)
    model = ScriptedModel(lambda prompt, turn: answer(broken, PROBLEM))
    trajectory = run_pddl_formalizer(model, base(mini), revisions=2, context=context)
    assert len(model.prompts) == 3 and trajectory.revisions == 2
    assert trajectory.final.outcome == "syntax_error"


def test_no_revision_on_outcomes_that_need_the_ground_truth(mini, context):
    lax = DOMAIN.replace("(and (clear ?underob) (holding ?ob))", "(holding ?ob)")
    problem = PROBLEM.replace("(clear c) (clear b)", "(clear b)")
    model = ScriptedModel([answer(lax, problem)])
    trajectory = run_pddl_formalizer(model, base(mini), revisions=3, context=context)
    assert trajectory.final.outcome == "plan_invalid" and len(model.prompts) == 1
    with pytest.raises(ValueError, match="without the ground truth"):
        run_pddl_formalizer(model, base(mini), revise_on=frozenset({"plan_invalid"}))


def test_edit_mode_shows_the_model_its_own_unconstrained_files(mini, context):
    pair = goal_pair(mini)
    own_domain = cosmetic(DOMAIN)
    constrained = PROBLEM.replace("(:objects a b c)", "(:objects a b c d)") \
        .replace("(on b c))", "(on b c) (on-table d))")

    def script(prompt: str, turn: int) -> str:
        if turn == 0:
            assert pair.constraint_text not in prompt
            return answer(own_domain, PROBLEM)
        shown = own_domain[own_domain.index("(DEFINE"):].strip()   # the form, as extracted
        assert shown in prompt and pair.constraint_text in prompt
        return answer(DOMAIN, constrained)

    model = ScriptedModel(script)
    trajectory = run_pddl_formalizer(model, pair, mode="edit", context=context)
    assert [a.template for a in trajectory.attempts] == ["pddl_edit_original", "pddl_edit"]
    assert trajectory.attempts[0].judgement is None
    assert (trajectory.final.outcome, trajectory.final.correct) == ("correct", True)
    assert trajectory.to_json()["outcome"] == "correct"


def test_bad_arguments(mini):
    with pytest.raises(ValueError):
        run_pddl_formalizer(ScriptedModel([]), base(mini), mode="rewrite")
    with pytest.raises(ValueError):
        run_pddl_formalizer(ScriptedModel([]), base(mini), revisions=-1)
