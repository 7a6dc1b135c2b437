"""Command-line arguments: every bad value is refused with exit 2 before any work starts."""
from __future__ import annotations

from pathlib import Path

import pytest

from planning_core.console import main

# from the checkout, not the working directory
BW = str(Path(__file__).resolve().parents[2] / "domains" / "blocksworld") + "/"


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "1e12", "soon"])
@pytest.mark.parametrize("command", [
    ["solve", BW + "domain.pddl", BW + "p01.pddl"],
    ["cope", "check", "--dataset", "."],
    ["acp", "check-gold", "--questions", "q.json"],
])
def test_time_limit_must_be_positive_and_finite(command, value, capsys):
    with pytest.raises(SystemExit) as info:
        main(command + ["--time-limit", value])
    assert info.value.code == 2
    assert "--time-limit" in capsys.readouterr().err


@pytest.mark.parametrize("plot, message", [("heat.txt", "got '.txt'"), (".", "is a directory")])
def test_acp_plot_path_is_checked_before_scoring(tmp_path, plot, message, capsys):
    answers = tmp_path / "a.jsonl"
    answers.write_text('{"id": 1, "response": "None"}\n')
    target = str(tmp_path / plot) if plot != "." else str(tmp_path)
    code = main(["acp", "score", "--questions", str(tmp_path / "missing.json"), "--answers",
                 str(answers), "--out", str(tmp_path / "r.jsonl"), "--plot", target])
    assert code == 2
    assert message in capsys.readouterr().err
