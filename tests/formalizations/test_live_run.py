"""``cope run`` end to end: the real openai client against a scripted local server.

The served "model" first writes broken PDDL, then, once it is shown the parser's error,
the right files (the pair's ground truth, which the *server* reads from disk). The run
must end ``correct``, the revision prompts must carry the error, and no prompt may carry
the ground truth.
"""
from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("openai")

from planning_core.console import main
from planning_core.validators.cope.dataset import load_dataset
from planning_core.validators.cope.evaluate import read_results
from planning_core.validators.formalizations.prompts import render

from tests.conftest import require_shared
from tests.models.chat_server import ChatServer, answer, error

PAIRS = 12
_TAG = re.compile(r"broken(\d+)")


def _broken(index: int) -> str:
    domain = (f"(define (domain broken{index}) (:predicates (p)) "
              "(:action a :parameters () :precondition (p) :effect")
    return json.dumps({"domain file": domain, "problem file": "(define (problem q))"})


def _selection():
    root = require_shared() / "cope" / "BlocksWorld-100"
    pairs = [p for p in load_dataset(root) if p.category in ("goal", "action")]
    return root, pairs[:PAIRS]


@pytest.mark.slow
def test_pddl_revision_loop_fixes_broken_files_without_seeing_ground_truth(tmp_path, capsys):
    root, pairs = _selection()
    first_prompt = {render("pddl_generate", p): k for k, p in enumerate(pairs)}

    def script(request, n):
        prompt = ChatServer.prompt_of(request)
        if prompt in first_prompt:
            return answer(_broken(first_prompt[prompt]))
        pair = pairs[int(_TAG.search(prompt).group(1))]
        return answer(json.dumps({"domain file": pair.domain_path.read_text(),
                                  "problem file": pair.problem_path.read_text()}))

    out, report = tmp_path / "r.jsonl", tmp_path / "r.md"
    with ChatServer(script) as server:
        code = main(["cope", "run", "--method", "pddl", "--revisions", "3",
                     "--model", "scripted", "--base-url", server.base_url,
                     "--dataset", str(root), "--categories", "goal,action",
                     "--limit", str(PAIRS), "--out", str(out), "--report", str(report),
                     "--no-cache", "--concurrency", "4", "--no-progress"])
    assert code == 0, capsys.readouterr().err
    rows, _ = read_results(out)
    assert len(rows) == PAIRS
    assert sum(r["correct"] for r in rows) >= 10
    for row in rows:
        assert row["method"] == "pddl" and row["revisions"] == 1
        first, second = row["turns"]
        assert first["template"] == "pddl_generate" and first["outcome"] == "syntax_error"
        assert second["template"] == "pddl_revise"
        assert first["feedback"] and first["feedback"] in second["prompt"]
        assert "domain.pddl:1:" in second["prompt"]
        assert second["usage"]["total_tokens"] == 18
    prompts = [ChatServer.prompt_of(r) for r in server.requests]
    assert len(prompts) == 2 * PAIRS
    for pair in pairs:
        truth = [pair.domain_path.read_text().strip(), pair.problem_path.read_text().strip()]
        assert not any(t in p for t in truth for p in prompts)
    assert not any(";; BEGIN" in p for p in prompts)
    text = report.read_text()
    assert "| BlocksWorld-100 | pddl |" in text and "CoPE run: scripted" in text
    assert "Setting: method pddl, model scripted at http://127.0.0.1:" in text
    assert "mode generate, up to 3 revision(s)" in text


def test_failed_requests_are_recorded_and_rerun(tmp_path, capsys):
    root, pairs = _selection()
    out = tmp_path / "r.jsonl"
    argv = ["cope", "run", "--method", "planner", "--model", "scripted", "--dataset",
            str(root), "--categories", "goal", "--limit", "2", "--out", str(out),
            "--no-cache", "--retries", "0", "--no-progress"]
    down = [True]
    with ChatServer(lambda req, n: error(500, "down") if down[0] else
                    answer('{"plan": []}')) as server:   # a rerun keeps the base URL
        code = main(argv + ["--base-url", server.base_url])
        assert code == 1 and "have no answer" in capsys.readouterr().err
        rows, _ = read_results(out)
        assert len(rows) == 2 and all("HTTP 500" in r["error"] for r in rows)
        down[0] = False
        code = main(argv + ["--base-url", server.base_url])
    assert code == 0 and len(server.requests) == 4
    rows, _ = read_results(out)
    assert [r["outcome"] for r in rows[2:]] and all("error" not in r for r in rows[2:])
    assert all(r["turns"][0]["template"] == "planner" for r in rows[2:])


def test_unusable_endpoint_stops_with_one_line(tmp_path, capsys):
    root, _ = _selection()
    with ChatServer(lambda req, n: error(401, "bad key")) as server:
        code = main(["cope", "run", "--method", "ltl", "--model", "m", "--base-url",
                     server.base_url, "--dataset", str(root), "--limit", "3", "--out",
                     str(tmp_path / "r.jsonl"), "--no-cache", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "refused the API key" in err and "Traceback" not in err


def _rows_without_timing(path):
    rows, _ = read_results(path)
    drop = {"time_s", "cpu_s", "seconds", "latency_s", "elapsed_s"}

    def clean(value):
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in drop}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return sorted((clean(r) for r in rows), key=lambda r: json.dumps(r, sort_keys=True))


@pytest.mark.slow   # a Dask LocalCluster starts
def test_run_on_local_workers_and_dask_gives_the_rows_of_one_process(tmp_path, capsys):
    """The executor path: each worker builds its own client from the options, runs the
    pair's loop (requests and judgements) and the CLI writes the rows."""
    root, _ = _selection()
    outs = []
    with ChatServer(lambda req, n: answer('{"plan": []}')) as server:
        for name, where in (("serial", []), ("local", ["--workers", "2"]),
                            ("dask", ["--scheduler", "local:1"])):
            out = tmp_path / f"{name}.jsonl"
            code = main(["cope", "run", "--method", "planner", "--model", "scripted",
                         "--base-url", server.base_url, "--dataset", str(root),
                         "--categories", "goal", "--limit", "4", "--out", str(out),
                         "--no-cache", "--retries", "0", "--no-progress", *where])
            assert code == 0, capsys.readouterr().err
            outs.append(_rows_without_timing(out))
        assert len(server.requests) == 12
    assert len(outs[0]) == 4 and outs[0] == outs[1] == outs[2]
    assert all("error" not in r for r in outs[0])


def test_unusable_endpoint_stops_the_workers_with_one_line(tmp_path, capsys):
    root, _ = _selection()
    with ChatServer(lambda req, n: error(401, "bad key")) as server:
        code = main(["cope", "run", "--method", "planner", "--model", "m", "--base-url",
                     server.base_url, "--dataset", str(root), "--limit", "3", "--out",
                     str(tmp_path / "r.jsonl"), "--no-cache", "--no-progress",
                     "--workers", "2"])
    err = capsys.readouterr().err
    assert code == 2 and "refused the API key" in err and "Traceback" not in err
    assert not read_results(tmp_path / "r.jsonl")[0]
