"""Issue 12: verdicts bounded by deterministic budgets, the same under any machine load;
``None`` proofs by one exploration; the stored data decides without parsing the PDDL."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from planning_core.validators.acp import problem as acp_problem
from planning_core.validators.acp.problem import ProblemCache, parse_domain_cached
from planning_core.validators.acp.records import Question
from planning_core.validators.acp.scoring import AnswerScorer

from tests.acp.acp_fixtures import DOMAIN, PROBLEM, record

#: Answers to the trap task that need searches of every kind (reach, areach, land, nexta,
#: and the None proofs), with the stored sets emptied so that nothing is looked up.
ANSWERS = [
    ("reach", "(in g r0)", []), ("reach", "(at r2)", []), ("reach", "None", []),
    ("areach", "(drop g r0)", []), ("areach", "(pick k r1)", []), ("areach", "None", []),
    ("land", "(holding k)", {"yes": [], "no": []}), ("land", "(holding c)", {"yes": [], "no": []}),
    ("land", "None", {"yes": [], "no": []}),
    ("nexta", "(move r0 r1)", {"yes": [], "no": [], "opt": ""}),
    ("nexta", "(pick c r0)", {"yes": [], "no": [], "opt": ""}),
]


def _rows(budget: int, dev: list[tuple[Question, str]]) -> list[tuple]:
    scorer = AnswerScorer(budget=budget, cache=ProblemCache())
    out = [tuple(scorer(record(t, answer), r).to_json().values()) for t, r, answer in ANSWERS]
    out += [tuple(scorer(q, r).to_json().values()) for q, r in dev]
    return out


def _dev_none_questions(shared_data) -> list[tuple[Question, str]]:
    """A few dev questions whose None answers need the exploration (empty stored set)."""
    picked = []
    for task in ("reach", "areach"):
        rows = json.loads((shared_data / "acpbench_hard" / task / "dev.gen.json").read_text())
        empty = [Question.from_record(r) for r in rows if not r["answer"]]
        picked += [(q, "None") for q in empty[:2]]
    return picked


def test_same_rows_under_cpu_load(shared_data):
    dev = _dev_none_questions(shared_data)
    # budgets small enough that some verdicts end unknown, and the default: with a
    # deterministic budget the unknowns are the same ones too
    quiet = [_rows(b, dev) for b in (3, 40)] + [_rows(10**6, dev)]
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        loaded = [_rows(b, dev) for b in (3, 40)] + [_rows(10**6, dev)]
    finally:
        busy.kill()
        busy.wait()
    assert quiet == loaded
    small = [row for rows in quiet[:2] for row in rows]
    assert any(row[0] is None for row in small)          # the small budgets did run out
    assert all(row[0] is not None for row in quiet[2])    # the default-sized one did not


def test_unknown_names_the_budget_that_ran_out():
    s = AnswerScorer(budget=1)(record("reach", []), "(in g r0)")
    assert (s.value, s.evidence) == (None, "limit")
    assert "budget of 1 expanded states" in s.reason
    # the same answer with the default budget is decided
    assert AnswerScorer()(record("reach", []), "(in g r0)").value == 1


def test_none_proofs_keep_their_witness():
    scorer = AnswerScorer()
    s = scorer(record("reach", []), "None")
    assert (s.value, s.evidence) == (0, "planner-unsolvable")
    assert "(in g r0)" in s.reason and "exhaustive" in s.reason
    open_trap = PROBLEM.replace("(door r1 r2)", "(door r1 r2) (door r2 r1)").replace(
        "(in g r2)", "(in g r1)")
    s = scorer(record("reach", [], problem=open_trap), "None")
    assert (s.value, s.evidence) == (1, "all-checked")
    assert "one exploration" in s.reason
    doors = " ".join(f"(door r{a} r{b})" for a in range(3) for b in range(3))
    everywhere = PROBLEM.replace("(door r0 r1) (door r1 r0) (door r1 r2)", doors)
    s = scorer(record("areach", [], problem=everywhere), "None")
    assert (s.value, s.evidence) == (1, "all-checked")
    assert "every one of the 27 well-formed ground actions" in s.reason


def test_stored_answers_are_decided_without_parsing():
    cache = ProblemCache()
    scorer = AnswerScorer(cache=cache)
    assert scorer(record("reach"), "(door r2 r0)").evidence == "stored-yes"
    assert scorer(record("land"), "(at r1)").evidence == "stored-yes"
    assert scorer(record("land"), "None").evidence == "stored-none"
    assert scorer(record("nexta"), "(move r0 r1)").evidence == "stored-yes"
    assert cache.misses == 0 and cache.hits == 0       # no PDDL was parsed
    assert scorer(record("reach"), "(in g r0)").value == 1
    assert cache.misses == 1


def test_each_domain_text_is_parsed_once(monkeypatch):
    calls = []
    real = acp_problem.parse_domain

    def counting(text, name):
        calls.append(name)
        return real(text, name)

    monkeypatch.setattr(acp_problem, "parse_domain", counting)
    monkeypatch.setattr(acp_problem, "_DOMAINS", type(acp_problem._DOMAINS)())
    cache = ProblemCache()
    other = PROBLEM.replace("(in c r0)", "(in c r1)")
    a = cache.get(DOMAIN, PROBLEM)
    b = cache.get(DOMAIN, other)
    assert a is not b and a.domain is b.domain
    assert len(calls) == 1
    assert parse_domain_cached(DOMAIN) is a.domain


def test_inapplicable_next_action_needs_no_grounding():
    cache = ProblemCache()
    scorer = AnswerScorer(cache=cache)
    s = scorer(record("nexta"), "(move r1 r2)")
    assert (s.value, s.evidence) == (0, "not-applicable")
    info = cache.get(DOMAIN, PROBLEM)
    assert info._task is None                          # decided by the lifted check


@pytest.mark.parametrize("budget", [0, -1])
def test_budget_must_be_positive_on_the_command_line(tmp_path, budget):
    from planning_core.console import main
    with pytest.raises(SystemExit) as err:
        main(["acp", "check-gold", "--questions", str(tmp_path), "--budget", str(budget)])
    assert err.value.code == 2


def test_atoms_off_one_plan_are_not_landmarks_without_a_test(monkeypatch):
    from planning_core.validators.acp.scorers import land

    def no_test(*a, **k):
        raise AssertionError("the landmark test should not run")

    monkeypatch.setattr(land, "is_landmark", no_test)
    s = AnswerScorer()(record("land", {"yes": [], "no": []}), "(holding c)")
    assert (s.value, s.evidence) == (0, "landmark-test")
    assert "without ever making (holding c) true" in s.reason


def test_provenance_rows_with_workers():
    from planning_core.validators.acp.batch import match_answers, score_jobs
    from planning_core.validators.acp.dataset import Answer, response_hash

    questions = [Question.from_record(record(t, qid=str(k)))
                 for k, t in enumerate(["app", "reach", "land"])]
    answers = [Answer(q.id, "None", q.task) for q in questions]
    jobs = match_answers(questions, answers)
    one = [row for _, row in score_jobs(jobs, workers=1, provenance=True)]
    two = [row for _, row in score_jobs(jobs, workers=2, provenance=True)]
    assert all(r["cpu_s"] >= 0 and r["response_sha256"] == response_hash("None")
               for r in one + two)
    strip = [{k: v for k, v in r.items() if k != "cpu_s"} for r in one]
    assert strip == [{k: v for k, v in r.items() if k != "cpu_s"} for r in two]
