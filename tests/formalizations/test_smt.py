"""The SMT pipeline: program extraction, reading printed plans, and verdicts on CoPE pairs
from z3 programs that encode the ground truth (correct and deliberately broken)."""
from __future__ import annotations

import json
import textwrap
from dataclasses import replace

import pytest
from conftest import require_shared

from formalizations import smt_responses
from formalizations.sandbox_helpers import LIMITS, needs_namespaces
from formalizations.smt_programs import STYLES, bounded_program
from planning_core.validators.cope.dataset import ActionHead, Pair, load_dataset
from planning_core.validators.cope.results import EvalContext, EvalResult
from planning_core.validators.formalizations.smt import SMT_OUTCOMES, evaluate_smt, evaluate_smt_result, \
    evaluate_smt_row, extract_program, plan_from_output

SMT_TEST_LIMITS = replace(LIMITS, cpu_s=20, wall_s=40.0, memory_mb=1024)

# small pairs of both datasets and all five categories; "empty" = goal true initially
PAIRS = [
    ("BlocksWorld-100", "baseline", "p86", "constraint86"),
    ("BlocksWorld-100", "initial", "p86", "constraint6"),
    ("BlocksWorld-100", "baseline", "p20", "constraint20"),
    ("BlocksWorld-100", "initial", "p87", "constraint7"),
    ("BlocksWorld-100", "action", "p38", "constraint22"),
    ("BlocksWorld-100", "baseline", "p01", "constraint1"),
    ("CoinCollector-100", "baseline", "p01", "constraint1"),
    ("CoinCollector-100", "goal", "p61", "constraint1"),
    ("CoinCollector-100", "action", "p02", "constraint2"),
    ("CoinCollector-100", "action", "p23", "constraint16"),
    ("CoinCollector-100", "action", "p42", "constraint35"),
    ("CoinCollector-100", "state", "p04", "constraint2"),
    ("CoinCollector-100", "initial", "p83", "constraint3"),
]
UNSOLVABLE = ("CoinCollector-100", "action", "p33", "constraint26")

pytestmark = needs_namespaces


@pytest.fixture(scope="module")
def pairs():
    return {pair.key: pair for pair in load_dataset(require_shared() / "cope")}


@pytest.fixture(scope="module")
def context():
    """The evaluation context (ground truth and label oracle) shared by the tests."""
    return EvalContext()


def _program(pairs, context, key, **options):
    truth = context.truth(pairs[key])
    return bounded_program(truth.domain, truth.problem, **options)


# ------------------------------------------------------------------ extraction

def test_extract_program_prefers_the_longest_z3_block():
    response = textwrap.dedent("""\
        First a sketch:
        ```python
        x = 1
        ```
        The full program:
        ```python
        from z3 import *
        print("(noop)")
        ```
        And a shorter z3 reminder:
        ```
        import z3
        ```
        """)
    program, found = extract_program(response)
    assert program == 'from z3 import *\nprint("(noop)")\n'
    assert found == "fenced block 1 of 2"
    assert extract_program("```\nimport z3\n```\n")[0] == "import z3\n"
    assert extract_program("```py\nprint(1)\n```")[0] == "print(1)\n"
    plain = "import z3\nprint('hi')\n"
    assert extract_program(plain) == (plain, "whole response")
    assert extract_program("```json\n[1]\n```")[1] == "whole response"


# ------------------------------------------------------------------ reading output

HEADS = (ActionHead("pickup", ("ob",)), ActionHead("stack", ("ob", "underob")),
         ActionHead("noop", ()))


def _heads_pair() -> Pair:
    return Pair("Test", "baseline", "p01", "constraint1", "", None, None, None, None, None,
                HEADS, True, ())


