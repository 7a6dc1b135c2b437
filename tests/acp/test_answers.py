"""Parsing model answers for the eight ACPBench Hard tasks
(planning_core.validators.acp.answers.parsers)."""
from __future__ import annotations

import json
import logging
import re

import lark
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planning_core.errors import PlanningError
from planning_core.grammar_files import grammar_text
from planning_core.validators.acp.answers.grammar import START_RULES
from planning_core.validators.acp.answers.parsers import (
    ANSWER_PARSERS,
    GroundName,
    UnparseableAnswer,
    parse_action,
    parse_action_list,
    parse_action_or_none,
    parse_atom_or_none,
    parse_effects,
    parse_index,
)
from planning_core.validators.acp.answers import parsers

TASKS = ("app", "prog", "reach", "areach", "val", "just", "land", "nexta")


def g(*texts: str) -> tuple[GroundName, ...]:
    return tuple(GroundName.from_text(t) for t in texts)


# ------------------------------------------------------------------ values and grammar

def test_ground_name_is_lower_case_and_prints_as_pddl():
    a = GroundName("LOAD-TRUCK", ("P0", "t0", "l0-0"))
    assert a == GroundName("load-truck", ("p0", "t0", "l0-0"))
    assert str(a) == "(load-truck p0 t0 l0-0)"
    assert a.bare == "load-truck p0 t0 l0-0"
    assert str(GroundName("empty-ferry")) == "(empty-ferry)"
    assert GroundName.from_text("at a0 l0-2") == GroundName.from_text("(at a0 l0-2)")
    assert sorted([GroundName("b"), GroundName("a", ("z",))])[0].name == "a"
    assert hash(a) == hash(GroundName("load-truck", ("p0", "t0", "l0-0")))


@pytest.mark.parametrize("name, args", [("", ()), ("  ", ()), ("a", ("",)), ("a", ("x y",)),
                                        (None, ()), ("a", (3,))])
def test_ground_name_rejects_malformed(name, args):
    with pytest.raises(ValueError):
        GroundName(name, args)


def test_unparseable_answer_is_a_planning_error():
    err = UnparseableAnswer("empty answer", line=2, column=5)
    assert isinstance(err, PlanningError)
    assert err.reason == "empty answer"
    assert str(err) == "<answer>:2:5: empty answer"


def test_grammar_has_no_lalr_conflicts():
    """lark resolves shift/reduce conflicts silently (shift wins); with debug it logs them."""
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record):
            messages.append(record.getMessage())

    handler = Collect(level=logging.DEBUG)
    old_level = lark.logger.level
    lark.logger.addHandler(handler)
    lark.logger.setLevel(logging.DEBUG)
    try:
        lark.Lark(grammar_text("acp_answer.lark"), parser="lalr", start=list(START_RULES), debug=True)
    finally:
        lark.logger.removeHandler(handler)
        lark.logger.setLevel(old_level)
    assert not [m for m in messages if "conflict" in m.lower()]


def test_registry_covers_every_task():
    assert tuple(ANSWER_PARSERS) == TASKS
    assert ANSWER_PARSERS["just"] is parse_action_list
    assert ANSWER_PARSERS["val"] is parse_index


# ------------------------------------------------------------------ action lists (app, just)

SAIL_DEBARK = g("(sail l0 l1)", "(debark c2 l0)")


