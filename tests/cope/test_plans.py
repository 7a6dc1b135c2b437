"""Plan normalisation: every answer style, each rewrite rule, no-plan claims, round trips."""
from __future__ import annotations

import json
import re

import pytest
from conftest import require_shared

from planning_core.validators.cope.dataset import ActionHead, load_dataset, pair_objects
from planning_core.validators.cope.extract import no_plan_phrases
from planning_core.validators.cope.naming import ObjectIndex, description_aliases, type_hint
from planning_core.validators.cope.plans import NormalizedPlan, normalize_plan

BW = (ActionHead("pickup", ("block",)), ActionHead("putdown", ("block",)),
      ActionHead("stack", ("block1", "block2")), ActionHead("unstack", ("block1", "block2")))
BW_OBJECTS = ("block1", "block2", "block3", "block10")
CC = (ActionHead("move", ("room1", "room2", "direction")), ActionHead("take", ("item", "room")))
CC_OBJECTS = {"kitchen": "room", "pantry": "room", "living_room": "room", "north": "direction",
              "south": "direction", "east": "direction", "west": "direction", "coin": "item"}
TWO = ("(pickup block1)", "(stack block1 block2)")


def rules(plan: NormalizedPlan) -> set[str]:
    return {r.rule for r in plan.rewrites}


@pytest.mark.parametrize("text", [
    '["pickup block1", "stack block1 block2"]',
    '```json\n[\n  "(pickup block1)",\n  "(stack block1 block2)"\n]\n```',
    "Plan: ['pickup block1', 'stack block1 block2']",
    '[["pickup", "block1"], ["stack", "block1", "block2"]]',
    '{"plan": [{"action": "pickup", "args": ["block1"]},'
    ' {"action": "stack", "parameters": ["block1", "block2"]}]}',
    "1. pickup block1\n2. stack block1 block2",
    "1) pickup block1\n2) stack block1 block2",
    "Step 1: pickup block1\nStep 2: stack block1 block2",
    "#1 pickup block1\n#2 stack block1 block2",
    "- pickup block1\n- stack block1 block2",
    "* **pickup** `block1`\n* **stack** `block1` `block2`",
    "\u2022 pickup block1\n\u2022 stack block1 block2",
    "(pickup block1)\n(stack block1 block2)",
    "(pickup block1) (stack block1 block2)",
    "```\n(PICKUP BLOCK1)\n(STACK BLOCK1 BLOCK2)\n```",
    "pickup(block1)\nstack(block1, block2)",
    "First do pickup(block1), then stack(block1, block2).",
    "PICK_UP BLOCK1\nSTACK BLOCK1 BLOCK2",
    "pick-up block1\nstack block1 block2",
    "pick up block1\nstack block1 block2",
    "Here is the plan:\n1. Pick up block 1 from the table.\n2. Stack block 1 on top of block 2."
    "\nThis achieves the goal.",
    "1. pickup b1\n2. stack b1 b2",
    "1. pickup 1\n2. stack 1 2",
    "1. Pick up Block 1\n2. Stack Block 1 onto Block 2",
    "Pick up block 1 and stack it on block 2.",
    "First, pick up block 1. Then stack block 1 on block 2.\n",
])
def test_blocksworld_styles(text):
    plan = normalize_plan(text, BW, BW_OBJECTS)
    assert plan.steps == TWO
    assert plan.no_plan_claim is False


