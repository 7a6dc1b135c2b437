"""The project's own PDDL fixtures (``domains/``), checked against an independent oracle.

Every ``domains/<name>/pNN*.plan`` must be accepted by unified-planning's sequential plan
validator, and every ``*.bad.plan`` rejected exactly the way its ``; expect:`` line says
(``precondition_failed at step K`` or ``goal_not_satisfied``). A ``; cost = N`` header must
equal the plan's metric value (``:action-costs``) or its length (unit cost). The fixtures
feed the project's own validator tests, so a wrong fixture would teach them a wrong answer;
checking them with a second implementation is what makes them trustworthy.

unified-planning 1.3 cannot read ``adl-showcase`` (no ``either`` types, no
``:derived-predicates``). Its plans are skipped in the direct check and instead checked on
a copy where ``either`` is replaced by the equivalent named type and the derived predicate,
which depends only on the static ``road`` relation, is compiled into initial facts.
"""
from __future__ import annotations

import functools
import re
import warnings
from pathlib import Path

import pytest

DOMAINS = Path(__file__).resolve().parent.parent / "domains"
EXPECTED_DOMAINS = (
    "adl-showcase", "alfred", "blocksworld", "coins", "costs", "ferry", "gripper", "grid",
    "logistics", "swap", "towers",
)
# Domains unified-planning cannot parse, with the reason (checked below to still hold).
UP_UNSUPPORTED = {
    "adl-showcase": "unified-planning's PDDL reader supports neither `either` types nor "
                    ":derived-predicates",
}
EXPECT_RE = re.compile(r"^;\s*expect:\s*(precondition_failed at step (\d+)|goal_not_satisfied)\s*$")
COST_RE = re.compile(r"^;\s*cost\s*=\s*(\d+)\s*$")

PLANS = tuple(sorted(DOMAINS.glob("*/p*.plan")))
GOOD_PLANS = tuple(p for p in PLANS if not p.name.endswith(".bad.plan"))
BAD_PLANS = tuple(p for p in PLANS if p.name.endswith(".bad.plan"))


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _problem_of(plan: Path) -> Path:
    """``p03.derived.bad.plan`` belongs to ``p03.pddl`` in the same folder."""
    return plan.parent / (plan.name.split(".")[0] + ".pddl")


def _headers(plan: Path) -> tuple[str, ...]:
    return tuple(line.strip() for line in plan.read_text().splitlines() if line.startswith(";"))


def _expectation(plan: Path) -> tuple[str, int | None]:
    for line in _headers(plan):
        match = EXPECT_RE.match(line)
        if match:
            step = match.group(2)
            return ("precondition_failed", int(step)) if step else ("goal_not_satisfied", None)
    raise AssertionError(f"{_id(plan)} has no '; expect: ...' line")


def _declared_cost(plan: Path) -> int | None:
    for line in _headers(plan):
        match = COST_RE.match(line)
        if match:
            return int(match.group(1))
    return None


def _up():
    up = pytest.importorskip("unified_planning", reason="unified-planning (the oracle) is not installed")
    from unified_planning.shortcuts import get_environment

    get_environment().credits_stream = None
    return up


@functools.lru_cache(maxsize=None)
def _read(domain_file: str, problem_file: str):
    """Parse once per problem: the reader dominates the run time of this module."""
    _up()
    from unified_planning.io import PDDLReader

    reader = PDDLReader()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return reader, reader.parse_problem(domain_file, problem_file)


def _validate(domain_file: Path, problem_file: Path, plan: Path):
    from unified_planning.shortcuts import PlanValidator

    reader, problem = _read(str(domain_file), str(problem_file))
    up_plan = reader.parse_plan(problem, str(plan))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with PlanValidator(name="sequential_plan_validator") as validator:
            return validator.validate(problem, up_plan)


def _check_good(result, plan: Path) -> None:
    from unified_planning.engines import ValidationResultStatus

    assert result.status == ValidationResultStatus.VALID, f"{_id(plan)}: {result}"
    declared = _declared_cost(plan)
    assert declared is not None, f"{_id(plan)} has no '; cost = N' line"
    if result.metric_evaluations:
        (measured,) = result.metric_evaluations.values()
    else:
        measured = sum(1 for line in plan.read_text().splitlines() if line.lstrip().startswith("("))
    assert measured == declared, f"{_id(plan)}: cost {measured}, header says {declared}"


def _check_bad(result, plan: Path) -> None:
    from unified_planning.engines import ValidationResultStatus
    from unified_planning.engines.results import FailedValidationReason

    kind, step = _expectation(plan)
    assert result.status == ValidationResultStatus.INVALID, f"{_id(plan)} was accepted"
    if kind == "goal_not_satisfied":
        assert result.reason == FailedValidationReason.UNSATISFIED_GOALS, str(result)
    else:
        assert result.reason == FailedValidationReason.INAPPLICABLE_ACTION, str(result)
        # The trace holds the initial state plus one state per applied step.
        assert len(result.trace) == step, f"{_id(plan)} failed at step {len(result.trace)}"


def _up_readable(plans: tuple[Path, ...]) -> tuple[Path, ...]:
    """Plans of domains unified-planning can read; the others (UP_UNSUPPORTED) are checked
    by test_adl_showcase_compiled on a compiled copy, so they are not parametrized here."""
    return tuple(p for p in plans if p.parent.name not in UP_UNSUPPORTED)


# --- layout of the fixture folders --------------------------------------------------------