@pytest.mark.parametrize("text", [
    '["(sail l0 l1)", "(debark c2 l0)"]',
    "['(sail l0 l1)', '(debark c2 l0)']",
    '["sail l0 l1", "debark c2 l0"]',
    "[(sail l0 l1), (debark c2 l0)]",
    "[(sail l0 l1); (debark c2 l0)]",
    "(sail l0 l1), (debark c2 l0)",
    "(sail l0 l1) (debark c2 l0)",
    "(sail l0 l1)(debark c2 l0)",
    "(sail l0 l1)\n(debark c2 l0)",
    "(sail l0 l1),\n(debark c2 l0),",
    "sail l0 l1\ndebark c2 l0",
    "sail l0 l1, debark c2 l0",
    "- (sail l0 l1)\n- (debark c2 l0)",
    "* (sail l0 l1)\n* (debark c2 l0)",
    "+ sail l0 l1\n+ debark c2 l0",
    "1. (sail l0 l1)\n2. (debark c2 l0)",
    "1) (sail l0 l1)\n2) (debark c2 l0)",
    "  - **(sail l0 l1)**\n  - **(debark c2 l0)**",
    "- `(sail l0 l1)`\n- `(debark c2 l0)`",
    "```\n(sail l0 l1)\n(debark c2 l0)\n```",
    '```json\n[\n  "(sail l0 l1)",\n  "(debark c2 l0)"\n]\n```',
    "sail(l0, l1), debark(c2, l0)",
    "(SAIL L0 L1) (Debark C2 L0)",
    "(sail\n l0 l1)\n(debark c2\nl0)",
    "(sail, l0, l1) (debark, c2, l0)",
    "Here are the applicable actions:\n- (sail l0 l1)\n- (debark c2 l0)",
    "Applicable actions:\n\n(sail l0 l1)\n(debark c2 l0)\n\nThese hold because the ferry is at l0.",
    "The applicable actions are (sail l0 l1) and (debark c2 l0).",
    "<think>Maybe (board c1 l0)?</think>\nAnswer: [(sail l0 l1), (debark c2 l0)]",
    "I considered (board c1 l0).\n**Answer:** (sail l0 l1), (debark c2 l0)",
    "1. (sail l0 l1) - move the ferry\n2. (debark c2 l0) - unload the car",
    "\\boxed{(sail l0 l1), (debark c2 l0)}",
    "[[\"(sail l0 l1)\"], [\"(debark c2 l0)\"]]",
    "(sail l0 l1)\n\n\n(debark c2 l0)\n",
])
def test_action_list_shapes(text):
    assert parse_action_list(text) == SAIL_DEBARK


@pytest.mark.parametrize("text, expected", [
    ("None", ()), ("none.", ()), ("[]", ()), ("[ ]", ()), ('["None"]', ()), ("- None", ()),
    ("There are no applicable actions.", ()),
    ("(sail l0 l1) (sail l1 l0) (sail l0 l1)", g("(sail l0 l1)", "(sail l1 l0)", "(sail l0 l1)")),
    ("(empty-ferry)", g("(empty-ferry)")),
    ("handempty", g("(handempty)")),
    ("(at p1 3)", (GroundName("at", ("p1", "3")),)),
    ("Simplify the plan (a) (b) (c).\nSimplified plan: (a) (c)", g("(a)", "(c)")),
    ("(LOAD-TRUCK p0 t0 l0-0) (drive-truck t1 l1-0 l1-1 c1)",
     g("(load-truck p0 t0 l0-0)", "(drive-truck t1 l1-0 l1-1 c1)")),
    ("(communicate_image_data rover0 general objective0 low_res waypoint0 waypoint1)",
     g("(communicate_image_data rover0 general objective0 low_res waypoint0 waypoint1)")),
])
def test_action_list_values(text, expected):
    assert parse_action_list(text) == expected


@pytest.mark.parametrize("text, reason", [
    ("", "empty answer"),
    ("   \n  ", "empty answer"),
    ("<think>only thinking (a x)</think>", "empty answer"),
    ("I do not know.", "no action found"),
    ("The ferry should sail to the other side", "no action found"),
    ("(sail l0 l1", "not closed"),
    ("(sail l0 l1) (debark c2", "not closed"),
    ("[" * 40 + "(a)" + "]" * 40, "nested deeper"),
    ("(sail l0 l1) " * 10_000, "too long"),
])
def test_action_list_failures(text, reason):
    with pytest.raises(UnparseableAnswer, match=re.escape(reason)):
        parse_action_list(text)


def test_prose_words_are_never_atoms():
    # Unparenthesised prose is not a list of bare actions...
    with pytest.raises(UnparseableAnswer):
        parse_action_list("I cannot determine this\nbecause it is hard")
    # ...and parentheses in explanations are only read when nothing better exists.
    assert parse_action_list("(a x)\n(b y)\n\nNote that this is so.") == g("(a x)", "(b y)")