@pytest.mark.parametrize(("text", "expected", "rule"), [
    ("1. pickup block1", "(pickup block1)", "strip-list-marker"),
    ("* `pickup block1`", "(pickup block1)", "strip-markup"),
    ("(PICKUP block1)", "(pickup block1)", "action-case"),
    ("(pick_up block1)", "(pickup block1)", "action-name-variant"),
    ("(pickup BLOCK1)", "(pickup block1)", "object-case"),
    ("(pickup b1)", "(pickup block1)", "object-abbreviation"),
    ("(pickup 10)", "(pickup block10)", "object-number"),
    ("(pickup block 10)", "(pickup block10)", "object-spaced"),
    ("(pickup block-1)", "(pickup block1)", "object-separator"),
    ('["pickup block1"]', "(pickup block1)", "json-item"),
    ("pickup(block=block1)", "(pickup block1)", "keyword-argument"),
    ("1. pickup block1 from the table", "(pickup block1)", "drop-filler"),
    ("1. Now pickup block1", "(pickup block1)", "drop-lead-in"),
    ("pickup block1. The arm now holds it.", "(pickup block1)", "drop-trailing-text"),
    ("1. unstack block 3 from block 1 (block 3 is clear)", "(unstack block3 block1)",
     "drop-trailing-text"),
    ("pickup(b1)", "(pickup block1)", "function-call"),
    ("Final answer: (pickup block1)", "(pickup block1)", "strip-label"),
    ("Then do (pickup block1) and wait.", "(pickup block1)", "embedded-step"),
    ('["pick up block 1 from the table"]', "(pickup block1)", "drop-filler"),
])
def test_each_rewrite_is_recorded(text, expected, rule):
    plan = normalize_plan(text, BW, BW_OBJECTS)
    assert plan.steps == (expected,)
    assert rule in rules(plan)
    assert all(r.step_index == 0 for r in plan.rewrites)


def test_rewrite_records_original_and_result():
    plan = normalize_plan("1. PICK-UP b1\n2. stack(b1, 2)", BW, BW_OBJECTS)
    assert plan.steps == TWO
    records = {(r.step_index, r.original, r.result, r.rule) for r in plan.rewrites}
    assert (0, "PICK-UP", "pickup", "action-name-variant") in records
    assert (0, "b1", "block1", "object-abbreviation") in records
    assert (1, "2", "block2", "object-number") in records
    assert (0, "1. PICK-UP b1", "PICK-UP b1", "strip-list-marker") in records
    assert normalize_plan("(pickup block1)", BW, BW_OBJECTS).rewrites == ()


def test_pronoun_and_split_are_recorded():
    plan = normalize_plan("Pick up block 1 and stack it on block 2", BW, BW_OBJECTS)
    assert plan.steps == TWO
    assert {"split-line", "resolve-pronoun"} <= rules(plan)


def test_letter_and_colour_blocks():
    letters = ("a", "b", "c")
    plan = normalize_plan("1. Unstack block A from block B\n2. Put down A\n3. pickup blockC",
                          BW, letters)
    assert plan.steps == ("(unstack a b)", "(putdown a)", "(pickup c)")
    assert "object-prefixed" in rules(plan)
    colours = ("red", "blue", "green", "yellow")
    plan = normalize_plan("- Pick up the red block\n- Stack the red block on the Blue block",
                          BW, colours)
    assert plan.steps == ("(pickup red)", "(stack red blue)")


@pytest.mark.parametrize("description", [
    "Block 1 is red and block 2 is blue.",
    "There is a red block (Block 1) and a blue block (Block 2).",
    "Block 1 (red) sits on block 2 (blue).",
])
def test_colour_aliases_from_description(description):
    assert description_aliases(description, BW_OBJECTS)["red"] == "block1"
    plan = normalize_plan("1. Pick up the red block\n2. Stack the red block on the blue block",
                          BW, BW_OBJECTS, description=description)
    assert plan.steps == TWO
    assert "object-description-alias" in rules(plan)


def test_colour_tied_to_two_blocks_is_no_alias():
    assert description_aliases("Block 1 is red. Block 2 is red.", BW_OBJECTS) == {}
    plan = normalize_plan("1. pickup red", BW, BW_OBJECTS, description="Block 1 is red.")
    assert plan.steps == ("(pickup block1)",)
    assert normalize_plan("1. pickup red", BW, BW_OBJECTS).steps == ("(pickup red)",)


@pytest.mark.parametrize(("text", "expected"), [
    ("1. move kitchen living_room west\n2. take coin living_room",
     ("(move kitchen living_room west)", "(take coin living_room)")),
    ("1. Move from the kitchen to the living room, going west.\n"
     "2. Take the coin in the living room.",
     ("(move kitchen living_room west)", "(take coin living_room)")),
    ("Step 1: Move west from kitchen to living room",
     ("(move kitchen living_room west)",)),
    ("- move west to the living room from the kitchen", ("(move kitchen living_room west)",)),
    ('[{"action": "move", "args": ["kitchen", "living room", "west"]}]',
     ("(move kitchen living_room west)",)),
    ("MOVE(KITCHEN, LIVING-ROOM, WEST)", ("(move kitchen living_room west)",)),
    ("1. Move from kitchen to pantry (north).", ("(move kitchen pantry north)",)),
])
def test_coincollector_styles(text, expected):
    plan = normalize_plan(text, CC, CC_OBJECTS)
    assert plan.steps == expected


