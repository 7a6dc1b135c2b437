"""Grounding semantics on small inline PDDL tasks, one feature each."""
from __future__ import annotations

import itertools
import random
import textwrap

import pytest

from planning_core.ground.grounder import GroundingCache, ground
from planning_core.ground.successor import DecisionTree, KeyedIndex
from planning_core.ground.facts import UnknownAtomError, bits
from planning_core.pddl.parser import parse_domain, parse_problem


def task_of(domain: str, problem: str, **kw):
    return ground(parse_domain(textwrap.dedent(domain)), parse_problem(textwrap.dedent(problem)), **kw)


def run(task, plan):
    s = task.init
    for step in plan:
        a = task.action_by_name(step, s)
        assert a in task.applicable(s), f"{step} not applicable"
        s = task.progress(s, a)
    return s


SWITCH = """
(define (domain sw) (:requirements :strips :negative-preconditions :equality :typing)
  (:types light)
  (:constants main - light)
  (:predicates (on ?l - light) (broken ?l - light) (linked ?a ?b - light))
  (:action turn-on :parameters (?l - light)
     :precondition (and (not (on ?l)) (not (broken ?l))) :effect (on ?l))
  (:action turn-off :parameters (?l - light) :precondition (on ?l) :effect (not (on ?l)))
  (:action pair :parameters (?a ?b - light)
     :precondition (and (on ?a) (not (= ?a ?b)) (linked ?a ?b)) :effect (on ?b))
  (:action master :parameters () :precondition (on main) :effect (not (on main))))
"""
SWITCH_P = """
(define (problem p) (:domain sw) (:objects l1 l2 - light)
  (:init (broken l2) (linked l1 l1) (linked l1 l2)) (:goal (and (on l2) (not (on l1)))))
"""


def test_negative_preconditions_equality_constants_statics():
    t = task_of(SWITCH, SWITCH_P)
    names = sorted(str(a) for a in t.actions)
    # (turn-on l2) needs a forever-broken light unbroken: pruned; (pair l1 l1) fails (= ?a ?b)
    assert "(turn-on l2)" not in names and "(pair l1 l1)" not in names
    assert "(pair l1 l2)" in names and "(turn-on main)" in names
    assert t.holds_statically("(broken l2)") and t.holds_statically(("linked", "l1", "l2"))
    assert not t.is_fact("(broken l2)")
    on = t.action_by_name("(turn-on l1)")
    assert on.pre_neg_ids == (t.facts.id(("on", "l1")),) and on.pre_pos == 0
    s = run(t, ["(turn-on l1)", "(pair l1 l2)", "(turn-off l1)"])
    assert t.is_goal(s)
    assert not t.is_goal(run(t, ["(turn-on l1)", "(pair l1 l2)"]))


def test_determinism_two_groundings_identical():
    a, b = task_of(SWITCH, SWITCH_P), task_of(SWITCH, SWITCH_P)
    assert a.facts.atoms == b.facts.atoms == tuple(sorted(a.facts.atoms))
    assert a.actions == b.actions and a.init == b.init and a.goal_pos == b.goal_pos
    assert [str(x) for x in a.actions] == sorted(str(x) for x in a.actions)


def test_init_atoms_replace_init_and_are_exact_for_that_state():
    t0 = task_of(SWITCH, SWITCH_P)
    # from a state where l2 is not broken, (turn-on l2) is reachable: a new grounding has it
    t1 = task_of(SWITCH, SWITCH_P, init_atoms=["(linked l1 l2)", ("on", "l1")])
    assert not t0.actions_by_name("(turn-on l2)")
    assert t1.actions_by_name("(turn-on l2)")
    assert t1.atoms_of(t1.init) == (("on", "l1"),)
    with pytest.raises(UnknownAtomError):
        t0.state_from_atoms(["(on nowhere)"])
    cache = GroundingCache()
    d, p = parse_domain(textwrap.dedent(SWITCH)), parse_problem(textwrap.dedent(SWITCH_P))
    assert cache.task(d, p, ["(on l1)"]) is cache.task(d, p, [("on", "l1")])
    assert cache.task(d, p).actions == t0.actions


