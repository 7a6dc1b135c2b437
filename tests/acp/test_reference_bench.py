"""The harness of ``benchmarks/acp_reference_bench.py``: answers, both scoring processes, table.

The real reference evaluator lives in a venv outside the project, so these tests stand in
a tiny one for it: a ``src/`` folder with the three modules the driver imports, whose
evaluator calls an answer right iff it is ``None`` (and raises on an undeclared atom), and
whose parser cannot read an index.
That exercises the driver protocol, the parser-error and exception paths, the comparison
of verdicts and the rendering, with our side scoring for real.
"""
from __future__ import annotations

import importlib.util
import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, require_shared

BENCH = ROOT / "benchmarks" / "acp_reference_bench.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("acp_reference_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def dev() -> Path:
    return require_shared() / "acpbench_hard"


def _fake_reference(root: Path) -> Path:
    src = root / "src"
    (src / "evaluators").mkdir(parents=True)
    (src / "grammar").mkdir()
    (src / "grammar" / "__init__.py").write_text("")
    (src / "evaluators" / "__init__.py").write_text(textwrap.dedent('''
        class _NoneIsRight:
            def get_score(self, ans, doc):
                if ans[0] == "(levitating x0)":
                    raise AssertionError("cannot ground\\nsecond line")
                return ans[0] == "None"
        def get_evaluator(group):
            return _NoneIsRight()
    '''))
    (src / "grammar" / "grammar_parser.py").write_text(textwrap.dedent('''
        class ACPGrammarParser:
            def __init__(self, grammar_file, task):
                self.task = task
            def parse(self, text):
                return None if text.strip().isdigit() else text.strip()
    '''))
    (src / "evaluate_gen.py").write_text(textwrap.dedent('''
        GRAMMAR_FILE = "unused"
        def get_grammar_task(task):
            return task.split("_")[1]
        def get_parsed_answer(resp, task, parser):
            return parser.parse(resp)
    '''))
    return src


def test_answers_cover_every_task_with_none_answers(bench, dev):
    data = bench.build_answers(dev, bench.TASKS, per_task=2)
    assert len(data["records"]) == 16
    assert [a["n"] for a in data["answers"]] == list(range(len(data["answers"])))
    for k, record in enumerate(data["records"]):
        answers = [a for a in data["answers"] if a["record"] == k]
        responses = [a["response"] for a in answers]
        assert answers[0]["kind"] == "gold"
        assert len(responses) == len(set(responses))
        task = answers[0]["task"]
        if task in bench.NONE_TASKS:
            assert "None" in responses, (task, record["id"])


def test_just_answers_keep_the_questions_spelling(bench):
    question = 'Simplify the plan "(DRIVE-TRUCK t0 l0-1 l0-0 c0) (FLY-AIRPLANE a0 l0-0 l1-0)"'
    assert bench._question_spelling(question, "(drive-truck t0 l0-1 l0-0 c0) (noop x)") == \
        "(DRIVE-TRUCK t0 l0-1 l0-0 c0) (noop x)"


@pytest.mark.slow
def test_both_sides_score_the_same_answers_and_disagreements_are_listed(bench, dev, tmp_path):
    src = _fake_reference(tmp_path / "ref")
    out = tmp_path / "result.md"
    out.write_text("old table\n\n## Findings\n\nkept by hand\n")
    bench.main([str(dev), "--per-task", "1", "--tasks", "reach", "land", "val",
                "--ref-python", sys.executable, "--ref-src", str(src), "--out", str(out),
                "--profile-tasks", "1"])
    text = out.read_text()
    assert "old table" not in text
    assert text.endswith("## Findings\n\nkept by hand\n")
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| (\w+) \|.*$", text, re.M)}
    assert {"reach", "land", "val"} <= set(rows)
    # the fake reference calls every non-None answer wrong, so every answer ours calls
    # right except a None is a disagreement, listed with its id
    disagreements = re.findall(r"^\| (reach|land|val) \| (-?\d+) \| (\S+) \|", text, re.M)
    assert disagreements, text
    assert "AssertionError: cannot ground" in text
    val_row = re.search(r"^\| val \| \d+ \| [\d.]+ \| [\d.]+ \| 0 \| ([1-9]\d*) \|",
                        text, re.M)
    assert val_row, "the index answers are counted as reference parser errors"
    assert "## Profile of our side" in text and "## Where our CPU goes" in text


