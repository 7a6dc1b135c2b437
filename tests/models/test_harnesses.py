"""The lm-evaluation-harness task package and the Inspect tasks, run for real.

lm-eval runs as its own command (``lm_eval --model local-chat-completions``) against the
scripted local server; its metric values must equal what ``acp score`` says of the same
responses. Inspect runs in-process with its built-in ``mockllm/model`` and as the
``inspect eval`` command against the local server.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planning_core.validators.acp.dataset import load_questions
from planning_core.validators.acp.gold import gold_answer
from planning_core.validators.acp.lm_eval_tasks import GROUP, task_folder
from planning_core.validators.acp.prompts import question_text
from planning_core.validators.acp.records import TASKS
from planning_core.validators.acp.scoring import score

from tests.conftest import require_shared
from tests.models.chat_server import ChatServer, answer

LIMIT = 2
WRONG = "I do not know."


@pytest.fixture(scope="module")
def dev():
    folder = require_shared() / "acpbench_hard"
    questions = load_questions(folder)
    return folder, questions, {question_text(q): q for q in questions}


def _env(tmp_path: Path, folder: Path, **extra: str) -> dict:
    return dict(os.environ, PLANNING_CORE_ACP_QUESTIONS=str(folder), HF_DATASETS_OFFLINE="1",
                HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hf"), OPENAI_API_KEY="unused",
                **extra)


def test_lm_eval_tasks_command_prints_the_installed_folder(capsys):
    from planning_core.console import main

    assert main(["acp", "lm-eval-tasks"]) == 0
    folder = Path(capsys.readouterr().out.strip())
    assert folder == task_folder() and (folder / f"{GROUP}.yaml").is_file()
    assert {p.stem for p in folder.glob("*.yaml")} == set(TASKS) | {GROUP}


def test_lm_eval_utils_report_unknowns_apart(dev):
    pytest.importorskip("datasets")
    from planning_core.validators.acp.lm_eval_tasks import utils

    folder, questions, _ = dev
    data = utils.load_questions(task="val", questions=str(folder))["test"]
    doc = data[0]
    q = next(q for q in questions if q.task == "val" and q.id == doc["id"])
    assert utils.doc_to_text(doc) == question_text(q)
    assert utils.process_results(doc, [gold_answer(q)]) == {"score": 1, "unknown": 0}
    assert utils.process_results(doc, [WRONG]) == {"score": 0, "unknown": 0}
    broken = dict(doc, record=json.dumps({**json.loads(doc["record"]),
                                          "PDDL_domain": "(define (domain"}))
    assert utils.process_results(broken, ["1"]) == {"score": None, "unknown": 1}
    assert utils.mean_known([1, None, 0, 1]) == pytest.approx(2 / 3)


@pytest.mark.slow
def test_lm_eval_scores_equal_acp_score(dev, tmp_path):
    pytest.importorskip("lm_eval")
    folder, _, by_prompt = dev
    sent: dict[str, str] = {}

    def script(request, n):  # right on every task but val, where always wrong
        q = by_prompt[request["messages"][-1]["content"]]
        text = WRONG if q.task == "val" else gold_answer(q)
        sent[f"{q.task}/{q.id}"] = text
        return answer(text)

    out = tmp_path / "lm_eval_out"
    with ChatServer(script) as server:
        requests = server.requests
        run = subprocess.run(
            [sys.executable, "-m", "lm_eval", "--model", "local-chat-completions",
             "--model_args", f"model=scripted,base_url={server.base_url}/chat/completions,"
                             "num_concurrent=2,max_retries=1,tokenizer_backend=None",
             "--apply_chat_template", "--include_path", str(task_folder()),
             "--tasks", GROUP, "--limit", str(LIMIT), "--output_path", str(out),
             "--log_samples"],
            env=_env(tmp_path, folder), capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(next(out.rglob("results_*.json")).read_text())["results"]
    assert len(sent) == LIMIT * len(TASKS)
    questions = {f"{q.task}/{q.id}": q for q in dev[1]}
    for task in TASKS:
        ours = [score(questions[k], text).value for k, text in sent.items()
                if k.startswith(task + "/")]
        metrics = results[f"planning_core_acp_{task}_gen"]
        assert metrics["score,none"] == pytest.approx(sum(ours) / len(ours))
        assert metrics["unknown,none"] == 0
        assert metrics["score,none"] == (0.0 if task == "val" else 1.0)
    assert results[GROUP]["score,none"] == pytest.approx(7 / 8)
    # the paper's setting: two examples as turns in front of every question
    assert all([m["role"] for m in r["messages"]] == ["user", "assistant"] * 2 + ["user"]
               for r in requests)
    assert all(r["stop"] == ["\n\n\n\n", "\n\n", "**Question**:", "**Question:**"]
               for r in requests)
    # acp score reads the --log_samples files: every answer, keyed on its task
    from planning_core.console import main

    scored = tmp_path / "scored.jsonl"
    assert main(["acp", "score", "--questions", str(folder), "--answers",
                 str(next(out.rglob("samples_*.jsonl")).parent), "--out", str(scored),
                 "--strict", "--no-progress"]) == 0
    rows = [json.loads(line) for line in scored.read_text().splitlines()]
    assert len(rows) == LIMIT * len(TASKS)
    assert sum(r["score"] for r in rows) == LIMIT * (len(TASKS) - 1)


@pytest.mark.slow
def test_inspect_with_mockllm(dev, tmp_path):
    pytest.importorskip("inspect_ai")
    folder, _, _ = dev
    run = subprocess.run([sys.executable, str(Path(__file__).with_name("inspect_mockllm_run.py")),
                          str(folder), str(tmp_path / "logs")],
                         env=_env(tmp_path, folder), capture_output=True, text=True,
                         timeout=600, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.strip().splitlines()[-1])
    for mode, expected in (("right", 1.0), ("wrong", 0.0)):
        assert len(report[mode]) == 2
        for task, metrics in report[mode].items():
            assert metrics.get("known_accuracy") == expected, (mode, task, metrics)
            assert metrics["unknown_rate"] == 0.0


@pytest.mark.slow
def test_inspect_eval_command_against_the_local_server(dev, tmp_path):
    """The registered entry point: ``inspect eval planning_core/acp_hard`` from a folder
    that is not a checkout, all eight tasks, one aggregate score, the paper's setting."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import list_eval_logs, read_eval_log

    folder, _, by_prompt = dev
    limit = 4 * len(TASKS)

    def script(req, n):   # right on every task but val
        q = by_prompt[req["messages"][-1]["content"]]
        return answer(WRONG if q.task == "val" else gold_answer(q))

    with ChatServer(script) as server:
        run = subprocess.run(
            [sys.executable, "-m", "inspect_ai", "eval", "planning_core/acp_hard",
             "--model", "openai-api/local/scripted", "--limit", str(limit),
             "-T", f"questions={folder}", "--log-dir", str(tmp_path / "logs"),
             "--display", "plain"],
            env=_env(tmp_path, folder, LOCAL_BASE_URL=server.base_url, LOCAL_API_KEY="x"),
            capture_output=True, text=True, timeout=600, cwd=tmp_path)
        assert run.returncode == 0, run.stderr[-3000:]
        assert len(server.requests) == limit
        assert all(len(r["messages"]) == 5 for r in server.requests)
    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0])
    assert log.status == "success"
    metrics = log.results.scores[0].metrics
    tasks = [s.metadata["task"] for s in log.samples]
    expected = sum(t != "val" for t in tasks) / len(tasks)
    assert metrics["accuracy"].value == pytest.approx(expected)
    assert metrics["unknown_rate"].value == 0.0