@pytest.mark.parametrize("text, expected", [
    # trailing prose under the answer is cut off, parentheses in it included
    ("(a x)\n(b y)\nThese apply because (c z) holds.", g("(a x)", "(b y)")),
    ("- (a x)\n- (b y)\nNote: (c z) does not apply", g("(a x)", "(b y)")),
    ("Actions:\n(a x)\n(b y)\n\nWhy: (c z) is false.", g("(a x)", "(b y)")),
    # two answer-shaped paragraphs: no single answer block, so prose rules apply
    ("(a x)\n\nand also\n\n(b y)", g("(a x)", "(b y)")),
    # a cut-off answer is not shortened to its complete part
    ("(a x)\n(b y)\n(c", None),
])
def test_action_list_trailing_prose(text, expected):
    if expected is None:
        with pytest.raises(UnparseableAnswer, match="not closed"):
            parse_action_list(text)
    else:
        assert parse_action_list(text) == expected


def test_stray_closing_parenthesis_in_prose_is_prose():
    assert parse_action_list("Options: 1) (sail l0 l1) and 2) (debark c2 l0)") == SAIL_DEBARK


def test_megabyte_of_reasoning_then_a_short_answer():
    text = "<think>" + "(board c1 l0) hmm " * 60_000 + "</think>\n(sail l0 l1)"
    assert len(text) > 1_000_000
    assert parse_action_list(text) == g("(sail l0 l1)")


HUGE = {
    "actions": "(sail l0 l1) " * 80_000,
    "letters": "x" * 1_000_000,
    "brackets": "[" * 1_000_000,
    "parens": "(" * 500_000 + ")" * 500_000,
    "boxed": "\\boxed{" * 150_000,
    "markers": "Answer: " * 130_000,
    "think-tags": "<think>" * 150_000,
}


@pytest.mark.timeout(20)
@pytest.mark.parametrize("kind", sorted(HUGE))
def test_megabyte_inputs_are_rejected_cleanly(kind):
    text = HUGE[kind]
    assert len(text) >= 1_000_000
    for parse in ANSWER_PARSERS.values():
        with pytest.raises(UnparseableAnswer):
            parse(text)


# ------------------------------------------------------------------ single answers

@pytest.mark.parametrize("text, expected", [
    ("at a0 l0-2", "(at a0 l0-2)"),
    ("(at a0 l0-2)", "(at a0 l0-2)"),
    ("(AT A0 L0-2)", "(at a0 l0-2)"),
    ('"at a0 l0-2"', "(at a0 l0-2)"),
    ('["(at a0 l0-2)"]', "(at a0 l0-2)"),
    ("- (at a0 l0-2)", "(at a0 l0-2)"),
    ("**(at a0 l0-2)**", "(at a0 l0-2)"),
    ("at(a0, l0-2)", "(at a0 l0-2)"),
    ("(empty-ferry)", "(empty-ferry)"),
    ("arm-empty", "(arm-empty)"),
    ("(at a0 l0-2).", "(at a0 l0-2)"),
    ("(at a0 l0-2) (at a0 l0-2)", "(at a0 l0-2)"),
    ("The proposition (at a0 l0-2) can never hold.", "(at a0 l0-2)"),
    ("Looking at (at t1 l1-1) first...\nAnswer: (at a0 l0-2)", "(at a0 l0-2)"),
    ("Answer: (at a0 l0-2)\nThis holds because (at t1 l0-0) is never deleted.",
     "(at a0 l0-2)"),
    ("(at a0 l0-2)\nbecause the truck (at t1 l0-0) is stuck", "(at a0 l0-2)"),
    ("<think>(at t1 l1-1)? no.</think>(at a0 l0-2)", "(at a0 l0-2)"),
    ("**Answer:**\n\n```\n(at a0 l0-2)\n```", "(at a0 l0-2)"),
    ("\\boxed{(at a0 l0-2)}", "(at a0 l0-2)"),
])
def test_atom_or_none_finds_the_atom(text, expected):
    assert parse_atom_or_none(text) == GroundName.from_text(expected)


