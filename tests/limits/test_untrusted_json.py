"""Issue 19 items 9, 10 and 12: one bad row never stops a batch.

``json.loads`` raises ``ValueError`` for an integer over 4,300 digits and ``RecursionError``
for deep nesting; readers that caught only ``JSONDecodeError`` let one such row abort the
whole run (exit 4, no rows). :mod:`planning_core.safe_json` turns both into
``JSONDecodeError``, and every reader of untrusted JSON uses it. Also: one invalid UTF-8
byte spoils its line of an ``acp score`` answers file, not the file (item 10); a 4,301-digit
number in a program's plan output is a verdict, not ``internal_error`` (item 12).
"""
from __future__ import annotations

import json

import pytest

from cope.minicope import write_minicope
from planning_core import safe_json
from planning_core.cli.validate import validate_main
from planning_core.console import main
from planning_core.validators.cope.dataset import load_dataset_report
from planning_core.validators.cope.extract import find_plan_lists
from planning_core.validators.cope.planner import evaluate_planner
from planning_core.validators.cope.results import EvalContext
from planning_core.validators.formalizations.smt import plan_from_output

from tests.acp.acp_fixtures import record
from tests.conftest import DOMAINS
from tests.toolplans.toolplans_fixtures import TASK, VALID

BIG = "7" * 5000                       # json.loads: ValueError (4,300-digit limit)
DEEP = "[" * 20_000 + "]" * 20_000     # json.loads: RecursionError


def rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


# ------------------------------------------------------------------ the shared reader

@pytest.mark.parametrize("text, message", [
    (BIG, "an integer of 5000 digits"), ("-" + BIG, "an integer of 5000 digits"),
    ('{"a": [1, ' + BIG + "]}", "an integer of 5000 digits"), (DEEP, "nested too deeply"),
    ("{torn", "Expecting property name"), (b"\xff[1]", "not UTF-8")],
    ids=["integer", "negative", "inside", "deep", "torn", "bytes"])
def test_every_failure_is_a_json_decode_error(text, message):
    with pytest.raises(json.JSONDecodeError, match=message):
        safe_json.loads(text)


def test_the_long_integer_is_located():
    with pytest.raises(json.JSONDecodeError) as info:
        safe_json.loads('{"a": 1,\n "b": ' + BIG + "}")
    assert (info.value.lineno, info.value.colno) == (2, 7)


def test_ordinary_json_reads_as_before():
    assert safe_json.loads('{"a": [1, -2, 3.5, "x", null, true]}') == \
        {"a": [1, -2, 3.5, "x", None, True]}
    assert safe_json.loads("9" * 4300) == int("9" * 4300)
    assert safe_json.raw_decode('xx {"a": 1} tail', 3) == ({"a": 1}, 11)
    with pytest.raises(json.JSONDecodeError):
        safe_json.raw_decode("[" + BIG + "]")


# ------------------------------------------------------------------ acp score (9, 10)

