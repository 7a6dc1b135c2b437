"""``validate --batch``: the same verdicts as ``validate`` on each triple (a sample of the
VAL-judged plan corpus), located rows for bad manifest lines, resuming, exit codes."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from planning_core.cli.validate import validate_main
from planning_core.cli.validate_batch import _exit_code, read_manifest

from tests.conftest import DOMAINS, SHARED_DATA, require_shared

CASES_FILE = SHARED_DATA / "val_oracle" / "ipc_cases.jsonl"
SAMPLE_EVERY = 10   # 42 of the 412 cases: every mutation kind, many domains


def write_corpus_manifest(folder: Path, every: int = 1) -> tuple[Path, list[dict]]:
    """A manifest of the oracle corpus (every ``every``-th case) under ``folder``: plans as
    files with paths relative to the manifest (every other one inline as ``plan_text``),
    tasks by absolute path; also the cases."""
    require_shared()
    cases = [json.loads(line) for line in CASES_FILE.read_text().splitlines()][::every]
    (folder / "plans").mkdir(parents=True, exist_ok=True)
    lines = []
    for k, case in enumerate(cases):
        entry = {"id": f"case-{k}", "domain": str(SHARED_DATA / "ipc" / case["domain"]),
                 "problem": str(SHARED_DATA / "ipc" / case["problem"])}
        if k % 2:
            entry["plan_text"] = case["plan"]
        else:
            (folder / "plans" / f"{k}.plan").write_text(case["plan"])
            entry["plan"] = f"plans/{k}.plan"
        lines.append(json.dumps(entry))
    manifest = folder / "manifest.jsonl"
    manifest.write_text("\n".join(lines) + "\n")
    return manifest, cases


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_batch_gives_the_verdicts_of_validate_on_each_triple(tmp_path, capsys):
    manifest, cases = write_corpus_manifest(tmp_path, SAMPLE_EVERY)
    out = tmp_path / "results.jsonl"
    code = validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress"])
    assert f"{len(cases)} plan(s) ({len(cases)} validated now)" in capsys.readouterr().err
    rows = rows_of(out)
    assert [r["id"] for r in rows] == [f"case-{k}" for k in range(len(cases))]  # manifest order
    single = []
    for k, case in enumerate(cases):
        plan = tmp_path / f"single-{k}.plan"
        plan.write_text(case["plan"])
        one = validate_main(["--json", str(plan), str(SHARED_DATA / "ipc" / case["domain"]),
                             str(SHARED_DATA / "ipc" / case["problem"])])
        (report,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        single.append(one)
        row = rows[k]
        assert (row["verdict"], row["valid"], row["step"], row["action"], row["cost"]) == \
            (report["verdict"], report["valid"], report["step"], report["action"],
             report["cost"]), (k, case["mutation"])
        assert row["verdict"] == case["expected"]["verdict"]
        assert row["plan"] == (None if k % 2 else f"plans/{k}.plan")
        assert row["length"] >= 0 and row["cpu_s"] >= 0
    assert {r["verdict"] for r in rows} >= {"valid", "precondition_failed",
                                            "goal_not_satisfied"}
    assert code == 1 == max(single)   # some plan invalid, as validate says for some triple


def _blocks_manifest(folder: Path, entries: list) -> Path:
    manifest = folder / "m.jsonl"
    manifest.write_text("".join((e if isinstance(e, str) else json.dumps(e)) + "\n"
                                for e in entries))
    return manifest


BLOCKS = DOMAINS / "blocksworld"


def _blocks_task() -> tuple[str, str, str]:
    """A small task of the project's own domains and its valid plan."""
    return (str(BLOCKS / "domain.pddl"), str(BLOCKS / "p01.pddl"),
            (BLOCKS / "p01.plan").read_text())


def test_bad_manifest_lines_become_located_rows_and_the_run_goes_on(tmp_path, capsys):
    domain, problem, plan = _blocks_task()
    manifest = _blocks_manifest(tmp_path, [
        {"id": "good", "plan_text": plan, "domain": domain, "problem": problem},
        "{not json",
        {"id": "nofiles", "plan_text": plan},
        {"id": "good", "plan_text": plan, "domain": domain, "problem": problem},
        {"id": "both", "plan": "x", "plan_text": plan, "domain": domain, "problem": problem},
        {"id": "gone", "plan": "missing.plan", "domain": domain, "problem": problem},
        {"id": "nodomain", "plan_text": plan, "domain": "nope.pddl", "problem": problem},
        {"id": 7, "plan_text": "(no-such-action a)\n", "domain": domain, "problem": problem},
    ])
    out = tmp_path / "r.jsonl"
    assert validate_main(["--batch", str(manifest), "--out", str(out),
                          "--no-progress"]) == 2
    err = capsys.readouterr().err
    rows = rows_of(out)
    by_source = {r["source"]: r for r in rows if "source" in r}
    assert set(by_source) == {f"{manifest}:{n}" for n in (2, 3, 4, 5)}
    assert "not JSON" in by_source[f"{manifest}:2"]["message"]
    assert "domain, problem" in by_source[f"{manifest}:3"]["message"]
    assert "given before (line 1)" in by_source[f"{manifest}:4"]["message"]
    assert "exactly one of" in by_source[f"{manifest}:5"]["message"]
    assert f"warning: {manifest}:2: not JSON" in err
    by_id = {r["id"]: r for r in rows if "source" not in r}
    assert by_id["good"]["valid"] is True and by_id["good"]["verdict"] == "valid"
    assert by_id["gone"]["verdict"] == "bad_input"
    assert by_id["gone"]["message"].startswith(str(tmp_path / "missing.plan"))
    assert by_id["nodomain"]["verdict"] == "bad_input"
    assert str(tmp_path / "nope.pddl") in by_id["nodomain"]["message"]
    assert by_id[7]["verdict"] == "unknown_action" and by_id[7]["step"] == 1
    # --strict: the first bad line stops the run, located
    assert validate_main(["--batch", str(manifest), "--strict", "--no-progress"]) == 2
    assert f"{manifest}:2: error: not JSON" in capsys.readouterr().err


