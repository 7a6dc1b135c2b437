"""The hand-written PDDL 2.1/2.2 edge set (``benchmarks/pddl21_edge/``) against the verdicts
stored in its ``expected.json`` by ``benchmarks/pddl21_edge.py --write-expected``: our
verdict and value per case, and VAL's, so CI checks agreement with VAL without VAL.

Every case runs through ``validate --json`` (its entry point, in this process), as the
driver runs it. Our verdict and value must be the stored ones; and valid/invalid must be
VAL's except for the cases the driver's ``NOTES`` explain (where VAL is wrong, crashes,
refuses the input, or we refuse a documented feature)."""
from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DRIVER = ROOT / "benchmarks" / "pddl21_edge.py"


def _driver():
    spec = importlib.util.spec_from_file_location("pddl21_edge_driver", DRIVER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


DRIVER_MODULE = _driver()
CASES = DRIVER_MODULE.cases()
EXPECTED = json.loads(DRIVER_MODULE.EXPECTED.read_text())


def test_every_case_has_a_stored_verdict_and_the_set_covers_the_brief():
    assert sorted(c["id"] for c in CASES) == sorted(EXPECTED)
    tasks = {c["id"].split("/")[0] for c in CASES}
    assert {"til", "durineq", "numeric", "durcond", "durspan", "eps", "conc", "metric",
            "oddities", "cont"} <= tasks
    assert len(CASES) >= 140
    # the explained departures are exactly the cases where the stored verdicts differ
    differ = {k for k, e in EXPECTED.items()
              if (e["ours"] == "valid") != (e["val"] == "valid") or
              (e["ours"] == "bad_input") != (e["val"] == "error") or
              not _same(e["value"], e["val_value"])}
    assert differ == set(DRIVER_MODULE.NOTES)


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-5)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_edge_case_verdict_and_value(case):
    expected = EXPECTED[case["id"]]
    ours = DRIVER_MODULE.run_ours(case)
    assert ours.get("detail") != "traceback", ours["text"]
    assert (ours.get("detail") or ours["verdict"]) == expected["ours"], ours["text"]
    assert _same(ours["value"], expected["value"])
    if case["id"] not in DRIVER_MODULE.NOTES:     # agreement with VAL
        assert ours["verdict"] == expected["val"], ours["text"]
        assert _same(ours["value"], expected["val_value"])
