"""Each normalisation pass on its own, on hand-built formulas and inline PDDL."""
from __future__ import annotations

import textwrap

import pytest

from planning_core.errors import UnsupportedFeature
from planning_core.ground import normalize
from planning_core.pddl import ast as pddl
from planning_core.pddl.parser import parse_domain, parse_problem

p, q, r = pddl.Atom("p", ("?x",)), pddl.Atom("q", ("?x",)), pddl.Atom("r", ())
X = pddl.TypedName("?x", ("t",))


def test_expand_imply_becomes_or_not():
    assert normalize.expand_imply(pddl.Imply(p, q)) == pddl.Or((pddl.Not(p), q))


def test_push_negation_de_morgan_and_quantifiers():
    f = pddl.Not(pddl.And((p, pddl.Or((q, pddl.Not(r))))))
    assert normalize.push_negation(f) == pddl.Or((pddl.Not(p), pddl.And((pddl.Not(q), r))))
    g = pddl.Not(pddl.Exists((X,), p))
    assert normalize.push_negation(g) == pddl.Forall((X,), pddl.Not(p))
    assert normalize.push_negation(pddl.Not(pddl.Not(p))) == p


def test_simplify_folds_equality_and_units():
    assert normalize.simplify(pddl.Equals("a", "a")) == normalize.TRUE
    assert normalize.simplify(pddl.And((pddl.Equals("a", "b"), p))) == normalize.FALSE
    assert normalize.simplify(pddl.Or((pddl.Equals("a", "a"), p))) == normalize.TRUE
    assert normalize.simplify(pddl.And((p, pddl.And((q, p))))) == pddl.And((p, q))
    assert normalize.simplify(pddl.Equals("?x", "?y")) == pddl.Equals("?x", "?y")


def test_passes_do_not_mutate_input():
    f = pddl.Not(pddl.Imply(p, pddl.Or((q, r))))
    before = repr(f)
    normalize.normalize_formula(f)
    assert repr(f) == before


def test_dnf_splits_and_pulls_exists_with_fresh_names():
    ctx = normalize._Context()
    f = pddl.And((pddl.Or((p, q)), pddl.Exists((pddl.TypedName("?y", ("t",)),), pddl.Atom("s", ("?x", "?y")))))
    dnf = normalize.to_dnf(f, {"?x": X}, ctx)
    assert len(dnf) == 2
    for variables, lits in dnf:
        assert [v.name.split("#")[0] for v in variables] == ["?y"]
        renamed = variables[0].name
        assert renamed != "?y"                       # renamed apart: no capture possible
        assert normalize.Literal(pddl.Atom("s", ("?x", renamed))) in lits


def test_forall_stays_residual_for_the_grounder():
    ctx = normalize._Context()
    f = pddl.And((p, pddl.Forall((pddl.TypedName("?y", ("t",)),), pddl.Atom("s", ("?x", "?y")))))
    [(variables, lits)] = normalize.to_dnf(f, {"?x": X}, ctx)
    assert lits[0] == normalize.Literal(p)
    assert isinstance(lits[1], normalize.Residual)


def test_dnf_over_limit_compiles_disjunctions_into_axioms(monkeypatch):
    monkeypatch.setattr(normalize, "DNF_LIMIT", 4)
    ctx = normalize._Context()
    parts = tuple(pddl.Or((pddl.Atom(f"a{i}", ("?x",)), pddl.Atom(f"b{i}", ()))) for i in range(4))
    dnf = normalize.to_dnf(pddl.And(parts), {"?x": X}, ctx)
    assert len(dnf) <= 4
    assert ctx.axioms, "some disjunction must have become a derived predicate"
    ax = ctx.axioms[0]
    assert ax.head.predicate.startswith("__or") and ax.head.args == ("?x",)
    assert ax.parameters == (X,)


def test_ground_formula_folds_statics_and_expands_quantifiers():
    objects = {"t": ("a", "b"), "object": ("a", "b")}
    truth = {("s", "a"): True, ("s", "b"): False}.get
    f = pddl.Forall((pddl.TypedName("?y", ("t",)),), pddl.Or((pddl.Not(pddl.Atom("s", ("?y",))), pddl.Atom("f", ("?y",)))))
    g = normalize.ground_formula(f, objects, lambda atom: truth(atom))
    assert g == pddl.Atom("f", ("a",))
    e = pddl.Exists((pddl.TypedName("?y", ("t",)),), pddl.And((pddl.Atom("s", ("?y",)), pddl.Equals("?y", "b"))))
    assert normalize.ground_formula(e, objects, lambda atom: truth(atom)) == normalize.FALSE


DOMAIN = textwrap.dedent("""
    (define (domain d)
      (:requirements :adl :action-costs)
      (:types t)
      (:constants c - t)
      (:predicates (p ?x - t) (q ?x - t) (r ?x ?y - t))
      (:functions (total-cost) - number)
      (:action a
        :parameters (?x - t)
        :precondition (or (p ?x) (and (q ?x) (not (= ?x c))))
        :effect (and (forall (?y - t) (when (r ?x ?y) (not (p ?y))))
                     (increase (total-cost) 2)))
      (:derived (q ?x - t) (exists (?y - t) (r ?y ?x))))
""")
PROBLEM = textwrap.dedent("""
    (define (problem pr) (:domain d) (:objects a b - t)
      (:init (p a) (r a b)) (:goal (p b)) (:metric minimize (total-cost)))
""")


def test_normalize_task_variants_effects_axioms():
    nt = normalize.normalize(parse_domain(DOMAIN), parse_problem(PROBLEM))
    variants = [a for a in nt.actions if a.name == "a"]
    assert [a.variant for a in variants] == [0, 1]
    assert variants[1].precondition[1] == normalize.Literal(pddl.Equals("?x", "c"), negated=True)
    [eff] = variants[0].effects
    assert eff.delete and len(eff.parameters) == 1 and eff.condition[0].atom.predicate == "r"
    assert variants[0].cost == pddl.Number(2)
    [ax] = nt.axioms
    assert ax.head == pddl.Atom("q", ("?x",)) and len(ax.extra) == 1
    assert nt.uses_costs


def test_other_numeric_fluents_are_reported_unsupported():
    dom = DOMAIN.replace("(increase (total-cost) 2)", "(increase (fuel) 2)").replace(
        "(:functions (total-cost) - number)", "(:functions (total-cost) (fuel) - number)")
    with pytest.raises(UnsupportedFeature, match="fuel"):
        normalize.normalize(parse_domain(dom), parse_problem(PROBLEM))
