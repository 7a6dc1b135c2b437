"""``planning-core cope eval --method ltl`` on the tests' mini dataset: rows, report, resume."""
from __future__ import annotations

import json

import pytest

from cope.minicope import write_minicope
from planning_core.console import main
from planning_core.validators.formalizations.ltl import LTL_OUTCOMES
from planning_core.validators.formalizations.methods import METHODS

# (category, problem, constraint) -> (the model's answer, expected outcome)
ROWS = {
    ("baseline", "p01", "constraint1"): ("```ltl\ntrue\n```", "correct"),
    # labelled unsolvable: a proof of unsolvability is the right answer
    ("goal", "p01", "constraint2"): ("```ltl\nG !@(stack b c)\n```", "correct"),
    # labelled unsolvable, but the formula lets a ground-truth-valid plan through
    ("action", "p01", "constraint3"): ("LTL: G !(holding b) -> true", "plan_given"),
    # solvable, but the formula rules every plan out
    ("initial", "p01", "constraint5"): ('{"ltl": "G !@(stack a _)"}', "unsolvable"),
    ("state", "p01", "constraint4"): ("```ltl\nG (on-tabel a)\n```", "semantic_error"),
    ("state", "p01", "constraint6"): ("```ltl\ntrue\n```", "ground_truth_error"),
}


@pytest.fixture
def files(tmp_path):
    dataset = write_minicope(tmp_path)
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps({"category": c, "problem": p, "constraint": k,
                                           "output": out}) + "\n"
                               for (c, p, k), (out, _) in ROWS.items()))
    return dataset, outputs, tmp_path / "results.jsonl", tmp_path / "report.md"


def test_ltl_is_a_registered_method():
    assert METHODS["ltl"].outcomes == LTL_OUTCOMES


def test_eval_ltl_rows_report_and_resume(files, capsys):
    dataset, outputs, results, report = files
    argv = ["cope", "eval", "--dataset", str(dataset), "--method", "ltl", "--outputs",
            str(outputs), "--out", str(results), "--report", str(report), "--no-progress",
            "--time-limit", "20"]
    assert main(argv) == 0
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    got = {(r["category"], r["problem"], r["constraint"]): r for r in rows}
    assert {k: r["outcome"] for k, r in got.items()} == {k: v[1] for k, v in ROWS.items()}
    assert all(r["method"] == "ltl" for r in rows)
    assert got[("baseline", "p01", "constraint1")]["detail"]["validation"]["valid"]
    semantic = got[("state", "p01", "constraint4")]["detail"]["issues"][0]
    assert (semantic["file"], semantic["line"], semantic["column"]) == ("constraint.ltl", 1, 4)
    text = report.read_text()
    assert "| Mini-1 | ltl |" in text and "| unsolvable |" in text
    capsys.readouterr()
    assert main(argv) == 0                                  # a second run resumes
    assert "6 pair(s) already in" in capsys.readouterr().err
    assert len(results.read_text().splitlines()) == len(ROWS)
