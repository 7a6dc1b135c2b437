"""``cope check``: every ground-truth pair agrees with its label or is reported with a reason."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from cope.minicope import write_minicope
from planning_core.validators.cope.check import VERDICTS, check_pair, check_pairs, count_verdicts
from planning_core.validators.cope.dataset import load_dataset
from planning_core.validators.cope.groundtruth import GroundTruthCache
from planning_core.validators.cope.report import render_check_report

JSON_KEYS = {"dataset", "category", "problem", "constraint", "plan_exists", "status", "plan",
             "plan_valid", "agrees", "error"}


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    root = write_minicope(tmp_path_factory.mktemp("cope"))
    pairs = load_dataset(root)
    return {p.key[1:]: p for p in pairs}, check_pairs(pairs, time_limit=20)


def by_key(checks) -> dict:
    return {c.key[1:]: c for c in checks}


def test_agreeing_pairs(mini):
    checks = by_key(mini[1])
    solved = checks[("baseline", "p01", "constraint1")]
    assert (solved.status, solved.verdict, solved.plan_valid, solved.agrees) == \
        ("solved", "agrees", True, True)
    assert solved.plan and solved.plan[-1] == "(stack a b)"
    proof = checks[("goal", "p01", "constraint2")]
    assert (proof.status, proof.verdict, proof.agrees, proof.plan) == \
        ("unsolvable", "agrees", True, None)
    assert "relaxed unreachable" in proof.reason
    assert proof.proof == "relaxed-unreachable"
    assert proof.to_json()["proof"] == "relaxed-unreachable"
    assert solved.proof is None and solved.to_json()["proof"] is None


def test_label_disagreements_carry_their_evidence(mini):
    checks = by_key(mini[1])
    plan_where_none = checks[("action", "p01", "constraint3")]
    assert (plan_where_none.verdict, plan_where_none.plan_exists, plan_where_none.status,
            plan_where_none.plan_valid, plan_where_none.agrees) == \
        ("label_disagreement", False, "solved", True, False)
    assert "valid under the ground truth" in plan_where_none.evidence()
    assert "(stack a b)" in plan_where_none.evidence()
    proof_where_plan = checks[("state", "p01", "constraint4")]
    assert (proof_where_plan.verdict, proof_where_plan.status, proof_where_plan.agrees) == \
        ("label_disagreement", "unsolvable", False)
    assert proof_where_plan.evidence() == "proved unsolvable (relaxed unreachable)"


def test_defects_are_located(mini):
    checks = by_key(mini[1])
    typo = checks[("initial", "p01", "constraint5")]
    assert (typo.status, typo.verdict, typo.agrees, typo.plan) == ("error", "defect", None, None)
    (issue,) = typo.issues
    assert (issue.kind, issue.line, issue.column) == ("semantic", 14, 61)
    assert issue.file.endswith("p01_constraint5_df.pddl")
    assert "undeclared predicate 'stackd'" in issue.message
    header = checks[("state", "p01", "constraint6")]
    (issue,) = header.issues
    assert (issue.kind, issue.line, issue.column) == ("syntax", 3, 4)
    assert "(:predicates" in issue.message
    assert f":{issue.line}:{issue.column}:" in header.error


def test_json_rows_have_the_documented_fields(mini):
    for check in mini[1]:
        row = json.loads(json.dumps(check.to_json()))
        assert JSON_KEYS <= set(row)
        assert row["status"] in ("solved", "unsolvable", "unknown", "error")
        assert row["verdict"] in VERDICTS
        assert (row["plan"] is None) == (row["status"] != "solved")


def test_workers_give_the_same_answers_in_the_same_order(mini):
    pairs = list(mini[0].values())
    parallel = check_pairs(pairs, time_limit=20, workers=2)
    assert [(c.key, c.verdict, c.status, c.plan) for c in parallel] == \
        [(c.key, c.verdict, c.status, c.plan) for c in check_pairs(pairs, time_limit=20)]


def test_unlabelled_pair_is_a_defect(mini):
    from dataclasses import replace

    pair = replace(mini[0][("baseline", "p01", "constraint1")], plan_exists=None)
    check = check_pair(pair, cache=GroundTruthCache())
    assert (check.verdict, check.agrees, check.error) == ("defect", None, "no plan_exists label")


def test_unknown_is_reported_as_such(mini, monkeypatch):
    from planning_core.result import SolveResult, Status
    import planning_core.validators.cope.check as module

    monkeypatch.setattr(module, "solve_task", lambda d, p, time_limit: SolveResult(
        Status.UNKNOWN, None, None, "stub", time_limit, reason="time limit"))
    check = check_pair(mini[0][("baseline", "p01", "constraint1")], time_limit=3)
    assert (check.status, check.verdict, check.agrees) == ("unknown", "unknown", None)
    assert check.evidence() == "no answer within limits (time limit)"


def test_text_report_lists_every_finding(mini):
    text = render_check_report(mini[1])
    assert "Mini-1       6       2       2                   2        0" in text
    assert "Ground-truth defects: 2" in text and "Label disagreements: 2" in text
    assert ":14:61: semantic: undeclared predicate 'stackd'" in text
    assert counts_line(count_verdicts(mini[1])) == {"agrees": 2, "defect": 2,
                                                    "label_disagreement": 2}


def counts_line(counts: dict) -> dict:
    (counter,) = counts.values()
    return {k: v for k, v in counter.items() if v}


# ------------------------------------------------------------------- shared data

EXPECTED_DEFECTS = {  # (category, problem, constraint): (kind, file suffix, line, column)
    ("action", "p10", "constraint6"): ("semantic", "df.pddl", 5, 9),
    ("action", "p15", "constraint10"): ("semantic", "df.pddl", 29, 108),
    ("action", "p19", "constraint13"): ("semantic", "df.pddl", 30, 107),
    ("action", "p27", "constraint20"): ("semantic", "df.pddl", 27, 15),
    ("action", "p54", "constraint42"): ("syntax", "df.pddl", 10, 6),
    ("state", "p07", "constraint3"): ("semantic", "df.pddl", 58, 70),
    ("state", "p12", "constraint5"): ("semantic", "pf.pddl", 32, 38),
    ("state", "p16", "constraint6"): ("semantic", "pf.pddl", 33, 41),
    ("state", "p20", "constraint7"): ("semantic", "pf.pddl", 39, 72),
}
EXPECTED_DISAGREEMENTS = {
    ("CoinCollector-100", "goal", "p79", "constraint19"): "unsolvable",
    ("CoinCollector-100", "action", "p13", "constraint8"): "solved",
    ("CoinCollector-100", "action", "p40", "constraint33"): "solved",
}


def test_shared_ground_truth_defects_are_found_without_solving(cope_pairs):
    cache = GroundTruthCache()
    found = {}
    for pair in cope_pairs[0]:
        truth = cache.load(pair)
        if truth.errors:
            assert pair.dataset == "CoinCollector-100", pair.key
            first = truth.errors[0]
            found[pair.key[1:]] = (first.kind, first.file[-7:], first.line, first.column)
    assert found == EXPECTED_DEFECTS


def test_h2_proves_the_blocksworld_pair_relaxation_and_greedy_leave_open(cope_pairs):
    # BlocksWorld-100 state/p03/constraint3 is labelled unsolvable; the delete relaxation
    # reaches its goal and Fast Downward's configurations run out of 30 s: h^2 proves it
    (pair,) = [p for p in cope_pairs[0] if p.key == ("BlocksWorld-100", "state", "p03",
                                                     "constraint3")]
    check = check_pair(pair, time_limit=30)
    assert (check.status, check.verdict, check.proof, check.engine) == \
        ("unsolvable", "agrees", "h2-mutex", "internal")


def test_state_equation_proves_the_blocksworld_counting_pair(cope_pairs):
    # state/p12/constraint10: pickup and putdown toggle one fact, so the table never holds
    # two blocks fewer than at the start; every pair of goal facts is h^2-reachable
    pytest.importorskip("scipy")
    (pair,) = [p for p in cope_pairs[0] if p.key == ("BlocksWorld-100", "state", "p12",
                                                     "constraint10")]
    check = check_pair(pair, time_limit=30)
    assert (check.status, check.verdict, check.proof, check.engine) == \
        ("unsolvable", "agrees", "state-equation", "internal")


def test_projection_proves_the_blocksworld_tower_above_the_cap(cope_pairs):
    # state/p05/constraint5: a 7-block tower under a 4-block cap; every pair of goal facts
    # is h^2-reachable, no count is violated, and the state space (14 blocks) is too large to
    # exhaust; a projection on four goal facts of the tower, pruned by h^2's mutexes, is not
    (pair,) = [p for p in cope_pairs[0] if p.key == ("BlocksWorld-100", "state", "p05",
                                                     "constraint5")]
    check = check_pair(pair, time_limit=30)
    assert (check.status, check.verdict, check.proof, check.engine) == \
        ("unsolvable", "agrees", "projection", "internal")
    assert check.reason == "projection dead end"


@pytest.mark.slow
def test_full_check_accounts_for_every_pair(full_checks, cope_pairs):
    pairs, _ = cope_pairs
    assert [c.key for c in full_checks] == [p.key for p in pairs]
    verdicts = Counter(c.verdict for c in full_checks)
    assert verdicts["engine_disagreement"] == 0
    for check in full_checks:
        if check.verdict == "agrees":
            assert check.agrees is True
            assert check.plan_valid is True if check.plan_exists else check.plan is None
            assert (check.proof is None) == (check.status == "solved"), check.key
        elif check.verdict == "defect":
            assert check.issues and check.issues[0].line is not None, check.key
        elif check.verdict == "label_disagreement":
            assert EXPECTED_DISAGREEMENTS[check.key] == check.status
            assert check.evidence().startswith(("plan of", "proved unsolvable"))
        else:
            assert check.verdict == "unknown" and "limit" in check.reason, check.key
            assert check.plan_exists is False, check.key   # only unsolvable pairs are hard
    defects = {c.key[1:] for c in full_checks if c.verdict == "defect"}
    assert defects == set(EXPECTED_DEFECTS)
    assert {c.key for c in full_checks if c.verdict == "label_disagreement"} == \
        set(EXPECTED_DISAGREEMENTS)
    assert sum(verdicts.values()) == 378
    (opening,) = [c for c in full_checks if c.key == ("CoinCollector-100", "state", "p58",
                                                         "constraint8")]
    assert "the action heads do not list the ground truth's action(s) open" in opening.notes
