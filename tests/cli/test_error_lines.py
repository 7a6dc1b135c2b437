"""Error lines in the one form the README promises, ``PATH[:line:col]: error: message``
(issue 32, item 10): ``cope check`` and ``acp score`` printed ``error: PATH: ...``, and text
mode ``validate`` said a plan's unknown action only inside VAL's report on stdout."""
from __future__ import annotations

import re

from planning_core.cli.validate import validate_main
from planning_core.console import main
from tests.conftest import DOMAINS

BW = DOMAINS / "blocksworld"


def test_cope_check_of_a_missing_folder(tmp_path, capsys):
    missing = tmp_path / "nope"
    assert main(["cope", "check", "--dataset", str(missing)]) == 2
    assert f"{missing}: error: no such folder" in capsys.readouterr().err


def test_acp_score_with_nothing_to_score(tmp_path, capsys):
    from tests.acp.acp_fixtures import write_score_files

    q, _ = write_score_files(tmp_path)
    answers = tmp_path / "bad.jsonl"
    answers.write_text("{oops\n")
    main(["acp", "score", "--questions", str(q), "--answers", str(answers),
          "--out", str(tmp_path / "o.jsonl"), "--no-progress"])
    assert f"{answers}: error: no answer could be scored" in capsys.readouterr().err


def test_validate_text_mode_puts_an_unknown_action_on_stderr(tmp_path, capsys):
    plan = tmp_path / "p.plan"
    plan.write_text("(unstack c b)\n  (fly b c)\n")
    code = validate_main([str(plan), str(BW / "domain.pddl"), str(BW / "p01.pddl")])
    out, err = capsys.readouterr()
    assert code == 1
    assert "the domain has no action 'fly'" in out            # VAL's report is unchanged
    assert re.search(rf"^{re.escape(str(plan))}:2:3: error: .*no action 'fly'", err, re.M)


def test_validate_json_mode_adds_no_stderr_line(tmp_path, capsys):
    plan = tmp_path / "p.plan"
    plan.write_text("(fly b c)\n")
    validate_main(["--json", str(plan), str(BW / "domain.pddl"), str(BW / "p01.pddl")])
    assert ": error:" not in capsys.readouterr().err


def test_a_valid_plan_prints_no_error_line(capsys):
    assert validate_main([str(BW / "p01.plan"), str(BW / "domain.pddl"),
                          str(BW / "p01.pddl")]) == 0
    assert "error" not in capsys.readouterr().err
