"""``acp score``'s use of the executor: rows in input order whatever order tasks finish in,
also when the answers are grouped by problem window by window (``HOLD_LIMIT``)."""
from __future__ import annotations

import pytest

from conftest import require_shared
from planning_core.executor import make_executor
from planning_core.validators.acp import batch
from planning_core.validators.acp.batch import Job, score_jobs
from planning_core.validators.acp.dataset import load_questions
from planning_core.validators.acp.gold import gold_answer


@pytest.fixture(scope="module")
def jobs():
    questions = load_questions(require_shared() / "acpbench_hard" / "prog")[:6]
    answers = [gold_answer(q) for q in questions] + ["None"] * len(questions)
    # the same questions twice over, interleaved: a problem's answers are far apart
    return [Job(k, q, a) for k, (q, a) in enumerate(zip(questions * 2, answers))]


def test_rows_keep_input_order_when_grouped_window_by_window(jobs, monkeypatch):
    serial = [(job.index, row) for job, row in score_jobs(jobs)]
    assert [i for i, _ in serial] == [job.index for job in jobs]
    assert [row["score"] for _, row in serial[:6]] == [1] * 6
    monkeypatch.setattr(batch, "HOLD_LIMIT", 5)
    journalled = []
    with make_executor("local", workers=2) as executor:
        rows = [(job.index, row) for job, row in score_jobs(
            jobs, executor=executor, on_row=lambda job, row: journalled.append(job.index))]
    assert rows == serial
    assert sorted(journalled) == [job.index for job in jobs]   # every row journalled once


def test_problem_groups_keep_problems_whole_pack_small_ones_and_split_large_ones():
    from types import SimpleNamespace

    sizes = [1] * 40 + [3] * 10 + [200]   # 40 one-answer problems, 10 of 3, one of 200
    jobs = []
    for p, size in enumerate(sizes):
        q = SimpleNamespace(domain_text="d", problem_text=f"p{p}")
        jobs += [Job(len(jobs) + k, q, "") for k in range(size)]
    tasks = batch.problem_groups(jobs, workers=2)
    assert sorted(j.index for t in tasks for j in t) == list(range(len(jobs)))
    share = -(-len(jobs) // 8)
    assert all(len(t) <= share for t in tasks)
    big = [t for t in tasks if t[0].question.problem_text == "p50"]
    assert len(big) == -(-200 // share)   # split evenly, each part one problem only
    assert all(len({j.question.problem_text for j in t}) == 1 for t in big)
    small = [t for t in tasks if t[0].question.problem_text != "p50"]
    # 70 answers of small problems in packs of at most PACK, no problem cut in two
    assert len(small) == 3 and all(len(t) <= batch.PACK for t in small)
    for p in range(40, 50):
        assert sum(any(j.question.problem_text == f"p{p}" for j in t) for t in small) == 1