@pytest.mark.parametrize("stdout", [
    "sat\n(pickup b1)\n(stack b1 b2)\n(noop)\n",
    "['pickup(b1)', 'stack(b1, b2)', 'noop()']\n",
    "Plan found:\n[('pickup', 'b1'), ('stack', 'b1', 'b2'), ('noop',)]\n",
    "('pickup', 'b1')\n('stack', 'b1', 'b2')\n('noop',)\n",
    "[['pickup', 'b1'], ['stack', 'b1', 'b2'], ['noop']]\n",
    "0 pickup b1\n1 stack b1 b2\n2 noop\n",
    "Step 0: pickup(b1)\nStep 1: stack(b1, b2)\nStep 2: noop()\n",
    "PICKUP B1\nStack(B1, B2)\nnoop\n",
    "['pickup', 'b1']\n['stack', 'b1', 'b2']\n['noop']\n",
    "['pickup b1', 'stack b1 b2', 'noop']\n",
    "'pickup b1'\n7\n('stack', 'b1', 'b2')\n[0, 1]\n('noop',)\n",
])
def test_plan_read_from_each_output_form(stdout):
    plan = plan_from_output(stdout, _heads_pair())
    assert plan.steps == ("(pickup b1)", "(stack b1 b2)", "(noop)")


def test_output_without_plan():
    assert plan_from_output("unknown\n", _heads_pair()).steps == ()
    assert plan_from_output("[1, 2, 3]\n(7, 'x')\n", _heads_pair()).steps == ()
    assert plan_from_output("unsat\nNo plan exists.\n", _heads_pair()).no_plan_claim
    assert plan_from_output("['noop', 'noop']", _heads_pair()).steps == ("(noop)", "(noop)")


# ------------------------------------------------------------------ verdicts

@pytest.mark.parametrize("index", range(len(PAIRS)))
def test_encoded_ground_truth_plans_are_valid(pairs, context, index):
    key = PAIRS[index]
    style = STYLES[index % len(STYLES)]
    result = evaluate_smt(_program(pairs, context, key, style=style), pairs[key],
                          limits=SMT_TEST_LIMITS, context=context)
    assert result.outcome == "correct", result.detail
    assert result.correct and result.row()["correct"] is True
    assert len(result.plan) == result.detail["length"]
    if key[2] == "p01" and key[0].startswith("Blocks"):
        assert result.plan == () and result.detail["plan"] == []   # goal holds initially
    else:
        assert result.plan


def test_unsolvable_pair_with_no_plan_claim_is_correct(pairs, context):
    pair = pairs[UNSOLVABLE]
    assert pair.plan_exists is False
    result = evaluate_smt(_program(pairs, context, UNSOLVABLE, max_steps=6), pair,
                          limits=SMT_TEST_LIMITS, context=context)
    assert (result.outcome, result.correct) == ("correct", True)
    assert result.detail["no_plan_claim"] is True and result.detail["plan_exists"] is False
    assert result.detail["label_doubt"] is None   # our solver agrees: no plan


def test_plan_for_unsolvable_pair_is_plan_given(pairs, context):
    pair = pairs[UNSOLVABLE]
    result = evaluate_smt_result(pair, "```python\nprint('(move kitchen pantry north)')\n```",
                                 context, limits=SMT_TEST_LIMITS)
    assert isinstance(result, EvalResult) and result.key == UNSOLVABLE
    assert (result.outcome, result.correct) == ("plan_given", False)
    assert result.detail["valid"] is False and result.detail["label_doubt"] is None


@pytest.mark.parametrize("key, dropped, verdict_step", [
    (("BlocksWorld-100", "baseline", "p20", "constraint20"), "holding", 1),
    (("CoinCollector-100", "baseline", "p01", "constraint1"), "at", 1),
    (("CoinCollector-100", "action", "p02", "constraint2"), "at", None),
])
def test_broken_encoding_is_rejected_at_its_failing_step(pairs, context, key, dropped,
                                                         verdict_step):
    """Forgetting a precondition lets the encoding find a plan shorter than the shortest
    valid one, which the validator must therefore reject, naming the failing step."""
    correct = evaluate_smt(_program(pairs, context, key), pairs[key],
                           limits=SMT_TEST_LIMITS, context=context)
    broken = evaluate_smt(_program(pairs, context, key, drop_precondition=dropped,
                                   style="calls"),
                          pairs[key], limits=SMT_TEST_LIMITS, context=context)
    assert correct.outcome == "correct"
    assert len(broken.plan) < len(correct.plan)
    assert (broken.outcome, broken.correct) == ("plan_invalid", False)
    detail = broken.detail
    assert detail["verdict"] == "precondition_failed"
    assert isinstance(detail["step"], int) and 1 <= detail["step"] <= len(broken.plan)
    assert detail["action"] == broken.plan[detail["step"] - 1]
    assert any(f"({dropped} " in cond or cond == f"({dropped})"
               for cond in detail["unsatisfied"])
    if verdict_step is not None:
        assert detail["step"] == verdict_step


