"""Batch robustness of ``cope eval`` and ``cope check`` (issue 9, items 7, 9, 17, 18, 19).

One bad row never ends a batch (it becomes that row's ``internal_error``, ``too_large`` or
``bad_input`` row), a resumed run after a torn last line loses nothing, two runs never
share one results file, and ``cope check`` streams its rows to ``--out`` and resumes.
"""
from __future__ import annotations

import json

from planning_core.console import main
from planning_core.validators.cope.dataset import load_dataset_report
from planning_core.results_file import open_results

from tests.cope.minicope import write_minicope, write_outputs


def row(category, problem, constraint, output):
    return {"category": category, "problem": problem, "constraint": constraint,
            "output": output}


PLAN = "(unstack c a)\n(putdown c)\n(pickup b)\n(stack b c)\n(pickup a)\n(stack a b)\n"


def results(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_nested_brackets_and_a_failing_method_do_not_end_the_batch(dataset, tmp_path,
                                                                   monkeypatch, capsys):
    import planning_core.validators.cope.planner as planner

    real = planner.evaluate_planner

    def flaky(pair, output, context=None):
        if output == "boom":
            raise RuntimeError("the judge broke")
        return real(pair, output, context)

    monkeypatch.setattr(planner, "evaluate_planner", flaky)
    src = write_outputs(tmp_path / "o.jsonl", [
        row("baseline", "p01", "constraint1", "[" * 2000),     # RecursionError before
        row("goal", "p01", "constraint2", "boom"),
        row("action", "p01", "constraint3", "x" * 5000),
        row("state", "p01", "constraint4", PLAN),
    ])
    out = tmp_path / "r.jsonl"
    code = main(["cope", "eval", "--dataset", str(dataset), "--method", "planner",
                 "--outputs", str(src), "--out", str(out), "--no-progress",
                 "--max-response-bytes", "4096", "--no-label-check"])
    assert code == 0, capsys.readouterr().err
    got = {r["category"]: r for r in results(out)}
    assert got["baseline"]["outcome"] in ("unreadable", "plan_invalid")
    assert got["goal"]["outcome"] == "internal_error"
    assert "RuntimeError: the judge broke" in got["goal"]["detail"]["error"]
    assert got["action"]["outcome"] == "too_large" and "5000 bytes" in \
        got["action"]["detail"]["error"]
    assert got["state"]["outcome"] in ("correct", "plan_invalid", "plan_given")


def test_resume_after_a_torn_last_line_loses_no_row(dataset, tmp_path, capsys):
    rows = [row("baseline", "p01", "constraint1", PLAN),
            row("state", "p01", "constraint4", PLAN),
            row("goal", "p01", "constraint2", "no plan exists")]
    src = write_outputs(tmp_path / "o.jsonl", rows)
    out = tmp_path / "r.jsonl"
    base = ["cope", "eval", "--dataset", str(dataset), "--method", "planner", "--outputs",
            str(src), "--out", str(out), "--no-progress", "--no-label-check"]
    assert main(base) == 0
    lines = out.read_text().splitlines()
    # the run was killed while writing its third row, after the first two
    out.write_text(lines[0] + "\n" + lines[1] + "\n" + lines[2][:25])
    assert main(base) == 0
    got = results(out)          # every line is JSON: nothing glued to the torn one
    assert sorted(r["category"] for r in got) == ["baseline", "goal", "state"]
    capsys.readouterr()


def test_a_second_run_on_the_same_results_file_refuses(dataset, tmp_path, capsys):
    src = write_outputs(tmp_path / "o.jsonl", [row("baseline", "p01", "constraint1", PLAN)])
    out = tmp_path / "r.jsonl"
    handle, _ = open_results(out)       # the first run, still going
    try:
        code = main(["cope", "eval", "--dataset", str(dataset), "--method", "planner",
                     "--outputs", str(src), "--out", str(out), "--no-progress"])
        err = capsys.readouterr().err
        assert code == 2 and "another run is writing to this results file" in err
        assert out.read_text() == ""
        code = main(["cope", "check", "--dataset", str(dataset), "--out", str(out),
                     "--no-progress"])
        assert code == 2 and "another run" in capsys.readouterr().err
    finally:
        handle.close()
    assert main(["cope", "eval", "--dataset", str(dataset), "--method", "planner",
                 "--outputs", str(src), "--out", str(out), "--no-progress",
                 "--no-label-check"]) == 0
    assert len(results(out)) == 1


def test_bad_rows_are_recorded_and_strict_aborts(dataset, tmp_path, capsys):
    src = tmp_path / "o.jsonl"
    src.write_text(json.dumps(row("baseline", "p01", "constraint1", PLAN)) + "\n"
                   + json.dumps(row("baseline", "p01", "constraint1", PLAN)) + "\n"
                   + "{torn\n")
    out = tmp_path / "r.jsonl"
    base = ["cope", "eval", "--dataset", str(dataset), "--method", "planner", "--outputs",
            str(src), "--no-progress", "--no-label-check"]
    assert main(base + ["--out", str(out), "--strict"]) == 2
    assert "was given before" in capsys.readouterr().err and out.read_text() == ""
    assert main(base + ["--out", str(out)]) == 0
    got = results(out)
    assert sorted(r["outcome"] for r in got) == ["bad_input", "bad_input", "correct"]
    assert {r["source"] for r in got if r["outcome"] == "bad_input"} == \
        {f"{src}:2", f"{src}:3"}
    report = tmp_path / "r.md"
    assert main(base + ["--out", str(out), "--report", str(report)]) == 0
    assert len(results(out)) == 3        # resumed: bad rows not recorded again
    assert "2 input row(s) could not be used" in report.read_text()
    capsys.readouterr()


def test_check_streams_rows_to_out_and_resumes(dataset, tmp_path, capsys):
    out = tmp_path / "checks.jsonl"
    code = main(["cope", "check", "--dataset", str(dataset), "--out", str(out), "--json",
                 "--no-progress"])
    first = capsys.readouterr()
    assert code == 1
    rows = results(out)
    assert len(rows) == 6 and len(first.out.splitlines()) == 6
    out.write_text("".join(json.dumps(r) + "\n" for r in rows[:4]) + '{"dataset": "Mi')
    code = main(["cope", "check", "--dataset", str(dataset), "--out", str(out), "--json",
                 "--no-progress"])
    second = capsys.readouterr()
    assert code == 1 and "4 pair(s) already" in second.err
    def timeless(rows):
        return sorted(json.dumps({k: v for k, v in r.items() if k != "time_s"}) for r in rows)

    assert timeless(results(out)) == timeless(rows)
    assert timeless(map(json.loads, second.out.splitlines())) == timeless(rows)


def test_dataset_may_be_the_release_data_root(tmp_path):
    write_minicope(tmp_path / "data" / "blocksworld", "Mini-1")
    write_minicope(tmp_path / "data" / "blocksworld", "Mini-1-XL")
    write_minicope(tmp_path / "data" / "other", "Mini-2")
    pairs, notes = load_dataset_report(tmp_path / "data")
    assert sorted({p.dataset for p in pairs}) == ["Mini-1", "Mini-1-XL", "Mini-2"]
    assert len(pairs) == 18
    write_minicope(tmp_path / "data" / "zzz", "Mini-2")     # the same name twice
    pairs, notes = load_dataset_report(tmp_path / "data")
    assert len(pairs) == 18 and any("already read" in n for n in notes)


def test_check_cli_takes_the_data_root(tmp_path, capsys):
    write_minicope(tmp_path / "data" / "blocksworld", "Mini-1")
    write_minicope(tmp_path / "data" / "coins", "Mini-2")
    code = main(["cope", "check", "--dataset", str(tmp_path / "data"), "--json",
                 "--no-progress"])
    captured = capsys.readouterr()
    assert code == 1 and len(captured.out.splitlines()) == 12
    assert "Mini-1:" in captured.err and "Mini-2:" in captured.err
