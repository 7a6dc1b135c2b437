"""Parser: every shared file parses, positions and names are right, errors are located."""
from __future__ import annotations

import re
import textwrap

import pytest

from planning_core.errors import PDDLSyntaxError, PlanningError, UnsupportedFeature
from planning_core.pddl import ast as pddl
from planning_core.pddl.parser import parse, parse_domain, parse_problem, read_text
from shared_files import MALFORMED_SHARED, cope_pddl_files, ipc_pddl_files, resolve


DOMAIN = textwrap.dedent("""\
    ; a comment
    (define (domain Shop)
      (:requirements :strips :typing :adl :action-costs :derived-predicates)
      (:types item box - object crate - box)
      (:constants home - (either item box))
      (:predicates (at ?x - item ?b - box) (full ?b) (ok))
      (:functions (total-cost) - number (weight ?i - item))
      (:derived (ok) (exists (?b - box) (full ?b)))
      (:action Put
        :parameters (?i - item ?b - box)
        :precondition (and (not (at ?i ?b)) (or (full ?b) (= ?i home))
                           (forall (?c - crate) (imply (full ?c) (ok))))
        :effect (and (at ?i ?b) (when (ok) (not (full ?b)))
                     (forall (?c - crate) (full ?c))
                     (increase (total-cost) (weight ?i)))))
    """)


def test_domain_structure():
    d = parse_domain(DOMAIN, "shop.pddl")
    assert d.name == "shop" and d.filename == "shop.pddl"
    assert [t.name for t in d.types] == ["item", "box", "crate"]
    assert d.types[2].types == ("box",)
    assert d.constants[0].types == ("item", "box")
    assert [p.arity for p in d.predicates] == [2, 1, 0]
    assert d.predicates[1].parameters[0].types == ("object",)
    assert d.functions[1] == pddl.FunctionDef("weight", (pddl.TypedName("?i", ("item",)),), "number")
    put = d.actions[0]
    assert put.name == "put" and put.pos == pddl.Pos(9, 12)
    pre = put.precondition
    assert isinstance(pre, pddl.And) and isinstance(pre.parts[0], pddl.Not)
    assert pre.parts[1] == pddl.Or((pddl.Atom("full", ("?b",)), pddl.Equals("?i", "home")))
    assert isinstance(pre.parts[2], pddl.Forall)
    assert isinstance(put.effects[1], pddl.When)
    assert put.effects[1].effects == (pddl.Delete(pddl.Atom("full", ("?b",))),)
    assert isinstance(put.effects[2], pddl.ForallEffect)
    assert put.effects[3] == pddl.Increase(pddl.FunctionTerm("total-cost"), pddl.FunctionTerm("weight", ("?i",)))
    assert d.derived[0].head.name == "ok"


def test_problem_structure():
    p = parse_problem(textwrap.dedent("""\
        (define (problem P1) (:domain SHOP)
          (:objects a b - item x - crate)
          (:init (full x) (= (total-cost) 0) (= (weight a) 2.5))
          (:goal (and (at a x) (not (full x))))
          (:metric minimize (total-cost)))
        """))
    assert p.domain_name == "shop"
    assert [o.name for o in p.objects] == ["a", "b", "x"]
    assert p.init == (pddl.Atom("full", ("x",)),)
    assert [n.value for n in p.numeric_init] == [0.0, 2.5]
    assert p.metric == pddl.Metric("minimize", pddl.FunctionTerm("total-cost"))


def test_keywords_are_names_where_no_keyword_fits():
    d = parse_domain("(define (domain domain) (:predicates (at ?x) (and-not ?x)) "
                     "(:action not-now :parameters (?x) :precondition (and-not ?x) :effect (at ?x)))")
    assert d.name == "domain"
    assert d.actions[0].name == "not-now"
    assert d.actions[0].precondition == pddl.Atom("and-not", ("?x",))


def test_empty_precondition_and_effect():
    d = parse_domain("(define (domain d) (:predicates (p)) (:action a :parameters () "
                     ":precondition () :effect ()))")
    assert d.actions[0].precondition == pddl.TRUE and d.actions[0].effects == ()


@pytest.mark.parametrize("rel", ipc_pddl_files())
def test_parses_every_ipc_file(rel):
    path = resolve(rel)
    node = parse(read_text(path), str(path))
    assert isinstance(node, (pddl.Domain, pddl.Problem))


@pytest.mark.parametrize("rel", cope_pddl_files())
def test_parses_every_wellformed_cope_file(rel):
    path = resolve(rel)
    if rel in MALFORMED_SHARED:
        with pytest.raises(PDDLSyntaxError, match=r"section header such as '\(:predicates' missing") as info:
            parse(read_text(path), str(path))
        assert (info.value.line, info.value.column) == (10, 6)
    else:
        parse(read_text(path), str(path))