DISJ = """
(define (domain dj) (:requirements :adl)
  (:predicates (a) (b) (c) (g) (item ?x) (marked ?x))
  (:action go :parameters () :precondition (or (a) (and (b) (not (c)))) :effect (g))
  (:action need-some :parameters () :precondition (exists (?x) (and (item ?x) (marked ?x)))
     :effect (c))
  (:action need-all :parameters () :precondition (forall (?x) (imply (item ?x) (marked ?x)))
     :effect (a))
  (:action mark :parameters (?x) :precondition (item ?x) :effect (marked ?x)))
"""
DISJ_P = """
(define (problem p) (:domain dj) (:objects o1 o2 o3)
  (:init (b) (item o1) (item o2)) (:goal (or (g) (and (c) (a)))))
"""


def test_disjunction_split_exists_forall():
    t = task_of(DISJ, DISJ_P)
    go = t.actions_by_name("(go)")
    assert len(go) == 2 and sorted(a.variant for a in go) == [0, 1]
    assert all(a.schema == "go" for a in go)
    # exists: one witness per item, printed without the existential argument
    assert len(t.actions_by_name("(need-some)")) == 2
    [need_all] = t.actions_by_name("(need-all)")
    ids = {t.facts.id(("marked", o)) for o in ("o1", "o2")}
    assert set(need_all.pre_pos_ids) == ids          # o3 is no item: folded away statically
    s = t.init
    # (b) is static (true, never changed): the applicable variant only needs (not (c))
    assert t.holds_statically("(b)")
    assert t.action_by_name("(go)", s).pre_neg_ids == (t.facts.id(("c",)),)
    s = run(t, ["(go)"])
    assert t.is_goal(s)                               # disjunctive goal via the (__goal) axiom
    assert t.has_axioms
    s2 = run(t, ["(mark o1)", "(mark o2)", "(need-all)"])
    assert t.atoms_of(s2) == (("a",), ("marked", "o1"), ("marked", "o2"))
    assert not t.is_goal(s2)


CONDEFF = """
(define (domain ce) (:requirements :adl)
  (:types cell)
  (:predicates (on ?c - cell) (nbr ?a ?b - cell) (flag))
  (:action toggle :parameters (?c - cell)
    :precondition (and)
    :effect (and (when (on ?c) (not (on ?c))) (when (not (on ?c)) (on ?c))
                 (forall (?d - cell) (when (and (nbr ?c ?d) (on ?d)) (and (not (on ?d)) (flag))))
                 (forall (?d - cell) (when (and (nbr ?c ?d) (not (on ?d))) (on ?d))))))
"""
CONDEFF_P = """
(define (problem p) (:domain ce) (:objects x y z - cell)
  (:init (nbr x y) (nbr y z) (on y)) (:goal (and (on x) (on z))))
"""


def test_conditional_effects_read_the_pre_state_and_forall_instantiates():
    t = task_of(CONDEFF, CONDEFF_P)
    assert t.has_conditional_effects
    s = run(t, ["(toggle x)"])                        # x on, y toggled off, flag set
    assert t.atoms_of(s) == (("flag",), ("on", "x"))
    s = run(t, ["(toggle x)", "(toggle y)"])          # y on again, z toggled on, x untouched
    assert t.atoms_of(s) == (("flag",), ("on", "x"), ("on", "y"), ("on", "z"))
    toggle_z = t.action_by_name("(toggle z)")
    assert len(toggle_z.cond_effects) == 2            # z has no neighbours: no forall instances


ADD_DEL = """
(define (domain ad) (:requirements :strips)
  (:predicates (p) (q))
  (:action both :parameters () :precondition (q) :effect (and (not (p)) (p) (not (q)))))
"""