@pytest.mark.parametrize("text", [
    "None", "none", "None.", "NONE", "**None**", '"None"', "[None]", "[]", "- None",
    "N/A", "null", "There is no such proposition.", "No such atom exists.",
    "There are no unreachable propositions.", "Answer: None",
    "<think>(at a0 l0-2) is reachable</think>None", "nothing",
])
def test_atom_or_none_reads_none(text):
    assert parse_atom_or_none(text) is None


@pytest.mark.parametrize("text, reason", [
    ("(at a0 l0-2)\n(at t1 l1-1)", "ambiguous: 2 different atoms"),
    ("(at a0 l0-2), (at t1 l1-1), (at t2 l0-0), (on c1)", "ambiguous: 4 different atoms"),
    ("Either (at a0 l0-2) or (at t1 l1-1).", "ambiguous"),
    ("None, or maybe (at a0 l0-2)", "ambiguous: both None and"),
    ("[None, (at a0 l0-2)]", "ambiguous: both None and"),
    ("I cannot determine this", "no atom found"),
    ("Yes", "no atom found"),
    ("", "empty answer"),
    ("(at a0", "not closed"),
])
def test_atom_or_none_failures(text, reason):
    with pytest.raises(UnparseableAnswer, match=re.escape(reason)):
        parse_atom_or_none(text)


@pytest.mark.parametrize("text, expected", [
    ("(sail l0 l0)", GroundName("sail", ("l0", "l0"))),
    ("sail l0 l0", GroundName("sail", ("l0", "l0"))),
    ("The action (sail l0 l0) can never be applied.", GroundName("sail", ("l0", "l0"))),
    ("None", None),
    ("There is no such action.", None),
    ("no action", None),
])
def test_action_or_none(text, expected):
    assert parse_action_or_none(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("(board c3 l1)", "(board c3 l1)"),
    ("board c3 l1", "(board c3 l1)"),
    ("The next action is board(c3, l1).", "(board c3 l1)"),
    ("1. (board c3 l1)", "(board c3 l1)"),
    ("To reach the goal we first need the ferry at l1.\nNext action: **(board c3 l1)**",
     "(board c3 l1)"),
])
def test_action(text, expected):
    assert parse_action(text) == GroundName.from_text(expected)


@pytest.mark.parametrize("text, reason", [
    ("None", "answer says None"),
    ("There is no such action.", "answer says None"),
    ("(board c3 l1) or (sail l1 l0)", "ambiguous"),
    ("board the car", "no action found"),
])
def test_action_failures(text, reason):
    with pytest.raises(UnparseableAnswer, match=re.escape(reason)):
        parse_action(text)


# ------------------------------------------------------------------ effects (prog)

POS = g("(empty-ferry)", "(at c2 l1)")
NEG = g("(on c2)")


@pytest.mark.parametrize("text, expected", [
    ("[(empty-ferry), (at c2 l1)] [(on c2)]", (POS, NEG)),
    ('["(empty-ferry)", "(at c2 l1)"] ["(on c2)"]', (POS, NEG)),
    ('[["(empty-ferry)", "(at c2 l1)"], ["(on c2)"]]', (POS, NEG)),
    ("[(empty-ferry), (at c2 l1)], [(on c2)]", (POS, NEG)),
    ("[(empty-ferry), (at c2 l1)]\n[(on c2)]", (POS, NEG)),
    ("(empty-ferry), (at c2 l1)\n(on c2)", (POS, NEG)),
    ("(empty-ferry) (at c2 l1)\non c2", (POS, NEG)),
    ("Positive effects: (empty-ferry), (at c2 l1)\nNegative effects: (on c2)", (POS, NEG)),
    ("Negative effects: [(on c2)]. Positive effects: [(empty-ferry), (at c2 l1)].", (POS, NEG)),
    ("**Positive effects:**\n- (empty-ferry)\n- (at c2 l1)\n\n**Negative effects:**\n- (on c2)",
     (POS, NEG)),
    ("### Positive Effects\n1. (empty-ferry)\n2. (at c2 l1)\n### Negative Effects\n1. (on c2)",
     (POS, NEG)),
    ('{"pos": ["(empty-ferry)", "(at c2 l1)"], "neg": ["(on c2)"]}', (POS, NEG)),
    ("Positive effects are (empty-ferry) and (at c2 l1).\nNegative effects: (on c2)", (POS, NEG)),
    ("[(empty-ferry), (at c2 l1)]", (POS, ())),
    ("(empty-ferry), (at c2 l1)", (POS, ())),
    ("- (empty-ferry)\n- (at c2 l1)", (POS, ())),
    ("(empty-ferry)\n(at c2 l1)\n(on c2)", (g("(empty-ferry)", "(at c2 l1)", "(on c2)"), ())),
    ("[] [(on c2)]", ((), NEG)),
    ("None\n(on c2)", ((), NEG)),
    ("[(empty-ferry), (at c2 l1)] []", (POS, ())),
    ("[(empty-ferry), (at c2 l1)] None", (POS, ())),
    ("Positive effects: (empty-ferry), (at c2 l1)\nNegative effects: None", (POS, ())),
    ("Positive effects: []\nNegative effects: (on c2)", ((), NEG)),
    ("Negative effects: (on c2)", ((), NEG)),
    ("None", ((), ())),
    ("Answer: [(empty-ferry), (at c2 l1)] [(on c2)]\nbecause the car leaves the ferry",
     (POS, NEG)),
])
def test_effects(text, expected):
    assert parse_effects(text) == expected