@pytest.mark.parametrize("text, line, column, pattern", [
    ("(define (domain d) (:predicates (p ?x)) (:action a :parameters (?x) :precondition (p ?x) :effect (p ?x ))",
     1, 106, r"line 1, column 1 is never closed"),
    ("(define (domain d) (:predicates (p ?x)))\n)", 2, 1, r"already complete"),
    ("(define (domain d)\n (:predicates (p ?x))\n (:action a :parameters (?x)\n  :precondition (and (p ?x) (p))\n  :effect (p %x)))",
     5, 14, r"character '%'.*action 'a' > :effect"),
    ("(define (domain d) (:predicates (p ?x - )))", 1, 41, r"unexpected '\)' in :predicates; expected .*a name"),
    ("(define (domain d) (:types - t))", 1, 30, r"no names before it"),
    ("(define (problem p) (:objects a) (:init) (:goal (and)))", 1, 18, r"no \(:domain"),
    ("(define (domain d) (:process a))", 1, 21, r"processes \(PDDL\+\)"),
])
def test_syntax_errors_are_located(text, line, column, pattern):
    with pytest.raises(PlanningError) as info:
        parse(text, "f.pddl")
    err = info.value
    assert err.file == "f.pddl"
    assert (err.line, err.column) == (line, column), str(err)
    assert re.search(pattern, str(err)), str(err)


def test_unsupported_feature_is_a_planning_error():
    with pytest.raises(UnsupportedFeature, match="processes"):
        parse("(define (domain d) (:process a))")


def test_role_mismatch():
    with pytest.raises(PDDLSyntaxError, match="expected a problem, found a domain"):
        parse_problem("(define (domain d))")
    with pytest.raises(PDDLSyntaxError, match="expected a domain, found a problem"):
        parse_domain("(define (problem p) (:domain d))")


@pytest.mark.parametrize("data, pattern", [
    (b"", "empty"), (b"  \n ; only a comment\n", "empty|unexpected end"),
    (b"\x00\x01\x02", "binary data"), (b"(define \xff\xfe)", "not UTF-8"),
])
def test_unreadable_content(tmp_path, data, pattern):
    f = tmp_path / "x.pddl"
    f.write_bytes(data)
    with pytest.raises(PlanningError, match=pattern):
        parse(read_text(f), str(f))


def test_missing_file_and_directory(tmp_path):
    from planning_core.errors import InputError

    with pytest.raises(InputError, match="no such file"):
        read_text(tmp_path / "nope.pddl")
    with pytest.raises(InputError, match="directory"):
        read_text(tmp_path)


def test_pddl3_constraints():
    p = parse_problem(textwrap.dedent("""\
        (define (problem p) (:domain d) (:objects a - t) (:init (q a)) (:goal (q a))
          (:constraints (and (always (q a)) (sometime (r)) (at-most-once (r))
                             (sometime-before (r) (q a)) (sometime-after (q a) (r))
                             (at end (not (r))) (forall (?x - t) (always (q ?x))))))
        """))
    c = p.constraints
    assert isinstance(c, pddl.ConstraintAnd) and len(c.parts) == 7
    assert c.parts[3] == pddl.SometimeBefore(pddl.Atom("r"), pddl.Atom("q", ("a",)))
    assert c.parts[5] == pddl.AtEnd(pddl.Not(pddl.Atom("r")))
    assert isinstance(c.parts[6], pddl.ConstraintForall)


@pytest.mark.parametrize("keyword", ["within", "always-within", "hold-during", "hold-after"])
def test_time_windows_are_unsupported(keyword):
    with pytest.raises(UnsupportedFeature, match=f"'{keyword}' is not supported: time windows"):
        parse(f"(define (problem p) (:domain d) (:init) (:goal (and)) (:constraints ({keyword} 3 (p))))")


def _big_problem(extra_init: str = "") -> str:
    atoms = "\n".join(f"    (at o{i} l{i % 7}) ; object {i}\n    (= (dist l{i % 7} o{i}) {i})"
                      for i in range(1500))
    return (f"(define (problem big) (:domain d)\n  (:objects {' '.join(f'o{i}' for i in range(1500))})\n"
            f"  (:init\n{atoms}\n{extra_init}  )\n  (:goal (and (at o1 l1))))\n")


