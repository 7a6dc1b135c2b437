"""The ``validate --json`` command against VAL's verdicts on the 412 oracle plans.

This is the issue's acceptance check as users run it: through the CLI entry point (in
process, so the suite stays fast; the console script itself is exercised by the
malformed-input subprocess tests), with the plan written to a file and the files given in
the order users type them.
"""
from __future__ import annotations

import json

import pytest
from conftest import SHARED_DATA, require_shared

from planning_core.cli.validate import validate_main

CASES_FILE = SHARED_DATA / "val_oracle" / "ipc_cases.jsonl"


def _cases() -> list:
    if not CASES_FILE.is_file():
        return [pytest.param(None, id="shared-data-missing")]
    with CASES_FILE.open() as fh:
        return [pytest.param(json.loads(line), id=f"{i:03d}") for i, line in enumerate(fh)]


@pytest.mark.parametrize("case", _cases())
def test_cli_json_matches_oracle(case, tmp_path, capsys):
    if case is None:
        require_shared()
    plan = tmp_path / "plan.txt"
    plan.write_text(case["plan"])
    code = validate_main(["--json", str(plan), str(SHARED_DATA / "ipc" / case["domain"]),
                          str(SHARED_DATA / "ipc" / case["problem"])])
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1
    row = json.loads(out[0])
    expected = case["expected"]
    assert row["verdict"] == expected["verdict"]
    if "step" in expected:
        assert row["step"] == expected["step"]
    assert row["valid"] == (expected["verdict"] == "valid")
    assert code == (0 if row["valid"] else 1)
    assert row["plan"] == str(plan)