@pytest.mark.parametrize("text, reason", [
    ("[(a)] [(b)] [(c)]", "expected two lists, found 3"),
    ("[(a)] (b)", "mixed with items"),
    ("The car (at c2 l1) arrives and (on c2) stops holding.", "not split"),
    ("", "empty answer"),
    ("no idea", "no effects found"),
])
def test_effects_failures(text, reason):
    with pytest.raises(UnparseableAnswer, match=re.escape(reason)):
        parse_effects(text)


# ------------------------------------------------------------------ index (val)

@pytest.mark.parametrize("text, expected", [
    ("3", 3), ("3.", 3), ("**3**", 3), ("[3]", 3), ("(3)", 3), (" 0 ", 0), ("- 3", 3),
    ("Index: 3", 3), ("index 3", 3), ("Index = 12", 12), ("The index is 3.", 3),
    ("The first inapplicable action is at index 3", 3),
    ("The first inapplicable action is at index 3 (0-based).", 3),
    ("The 4th action, (board c2 l1), is the first inapplicable one: index 3", 3),
    ("step 3 of 5, index 2", 2),
    ("Answer: 7", 7),
    ("<think>index 2? no</think>5", 5),
])
def test_index(text, expected):
    assert parse_index(text) == expected


@pytest.mark.parametrize("text, reason", [
    ("3 or 4", "ambiguous: 2 different indices"),
    ("index 3 or index 4", "ambiguous"),
    ("The 4th action", "no index found"),
    ("-1", "no index found"),
    ("1" * 20, "no index found"),
    ("all actions are applicable", "no index found"),
    ("", "empty answer"),
])
def test_index_failures(text, reason):
    with pytest.raises(UnparseableAnswer, match=re.escape(reason)):
        parse_index(text)


# ------------------------------------------------------------------ properties

_ALPHABET = st.sampled_from(list("()[]{},;:.\"'`*-_#\n \t01239abclxyzNOneAw") +
                            ["None", "none", "Answer:", "<think>", "</think>", "\\boxed{",
                             "- ", "1. ", "**", "Positive effects:", "Negative effects:",
                             "index", "(sail l0 l1)", "at a0 l0-2", "\u00e9", "\u2019"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=60).map("".join), st.sampled_from(TASKS))
def test_random_text_gives_a_value_or_unparseable(text, task):
    try:
        value = ANSWER_PARSERS[task](text)
    except UnparseableAnswer as err:
        assert err.reason
        return
    if task == "val":
        assert isinstance(value, int) and value >= 0
    elif task == "prog":
        assert all(isinstance(a, GroundName) for side in value for a in side)
    elif task in ("app", "just"):
        assert all(isinstance(a, GroundName) for a in value)
    else:
        assert value is None or isinstance(value, GroundName)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.sampled_from(TASKS))
