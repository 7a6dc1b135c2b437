"""Property tests: no text makes a parser, the checker or ``validate`` fail with anything
but the project's own error.

Two generators, in the spirit of grammar-based and mutation-based fuzzing (Zeller et al.,
"The Fuzzing Book", chapters "Mutation-Based Fuzzing" and "Fuzzing with Grammars"):

* *token soup*: sequences of PDDL keywords, names, variables, numbers, parentheses, junk
  characters and random bytes decoded with ``errors="replace"``; also soup shaped as
  s-expressions under a ``(define (domain ...`` or ``(define (problem ...`` head, so that
  the parser gets deep into its states and sometimes succeeds (then the checker runs);
* *mutations* of the valid files in ``tests/malformed/base``: characters and tokens
  deleted, duplicated, swapped or inserted; each mutant runs through
  :func:`planning_core.cli.validate.run_validate`, which must return 0, 1 or 2.

Only :class:`planning_core.errors.PlanningError` (or a result) may come out. Examples are
derandomized so CI sees the same inputs every run.
"""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planning_core.cli.validate import run_validate
from planning_core.errors import PlanningError
from planning_core.pddl import ast as pddl
from planning_core.pddl.checker import check_domain, check_problem
from planning_core.pddl.parser import parse, parse_domain
from planning_core.pddl.plans import Plan, parse_plan

BASE = Path(__file__).resolve().parents[1] / "malformed" / "base"
DOMAIN_TEXT = (BASE / "domain.pddl").read_text()
PROBLEM_TEXT = (BASE / "problem.pddl").read_text()
PLAN_TEXT = (BASE / "plan.txt").read_text()
BASE_DOMAIN = parse_domain(DOMAIN_TEXT, "domain.pddl")

