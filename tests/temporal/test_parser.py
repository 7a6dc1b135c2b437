"""LTLf syntax: precedence, aliases, leaf forms, vocabulary resolution and located errors."""
from __future__ import annotations

import textwrap

import pytest

from planning_core.errors import SemanticError
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.temporal import ltl
from planning_core.temporal.parser import LTLSyntaxError, Vocabulary, parse_ltl
from tests.conftest import DOMAINS

P, Q, R = ltl.Atom("p"), ltl.Atom("q"), ltl.Atom("r")
DOMAIN = parse_domain((DOMAINS / "blocksworld" / "domain.pddl").read_text())
PROBLEM = parse_problem(textwrap.dedent("""\
    (define (problem two) (:domain blocksworld) (:objects a b x)
      (:init (ontable a) (ontable b) (clear a) (clear b) (handempty)) (:goal (on a b)))"""))
VOCAB = Vocabulary.of(DOMAIN, PROBLEM)


@pytest.mark.parametrize("text, expected", [
    ("(p) | (q) & (r)", ltl.Or((P, ltl.And((Q, R))))),
    ("(p) -> (q) -> (r)", ltl.Implies(P, ltl.Implies(Q, R))),
    ("(p) U (q) U (r)", ltl.Until(P, ltl.Until(Q, R))),
    ("(p) U (q) & (r)", ltl.And((ltl.Until(P, Q), R))),            # U binds tighter than &
    ("!(p) U (q)", ltl.Until(ltl.Not(P), Q)),                       # prefix binds tightest
    ("X F G WX (p)", ltl.Next(ltl.Eventually(ltl.Always(ltl.WeakNext(P))))),
    ("(p) && (q) || ~(r)", ltl.Or((ltl.And((P, Q)), ltl.Not(R)))),
    ("(p) => (q) <=> (r)", ltl.Iff(ltl.Implies(P, Q), R)),
    ("(p) W (q) R (r)", ltl.WeakUntil(P, ltl.Release(Q, R))),
    ("last | true | false", ltl.Or((ltl.LAST, ltl.TRUE, ltl.FALSE))),
    ("((p) & (q)) & (r)", ltl.And((ltl.And((P, Q)), R))),           # brackets are kept
    ("on(a, _) & # a comment\n(On A B)", ltl.And((ltl.Atom("on", ("a", "_")),
                                                 ltl.Atom("on", ("a", "b"))))),
    ("@(stack a b) | @stack(a, b)", ltl.Or((ltl.Occurs("stack", ("a", "b")),) * 2)),
    ("(on X F)", ltl.Atom("on", ("x", "f"))),  # keywords are names inside an atom
])
def test_syntax(text, expected):
    assert parse_ltl(text) == expected


def test_vocabulary_resolves_actions_and_checks_leaves():
    f = parse_ltl("G((holding a) -> (stack a b)) & F (pick-up _)", VOCAB)
    assert f == ltl.And((ltl.Always(ltl.Implies(ltl.Atom("holding", ("a",)),
                                          ltl.Occurs("stack", ("a", "b")))),
                       ltl.Eventually(ltl.Occurs("pick-up", ("_",)))))
    both = Vocabulary((("move", 1),), (("move", 1),))
    assert parse_ltl("(move a)", both) == ltl.Atom("move", ("a",))   # the predicate wins
    assert parse_ltl("@(move a)", both) == ltl.Occurs("move", ("a",))


@pytest.mark.parametrize("text, error, where", [
    ("G (on a b", LTLSyntaxError, (1, 10)),
    ("(p) $ (q)", LTLSyntaxError, (1, 5)),
    ("p & (q)", LTLSyntaxError, (1, 3)),
    ("   ", LTLSyntaxError, (1, 1)),
    ("G\n  (onn a b)", SemanticError, (2, 4)),
    ("(on a b c)", SemanticError, (1, 2)),
    ("F @(stack a zz)", SemanticError, (1, 5)),
    ("@(holding a)", SemanticError, (1, 3)),
])
def test_errors_are_located(text, error, where):
    with pytest.raises(error) as info:
        parse_ltl(text, VOCAB, filename="c.ltl")
    assert (info.value.line, info.value.column) == where
    assert info.value.file == "c.ltl"


def test_messages_say_what_was_expected():
    with pytest.raises(LTLSyntaxError, match=r"write \(arm-empty\)"):
        parse_ltl("arm-empty -> (p)")
    with pytest.raises(SemanticError, match="expected one of: clear, handempty, holding"):
        parse_ltl("(onn a b)", VOCAB)
    with pytest.raises(LTLSyntaxError, match="nested too deeply"):
        parse_ltl("!" * 5000 + "(p)")