def test_any_unicode_gives_a_value_or_unparseable(text, task):
    try:
        ANSWER_PARSERS[task](text)
    except UnparseableAnswer:
        pass


_WORD = st.builds(str.__add__, st.sampled_from("abcdlnxyz"),
                  st.text("abcdeno019_-", max_size=8)).filter(lambda w: w != "none")
_GROUND = st.builds(GroundName, _WORD, st.lists(_WORD, max_size=4).map(tuple))


@settings(max_examples=100, deadline=None)
@given(st.lists(_GROUND, min_size=1, max_size=12), st.sampled_from(["json", "lines", "bullets",
                                                                    "inline", "numbered"]))
def test_rendered_lists_parse_back(actions, style):
    assert parse_action_list(render_list(actions, style)) == tuple(actions)


def render_list(actions, style: str) -> str:
    """Write actions the way models do; an empty list is written "None"."""
    items = [str(a) for a in actions]
    if style == "json":
        return json.dumps(items)
    if not items:
        return "None"
    if style == "lines":
        return "\n".join(items)
    if style == "bullets":
        return "\n".join(f"- {i}" for i in items)
    if style == "numbered":
        return "\n".join(f"{n}. {i}" for n, i in enumerate(items, 1))
    return " ".join(items)


# ------------------------------------------------------------------ the dev set's gold answers

def _styles(items: list[str]) -> dict[str, str]:
    """A list of answers written three ways; an empty list is written None."""
    return {"json": json.dumps(items),
            "lines": "\n".join(items) or "None",
            "bullets": "\n".join(f"- {i}" for i in items) or "- None"}


def _simplified_plan(record: dict) -> list[str]:
    """The question's plan minus the first removable piece the dataset lists."""
    question = record["question"]
    plan_text = question[question.index("Simplify the plan") + 17:question.index("by removing")]
    plan = re.findall(r"\([^()]*\)", plan_text)
    piece = record["answer"][0]
    drop = piece[:2] if len(piece) == 3 and piece[2] == "-1" else piece[:1]
    for i in range(len(plan)):
        if plan[i:i + len(drop)] == drop:
            return plan[:i] + plan[i + len(drop):]
    raise AssertionError(f"piece {drop} not in plan {plan}")


def _gold_cases(task: str, record: dict):
    """(text, expected) pairs: the gold answer rendered in three styles."""
    answer = record["answer"]
    if task in ("app", "just"):
        items = answer if task == "app" else _simplified_plan(record)
        expected = g(*items)
        for text in _styles(items).values():
            yield parse_action_list, text, expected
    elif task == "prog":
        pos, neg = answer["pos"], answer["neg"]
        expected = (g(*pos), g(*neg))
        yield parse_effects, f"{json.dumps(pos)} {json.dumps(neg)}", expected
        yield parse_effects, f"{', '.join(pos) or 'None'}\n{', '.join(neg) or 'None'}", expected
        yield parse_effects, ("Positive effects:\n" + _styles(pos)["bullets"] +
                              "\nNegative effects:\n" + _styles(neg)["bullets"]), expected
    elif task == "val":
        for text in (json.dumps([answer]), str(answer), f"- {answer}"):
            yield parse_index, text, int(answer)
    else:
        parse = {"reach": parse_atom_or_none, "land": parse_atom_or_none,
                 "areach": parse_action_or_none, "nexta": parse_action}[task]
        items = answer["yes"] if task in ("land", "nexta") else answer
        if not items:
            for text in _styles([]).values():
                yield parse, text, None
        for item in items:
            for text in _styles([item]).values():
                yield parse, text, GroundName.from_text(item)


@pytest.mark.shared
@pytest.mark.parametrize("task", TASKS)
def test_gold_answers_parse_back(shared_data, task):
    records = json.loads((shared_data / "acpbench_hard" / task / "dev.gen.json").read_text())
    assert len(records) == 40
    checked = 0
    for record in records:
        for parse, text, expected in _gold_cases(task, record):
            assert parse(text) == expected, (record["id"], text)
            checked += 1
    assert checked >= 3 * 40


# ------------------------------------------------------------------ the plain fast path

