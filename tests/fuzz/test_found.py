"""Defects the fuzzing harness found, each pinned by a direct test of the user-facing
behaviour (the inputs themselves are replayed from tests/fuzz/regressions/)."""
from __future__ import annotations

import json

from planning_core.cli.validate import validate_main
from tests.conftest import DOMAINS

BW = DOMAINS / "blocksworld"


def test_a_file_name_holding_a_nul_byte_is_a_located_bad_input(capsys):
    """validate-flags: ``open()`` raises ValueError (not OSError) for a NUL in a name; it
    was an internal error (exit 4) instead of a bad input naming the file."""
    code = validate_main([str(BW / "domain.pddl"), str(BW / "p01.pddl"), "plan\0.txt"])
    err = capsys.readouterr().err
    assert code == 2
    assert "plan\\0.txt" in err and "NUL byte" in err and "internal" not in err


def test_a_manifest_path_holding_a_nul_byte_is_a_bad_input_row_and_the_batch_goes_on(
        tmp_path, capsys):
    """batch-manifest: JSON can spell a NUL (``\\u0000``) in a path; the domain's became an
    internal error, the plan's a retried ``unknown`` row (tried again on every rerun)."""
    rows = [{"id": 1, "domain": "d\u0000.pddl", "problem": str(BW / "p01.pddl"),
             "plan_text": "(pick-up a)"},
            {"id": 2, "domain": str(BW / "domain.pddl"), "problem": str(BW / "p01.pddl"),
             "plan": "plan\u0000.txt"},
            {"id": 3, "domain": str(BW / "domain.pddl"), "problem": str(BW / "p01.pddl"),
             "plan": str(BW / "p01.plan")}]
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code = validate_main(["--batch", str(manifest), "--no-progress"])
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()
           if line.startswith("{")]
    by_id = {r["id"]: r for r in out}
    assert by_id[1]["verdict"] == by_id[2]["verdict"] == "bad_input"
    assert "NUL byte" in by_id[1]["message"] and "NUL byte" in by_id[2]["message"]
    assert not by_id[2].get("retry")
    assert by_id[3]["verdict"] == "valid"
    assert code == 2


COSTS = DOMAINS / "costs"
BIG = "1" + "0" * 308   # 1e308, the largest power of ten a float holds


def _costs_problem(tmp_path, ab: str, bc: str = "4"):
    text = (COSTS / "p01.pddl").read_text() \
        .replace("(= (road-length a b) 3)", f"(= (road-length a b) {ab})") \
        .replace("(= (road-length b c) 4)", f"(= (road-length b c) {bc})")
    path = tmp_path / "p.pddl"
    path.write_text(text)
    return path


def _strict(line: str) -> dict:
    def refuse(token):
        raise ValueError(f"not JSON: {token}")
    return json.loads(line, parse_constant=refuse)


def test_a_number_past_the_largest_float_is_a_located_syntax_error(tmp_path, capsys):
    """pddl-problem: a 400-digit literal was read as infinity and the plan was `valid`
    with cost Infinity; now it is refused where it stands."""
    problem = _costs_problem(tmp_path, "9" * 400)
    code = validate_main([str(COSTS / "domain.pddl"), str(problem), str(COSTS / "p01.plan")])
    err = capsys.readouterr().err
    assert code == 2
    line = next(i for i, t in enumerate(problem.read_text().splitlines(), 1) if "9" * 400 in t)
    assert f"p.pddl:{line}:" in err and "too large" in err


def test_an_overflowed_cost_is_strict_json_in_reports_and_rows(tmp_path, capsys):
    """pddl-problem: two roads of 1e308 sum past the largest float; ``--json`` and
    ``--batch`` rows wrote ``"cost": Infinity``, which no strict JSON reader accepts. (The
    simulator now refuses the update that overflows; a non-finite cost that still reaches
    a report is written as the string VAL prints, ``inf``.)"""
    problem = _costs_problem(tmp_path, BIG, BIG)
    plan = COSTS / "p01.plan"
    validate_main(["--json", str(COSTS / "domain.pddl"), str(problem), str(plan)])
    report = _strict(capsys.readouterr().out.splitlines()[0])
    assert report["cost"] in (None, "inf")
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"id": 1, "domain": str(COSTS / "domain.pddl"),
                                    "problem": str(problem), "plan": str(plan)}) + "\n")
    validate_main(["--batch", str(manifest), "--no-progress"])
    row = _strict(next(line for line in capsys.readouterr().out.splitlines()
                       if line.startswith("{")))
    assert row["id"] == 1 and row["cost"] in (None, "inf")
    from planning_core.validate.report import _number
    assert _number(float("inf")) == "inf" and _number(3.0) == 3


