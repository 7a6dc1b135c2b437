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