def test_acp_score_bad_rows_do_not_stop_the_run(tmp_path, capsys):
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps([record("app", qid="1"), record("reach", qid="2")]))
    answers = tmp_path / "a.jsonl"
    answers.write_bytes(
        b'{"id": "1", "task": "app", "response": "(move r0 r1) (pick c r0)"}\n'
        + b'{"id": "2", "task": "reach", "response": ' + BIG.encode() + b"}\n"
        + DEEP.encode() + b"\n"
        + b'{"id": "3", "response": "caf\xe9"}\n')               # Latin-1, not UTF-8
    out = tmp_path / "r.jsonl"
    code = main(["acp", "score", "--questions", str(questions), "--answers", str(answers),
                 "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 0, err
    got = rows(out)
    bad = {r["source"]: r for r in got if r["evidence"] == "bad-input"}
    assert set(bad) == {f"{answers}:{n}" for n in (2, 3, 4)}
    assert "5000 digits" in json.dumps(bad[f"{answers}:2"])
    assert "not UTF-8" in json.dumps(bad[f"{answers}:4"])
    assert [(r["task"], r["score"]) for r in got if r["evidence"] != "bad-input"] == [("app", 1)]


# ------------------------------------------------------------------ cope eval outputs

def test_cope_eval_bad_output_rows_are_bad_input(tmp_path, capsys):
    dataset = write_minicope(tmp_path)
    outputs = tmp_path / "o.jsonl"
    good = {"category": "baseline", "problem": "p01", "constraint": "constraint1",
            "output": "(unstack c a)"}
    outputs.write_text(json.dumps(good) + "\n"
                       + '{"category": "goal", "problem": "p01", "constraint": '
                         '"constraint2", "output": ' + BIG + "}\n" + DEEP + "\n")
    out = tmp_path / "r.jsonl"
    code = main(["cope", "eval", "--dataset", str(dataset), "--method", "planner",
                 "--outputs", str(outputs), "--out", str(out), "--no-progress",
                 "--no-label-check"])
    capsys.readouterr()
    assert code == 0
    got = rows(out)
    assert sorted(r["outcome"] for r in got) == ["bad_input", "bad_input", "plan_invalid"]


# ------------------------------------------------------------------ toolplans

def test_toolplans_batch_bad_rows_are_error_rows(tmp_path, capsys):
    src = tmp_path / "rows.jsonl"
    src.write_text(json.dumps({"id": "a", "task": TASK, "output": VALID}) + "\n"
                   + '{"id": "b", "task": ' + BIG + "}\n" + DEEP + "\n")
    out = tmp_path / "out.jsonl"
    code = main(["toolplans", "batch", "--rows", str(src), "--out", str(out), "--no-progress"])
    capsys.readouterr()
    got = {r["id"]: r for r in rows(out)}
    assert code == 0 and got["a"]["verdict"] == "valid"
    assert got["line-2"]["verdict"] == "error" and "5000 digits" in got["line-2"]["error"]
    assert got["line-3"]["verdict"] == "error" and "nested" in got["line-3"]["error"]


@pytest.mark.parametrize("output", [
    '[{"name": "login", "arguments": {"pin": ' + BIG + "}}]",
    DEEP,
    'login(pin=' + BIG + ")",
    'login(pin=' + "[" * 50_000 + ")",
], ids=["json-integer", "json-deep", "call-integer", "call-deep"])
def test_toolplans_check_gives_a_verdict(tmp_path, capsys, output):
    task = tmp_path / "task.json"
    task.write_text(json.dumps(TASK))
    model = tmp_path / "out.txt"
    model.write_text(output)
    code = main(["toolplans", "check", str(task), str(model), "--json"])
    captured = capsys.readouterr()
    assert code == 1 and "internal error" not in captured.err
    assert json.loads(captured.out)["verdict"] != "valid"


def test_toolplans_task_file_with_a_long_integer_is_bad_input(tmp_path, capsys):
    task = tmp_path / "task.json"
    task.write_text('{"goal": [], "tools": [], "budget": ' + BIG + "}")
    model = tmp_path / "out.txt"
    model.write_text(VALID)
    code = main(["toolplans", "check", str(task), str(model)])
    captured = capsys.readouterr()
    assert code == 2 and "5000 digits" in captured.err


# ------------------------------------------------------------------ validate --batch

def test_validate_batch_manifest_bad_lines_are_rows(tmp_path, capsys):
    blocks = DOMAINS / "blocksworld"
    entry = {"id": "good", "plan_text": (blocks / "p01.plan").read_text(),
             "domain": str(blocks / "domain.pddl"), "problem": str(blocks / "p01.pddl")}
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps(entry) + "\n" + '{"id": ' + BIG + "}\n" + DEEP + "\n")
    out = tmp_path / "r.jsonl"
    code = validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress"])
    capsys.readouterr()
    got = rows(out)
    by_source = {r["source"]: r for r in got if "source" in r}
    assert code == 2 and set(by_source) == {f"{manifest}:2", f"{manifest}:3"}
    assert "5000 digits" in by_source[f"{manifest}:2"]["message"]
    assert [r["verdict"] for r in got if "source" not in r] == ["valid"]


# ------------------------------------------------------------------ model text (9, 12)

@pytest.fixture(scope="module")
def pair(tmp_path_factory):
    pairs, _ = load_dataset_report(write_minicope(tmp_path_factory.mktemp("cope")))
    return next(p for p in pairs if p.category == "baseline")


@pytest.mark.parametrize("text", [
    f"[{BIG}]\n(unstack c a)", f'{{"plan": [{BIG}]}}', f"1. unstack c a {BIG}",
    f'["unstack c a", {BIG}]', f"step {BIG}: (unstack c a)", f"(unstack c{BIG} a)",
    "1. unstack c a \u00b2", DEEP], ids=["list", "json", "numbered", "strings", "step",
                                        "name", "superscript", "deep"])
def test_long_numbers_in_plan_output_give_a_verdict(pair, text):
    find_plan_lists(text, lambda item: True)
    plan = plan_from_output(text, pair)                  # the SMT method's reading
    assert isinstance(plan.steps, tuple)
    row = evaluate_planner(pair, text, EvalContext(use_oracle=False)).to_json()
    assert row["outcome"] in ("plan_invalid", "unreadable", "correct")


def test_sandbox_status_lines_with_hostile_json_are_skipped():
    from planning_core.validators.formalizations.sandbox import _Streams

    buffer = bytearray(('{"pid": ' + BIG + "}\n" + DEEP + '\n{"exit": 0}\n').encode())
    assert _Streams.lines(buffer) == [{"exit": 0}]


@pytest.mark.parametrize("printed", [
    '["unstack c a", ' + BIG + "]",
    "1. unstack c " + BIG + " a",
], ids=["json-list", "object-number"])
def test_cope_eval_smt_long_integer_in_program_output(tmp_path, capsys, printed):
    """Item 12 end to end: the program (run with rlimits only) prints a 5,000-digit number
    in its plan; the row is a plan verdict, not internal_error."""
    dataset = write_minicope(tmp_path)
    program = f"```python\nimport z3\nprint({printed!r})\n```"
    outputs = tmp_path / "o.jsonl"
    outputs.write_text(json.dumps({"category": "baseline", "problem": "p01",
                                   "constraint": "constraint1", "output": program}) + "\n")
    out = tmp_path / "r.jsonl"
    code = main(["cope", "eval", "--dataset", str(dataset), "--method", "smt", "--outputs",
                 str(outputs), "--out", str(out), "--no-progress", "--no-label-check",
                 "--unsafe-no-sandbox"])
    capsys.readouterr()
    (row,) = rows(out)
    assert code == 0 and row["outcome"] != "internal_error", row["detail"]