def test_model_style_blocksworld_program(pairs, context):
    key = ("BlocksWorld-100", "baseline", "p20", "constraint20")
    result = evaluate_smt(smt_responses.BLOCKSWORLD_P20, pairs[key], limits=SMT_TEST_LIMITS,
                          context=context)
    assert result.outcome == "correct", result.detail
    assert result.plan == ("(unstack block1 block2)", "(putdown block1)", "(pickup block2)",
                           "(stack block2 block3)", "(pickup block1)", "(stack block1 block2)")
    assert result.detail["program"] == "fenced block 1 of 1"


def test_model_style_coincollector_program_and_its_broken_twin(pairs, context):
    key = ("CoinCollector-100", "action", "p02", "constraint2")
    good = evaluate_smt(smt_responses.COINCOLLECTOR_P02, pairs[key], limits=SMT_TEST_LIMITS,
                        context=context)
    assert good.outcome == "correct", good.detail
    assert len(good.plan) == 5 and good.plan[-1] == "(take coin kitchen)"
    bad = evaluate_smt(smt_responses.COINCOLLECTOR_P02_BROKEN, pairs[key],
                       limits=SMT_TEST_LIMITS, context=context)
    assert bad.outcome == "plan_invalid"
    assert bad.plan == ("(take coin kitchen)",)
    assert (bad.detail["step"], bad.detail["unsatisfied"]) == (1, ["(visited-room-twice)"])


# ------------------------------------------------------------------ failures as outcomes

FAILING = {
    "crashed": ("from z3 import *\nx = Int('x')\nprint(x.as_long())\n", {}),
    "timed_out": ("while True:\n    pass\n", {"cpu_s": 1, "wall_s": 2.0}),
    "memory_exceeded": ("blob = bytearray(2**40)\n", {}),
    "output_exceeded": ("while True:\n    print('(noop)' * 1000)\n", {}),
    "no_plan": ("import z3\nprint(z3.Solver().check() == z3.unknown and 'x' or 'unknown')\n",
                {}),
}


@pytest.mark.parametrize("outcome", sorted(FAILING))
def test_failures_are_outcomes_with_detail(pairs, context, outcome):
    key = ("CoinCollector-100", "baseline", "p01", "constraint1")
    program, overrides = FAILING[outcome]
    row = evaluate_smt_row(f"```python\n{program}```\n", pairs[key],
                           limits=replace(SMT_TEST_LIMITS, **overrides), context=context)
    assert set(row) == {"correct", "outcome", "detail"}
    assert row["outcome"] == outcome and row["correct"] is False
    assert row["outcome"] in SMT_OUTCOMES
    json.dumps(row)
    if outcome == "crashed":
        assert "Z3Exception" in row["detail"]["stderr"] or "AttributeError" in \
            row["detail"]["stderr"]
        assert len(row["detail"]["stderr"].splitlines()) <= 15
    if outcome == "timed_out":
        assert row["detail"]["limit"] in ("cpu", "wall")
    if outcome == "no_plan":
        assert row["detail"]["no_plan_claim"] is False


def test_no_plan_claim_on_solvable_pair_is_wrong(pairs, context):
    key = ("CoinCollector-100", "baseline", "p01", "constraint1")
    result = evaluate_smt("```python\nprint('unsat')\n```", pairs[key],
                          limits=SMT_TEST_LIMITS, context=context)
    assert (result.outcome, result.correct) == ("no_plan", False)
    assert result.detail["no_plan_claim"] is True and result.detail["label_doubt"] is None
    assert evaluate_smt("no code here, sorry", pairs[key], limits=SMT_TEST_LIMITS,
                        context=context).outcome == "crashed"   # prose is not Python
    assert evaluate_smt("```python\n\n```", pairs[key], context=context).outcome == "no_plan"


def test_unreadable_ground_truth(tmp_path):
    bad = tmp_path / "df.pddl"
    bad.write_text("(define (domain broken) (:predicates (p)")
    pair = Pair("Test", "baseline", "p01", "constraint1", "", bad, bad, None, None, None,
                HEADS, True, ())
    result = evaluate_smt("print('(noop)')", pair, context=EvalContext())
    assert result.outcome == "ground_truth_error" and result.detail["ground_truth_issues"]