_PLAIN_CASES = ["(a x) (b y)", "(none)", "(a) ,(b)", "(a)\n\n(b)", "(a 0b)", "(a),", "(A B)",
                "(a b) (a b)", "(a 1 2)", "(a)\r\n(b)", " (a x)\n", "(a x).", "(a x),\n(b y)",
                "(a\tx)", "(a x)\n, (b y)", "(a x) None", "(a b-1 c_2)", "(a -1)", "( a b )",
                "(a x) (b none)", "(a x); (b y)", "(a x)\n- (b y)", "(a, x)"]


def _full(read, text):
    try:
        return parsers._over_regions(text, read)
    except UnparseableAnswer as err:
        return err.reason


def _assert_plain_agrees(text):
    fast = parsers._plain(text)
    if fast is not None:
        assert fast == _full(parsers._read_list, text), text
    one = parsers._plain_single(text)
    if one is not None:
        for allow_none, what in ((True, "atom"), (False, "action")):
            assert one == _full(lambda r: parsers._read_single(r, allow_none=allow_none, what=what),
                                text), text


@pytest.mark.parametrize("text", _PLAIN_CASES)
def test_plain_fast_path_gives_the_grammars_reading(text):
    _assert_plain_agrees(text)


def test_plain_fast_path_reads_the_common_shapes():
    assert parsers._plain("(a x) (B y)") == (GroundName("a", ("x",)), GroundName("b", ("y",)))
    assert parsers._plain_single("(a x)\n") == GroundName("a", ("x",))
    for text in ("(none)", "(a x) None", "(a x).", "(a, x)", "x (a x)"):
        assert parsers._plain(text) is None, text


def test_plain_fast_path_agrees_on_every_dev_gold_and_wrong_answer(shared_data):
    from planning_core.validators.acp.gold import gold_answer
    from planning_core.validators.acp.perturb import perturbations
    from planning_core.validators.acp.problem import ProblemCache
    from planning_core.validators.acp.records import Question

    cache = ProblemCache()
    hits = 0
    for task in ("app", "just", "reach", "areach", "land", "nexta"):
        rows = json.loads((shared_data / "acpbench_hard" / task / "dev.gen.json").read_text())
        for q in map(Question.from_record, rows):
            info = cache.get(q.domain_text, q.problem_text)
            for text in [gold_answer(q, cache), *(p.response for p in perturbations(q, info))]:
                hits += parsers._plain(text) is not None
                _assert_plain_agrees(text)
    assert hits > 500


_PLAIN_EFFECT_CASES = ["[(empty-ferry), (at c2 l1)] [(on c2)]", "[(a)] []", "[] []",
                       "[(a) (b)];[(c)]", "[(a), (b)], [(c)]", "[(a),] [(c)]", "[(none)] []",
                       "[(a x)]  [(b y)]\n", "[ (a x) , (b y) ] [ ]", "[(a x)] [(b y)] [(c)]",
                       "[(a x)]\n[(b y)]", "[(A X)] [(b 1)]", "[[(a)], [(b)]]"]


@pytest.mark.parametrize("text", _PLAIN_EFFECT_CASES)
def test_plain_effects_fast_path_gives_the_grammars_reading(text):
    fast = parsers._plain_effects(text)
    if fast is not None:
        assert fast == _full(parsers._read_effects, text), text


def test_plain_effects_fast_path_agrees_on_every_dev_prog_answer(shared_data):
    from planning_core.validators.acp.gold import gold_answer
    from planning_core.validators.acp.perturb import perturbations
    from planning_core.validators.acp.problem import ProblemCache
    from planning_core.validators.acp.records import Question

    cache = ProblemCache()
    hits = 0
    rows = json.loads((shared_data / "acpbench_hard" / "prog" / "dev.gen.json").read_text())
    for q in map(Question.from_record, rows):
        info = cache.get(q.domain_text, q.problem_text)
        for text in [gold_answer(q, cache), *(p.response for p in perturbations(q, info))]:
            fast = parsers._plain_effects(text)
            if fast is not None:
                hits += 1
                assert fast == _full(parsers._read_effects, text), text
    assert hits > 150