@pytest.mark.parametrize("extra", ["", "    (= total 5)\n", "    (p ?x)\n"])
def test_flat_init_fast_path_equals_grammar(monkeypatch, extra):
    from planning_core.pddl import fast_init

    text = _big_problem(extra)
    assert len(text) > fast_init.FAST_INIT_MIN
    assert (fast_init.flat_init(text) is None) == bool(extra)  # anything unusual falls back
    fast = parse(text)
    monkeypatch.setattr(fast_init, "FAST_INIT_MIN", 10 ** 12)
    slow = parse(text)
    assert fast == slow
    assert [a.pos for a in fast.init] == [a.pos for a in slow.init]
    assert [n.pos for n in fast.numeric_init] == [n.pos for n in slow.numeric_init]
    assert fast.init[1] == pddl.Atom("at", ("o1", "l1")) and fast.init[1].pos == pddl.Pos(6, 6)


def test_errors_after_a_fast_init_keep_their_position():
    text = _big_problem().replace("(:goal (and (at o1 l1)))", "(:goal (and (at o1 l1) %))")
    with pytest.raises(PDDLSyntaxError) as info:
        parse(text)
    lines = text.splitlines()
    assert info.value.line == len(lines) and "'%'" in str(info.value)


def test_every_init_section_is_kept():
    p = parse_problem("(define (problem p) (:domain d) (:init (a)) (:goal (a)) (:init (b) (= (f) 1)))")
    assert [x.predicate for x in p.init] == ["a", "b"] and len(p.numeric_init) == 1


@pytest.mark.parametrize("text, word, hint", [
    ("(define (domain d) (:predicates (p)) (:actions a :parameters () :effect (p)))", ":actions", ":action"),
    ("(define (problem p) (:domain d) (:initial-state (p)) (:goal (p)))", ":initial-state", ":init"),
    ("(define (domain d) (:constraints (always-true (p))))", "always-true", "always"),
])
def test_keywords_must_end_where_the_word_ends(text, word, hint):
    with pytest.raises(PDDLSyntaxError, match=re.escape(f"'{word}' (did you mean '{hint}'?)")) as info:
        parse(text)
    assert info.value.column == text.index(word) + 1


@pytest.mark.parametrize("condition, effect, kind", [
    ("(> (f) 1)", "(p)", pddl.Comparison),
    ("(and (p) (<= (f) 1))", "(p)", pddl.Comparison),
    ("(p)", "(decrease (f) 1)", pddl.NumericEffect),
    ("(p)", "(and (p) (assign (f) 2))", pddl.NumericEffect),
])
def test_numeric_fluents_parse_to_their_nodes(condition, effect, kind):
    """PDDL 2.1 comparisons and numeric effects are formula and effect nodes (issue 28)."""
    text = (f"(define (domain d) (:predicates (p)) (:functions (f)) (:action a :parameters () "
            f":precondition {condition} :effect {effect}))")
    action = parse(text).actions[0]
    assert kind.__name__ in repr(action)


_GOAL_PROBLEM = ("(define (problem g) (:domain d)\n  (:objects a b c - thing)\n"
                 "  (:init (p a) (q b c) ; a comment\n   (p b))\n"
                 "  (:goal (and (p c) ; first\n     (q a b)\n  (r))))\n")


@pytest.mark.parametrize("goal,fast", [
    ("(and (p c) ; first\n     (q a b)\n  (r))", True),
    ("(AND (P C) (q a b))", True),
    ("(and (p c) (not (q a b)))", False),                    # a connective inside
    ("(and (p c) (q ?x b))", False),                         # a variable
    ("(and (p c) (not))", False),                            # a keyword as a name
    ("(and (p c) (at end))", False),
    ("(p c)", False),                                        # no conjunction
    ("(and)", False),
])
def test_flat_goal_fast_path_equals_grammar(monkeypatch, goal, fast):
    from planning_core.pddl import fast_init

    text = _GOAL_PROBLEM.replace("(and (p c) ; first\n     (q a b)\n  (r))", goal)
    assert (fast_init.flat_goal(text.lower()) is not None) == fast
    try:
        quick = parse(text)
    except PDDLSyntaxError as err:
        quick = (err.line, err.column, str(err))
    monkeypatch.setattr(fast_init, "flat_goal", lambda _text: None)
    try:
        slow = parse(text)
    except PDDLSyntaxError as err:
        slow = (err.line, err.column, str(err))
    assert quick == slow
    if isinstance(quick, pddl.Problem) and isinstance(quick.goal, pddl.And):
        assert [a.pos for a in quick.goal.parts] == [a.pos for a in slow.goal.parts]
        if fast:
            assert quick.goal.parts[0].pos == pddl.Pos(5, 16)


def test_errors_after_a_fast_goal_keep_their_position():
    text = _GOAL_PROBLEM.replace("(r))))", "(r)) %))")
    with pytest.raises(PDDLSyntaxError) as info:
        parse(text)
    assert (info.value.line, info.value.column) == (7, 8)