# Folders of nested fixture sets with their own README and tests (not one domain each):
# pddl3/ holds PDDL3 trajectory-constraint domains, checked by tests/temporal/test_pddl3.py.
# household/ (generated problems, no stored plans) and profiles/ (adaptive-planning profiles)
# are checked by tests/adaptive/; toolplans/ holds tool-use tasks (JSON), checked by
# tests/toolplans/test_dataset.py; pddl21/ holds numeric and temporal (PDDL 2.1) domains, which
# unified-planning's validator does not take, checked by tests/pddl21/.
NESTED = ("pddl3", "pddl21", "household", "profiles", "toolplans")


def test_every_domain_is_present_and_listed_in_readme():
    folders = tuple(sorted(p.name for p in DOMAINS.iterdir() if p.is_dir() and p.name not in NESTED))
    assert folders == tuple(sorted(EXPECTED_DOMAINS))
    readme = (DOMAINS / "README.md").read_text()
    for name in folders:
        assert re.search(rf"^- \*\*{re.escape(name)}\*\*", readme, re.M), name


@pytest.mark.parametrize("name", EXPECTED_DOMAINS)
def test_domain_folder_has_problems_plans_and_a_bad_plan(name):
    folder = DOMAINS / name
    assert (folder / "domain.pddl").is_file()
    problems = sorted(folder.glob("p[0-9][0-9].pddl"))
    assert len(problems) >= 3
    for problem in problems:
        assert problem.with_suffix(".plan").is_file(), f"{problem} has no plan"
    assert (folder / "p01.bad.plan").is_file()


@pytest.mark.parametrize("plan", PLANS, ids=_id)
def test_plan_belongs_to_a_problem_and_has_its_header(plan):
    assert _problem_of(plan).is_file()
    if plan in BAD_PLANS:
        _expectation(plan)
    else:
        assert _declared_cost(plan) is not None


# --- the oracle ---------------------------------------------------------------------------

@pytest.mark.parametrize("plan", _up_readable(GOOD_PLANS), ids=_id)
def test_good_plan_is_accepted_by_unified_planning(plan):
    _up()
    _check_good(_validate(plan.parent / "domain.pddl", _problem_of(plan), plan), plan)


@pytest.mark.parametrize("plan", _up_readable(BAD_PLANS), ids=_id)
def test_bad_plan_is_rejected_by_unified_planning_as_expected(plan):
    _up()
    _check_bad(_validate(plan.parent / "domain.pddl", _problem_of(plan), plan), plan)


@pytest.mark.parametrize("name", sorted(UP_UNSUPPORTED))
def test_unsupported_domains_really_are_unreadable_by_unified_planning(name):
    """Keeps the skip list honest: once unified-planning reads the domain, drop the skip."""
    _up()
    from unified_planning.io import PDDLReader

    folder = DOMAINS / name
    with pytest.raises(Exception):
        PDDLReader().parse_problem(str(folder / "domain.pddl"), str(folder / "p01.pddl"))


# --- adl-showcase through a compiled copy -------------------------------------------------

def _drop_block(text: str, opener: str) -> str:
    """Remove the parenthesised block starting at ``opener`` (balanced-paren scan)."""
    start = text.index(opener)
    depth = 0
    for end in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[end], 0)
        if depth == 0:
            return text[:start] + text[end + 1:]
    raise AssertionError(f"unbalanced block {opener!r}")


def _transitive_closure(pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    closure = set(pairs)
    while True:
        new = {(a, d) for a, b in closure for c, d in closure if b == c} - closure
        if not new:
            return closure
        closure |= new


def _compile_adl_showcase(plan: Path, tmp: Path) -> tuple[Path, Path]:
    """Write (once per problem) a copy unified-planning can read; same semantics here.

    ``(either letter parcel)`` names exactly the objects of type ``mail``, and
    ``connected`` is the transitive closure of the static ``road`` relation, so it can be
    listed in the initial state instead of derived.
    """
    domain = (plan.parent / "domain.pddl").read_text()
    assert domain.count("(:derived") == 1 and "(:derived (connected" in domain
    domain = domain.replace("(either letter parcel)", "mail").replace(":derived-predicates", "")
    domain = _drop_block(domain, "(:derived")
    problem = _problem_of(plan).read_text()
    roads = set(re.findall(r"\(road\s+(\S+)\s+(\S+)\)", problem))
    facts = " ".join(f"(connected {a} {b})" for a, b in sorted(_transitive_closure(roads)))
    problem = problem.replace("(:init", f"(:init {facts}", 1)
    domain_file, problem_file = tmp / "domain.pddl", tmp / _problem_of(plan).name
    if not problem_file.exists():  # one file per problem, so _read's cache applies
        domain_file.write_text(domain)
        problem_file.write_text(problem)
    return domain_file, problem_file


@pytest.fixture(scope="module")
def compiled_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("adl-showcase-compiled")


@pytest.mark.parametrize(
    "plan", tuple(p for p in PLANS if p.parent.name == "adl-showcase"), ids=_id
)
def test_adl_showcase_compiled(plan, compiled_dir):
    _up()
    domain_file, problem_file = _compile_adl_showcase(plan, compiled_dir)
    result = _validate(domain_file, problem_file, plan)
    if plan in BAD_PLANS:
        _check_bad(result, plan)
    else:
        _check_good(result, plan)


def test_transitive_closure_follows_chains_only_forward():
    assert _transitive_closure({("a", "b"), ("b", "c")}) == {("a", "b"), ("b", "c"), ("a", "c")}