def test_add_after_delete():
    t = task_of(ADD_DEL, "(define (problem x) (:domain ad) (:init (q)) (:goal (p)))")
    s = run(t, ["(both)"])
    assert t.atoms_of(s) == (("p",),)


DERIVED = """
(define (domain dv) (:requirements :adl :derived-predicates)
  (:predicates (edge ?a ?b) (open ?a) (reach ?a) (cut ?a) (start ?a))
  (:derived (reach ?b) (or (start ?b) (exists (?a) (and (reach ?a) (edge ?a ?b) (open ?b)))))
  (:derived (cut ?a) (not (reach ?a)))
  (:action open-it :parameters (?a) :precondition (cut ?a) :effect (open ?a)))
"""
DERIVED_P = """
(define (problem p) (:domain dv) (:objects n1 n2 n3)
  (:init (start n1) (edge n1 n2) (edge n2 n3)) (:goal (reach n3)))
"""


def test_derived_predicates_stratified_fixpoint():
    t = task_of(DERIVED, DERIVED_P)
    assert t.has_axioms
    layers = {t.facts.atom(ax.head)[0]: ax.layer for ax in t.axioms}
    assert layers["cut"] > layers["reach"]
    assert ("reach", "n1") in t.atoms_of(t.init) and ("cut", "n3") in t.atoms_of(t.init)
    s = run(t, ["(open-it n2)"])
    assert ("reach", "n2") in t.atoms_of(s) and ("cut", "n2") not in t.atoms_of(s)
    s = run(t, ["(open-it n2)", "(open-it n3)"])
    assert t.is_goal(s)
    # derived facts in a given state are recomputed, not trusted
    s3 = t.state_from_atoms(["(reach n3)", "(start n1)"], strict=False)
    assert ("reach", "n3") not in t.atoms_of(s3)


EITHER = """
(define (domain ei) (:requirements :typing)
  (:types cat dog rock)
  (:predicates (fed ?x - (either cat dog)))
  (:action feed :parameters (?x - (either cat dog)) :precondition (and) :effect (fed ?x)))
"""


def test_either_types():
    t = task_of(EITHER, """(define (problem p) (:domain ei)
        (:objects tom - cat rex - dog stone - rock) (:init) (:goal (fed tom)))""")
    assert sorted(str(a) for a in t.actions) == ["(feed rex)", "(feed tom)"]


COSTS = """
(define (domain co) (:requirements :typing :action-costs)
  (:types place)
  (:predicates (at ?p - place) (road ?a ?b - place))
  (:functions (total-cost) - number (dist ?a ?b - place) - number)
  (:action drive :parameters (?a ?b - place) :precondition (and (at ?a) (road ?a ?b))
    :effect (and (not (at ?a)) (at ?b) (increase (total-cost) (dist ?a ?b)))))
"""


def test_action_costs_from_numeric_init():
    t = task_of(COSTS, """(define (problem p) (:domain co) (:objects a b - place)
        (:init (at a) (road a b) (= (dist a b) 7) (= (total-cost) 0)) (:goal (at b))
        (:metric minimize (total-cost)))""")
    assert t.has_costs and t.action_by_name("(drive a b)").cost == 7


def test_unreachable_goal_keeps_a_never_true_fact():
    t = task_of(SWITCH, SWITCH_P.replace("(on l2) (not (on l1))", "(broken l1)"))
    assert t.goal_pos and t.never_true("(broken l1)")
    assert not any(t.is_goal(s) for s in (t.init,))


def test_successor_generators_agree_with_brute_force():
    t = task_of(DISJ, DISJ_P)
    rng = random.Random(0)
    generators = [KeyedIndex(t.actions), DecisionTree(t.actions)]
    for _ in range(200):
        s = rng.getrandbits(len(t.facts))
        expected = [a for a in t.actions if a.applicable(s)]
        for g in generators:
            assert g.applicable(s) == expected


