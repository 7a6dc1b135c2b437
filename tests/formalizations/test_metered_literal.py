"""The SMT reader's metered ``literal_eval`` (issue 19): a printed line over ``CHUNK``
characters is read in pieces of at most ``CHUNK`` characters, ticking the active budget,
and gives exactly what ``ast.literal_eval`` gives (or refuses what it refuses).

The differential tests shrink ``CHUNK`` to 8 so that every generated literal of more than
a few characters goes through the splitting reader; the bound tests use the real one on
1 MB lines. No test measures time: the budgets are tiny, and the bound is checked by the
size of every text handed to ``literal_eval``."""
from __future__ import annotations

import ast
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from planning_core.limits import Budget, LimitReached, Limits, metering
from planning_core.validators.formalizations import literal as L
from planning_core.validators.formalizations.literal import NotLiteral, metered_literal_eval

FUZZ = settings(derandomize=True, deadline=None, database=None, max_examples=150,
                suppress_health_check=list(HealthCheck))

_TEXT = st.text(alphabet="ab ()[]{},:#'\"\\x1", max_size=12)
_LEAF = st.one_of(_TEXT, st.integers(-99, 99), st.none(), st.booleans())
_HASHABLE = st.one_of(_TEXT, st.integers(-99, 99))
VALUES = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.lists(inner, max_size=6).map(tuple),
        st.dictionaries(_HASHABLE, inner, max_size=5),
        st.sets(_HASHABLE, max_size=5)),
    max_leaves=40)


def _reference(text: str):
    try:
        return ("value", ast.literal_eval(text))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return ("not a literal",)


def _metered(text: str):
    try:
        return ("value", metered_literal_eval(text))
    except NotLiteral:
        return ("not a literal",)


@FUZZ
@given(VALUES, st.sampled_from(["", " ", ",", "  # a comment"]))
def test_the_value_of_a_printed_literal_is_literal_evals(value, tail):
    text = repr(value) + tail
    with mock.patch.object(L, "CHUNK", 8):
        assert _metered(text) == _reference(text)


@FUZZ
@given(VALUES, st.integers(0, 10**6), st.sampled_from(list("[](){},:#'\" ")),
       st.booleans())
def test_a_broken_literal_is_refused_as_literal_eval_refuses_it(value, where, char, insert):
    text = repr(value)
    at = where % (len(text) + 1)
    text = text[:at] + char + text[at:] if insert else text[:at] + text[at + 1:]
    with mock.patch.object(L, "CHUNK", 8):
        assert _metered(text) == _reference(text)


@pytest.mark.parametrize("text", [
    "[]", "()", "{}", "(   )", "[,]", "(1,)", "(((('abcdefghij'))))", "[1, , 2]",
    "[1, 2,]", "(1, 2,,)", "'abcdefgh' 'ijklmnop', 'q'", "{'k': 1, 'k': 222222}",
    "[r'\\'xxxxxxxx', b'yyyyyyyyy']", "[1, 2] # trailing comment ]", "[1, 2 # c ]",
    "['a)', 'b]', '#c', 'd:e']", "{[1], 22222222}", "{'a': 1, 2}", "[x for x in y]",
    "[1, 2][0]", "'''tri'ple''' , 'xxxxxxxx'", "['unterminated]", "[" * 201 + "]" * 201,
    "[" * 200 + "]" * 200, "{1: (2, 3), 4: [5, {6: 'seven'}]}",
])
def test_hand_picked_corners(text):
    with mock.patch.object(L, "CHUNK", 8):
        assert _metered(text) == _reference(text)


# a tenth of the 1 MB output cap each (docs/limits.md has the 1 MB measurements)
HOSTILE_LINES = {
    "list-of-tuples": "[" + "('pickup', 'b'), ('putdown', 'b'), " * 2800 + "]",
    "bare-tuple": "'a', " * 20_000,
    "nested": "[" * 150 + "('x', 'y'), " * 5_000 + "]" * 150,
    "dict": "{" + "".join(f"'k{i}': ('a', 'b'), " for i in range(3_000)) + "}",
    "one-string": "['" + "x" * 100_000 + "']",
}


@pytest.mark.parametrize("name", sorted(HOSTILE_LINES))
def test_no_call_to_literal_eval_reads_more_than_a_chunk(name, monkeypatch):
    """The bound on the time past a limit: every ``literal_eval`` call gets at most
    ``CHUNK`` characters (plus the two brackets of a batch), except one made only of
    string literals (one linear scan), and the value is still ``literal_eval``'s."""
    text = HOSTILE_LINES[name]
    sizes = []
    real = ast.literal_eval

    def spy(piece):
        sizes.append(len(piece))
        return real(piece)

    monkeypatch.setattr(L.ast, "literal_eval", spy)
    value = metered_literal_eval(text)
    monkeypatch.setattr(L.ast, "literal_eval", real)
    assert value == real(text)
    limit = L.CHUNK + 2 if name != "one-string" else len(text)
    assert sizes and max(sizes) <= limit
    if name != "one-string":
        assert len(sizes) > 10


# "one-string" is left out: one string literal is one linear scan, with nothing to stop
@pytest.mark.parametrize("name", sorted(set(HOSTILE_LINES) - {"one-string"}))
def test_a_long_line_stops_at_the_budget(name):
    with pytest.raises(LimitReached, match="time limit"):
        with metering(Budget(Limits(time_s=1e-6))):
            metered_literal_eval(HOSTILE_LINES[name])


def test_a_long_sum_is_not_a_literal_and_costs_no_literal_eval(monkeypatch):
    """``literal_eval`` spent 0.28 s refusing ``1+1+...+1`` (800 KB); a piece over a chunk
    that is neither brackets and commas nor strings is refused without it."""
    calls = []
    monkeypatch.setattr(L.ast, "literal_eval", lambda piece: calls.append(piece))
    with pytest.raises(NotLiteral):
        metered_literal_eval("(" + "1" + "+1" * 400_000 + ")")
    assert calls == []