FUZZ = settings(derandomize=True, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

KEYWORDS = ("define", "domain", "problem", ":domain", ":requirements", ":strips", ":typing",
            ":adl", ":types", ":constants", ":predicates", ":functions", ":action",
            ":parameters", ":precondition", ":effect", ":derived", ":objects", ":init",
            ":goal", ":metric", ":constraints", ":durative-action", "and", "or", "not",
            "imply", "exists", "forall", "when", "increase", "either", "=", "-", "+", "*",
            "/", "minimize", "maximize", "total-cost", "always", "sometime", "at-end",
            "object", "preference", "within")
NAMES = ("a", "b", "table", "block", "place", "on", "clear", "holding", "handempty", "pick",
         "put", "tinyblocks", "swap", "x1", "step", "n-2", "AND", "Define")
VARIABLES = ("?x", "?y", "?z", "?", "??x", "?1")
JUNK = ("\x00", "\t", "\r", "\n", "\x0b", "\x0c", "\u00a0", "\u2028", "\ufeff", "\ufffd",
        "\u0130", "\u00df", "ö", "🤖", "\"", "'", "`", "[", "]", "{", "}", "#", "|", "\\",
        ";", ";;", ":", "::", "?", ".", ",", "@", "$", "%", "&", "~", "^", "<", ">", "!",
        "1.", "0:", "[1]", "1e5", "-0", ".5", "\u202e", "\U0001d400")

words = st.one_of(st.sampled_from(KEYWORDS), st.sampled_from(NAMES),
                  st.sampled_from(VARIABLES), st.sampled_from(JUNK),
                  st.integers(-10**6, 10**6).map(str),
                  st.floats(allow_nan=False, allow_infinity=False).map(repr),
                  st.text(max_size=6))
separators = st.sampled_from((" ", " ", "\n", "", "\t", " ; note\n"))


@st.composite
def soup(draw) -> str:
    """A flat sequence of tokens, parentheses thrown in at random."""
    tokens = draw(st.lists(st.one_of(words, st.sampled_from(("(", ")", "(", ")", "(("))),
                           max_size=60))
    return "".join(t + draw(separators) for t in tokens)


def _sexpr(children) -> st.SearchStrategy[str]:
    return st.lists(children, max_size=6).map(lambda xs: "(" + " ".join(xs) + ")")


sexprs = st.recursive(words, _sexpr, max_leaves=30)
heads = st.sampled_from(("(define (domain d) ", "(define (problem p) (:domain tinyblocks) ",
                         "(define ", "", "(DEFINE (Domain D) "))


@st.composite
def shaped(draw) -> str:
    """Soup shaped as ``(define (domain d) <s-expressions>)``: gets past the header."""
    body = draw(st.lists(sexprs, max_size=5))
    return draw(heads) + " ".join(body) + draw(st.sampled_from((")", "", "))")))


# A small PDDL grammar (names from small pools, so that they are declared only sometimes):
# most outputs parse, and the checker and the simulator then meet every kind of semantic
# fault: undeclared names, wrong arity, wrong types, unbound variables, duplicates.
pred_names = st.sampled_from(("on", "clear", "holding", "handempty", "free", "p"))
type_names = st.sampled_from(("block", "place", "object", "brick"))
obj_names = st.sampled_from(("a", "b", "table", "a", "b", "table", "c", "floor"))
var_names = st.sampled_from(("?x", "?y", "?z"))
terms = st.one_of(obj_names, var_names)


def mostly(good: str, other: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """``good`` about nine times in ten, so that many generated files pass the checker and
    reach the simulator (a file has several choice points; each may break it)."""
    return st.sampled_from((good,) * 9 + (None,)).flatmap(
        lambda g: other if g is None else st.just(g))


def _join(*parts: str) -> str:
    return "(" + " ".join(p for p in parts if p) + ")"


@st.composite
def typed(draw, names) -> str:
    out = []
    for _ in range(draw(st.integers(0, 3))):
        out += draw(st.lists(names, min_size=draw(st.sampled_from((1, 1, 1, 0))), max_size=2))
        if draw(st.booleans()):
            out += ["-", draw(st.one_of(type_names,
                                        st.just("(either block place)")))]
    return " ".join(out)


atoms = st.one_of(  # mostly the base domain's signatures, sometimes anything
    st.builds(lambda x, y: _join("on", x, y), terms, terms),
    st.builds(lambda x: _join("clear", x), terms),
    st.builds(lambda x: _join("holding", x), terms),
    st.just("(handempty)"),
    st.builds(lambda p, ts: _join(p, *ts), pred_names, st.lists(terms, max_size=3)))
ground_atoms = st.one_of(
    st.builds(lambda x, y: _join("on", x, y), obj_names, obj_names),
    st.builds(lambda x: _join("clear", x), obj_names),
    st.builds(lambda x: _join("holding", x), obj_names),
    st.just("(handempty)"),
    st.builds(lambda p, ts: _join(p, *ts), pred_names, st.lists(terms, max_size=3)))
BASE_PREDICATES = ("(on ?x - block ?y - place)", "(clear ?x - place)", "(holding ?x - block)",
                   "(handempty)")
formulas = st.recursive(
    st.one_of(atoms, st.builds(lambda a, b: _join("=", a, b), terms, terms)),
    lambda f: st.one_of(
        st.lists(f, max_size=3).map(lambda xs: _join("and", *xs)),
        st.lists(f, max_size=3).map(lambda xs: _join("or", *xs)),
        f.map(lambda x: _join("not", x)),
        st.builds(lambda a, b: _join("imply", a, b), f, f),
        st.builds(lambda q, v, b: _join(q, _join(v), b),
                  st.sampled_from(("exists", "forall")), typed(var_names), f)),
    max_leaves=8)
literals = st.one_of(atoms, atoms.map(lambda a: _join("not", a)),
                     st.just("(increase (total-cost) 1)"))
effects = st.recursive(
    literals,
    lambda e: st.one_of(
        st.lists(e, max_size=3).map(lambda xs: _join("and", *xs)),
        st.builds(lambda v, b: _join("forall", _join(v), b), typed(var_names), e),
        st.builds(lambda c, b: _join("when", c, b), formulas, literals)),
    max_leaves=6)


@st.composite
def grammar_domain(draw) -> str:
    parts = ["(:requirements :strips :typing :adl)"]
    parts.append(_join(":types", draw(mostly("block - place", typed(type_names)))))
    parts.append(_join(":constants", draw(mostly("table - place", typed(obj_names)))))
    preds = draw(mostly(" ".join(BASE_PREDICATES), st.lists(
        st.builds(lambda n, v: _join(n, v), pred_names, typed(var_names)),
        max_size=5).map(" ".join)))
    parts.append(_join(":predicates", preds))
    params = mostly("?x - block ?y - place", typed(var_names))
    for name in draw(st.lists(st.sampled_from(("pick", "put", "drop")), max_size=3,
                                      unique=draw(mostly(True, st.just(False))))):
        parts.append(_join(":action", name, ":parameters", _join(draw(params)),
                           ":precondition", draw(formulas), ":effect", draw(effects)))
    if draw(st.booleans()):
        parts.append(_join(":derived", _join(draw(pred_names), draw(typed(var_names))),
                           draw(formulas)))
    return _join("define", "(domain tinyblocks)", *parts)


@st.composite
def grammar_problem(draw) -> str:
    parts = [_join(":domain", draw(mostly("tinyblocks", st.just("other"))))]
    parts.append(_join(":objects", draw(mostly("a b - block", typed(obj_names)))))
    parts.append(_join(":init", *draw(st.lists(ground_atoms, max_size=6))))
    parts.append(_join(":goal", draw(formulas)))
    if draw(st.booleans()):
        parts.append("(:metric minimize (total-cost))")
    return _join("define", "(problem swap)", *parts)


random_bytes = st.binary(max_size=300).map(lambda b: b.decode("utf-8", errors="replace"))
any_text = st.one_of(soup(), shaped(), random_bytes, st.text(max_size=200))


def _parse_and_check(text: str) -> None:
    """Parse; on success the checker must return diagnostics, not raise."""
    try:
        node = parse(text, "fuzz.pddl")
    except PlanningError as err:
        assert err.file == "fuzz.pddl"
        assert str(err)
        return
    assert isinstance(node, (pddl.Domain, pddl.Problem))
    if isinstance(node, pddl.Domain):
        diags = check_domain(node)
    else:
        diags = check_problem(BASE_DOMAIN, node)
    assert all(isinstance(d, pddl.Diagnostic) for d in diags)


@settings(FUZZ, max_examples=250)
@given(any_text)
def test_pddl_parser_raises_only_planning_errors(text: str) -> None:
    _parse_and_check(text)


@settings(FUZZ, max_examples=150)
@given(st.one_of(grammar_domain(), grammar_problem(),
                 grammar_domain().flatmap(lambda text: mutate(text))))
def test_grammar_generated_pddl_reaches_the_checker(text: str) -> None:
    _parse_and_check(text)


plan_words = st.one_of(words, st.sampled_from(("(", ")", "(pick a b)", "(put a table)",
                                               "0.000:", "1.", "step 3:", "[1]", "[", "]")))


@st.composite
def plan_soup(draw) -> str:
    tokens = draw(st.lists(plan_words, max_size=40))
    return "".join(t + draw(separators) for t in tokens)


@settings(FUZZ, max_examples=250)
@given(st.one_of(plan_soup(), random_bytes, st.text(max_size=200)))
def test_plan_parser_never_raises(text: str) -> None:
    """A plan is user input: bad lines become data (PlanLineError), never exceptions."""
    plan = parse_plan(text, "fuzz.plan")
    assert isinstance(plan, Plan)
    lines = text.count("\n") + 1
    for step in plan.steps:
        assert 1 <= step.line <= lines and step.name
    for err in plan.errors:
        assert 1 <= err.line <= lines and err.column >= 1 and err.message


# -------------------------------------------------------------- ACPBench answers

acp = pytest.importorskip("planning_core.validators.acp.answers.parsers")
answer_words = st.one_of(words, st.sampled_from((
    "Answer:", "answer", "None", "none.", "[]", "[None]", "\\boxed{", "}", "<think>",
    "</think>", "```", "```pddl", "(sail l0 l1)", "sail(l0, l1)", "pick-up a", ",", "and",
    "Del:", "Add:", "index", "1", "12", "-1", "1st", "**", "\n\n", "N/A", "null")))


@st.composite
def answer_soup(draw) -> str:
    tokens = draw(st.lists(answer_words, max_size=40))
    return "".join(t + draw(separators) for t in tokens)


@settings(FUZZ, max_examples=120)
@given(st.sampled_from(sorted(acp.ANSWER_PARSERS)),
       st.one_of(answer_soup(), random_bytes, st.text(max_size=150)))
def test_acp_answer_parsers_raise_only_planning_errors(task: str, text: str) -> None:
    try:
        acp.ANSWER_PARSERS[task](text)
    except PlanningError as err:
        assert str(err)


# ------------------------------------------------------------------- mutations

_TOKEN = re.compile(r"\(|\)|[^\s()]+")
mutation_junk = st.one_of(st.sampled_from(("(", ")", "-", "?", ":", ";", "\x00", "é", "\n",
                                           "?x", "and", "not", "block", "a", "7")),
                          st.sampled_from(KEYWORDS))


@st.composite
def mutate(draw, text: str) -> str:
    """One to four random edits of characters or whole tokens."""
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):  # a character edit
            if not text:
                return draw(mutation_junk)
            i = draw(st.integers(0, len(text) - 1))
            op = draw(st.sampled_from(("delete", "duplicate", "swap", "insert", "truncate")))
            if op == "delete":
                text = text[:i] + text[i + 1:]
            elif op == "duplicate":
                text = text[:i] + text[i] + text[i:]
            elif op == "swap":
                j = draw(st.integers(0, len(text) - 1))
                chars = list(text)
                chars[i], chars[j] = chars[j], chars[i]
                text = "".join(chars)
            elif op == "insert":
                text = text[:i] + draw(mutation_junk) + text[i:]
            else:
                text = text[:i]
        else:  # a token edit (keeps the rest of the file, so the checker gets to run)
            spans = [m.span() for m in _TOKEN.finditer(text)]
            if not spans:
                return text + draw(mutation_junk)
            k = draw(st.integers(0, len(spans) - 1))
            s, e = spans[k]
            op = draw(st.sampled_from(("delete", "duplicate", "swap", "replace")))
            if op == "delete":
                text = text[:s] + text[e:]
            elif op == "duplicate":
                text = text[:e] + " " + text[s:e] + text[e:]
            elif op == "replace":
                text = text[:s] + draw(mutation_junk) + text[e:]
            else:
                s2, e2 = spans[draw(st.integers(0, len(spans) - 1))]
                if (s2, e2) != (s, e):
                    (s, e), (s2, e2) = sorted(((s, e), (s2, e2)))
                    text = text[:s] + text[s2:e2] + text[e:s2] + text[s:e] + text[e2:]
    return text


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("mutants")


def _validate(workdir: Path, domain: str, problem: str, plan: str) -> tuple[int, str]:
    paths = []
    for name, text in (("domain.pddl", domain), ("problem.pddl", problem), ("plan.txt", plan)):
        path = workdir / name
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        paths.append(str(path))
    out, err = io.StringIO(), io.StringIO()
    code = run_validate([paths[2], paths[0], paths[1]], verbose=True, as_json=False,
                        show_warnings=True, out=out, err=err)
    return code, out.getvalue() + err.getvalue()


def _assert_sane(code: int, output: str) -> None:
    assert code in (0, 1, 2)
    assert "Traceback" not in output and "internal error" not in output
    if code == 2:
        assert "error" in output


@settings(FUZZ, max_examples=150)
@given(mutate(DOMAIN_TEXT))
def test_mutated_domain_through_validate(workdir, domain: str) -> None:
    _parse_and_check(domain)
    _assert_sane(*_validate(workdir, domain, PROBLEM_TEXT, PLAN_TEXT))


@settings(FUZZ, max_examples=150)
@given(mutate(PROBLEM_TEXT))
def test_mutated_problem_through_validate(workdir, problem: str) -> None:
    _parse_and_check(problem)
    _assert_sane(*_validate(workdir, DOMAIN_TEXT, problem, PLAN_TEXT))


@settings(FUZZ, max_examples=120)
@given(mutate(PLAN_TEXT))
def test_mutated_plan_through_validate(workdir, plan: str) -> None:
    code, output = _validate(workdir, DOMAIN_TEXT, PROBLEM_TEXT, plan)
    _assert_sane(code, output)
    if code == 1 and "Bad plan file!" in output:
        assert re.search(r"line \d+, column \d+: ", output)


@settings(FUZZ, max_examples=100)
@given(grammar_domain())
def test_generated_domain_through_validate(workdir, domain: str) -> None:
    _assert_sane(*_validate(workdir, domain, PROBLEM_TEXT, PLAN_TEXT))


@settings(FUZZ, max_examples=100)
@given(grammar_problem())
def test_generated_problem_through_validate(workdir, problem: str) -> None:
    _assert_sane(*_validate(workdir, DOMAIN_TEXT, problem, PLAN_TEXT))


def test_mutation_fuzzer_reaches_every_outcome(workdir) -> None:
    """Guard against a fuzzer that only ever produces syntax errors: hand-picked mutants
    of the kinds the strategies make give each exit code."""
    assert _validate(workdir, DOMAIN_TEXT, PROBLEM_TEXT, PLAN_TEXT)[0] == 0
    swapped = PLAN_TEXT.replace("(pick a b)\n(put a table)", "(put a table)\n(pick a b)")
    assert _validate(workdir, DOMAIN_TEXT, PROBLEM_TEXT, swapped)[0] == 1
    dropped = PROBLEM_TEXT.replace("(:objects a b - block)", "(:objects a - block)")
    assert _validate(workdir, DOMAIN_TEXT, dropped, PLAN_TEXT)[0] == 2