def test_resume_skips_done_ids_and_retries_bad_input(tmp_path, capsys):
    domain, problem, plan = _blocks_task()
    (tmp_path / "p.plan").write_text(plan)
    entries = [{"id": k, "plan": "p.plan", "domain": domain, "problem": problem}
               for k in range(3)]
    entries.append({"id": "later", "plan": "later.plan", "domain": domain,
                    "problem": problem})
    manifest = _blocks_manifest(tmp_path, entries)
    out = tmp_path / "r.jsonl"
    argv = ["--batch", str(manifest), "--out", str(out), "--no-progress"]
    assert validate_main(argv) == 2            # later.plan does not exist yet
    assert [r["verdict"] for r in rows_of(out)] == ["valid"] * 3 + ["bad_input"]
    # a run killed while writing: a torn last line, cut off on the next run
    with out.open("a") as handle:
        handle.write('{"id": 1, "verd')
    (tmp_path / "later.plan").write_text(plan)
    capsys.readouterr()
    assert validate_main(argv) == 0            # the file is fixed: all valid now
    assert "3 plan(s) already in" in capsys.readouterr().err
    rows = rows_of(out)
    # the retried bad_input row is replaced, not followed: one row per id (issue 27 item 5)
    assert [(r["id"], r["verdict"]) for r in rows] == [
        (0, "valid"), (1, "valid"), (2, "valid"), ("later", "valid")]
    # without --out the rows go to standard output, in manifest order
    assert validate_main(["--batch", str(manifest), "--no-progress"]) == 0
    assert [json.loads(line)["id"] for line in capsys.readouterr().out.splitlines()] == \
        [0, 1, 2, "later"]


def test_a_journalled_bad_input_row_does_not_stand_in_for_a_retry(tmp_path, capsys):
    """A killed run journalled a bad_input row (the plan file was missing); the user adds
    the file: the rerun validates the plan instead of writing the stale row."""
    domain, problem, plan = _blocks_task()
    manifest = _blocks_manifest(tmp_path, [{"id": "x", "plan": "x.plan", "domain": domain,
                                            "problem": problem}])
    out = tmp_path / "r.jsonl"
    out.write_text("")
    (tmp_path / "r.jsonl.pending").write_text(
        json.dumps({"id": "x", "verdict": "bad_input", "valid": False}) + "\n")
    (tmp_path / "x.plan").write_text(plan)
    argv = ["--batch", str(manifest), "--out", str(out), "--no-progress"]
    assert validate_main(argv) == 0
    assert [(r["id"], r["verdict"]) for r in rows_of(out)] == [("x", "valid")]
    assert not (tmp_path / "r.jsonl.pending").exists()


def test_batch_refuses_files_and_file_mode_refuses_batch_options(tmp_path, capsys):
    domain, problem, plan = _blocks_task()
    manifest = _blocks_manifest(tmp_path, [])
    assert validate_main(["--batch", str(manifest), domain]) == 2
    assert "give no FILE" in capsys.readouterr().err
    assert validate_main(["--batch", str(manifest)]) == 2
    assert "no plans in the manifest" in capsys.readouterr().err
    assert validate_main(["--batch", str(manifest), "-v"]) == 2
    assert "-v, -s and -S are for validating FILEs" in capsys.readouterr().err
    (tmp_path / "p.plan").write_text(plan)
    assert validate_main([str(tmp_path / "p.plan"), domain, problem, "--out", "x"]) == 2
    assert "--out is an option of --batch" in capsys.readouterr().err


def test_exit_code_ranks_bad_input_then_invalid_then_unknown():
    valid = {"verdict": "valid", "valid": True}
    invalid = {"verdict": "goal_not_satisfied", "valid": False}
    unknown = {"verdict": "unknown", "valid": False}
    bad = {"verdict": "bad_input", "valid": False}
    assert _exit_code([valid]) == 0
    assert _exit_code([valid, unknown]) == 3
    assert _exit_code([unknown, invalid]) == 1
    assert _exit_code([invalid, bad]) == 2
    assert _exit_code([]) == 2