def test_reorder_by_type_only_for_worded_steps():
    worded = normalize_plan("1. move north from kitchen to pantry", CC, CC_OBJECTS)
    assert worded.steps == ("(move kitchen pantry north)",)
    assert "reorder-by-type" in rules(worded)
    formal = normalize_plan("(move north kitchen pantry)", CC, CC_OBJECTS)
    assert formal.steps == ("(move north kitchen pantry)",)


def test_prose_lines_are_not_steps():
    text = "Take note that the coin is in the pantry.\nmove kitchen pantry north\nDone."
    plan = normalize_plan(text, CC, CC_OBJECTS)
    assert plan.steps == ("(move kitchen pantry north)",)
    assert plan.unparsed_lines == ((1, "Take note that the coin is in the pantry."),
                                   (3, "Done."))


def test_json_elements_are_read_leniently():
    plan = normalize_plan('["move north to pantry", "fly away"]', CC, CC_OBJECTS)
    assert plan.steps == ("(move north pantry)", "(fly away)")
    assert normalize_plan("move north to pantry", CC, CC_OBJECTS).steps == ()


def test_malformed_steps_reach_the_validator():
    plan = normalize_plan("(fly b2)\n(stack b1)\n1. teleport block1\n2. pickup it", BW,
                          BW_OBJECTS)
    assert plan.steps == ("(fly block2)", "(stack block1)", "(pickup it)")
    assert plan.unparsed_lines == ((3, "1. teleport block1"),)


def test_type_hint_chooses_between_numbered_families():
    heads = (ActionHead("pickup", ("block", "token")), ActionHead("mark", ("thing",)))
    objects = {"block1": "block", "t1": "token", "block2": "block", "t2": "token"}
    assert normalize_plan("(pickup 1 2)", heads, objects).steps == ("(pickup block1 t2)",)
    assert normalize_plan("(mark 1)", heads, objects).steps == ("(mark 1)",)
    index = ObjectIndex(objects)
    assert index.resolve_token("3", "block") is None


def test_without_objects_only_case_and_names_change():
    plan = normalize_plan("1. PICK_UP B1\n2. (Stack B1 B2)", BW)
    assert plan.steps == ("(pickup b1)", "(stack b1 b2)")


def test_object_names_are_never_invented():
    plan = normalize_plan("1. pickup block 7\n2. pickup b9\n3. pickup 11", BW, BW_OBJECTS)
    assert plan.steps == ("(pickup 7)", "(pickup b9)", "(pickup 11)")


def test_objects_taken_from_the_pair(shared_data):
    pairs = load_dataset(shared_data / "cope" / "CoinCollector-100")
    pair = next(p for p in pairs if p.category == "baseline" and p.problem == "p90")
    plan = normalize_plan("1. Move from the kitchen to the living room (west)", pair)
    assert plan.steps == ("(move kitchen living_room west)",)


NO_PLAN = [
    "No plan exists.",
    "There is no valid plan that satisfies the constraint.",
    "It is impossible to reach the goal under this constraint.",
    "The goal cannot be achieved.",
    "This problem is unsolvable.",
    "Answer: no solution.",
    "The task is not possible with only 2 pick ups.",
    "Plan: None",
    '```json\n{"plan": [], "reason": "No valid plan exists"}\n```',
    "1. pickup block1\n2. stack block1 block2\nWait: that breaks the constraint, so no valid "
    "plan exists.",
]


@pytest.mark.parametrize("text", NO_PLAN)
def test_no_plan_claims(text):
    assert normalize_plan(text, BW, BW_OBJECTS).no_plan_claim is True


@pytest.mark.parametrize("text", [
    "Stacking block 2 first is impossible, so:\n1. pickup block1\n2. stack block1 block2",
    "1. pickup block1\n2. stack block1 block2\nNote: putting block 3 on block 1 is impossible.",
    "There is no solution that avoids block 1, so:\n- pickup block1\n- stack block1 block2",
    "(pickup block1)\n(stack block1 block2)",
    "",
    "I need more information.",
])
def test_no_plan_claim_not_flagged(text):
    assert normalize_plan(text, BW, BW_OBJECTS).no_plan_claim is False


