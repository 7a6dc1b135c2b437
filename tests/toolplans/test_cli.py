"""``planning-core toolplans ...``: commands, exit codes, JSON, bad input, batch resume."""
from __future__ import annotations

import json

import pytest

from planning_core.console import main
from planning_core.pddl.parser import parse_domain, parse_problem

from tests.toolplans.toolplans_fixtures import TASK, VALID


def run(capsys, *argv):
    code = main(["toolplans", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def task(tmp_path):
    f = tmp_path / "task.json"
    f.write_text(json.dumps(TASK))
    return f


def test_compile_prints_and_writes_parseable_pddl(task, tmp_path, capsys):
    code, out, _ = run(capsys, "compile", task)
    assert code == 0 and "(define (domain tools-mini)" in out
    code, out, _ = run(capsys, "compile", task, "--mode", "folded", "--out-dir", tmp_path / "pddl")
    assert code == 0 and "wrote" in out
    parse_domain((tmp_path / "pddl" / "domain.pddl").read_text())
    parse_problem((tmp_path / "pddl" / "problem.pddl").read_text())
    code, out, _ = run(capsys, "compile", task, "--json")
    assert set(json.loads(out)) == {"domain", "problem"}


def test_compile_with_separate_tool_file(task, tmp_path, capsys):
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": TASK["tools"]}))
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps({k: v for k, v in TASK.items() if k != "tools"}))
    assert run(capsys, "compile", bare, "--tools", tools)[0] == 0


def test_check_exit_codes_and_json(task, tmp_path, capsys):
    good = tmp_path / "good.txt"
    good.write_text(VALID)
    code, out, _ = run(capsys, "check", task, good)
    assert code == 0 and out.startswith("valid") and "excess 0" in out
    bad = tmp_path / "bad.txt"
    bad.write_text('search(origin="Paris", destination="Oslo", date="2025-05-01")')
    code, out, _ = run(capsys, "check", task, bad, "--json")
    row = json.loads(out)
    assert code == 1 and row["class"] == "E6" and row["step"] == 1
    refusal = tmp_path / "refuse.txt"
    refusal.write_text("REFUSE")
    code, out, _ = run(capsys, "check", task, refusal)
    assert code == 1 and out.startswith("wrong_refusal")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    code, out, _ = run(capsys, "check", task, empty, "--no-grade")
    assert code == 1 and "malformed_output" in out


def test_solve_and_next(task, tmp_path, capsys):
    code, out, _ = run(capsys, "solve", task)
    assert code == 0 and "4 call(s)" in out and "book(" in out
    code, out, _ = run(capsys, "solve", task, "--json", "--engine", "internal")
    data = json.loads(out)
    assert data["status"] == "solved" and len(data["optimal_calls"]) == 4
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**TASK, "broken": ["book"]}))
    code, out, _ = run(capsys, "solve", broken)
    assert code == 1 and "missing_tool" in out
    code, out, _ = run(capsys, "next", task, "--call", 'login(username="ana.l")')
    assert code == 0 and out.startswith("optimal")
    code, out, _ = run(capsys, "next", task, "--prefix", 'login(username="ana.l")',
                       "--call", 'login(username="ana.l")', "--json")
    assert code == 1 and json.loads(out)["optimal"] is False


@pytest.mark.parametrize("content,message", [
    ('{"goal": ["x"], "tools": [{"name": "a", "parameters": {,}}]}', ":1:56: error: not JSON"),
    ('{"goal": ["x"], "tools": [{"name": "1a"}]}', "at /tools/0/name"),
    ('{"goal": ["x"], "items": [{"name": "a"}], "tools": []}', "at /items/0"),
])
def test_bad_task_exits_2_with_a_located_message(tmp_path, capsys, content, message):
    f = tmp_path / "t.json"
    f.write_text(content)
    code, out, err = run(capsys, "compile", f)
    assert code == 2 and message in err and "Traceback" not in err


def test_missing_files_exit_2(task, tmp_path, capsys):
    code, _, err = run(capsys, "check", task, tmp_path / "nope.txt")
    assert code == 2 and "cannot read" in err
    code, _, err = run(capsys, "solve", tmp_path / "nope.json")
    assert code == 2 and "cannot read" in err


