"""The SMT and LTL revision loops of ``cope run`` with a scripted model (no network)."""
from __future__ import annotations

from pathlib import Path

import pytest

from planning_core.validators.cope.dataset import load_dataset
from planning_core.validators.formalizations.live import run_pair
from planning_core.validators.models.base import ScriptedModel

from tests.cope.minicope import write_minicope


@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    root = write_minicope(tmp_path_factory.mktemp("cope"))
    pairs = load_dataset(Path(root))
    return next(p for p in pairs if p.category == "baseline")


def test_ltl_syntax_error_is_fed_back_then_fixed(pair):
    model = ScriptedModel(["```ltl\nG (on-table\n```", "```ltl\ntrue\n```"])
    row = run_pair(model, pair, "ltl", revisions=2)
    first, second = row["turns"]
    assert first["outcome"] == "syntax_error" and first["feedback"]
    assert second["template"] == "ltl_revise" and first["feedback"] in second["prompt"]
    assert "G (on-table" in second["prompt"]
    assert row["revisions"] == 1 and row["outcome"] == second["outcome"]
    assert "(define (domain" in first["prompt"]  # the unconstrained vocabulary is shown


def test_smt_crash_is_fed_back_and_revisions_are_bounded(pair):
    crash = "```python\nraise RuntimeError('encoding bug 42')\n```"
    model = ScriptedModel([crash, crash, crash])
    row = run_pair(model, pair, "smt", revisions=2)
    assert [t["template"] for t in row["turns"]] == ["smt_generate", "smt_revise",
                                                     "smt_revise"]
    assert row["outcome"] == "crashed" and not row["correct"]
    assert "encoding bug 42" in row["turns"][1]["prompt"]