def test_no_plan_phrase_strength():
    assert no_plan_phrases(["the puzzle is unsolvable"]) == (True, False)
    assert no_plan_phrases(["that move is impossible"]) == (False, True)
    assert no_plan_phrases(["no planning needed"]) == (False, False)


def test_plan_text_is_a_plan_file():
    assert normalize_plan("pickup(block1)", BW, BW_OBJECTS).text == "(pickup block1)\n"


# --- round trip over the real pairs --------------------------------------------------------

SAMPLE = [
    ("BlocksWorld-100", "baseline", "p01"), ("BlocksWorld-100", "baseline", "p88"),
    ("BlocksWorld-100", "baseline", "p99"), ("BlocksWorld-100", "action", "p08"),
    ("BlocksWorld-100", "state", "p07"), ("BlocksWorld-100", "state", "p13"),
    ("BlocksWorld-100", "initial", "p87"), ("CoinCollector-100", "baseline", "p90"),
    ("CoinCollector-100", "action", "p01"), ("CoinCollector-100", "initial", "p83"),
    ("CoinCollector-100", "goal", "p75"), ("CoinCollector-100", "state", "p03"),
]


def fake_plan(pair) -> list[tuple[str, list[str]]]:
    """One step per head, arguments drawn (deterministically) from objects of the right type."""
    objects = pair_objects(pair)
    steps = []
    for k, head in enumerate(pair.action_heads):
        args = []
        for j, param in enumerate(head.params):
            hint = type_hint(param)
            pool = [n for n, t in objects if t == hint] or [n for n, t in objects if t is None]
            args.append(pool[(k + j) % len(pool)])
        steps.append((head.name, args))
    return steps


def spoken(name: str) -> str:
    number = re.fullmatch(r"block(\d+)", name)
    if number:
        return f"Block {number.group(1)}"
    if len(name) == 1:
        return f"block {name.upper()}"
    return name.replace("_", " ")


def render(style: str, steps) -> str:
    if style == "json":
        return "```json\n" + json.dumps([" ".join([n, *a]) for n, a in steps], indent=1) + "\n```"
    if style == "numbered":
        return "\n".join(f"{i}. {' '.join([n, *a])}" for i, (n, a) in enumerate(steps, 1))
    if style == "prose":
        bullets = "\n".join(f"- {n.capitalize()} {' '.join(spoken(x) for x in a)}."
                            for n, a in steps)
        return f"Here is my plan:\n{bullets}\nThis satisfies the constraint."
    if style == "upper":
        return "\n".join(f"Step {i}: {(n[:len(n) // 2] + '_' + n[len(n) // 2:]).upper()} "
                         + " ".join(a).upper() for i, (n, a) in enumerate(steps, 1))
    assert style == "call"
    return "\n".join(f"{n}({', '.join(a)})" for n, a in steps)


STYLES = ("json", "numbered", "prose", "upper", "call")


@pytest.fixture(scope="module")
def all_pairs():
    return load_dataset(require_shared() / "cope")


@pytest.mark.parametrize("key", SAMPLE, ids="-".join)
@pytest.mark.parametrize("style", STYLES)
def test_round_trip_sample(all_pairs, key, style):
    pair = next(p for p in all_pairs if (p.dataset, p.category, p.problem) == key)
    steps = fake_plan(pair)
    canonical = tuple("(" + " ".join([n, *a]) + ")" for n, a in steps)
    plan = normalize_plan(render(style, steps), pair)
    assert plan.steps == canonical
    assert plan.no_plan_claim is False
    if style != "numbered":
        assert plan.rewrites


def test_round_trip_every_pair(all_pairs):
    failures = []
    for pair in all_pairs:
        steps = fake_plan(pair)
        canonical = tuple("(" + " ".join([n, *a]) + ")" for n, a in steps)
        for style in STYLES:
            plan = normalize_plan(render(style, steps), pair)
            if plan.steps != canonical or plan.no_plan_claim:
                failures.append((pair.key, style, plan.steps))
    assert failures == []
    assert len(all_pairs) == 378