def test_a_broken_reference_stops_with_its_error(bench, dev, tmp_path):
    src = tmp_path / "src"
    (src / "evaluators").mkdir(parents=True)
    with pytest.raises(SystemExit, match="ImportError: cannot import name .get_evaluator."):
        bench.main([str(dev), "--per-task", "1", "--tasks", "val", "--ref-python",
                    sys.executable, "--ref-src", str(src), "--out", str(tmp_path / "r.md"),
                    "--profile-tasks", "0"])


def test_a_question_without_gold_answer_is_listed_and_the_rest_scored(bench, dev, tmp_path):
    rows = json.loads((dev / "nexta" / "dev.gen.json").read_text())[:2]
    rows[0] = {**rows[0], "answer": {**rows[0]["answer"], "yes": []}}  # no stored next action
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / "nexta.json").write_text(json.dumps(rows))
    out = tmp_path / "r.md"
    bench.main([str(tmp_path / "q"), "--ref-python", "none", "--out", str(out),
                "--profile-tasks", "0"])
    text = out.read_text()
    assert f"- nexta {rows[0]['id']}: " in text and "no stored next action" in text
    assert re.search(r"^\| nexta \| - \| [\d.]+ \| - \| [1-9]\d* \|", text, re.M)


# A dead end: the only applicable action makes nothing new true, so no atom is reachable
# in one step (the IBM test split has such reach questions); "go" is never applicable.
_DEAD_DOMAIN = ("(define (domain dead) (:requirements :strips) (:predicates (p) (q) (r) (s))\n"
                "  (:action stay :parameters () :precondition (p) :effect (p))\n"
                "  (:action go :parameters () :precondition (q) :effect (r)))")
_DEAD_PROBLEM = "(define (problem d) (:domain dead) (:init (p)) (:goal (r)))"
_STUCK_PROBLEM = "(define (problem s) (:domain dead) (:init (s)) (:goal (q)))"  # s is static


def _question(group: str, n: int, answer, problem: str) -> dict:
    return {"id": n, "group": group, "context": "A dead end.",
            "question": "What proposition can never hold in any potentially reachable state?",
            "answer": answer, "PDDL_domain": _DEAD_DOMAIN, "PDDL_problem": problem}


def test_a_reach_question_with_no_one_step_reachable_atom_is_built_with_a_note(bench, tmp_path):
    for task, rows in {
            "reach": [_question("reachable_atom_gen", 1, ["q", "r"], _DEAD_PROBLEM),
                      _question("reachable_atom_gen", 2, ["p", "q", "r"], _STUCK_PROBLEM)],
            "areach": [_question("reachable_action_gen", 3, ["go"], _STUCK_PROBLEM)],
    }.items():
        (tmp_path / task).mkdir()
        (tmp_path / task / "test.gen.json").write_text(json.dumps(rows))
    data = bench.build_answers(tmp_path, ("reach", "areach"))
    assert len(data["records"]) == 3 and not data["skipped"]
    by_id: dict = {}
    for a in data["answers"]:
        by_id.setdefault(a["id"], []).append(a["kind"])
    assert by_id["1"][0] == "gold" and "reachable-in-one-step" not in by_id["1"]
    assert {"true-now", "undeclared", "none"} <= set(by_id["1"])
    assert "reachable-in-one-step" not in by_id["2"] and "true-now" not in by_id["2"]
    assert by_id["3"][0] == "gold" and "applicable-now" not in by_id["3"]
    notes = "\n".join(data["notes"])
    assert "reach 1: reachable-in-one-step left out" in notes
    assert "reach 2: true-now left out" in notes
    assert "areach 3: applicable-after-one-step" in notes
