"""The classical/ADL edge set (``benchmarks/classical_edge/``) against its stored verdicts.

``benchmarks/classical_edge.py --write-expected`` stores, per case, our verdict and plan
value and VAL's class of verdict; ours equal VAL's wherever VAL is right, and every case
where they differ is explained in ``benchmarks/results/classical_edge.md``. This test runs
``validate --json`` (in-process, parse cache off) on every case and compares, so CI checks
the set without VAL.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from planning_core.cli.validate import validate_main

ROOT = Path(__file__).resolve().parents[2]
EDGE = ROOT / "benchmarks" / "classical_edge"
EXPECTED = json.loads((EDGE / "expected.json").read_text())

#: our verdict -> VAL's class of verdict (benchmarks/classical_edge.py, OUR_CLASS)
CLASS = {"valid": "valid", "precondition_failed": "precondition", "goal_not_satisfied": "goal",
         "unknown_action": "bad_plan", "wrong_arity": "bad_plan", "unknown_object": "bad_plan",
         "type_error": "bad_plan", "plan_syntax_error": "bad_plan", "mutex_violated": "mutex",
         "undefined_value": "undefined", "bad_input": "refused"}


def _cases() -> list[tuple[str, str, str, str]]:
    out = []
    for line in (EDGE / "cases.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        folder, plan, problem, domain, _ = line.split(None, 4)
        domain = "domain.pddl" if domain == "-" else domain
        stem = "" if domain == "domain.pddl" else Path(domain).stem + "/"
        case = f"{folder}/{stem}{Path(problem).stem}/{Path(plan).stem}"
        out.append((case, str(EDGE / folder / plan), str(EDGE / folder / domain),
                    str(EDGE / folder / problem)))
    return out


CASES = _cases()


def test_every_case_has_a_stored_verdict_and_the_set_is_wide():
    assert {c[0] for c in CASES} == set(EXPECTED)
    assert len(CASES) >= 150
    # every stored disagreement with VAL is one the driver explains by hand (FINDINGS)
    import importlib.util

    spec = importlib.util.spec_from_file_location("classical_edge", ROOT / "benchmarks"
                                                  / "classical_edge.py")
    driver = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(driver)
    differ = {case for case, e in EXPECTED.items() if not e["agrees_with_val"]}
    assert differ <= set(driver.FINDINGS), differ - set(driver.FINDINGS)


@pytest.mark.parametrize("case, plan, domain, problem", CASES, ids=[c[0] for c in CASES])
def test_edge_case_verdict(case, plan, domain, problem, capsys, monkeypatch):
    monkeypatch.setenv("PLANNING_CORE_PARSE_CACHE", "0")
    code = validate_main(["--json", plan, domain, problem])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    row = json.loads(out.splitlines()[0])
    expected = EXPECTED[case]
    assert row["verdict"] == expected["verdict"], row
    assert code == (0 if row["verdict"] == "valid" else 2 if row["verdict"] == "bad_input" else 1)
    if expected["verdict"] == "valid":
        assert row["cost"] == pytest.approx(expected["value"])
    if expected["agrees_with_val"]:
        assert CLASS[row["verdict"]] == expected["val"]
        if expected["val"] == "valid":
            assert row["cost"] == pytest.approx(expected["val_value"])