def test_batch_writes_resumes_and_reports(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    lines = [{"id": "a", "task": TASK, "output": VALID},
             {"id": "b", "task": TASK, "output": "REFUSE"},
             {"id": "c", "task": TASK, "output": [{"name": "nope", "arguments": {}}]},
             {"id": "d", "task": {"goal": [], "tools": []}, "output": "x()"},
             {"id": "e", "task": TASK, "prefix": [], "next": 'login(username="ana.l")'}]
    rows.write_text("\n".join(json.dumps(x) for x in lines) + "\n{not json\n")
    out = tmp_path / "out.jsonl"
    code, text, _ = run(capsys, "batch", "--rows", rows, "--out", out, "--report",
                        tmp_path / "r.md", "--no-progress")
    assert code == 0
    results = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert results["a"]["verdict"] == "valid" and results["b"]["verdict"] == "wrong_refusal"
    assert results["c"]["fault"] == "unknown_tool" and results["c"]["class"] == "E6"
    assert results["d"]["verdict"] == "error" and "/goal" in results["d"]["error"]
    assert results["e"]["verdict"] == "optimal"
    assert results["line-6"]["verdict"] == "error" and "rows.jsonl:6" in results["line-6"]["error"]
    assert "correct 1" in text and "| E6 | 1 |" in (tmp_path / "r.md").read_text()
    # a second run skips everything already there
    code, _, err = run(capsys, "batch", "--rows", rows, "--out", out, "--no-progress")
    assert code == 0 and "6 row(s) already" in err
    assert len(out.read_text().splitlines()) == 6


def test_batch_refuses_duplicate_ids(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a"}) + "\n" + json.dumps({"id": "a"}) + "\n")
    code, _, err = run(capsys, "batch", "--rows", rows, "--out", tmp_path / "o.jsonl")
    assert code == 2 and "used 2 times" in err


def test_a_task_of_the_dataset_by_id(capsys):
    from tests.toolplans.toolplans_fixtures import DATASET
    code, out, _ = run(capsys, "solve", f"{DATASET / 'travel.json'}#travel-02")
    assert code == 0 and "3 call(s)" in out
    code, out, _ = run(capsys, "solve", f"{DATASET / 'generated' / 'travel.json'}#travel-04-broken")
    assert code == 1 and "missing_tool" in out
    code, _, err = run(capsys, "solve", f"{DATASET / 'travel.json'}#nope")
    assert code == 2 and "no task 'nope'" in err
    code, _, err = run(capsys, "solve", DATASET / "travel.json")
    assert code == 2 and "name one as FILE#ID" in err


def test_binary_model_output_is_a_verdict(task, tmp_path, capsys):
    f = tmp_path / "out.bin"
    f.write_bytes(bytes(range(256)))
    code, out, _ = run(capsys, "check", task, f, "--no-grade", "--json")
    assert code == 1 and json.loads(out)["fault"] == "malformed_output"


@pytest.mark.slow   # a Dask LocalCluster starts (~5 s)
def test_batch_gives_the_same_rows_on_every_executor(tmp_path, capsys):
    broken = {**TASK, "broken": ["pay"]}
    lines = [{"id": f"r{k}", "task": task, "output": out}
             for k, (task, out) in enumerate([(TASK, VALID), (broken, VALID), (TASK, "REFUSE"),
                                              (broken, "REFUSE"), (TASK, "x(")])]
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    outs = []
    for name, where in (("serial", ["--workers", 1]), ("local", ["--workers", 2]),
                        ("dask", ["--scheduler", "local:2"])):
        out = tmp_path / f"out-{name}.jsonl"
        code, _, _ = run(capsys, "batch", "--rows", rows, "--out", out, *where, "--no-progress")
        assert code == 0
        outs.append([json.loads(x) for x in out.read_text().splitlines()])
    assert [r["id"] for r in outs[1]] == [f"r{k}" for k in range(5)]
    assert outs[0] == outs[1] == outs[2]


def test_batch_refuses_a_results_file_another_run_holds(tmp_path, capsys):
    from planning_core.results_file import open_results

    rows = tmp_path / "rows.jsonl"
    rows.write_text("not json\n")
    out = tmp_path / "o.jsonl"
    handle, _ = open_results(out)
    with handle:
        code, _, err = run(capsys, "batch", "--rows", rows, "--out", out)
    assert code == 2 and "another run is writing" in err


def test_predict_generate_batch_report(task, tmp_path, capsys):
    step = {"role": "assistant", "thought": "log in",
            "tool_calls": [{"type": "function", "function": {"name": "login",
                                                              "arguments": {"username": "ana.l"}}}]}
    code, out, _ = run(capsys, "predict", task, "--output", json.dumps(step), "--k", "1")
    assert code == 0 and out.startswith("correct: grade 1.0")
    code, out, _ = run(capsys, "predict", task, "--output", json.dumps([step]), "--k", "2", "--json")
    assert code == 1 and json.loads(out)["classes"] == {"E3": [None]}
    code, out, _ = run(capsys, "check", task, _file(tmp_path, '{"status": "REJECT"}'))
    assert code == 1 and "E2 unjustified_refusal" in out and "plan grade 0.0" in out
    cases = tmp_path / "cases.jsonl"
    code, out, _ = run(capsys, "generate", "--root", DOMAINS, "--scale", "0.005", "--seed", "1",
                       "--out", cases)
    assert code == 0 and "over 11 tool domain(s)" in out
    rows = [json.loads(line) for line in cases.read_text().splitlines()]
    answered = tmp_path / "answered.jsonl"
    answered.write_text("".join(json.dumps({**r, "output": '{"status": "REJECT"}'}) + "\n"
                                for r in rows))
    code, _, _ = run(capsys, "batch", "--rows", answered, "--out", tmp_path / "res.jsonl",
                     "--no-progress")
    assert code == 0
    code, out, _ = run(capsys, "report", tmp_path / "res.jsonl", "--name", "refuses")
    assert code == 0 and "| refuses | holistic |" in out and "| Rp |" in out
    assert "| 0.0 | 0.0 | 0.0 | 100.0 | 0.0 | 100.0 | 100.0 | 100.0 | 100.0 |" in out
    code, csv_out, _ = run(capsys, "report", tmp_path / "res.jsonl", "--name", "refuses",
                           "--format", "csv")    # issue 32 item 4: the same cells as CSV
    assert code == 0 and "0.0,0.0,0.0,100.0,0.0,100.0,100.0,100.0,100.0" in csv_out
    assert "| refuses |" not in csv_out
    code, _, err = run(capsys, "report", tmp_path / "nope.jsonl")
    assert code == 2 and "no such results file" in err
    code, _, err = run(capsys, "generate", "--scale", "0", "--out", cases)
    assert code == 2


def _file(tmp_path, text):
    f = tmp_path / "out.txt"
    f.write_text(text)
    return f


DOMAINS = __import__("tests.toolplans.toolplans_fixtures", fromlist=["DATASET"]).DATASET


def test_batch_rerun_with_a_larger_limit_checks_limit_rows_again(tmp_path, capsys):
    # issue 32 item 3: a row stopped at a smaller --time-limit is checked again, once
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "task": TASK, "output": VALID}) + "\n")
    out = tmp_path / "out.jsonl"
    assert run(capsys, "batch", "--rows", rows, "--out", out, "--no-progress",
               "--time-limit", "30")[0] == 0
    (first,) = map(json.loads, out.read_text().splitlines())
    assert first["verdict"] == "valid" and first["time_limit_s"] == 30.0
    out.write_text(json.dumps({"id": "a", "verdict": "unknown", "limit": "time limit",
                               "time_limit_s": 2.0}) + "\n")
    code, _, err = run(capsys, "batch", "--rows", rows, "--out", out, "--no-progress",
                       "--time-limit", "2")
    assert "computed again" not in err and "1 row(s) already" in err
    code, _, err = run(capsys, "batch", "--rows", rows, "--out", out, "--no-progress",
                       "--time-limit", "30")
    assert "1 row(s) of" in err and "computed again" in err
    (again,) = map(json.loads, out.read_text().splitlines())
    assert (again["verdict"], again["time_limit_s"]) == ("valid", 30.0)
