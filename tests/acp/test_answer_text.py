"""The plain-text steps before the answer grammar: each is small and tested alone."""
from __future__ import annotations

import pytest

from planning_core.validators.acp.answers import text as at
from planning_core.validators.acp.answers.values import UnparseableAnswer


@pytest.mark.parametrize("text, expected", [
    ("a\r\nb\rc", "a\nb\nc"),
    ("(sail\u200b l0 l1)", "(sail l0 l1)"),
    ("x\u00a0y", "x y"),
    ("\ufeffNone", "None"),
])
def test_normalise(text, expected):
    assert at.normalise(text) == expected


@pytest.mark.parametrize("value", [None, 3, b"(sail l0 l1)", ["(a)"]])
def test_normalise_rejects_non_text(value):
    with pytest.raises(UnparseableAnswer, match="not text"):
        at.normalise(value)


@pytest.mark.parametrize("text, expected", [
    ("<think>(a x)</think>(b y)", "(b y)"),
    ("<THINK>maybe</THINK> answer", " answer"),
    ("<thinking>hm</thinking>ok", "ok"),
    ("reasoning in the prompt's block</think>\n(b y)", "\n(b y)"),
    ("(a x) <think> never closed (c z)", "(a x) "),
    ("<think>one</think>(a)<think>two</think>(b)", "(a)(b)"),
    ("no tags at all", "no tags at all"),
    ("x</think>y</think>z", "z"),
])
def test_strip_thinking(text, expected):
    assert at.strip_thinking(text) == expected


def test_strip_fences_keeps_content():
    assert at.strip_fences("```json\n[\"(a x)\"]\n```").strip() == "[\"(a x)\"]"
    assert at.strip_fences("~~~\n(a)\n~~~").strip() == "(a)"
    assert at.strip_fences("inline ```x``` stays") == "inline ```x``` stays"


@pytest.mark.parametrize("text, expected", [
    ("Some reasoning.\nAnswer: (a x)", [" (a x)"]),
    ("**Answer:** (a x)", [" (a x)"]),
    ("**Answer**: (a x)", [" (a x)"]),
    ("Answer: (a x)\nFinal answer: (b y)", [" (b y)"]),
    ("So the answer is (a x).", ["(a x)."]),
    ("The simplified plan: (a) (b)", [" (a) (b)"]),
    ("Simplified plan is:\n(a)", ["\n(a)"]),
    ("No marker here (a x)", ["No marker here (a x)"]),
    ("(a x)\nAnswer:", ["(a x)\nAnswer:"]),  # a marker with nothing after it is ignored
    ("This answer is correct", ["This answer is correct"]),  # not a marker
    ("planning: (a)", ["planning: (a)"]),  # "plan" inside a word is not a marker
    ("<think>Answer: (a)</think>(b)", ["(b)"]),
    ("x \\boxed{(a x)} and Answer: (b)", ["(a x)", " (b)"]),
    ("\\boxed{ {nested} }", [" {nested} ", "\\boxed{ {nested} }"]),
    ("\\boxed{unclosed", ["\\boxed{unclosed"]),
])
def test_answer_regions(text, expected):
    assert at.answer_regions(text) == expected


def test_answer_regions_on_a_megabyte_is_linear():
    text = "(sail l0 l1) " * 80_000 + "\nAnswer: (a)"
    assert at.answer_regions(text) == [" (a)"]


def test_for_grammar_prepares_text():
    assert at.for_grammar("  (a x)  ") == "\n(a x)"
    assert at.for_grammar("(sail\n l0\n l1)\n(b)") == "\n(sail  l0  l1)\n(b)"


@pytest.mark.parametrize("text, reason", [
    ("", "empty answer"),
    ("  \n\t ", "empty answer"),
    ("x" * (at.MAX_ANSWER_CHARS + 1), "too long"),
    ("[" * (at.MAX_NESTING + 1), "nested deeper"),
    ("(" * 40 + ")" * 40, "nested deeper"),
])
def test_for_grammar_limits(text, reason):
    with pytest.raises(UnparseableAnswer, match=reason):
        at.for_grammar(text)


def test_paragraphs_drop_headers():
    text = ("Here are the actions:\n- (a)\n- (b)\n\n### Notes\nThe ferry (x) ...\n\n"
            "**Plan:**\n\n(c)")
    assert at.paragraphs(text) == ["- (a)\n- (b)", "The ferry (x) ...", "(c)"]


@pytest.mark.parametrize("text", [
    "None", "none.", "**None**", "N/A", "null", "nothing", "There is no such action.",
    "No such atom exists", "no action", "There are no landmarks here.",
    "there exists no proposition", "No valid actions.",
])
def test_says_none(text):
    assert at.says_none(text)


@pytest.mark.parametrize("text", [
    "(at t0 l1-1)", "nonexistent", "Nonetheless it is (a)", "no road is there",
    "at-none x", "I do not know",
])
def test_says_none_not(text):
    assert not at.says_none(text)


@pytest.mark.parametrize("text, expected", [
    ("None of them", True), ("**None.**", True), ("There is no such atom", True),
    ("(a) because none of the others", False), ("It is none", False),
])
def test_starts_with_none(text, expected):
    assert at.starts_with_none(text) is expected


@pytest.mark.parametrize("text, expected", [
    ("Positive effects: (a), (b)\nNegative effects: (c)", ("(a), (b)", "(c)")),
    ("Negative effects: (c)\nPositive effects: (a)", ("(a)", "(c)")),
    ("**Positive Effects:**\n- (a)\n\n**Negative Effects:**\n- None", ("- (a)", "- None")),
    ('{"pos": ["(a)"], "neg": []}', ('["(a)"]', "[]")),
    ("Add effects = [(a)]; delete effects = []", ("[(a)]", "[]")),
    ("Positive effects are: (a)", ("(a)", "")),
    ("### Negative effects\n(c)", ("", "(c)")),
    ("[(a)] [(b)]", None),
    ("the positive side is (a)", None),
    ("(at-pos x): y", None),
])
def test_split_effects(text, expected):
    assert at.split_effects(text) == expected