def test_bits_roundtrip():
    for ids in ([], [0], [3, 64, 65, 200]):
        m = 0
        for i in ids:
            m |= 1 << i
        assert list(bits(m)) == ids


QUANT = """
(define (domain qu) (:requirements :adl :derived-predicates)
  (:predicates (item ?x) (marked ?x) (done) (all-marked) (heavy ?x))
  (:derived (all-marked) (forall (?x) (imply (item ?x) (marked ?x))))
  (:action mark :parameters (?x) :precondition (item ?x) :effect (marked ?x))
  (:action finish :parameters ()
    :precondition (and)
    :effect (when (forall (?x) (or (not (item ?x)) (heavy ?x) (marked ?x))) (done))))
"""
QUANT_P = """
(define (problem p) (:domain qu) (:objects a b c)
  (:init (item a) (item b) (heavy b)) (:goal (and (done) (all-marked))))
"""


def test_forall_in_effect_condition_and_derived_body():
    t = task_of(QUANT, QUANT_P)
    [finish] = t.actions_by_name("(finish)")
    [ce] = finish.cond_effects                        # b is heavy, c no item: only (marked a)
    assert tuple(bits(ce.cond_pos)) == (t.facts.id(("marked", "a")),)
    assert not t.is_goal(run(t, ["(mark a)", "(finish)"]))      # (marked b) missing
    assert t.is_goal(run(t, ["(mark a)", "(mark b)", "(finish)"]))
    assert not t.is_goal(run(t, ["(finish)", "(mark a)", "(mark b)"]))


def test_undeclared_variable_is_a_semantic_error():
    from planning_core.errors import SemanticError
    bad = QUANT.replace("(:action mark :parameters (?x) :precondition (item ?x)",
                        "(:action mark :parameters (?x) :precondition (item ?y)")
    with pytest.raises(SemanticError, match=r"\?y"):
        task_of(bad, QUANT_P)
    bad = QUANT.replace("(heavy ?x) (marked ?x))) (done)", "(heavy ?z) (marked ?x))) (done)")
    with pytest.raises(SemanticError, match=r"\?z"):
        task_of(bad, QUANT_P)


DIGEST = """
import hashlib, sys, textwrap
from planning_core.ground.grounder import ground
from planning_core.pddl.parser import parse_domain, parse_problem
sys.path.insert(0, {tests!r})
from ground import test_grounder as T
h = hashlib.sha256()
for dom, prob in ((T.DISJ, T.DISJ_P), (T.CONDEFF, T.CONDEFF_P), (T.DERIVED, T.DERIVED_P),
                  (T.QUANT, T.QUANT_P), (T.SWITCH, T.SWITCH_P)):
    t = ground(parse_domain(textwrap.dedent(dom)), parse_problem(textwrap.dedent(prob)))
    h.update(repr((t.facts.atoms, t.actions, t.axioms, t.init, t.goal_pos, t.goal_neg,
                   sorted(t.static_atoms))).encode())
print(h.hexdigest())
"""


def test_grounding_does_not_depend_on_the_hash_seed():
    import os
    import subprocess
    import sys
    from pathlib import Path

    tests = str(Path(__file__).resolve().parent.parent)
    root = str(Path(tests).parent)
    digests = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=root)
        out = subprocess.run([sys.executable, "-c", DIGEST.format(tests=tests)], env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-1000:]
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_trajectory_constraints_are_refused_unless_the_caller_handles_them():
    from planning_core.errors import UnsupportedFeature
    from planning_core.pddl.parser import parse_domain, parse_problem

    domain = parse_domain("(define (domain d) (:predicates (p) (q)) "
                          "(:action a :parameters () :precondition () :effect (p)))")
    problem = parse_problem("(define (problem x) (:domain d) (:init) (:goal (p)) "
                            "(:constraints (always (q))))")
    with pytest.raises(UnsupportedFeature, match=":constraints"):
        ground(domain, problem)
    assert len(ground(domain, problem, ignore_constraints=True).actions) == 1