def test_manifest_paths_are_relative_to_its_folder(tmp_path):
    sub = tmp_path / "deep"
    sub.mkdir()
    manifest = _blocks_manifest(sub, [{"id": "a", "plan": "../p.plan", "domain": "d.pddl",
                                       "problem": "/abs/p.pddl"}])
    (item,) = read_manifest(manifest, max_plan_bytes=1000).items
    assert item.plan_path == os.path.normpath(tmp_path / "p.plan")
    assert item.domain == str(sub / "d.pddl") and item.problem == "/abs/p.pddl"
    assert item.plan == "../p.plan"


def test_plans_over_the_size_cap_are_bad_input_unread(tmp_path, capsys):
    domain, problem, plan = _blocks_task()
    (tmp_path / "big.plan").write_text(plan)
    manifest = _blocks_manifest(tmp_path, [
        {"id": "inline", "plan_text": plan, "domain": domain, "problem": problem},
        {"id": "file", "plan": "big.plan", "domain": domain, "problem": problem},
        {"id": "small", "plan_text": "", "domain": domain, "problem": problem}])
    assert validate_main(["--batch", str(manifest), "--no-progress",
                          "--max-response-bytes", "20"]) == 2
    rows = {json.loads(line)["id"]: json.loads(line)
            for line in capsys.readouterr().out.splitlines()}
    assert rows["inline"]["verdict"] == rows["file"]["verdict"] == "bad_input"
    assert "longer than 20 bytes" in rows["inline"]["message"]
    assert "longer than 20" in rows["file"]["message"] and "not read" in rows["file"]["message"]
    assert rows["small"]["verdict"] == "goal_not_satisfied"   # the empty plan: read, judged


def test_a_manifest_given_by_a_relative_path_gives_absolute_paths(tmp_path, monkeypatch):
    """Issue 19 item 14: paths are made absolute on the client, so a worker started in
    another folder reads the same files."""
    monkeypatch.chdir(tmp_path)
    _blocks_manifest(tmp_path, [{"id": "a", "plan": "p.plan", "domain": "d.pddl",
                                 "problem": "sub/p.pddl"}])
    (item,) = read_manifest("m.jsonl", max_plan_bytes=1000).items
    assert item.plan_path == str(tmp_path / "p.plan") and item.plan == "p.plan"
    assert item.domain == str(tmp_path / "d.pddl")
    assert item.problem == str(tmp_path / "sub" / "p.pddl")


def _dies_while(marker: Path):
    """``_validate_one`` that kills its worker process while ``marker`` exists, as the
    out-of-memory killer of a busy machine would."""
    from planning_core.cli import validate_batch

    original = validate_batch._validate_one

    def validate_one(*args):
        if marker.exists():
            os._exit(9)
        return original(*args)
    return validate_one


def test_a_plan_whose_worker_died_is_not_final_and_a_rerun_validates_it(tmp_path, capsys,
                                                                        monkeypatch):
    """Issue 19 item 17: a worker death gives an ``unknown`` row marked ``retry``; the
    rerun validates the plan instead of skipping it, and its row is the latest."""
    from planning_core.cli import validate_batch

    domain, problem, plan = _blocks_task()
    (tmp_path / "p.plan").write_text(plan)
    manifest = _blocks_manifest(tmp_path, [{"id": k, "plan": "p.plan", "domain": domain,
                                            "problem": problem} for k in range(2)])
    marker = tmp_path / "oom"
    marker.touch()
    # the local workers are forked after the patch, so they run it
    monkeypatch.setattr(validate_batch, "_validate_one", _dies_while(marker))
    out = tmp_path / "r.jsonl"
    argv = ["--batch", str(manifest), "--out", str(out), "--no-progress", "--workers", "2"]
    assert validate_main(argv) == 3            # unknown: not validated
    rows = rows_of(out)
    assert [(r["verdict"], r["retry"]) for r in rows] == [("unknown", True)] * 2
    assert rows[0]["message"].startswith("worker-died: not validated")
    marker.unlink()                            # the machine has memory again
    capsys.readouterr()
    assert validate_main(argv) == 0            # retried, not skipped
    err = capsys.readouterr().err
    assert "already in" not in err and "2 valid" in err
    # the retried rows replace the worker-died ones: one row per id (issue 27 item 5)
    assert [(r["id"], r["verdict"]) for r in rows_of(out)] == [(0, "valid"), (1, "valid")]
    assert validate_main(argv) == 0            # now final: skipped
    assert "2 plan(s) already in" in capsys.readouterr().err


def test_a_journalled_retry_row_does_not_stand_in_for_the_retry(tmp_path):
    domain, problem, plan = _blocks_task()
    (tmp_path / "x.plan").write_text(plan)
    manifest = _blocks_manifest(tmp_path, [{"id": "x", "plan": "x.plan", "domain": domain,
                                            "problem": problem}])
    out = tmp_path / "r.jsonl"
    out.write_text("")
    (tmp_path / "r.jsonl.pending").write_text(json.dumps(
        {"id": "x", "verdict": "unknown", "valid": False, "retry": True}) + "\n")
    assert validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress"]) == 0
    assert [(r["id"], r["verdict"]) for r in rows_of(out)] == [("x", "valid")]