def _batch(tmp_path, out_text: str, journal_text: str | None = None):
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(json.dumps(
        {"id": i, "domain": str(BW / "domain.pddl"), "problem": str(BW / "p01.pddl"),
         "plan": str(BW / "p01.plan")}) + "\n" for i in (1, 2)))
    out = tmp_path / "out.jsonl"
    out.write_text(out_text)
    if journal_text is not None:
        (tmp_path / "out.jsonl.pending").write_text(journal_text)
    code = validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress"])
    return code, [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


def test_a_results_row_edited_to_hold_a_list_is_ignored_not_a_crash(tmp_path, capsys):
    """results-file: ``"source": [...]`` (or a list as verdict) in OUT stopped the rerun
    with ``TypeError: unhashable type``; such a line is now "not a result row; ignored"
    and its plans validated."""
    code, rows = _batch(tmp_path, '{"source": ["x"], "verdict": "bad_input"}\n'
                                  '{"id": 1, "verdict": ["valid"], "valid": true}\n')
    err = capsys.readouterr().err
    assert code == 0 and "out.jsonl:1: not a result row; ignored" in err
    assert [r["id"] for r in rows if r.get("verdict") == "valid"] == [1, 2]


def test_a_journal_row_without_valid_is_validated_again(tmp_path, capsys):
    """results-file: a journal (OUT.pending) row without "valid" was recovered and the run
    stopped at ``row["valid"]`` (KeyError, internal error); it is now not recovered, and
    its plan is validated again."""
    code, rows = _batch(tmp_path, "", '{"id": 2, "verdict": "valid"}\n')
    assert code == 0
    assert sorted(r["id"] for r in rows) == [1, 2] and all(r["valid"] for r in rows)


def test_cope_results_bad_input_row_with_a_list_as_source_is_not_a_row(tmp_path):
    """The same fault as above in ``cope eval``'s reader of its results file: a bad_input
    row's ``source`` goes into a set on rerun, so a list there stopped the run."""
    from planning_core.validators.cope.evaluate import read_results

    out = tmp_path / "out.jsonl"
    out.write_text('{"outcome": "bad_input", "source": ["x"]}\n'
                   '{"outcome": "bad_input", "source": "o.jsonl:3"}\n')
    rows, warnings = read_results(out)
    assert [r["source"] for r in rows] == ["o.jsonl:3"]
    assert warnings == (f"{out}:1: not a result row; ignored",)


def test_deepplanning_results_rows_with_lists_where_sets_need_values_are_bad_input(
        tmp_path, capsys):
    """The same shape in ``deepplanning report`` and a resumed ``deepplanning run``: a
    list as ``score.mode``, ``key`` or ``sample`` went into a set (TypeError, internal
    error); each is now a located bad row."""
    from planning_core.console import main

    rows = ['{"domain": "travel", "key": "t1", "score": {"commonsense": 1, "mode": ["paper"]}}',
            '{"domain": "travel", "key": ["t1"], "score": null}',
            '{"domain": "travel", "key": "t1", "sample": [1], "score": null}']
    for row, what in zip(rows, ("score.mode", "key must", "sample must")):
        path = tmp_path / "r.jsonl"
        path.write_text(row + "\n")
        assert main(["deepplanning", "report", str(path)]) == 2
        err = capsys.readouterr().err
        assert f"{path}:1:1: error: {what}" in err, err


def test_acp_report_names_a_run_whatever_its_shots_field_holds(tmp_path, capsys):
    """The same shape in ``acp report``: a list as ``shots`` went into a set (TypeError)."""
    from planning_core.console import main

    path = tmp_path / "r.jsonl"
    for shots, name in (("[2]", "m |"), ("2", "m (2-shot) |")):
        path.write_text('{"task": "app", "id": "1", "score": 1, "model": "m", "shots": '
                        + shots + '}\n')
        assert main(["acp", "report", str(path)]) == 0
        assert f"| {name}" in capsys.readouterr().out


def test_adaptive_resume_skips_results_lines_that_are_not_objects(tmp_path):
    """The same shape in ``adaptive run``'s resume: a results line holding a JSON array or
    number stopped it with AttributeError (``.get`` of a list); it is skipped now."""
    from planning_core.validators.adaptive.runner import _done

    out = tmp_path / "out.jsonl"
    out.write_text('[1]\n3\n{"task": "t", "tier": "mid", "agent": "a"}\n')
    assert len(_done(out)) == 1


def test_toolplans_call_costs_are_bounded_so_sums_stay_exact():
    """A tool's ``cost`` of 10**308 summed to infinity and a valid chain was judged
    invalid; 10**400 raised OverflowError. Costs above 10**9 are a located spec error."""
    import copy

    import pytest

    from planning_core.validators.toolplans import TaskContext, check_output, parse_task, \
        parse_tools
    from planning_core.validators.toolplans.spec import ToolSpecError
    from tests.toolplans.toolplans_fixtures import TASK, TOOLS, VALID

    for cost in (10**308, 10**400):
        tools = copy.deepcopy(TOOLS)
        tools[0]["x-planning"]["cost"] = cost
        with pytest.raises(ToolSpecError, match=r"/0/x-planning/cost: expected a whole number"):
            parse_tools(tools)
    tools = copy.deepcopy(TOOLS)
    for t in tools:
        t["x-planning"]["cost"] = 10**9
    report = check_output(TaskContext(parse_task(TASK, parse_tools(tools))), VALID,
                          time_limit=30)
    assert report.verdict == "valid" and report.to_dict()["cost"] % 10**9 == 0
