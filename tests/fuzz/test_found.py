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
