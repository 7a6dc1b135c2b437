"""Review of issue 22 (APB): hostile answers in the paper's formats and the bounds of the
checker. Paper: /work/shared/seeds/001_25509288ef9c2098.txt (line numbers)."""
from __future__ import annotations

import json
import sys

from planning_core.validators.toolplans import check_output

from tests.toolplans.toolplans_fixtures import TASK, mini


def entry(name, desc, reason="because"):
    return {"name": name, "parameter_description": desc, "reason": reason}


def _line_events(fn) -> int:
    """Python line events while ``fn`` runs: a deterministic measure of work (every loop
    iteration, comprehensions included, is one), never wall-clock."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += 1
        return tracer
    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def test_long_chains_are_checked_in_linear_work():
    # every call lacks the offer and the token its maker would give: each one asked "is
    # the maker called later?" and "which earlier call made it?" used to scan the chain
    ctx = mini()
    book = entry("book", {"offer": "the offer from the search", "passenger": "Ana"})

    def work(n):
        text = json.dumps({"plan": "p", "tool_chain": [book] * n})
        return _line_events(lambda: check_output(ctx, text, grade=False))
    work(1)
    small, large = work(150), work(300)
    assert large / small < 2.3, (small, large)


VALID_CHAIN = [entry("login", {"username": "ana.l"}),
               entry("search", {"origin": "Paris", "destination": "Rome", "date": "2025-05-01"}),
               entry("book", {"offer": "the offer from step 2", "passenger": "Ana"}),
               entry("pay", {"amount": "the fare from step 3", "card": "4111"})]


def test_a_tool_name_in_another_case_is_a_hallucinated_tool():
    # paper line 623 and Figure 31: "Tool names must match exactly ... capitalization"
    ctx = mini()
    assert check_output(ctx, json.dumps({"plan": "p", "tool_chain": VALID_CHAIN})).correct
    chain = [dict(VALID_CHAIN[0], name="Login")] + VALID_CHAIN[1:]
    rep = check_output(ctx, json.dumps({"plan": "p", "tool_chain": chain}))
    assert rep.correct is False
    assert rep.classes["E6"] == [1]
    assert "did you mean login" in rep.faults[0].message


def test_declared_spelling_is_the_one_to_use():
    from tests.toolplans.toolplans_fixtures import TASK, TOOLS
    from planning_core.validators.toolplans import TaskContext, parse_task
    from planning_core.validators.toolplans.apb import tool_to_json
    tools = [dict(t, function=dict(t["function"], name="Login")) if t["function"]["name"] == "login"
             else t for t in TOOLS]
    ctx = TaskContext(parse_task(dict(TASK, tools=tools)))
    assert tool_to_json(ctx.task.tool("login"))["name"] == "Login"
    chain = [dict(VALID_CHAIN[0], name="Login")] + VALID_CHAIN[1:]
    assert check_output(ctx, json.dumps({"plan": "p", "tool_chain": chain})).correct
    rep = check_output(ctx, json.dumps({"plan": "p", "tool_chain": VALID_CHAIN}))
    assert rep.classes["E6"] == [1] and "did you mean Login" in rep.faults[0].message


def test_tool_broken_case_variants_are_other():
    # Figure 36: the replacement's name "must exactly match"; a variant is no tool at all
    from planning_core.validators.toolplans import judge_prediction
    ctx = mini()
    prefix = 'login(username="ana.l")'
    step = {"role": "assistant", "thought": "t", "tool_calls": [
        {"type": "function", "function": {"name": "Search", "arguments": {
            "origin": "Paris", "destination": "Rome", "date": "2025-05-01"}}}]}
    rep = judge_prediction(ctx, prefix, json.dumps(step), 1, replacement="search")
    assert rep.behaviour == "other" and "E6" in rep.classes
    step["tool_calls"][0]["function"]["name"] = "search"
    assert judge_prediction(ctx, prefix, json.dumps(step), 1, replacement="search").behaviour == "replace"


def test_batch_rows_too_deep_or_too_long_are_error_rows():
    from planning_core.validators.toolplans.batch import read_rows
    text = ('{"id": "deep", "task": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
            + '{"id": "num", "n": ' + "1" * 5000 + "}\n" + '{"id": "ok"}\n')
    rows = read_rows(text, "rows.jsonl")
    assert [r.id for r in rows] == ["line-1", "line-2", "ok"]
    assert rows[0].error.startswith("rows.jsonl:1:1: not JSON") and rows[1].error


def test_reject_beside_a_tool_chain_is_a_hedge_not_a_refusal():
    # Figure 41: a refusal passes only with an empty tool_chain; a chain is blind execution
    ctx = mini()
    hedge = json.dumps({"status": "REJECT", "reason": "cannot", "plan": "p",
                        "tool_chain": VALID_CHAIN})
    rep = check_output(ctx, hedge)
    assert not rep.refused and rep.correct is False and rep.calls == 4
    assert rep.classes == {"E3": [None]}
    # without the card item no chain can pay: unsolvable (missing information)
    ctx2 = mini(items=[i for i in TASK["items"] if i["name"] != "visa"])
    assert ctx2.feasibility().solvable is False
    rep2 = check_output(ctx2, hedge)
    assert rep2.correct is False and not rep2.refused and rep2.grade == 0.0
    assert check_output(ctx2, json.dumps({"status": "REJECT", "tool_chain": []})).correct
    assert check_output(ctx2, json.dumps({"status": "reject", "extra": 1})).correct


def test_a_tool_chain_entry_without_parameter_description_is_a_format_violation():
    # Figure 34: each tool_chain object "must have 3 keys": name, parameter_description, reason
    ctx = mini()
    chain = [{"name": "login", "reason": "r"}] + VALID_CHAIN[1:]
    rep = check_output(ctx, json.dumps({"plan": "p", "tool_chain": chain}))
    assert rep.classes["E3"] == [1]
    assert any("parameter_description" in f.message for f in rep.faults)


def test_report_on_results_nested_too_deep_is_bad_input(tmp_path, capsys):
    from planning_core.console import main
    res = tmp_path / "r.jsonl"
    res.write_text("[" * 100_000 + "]" * 100_000 + "\n" + '{"id": "1"}\n')
    assert main(["toolplans", "report", str(res)]) == 2
    err = capsys.readouterr().err
    assert "r.jsonl:1: error: not JSON" in err and "Traceback" not in err


def test_generate_scale_nan_is_bad_input(tmp_path, capsys):
    from planning_core.console import main
    assert main(["toolplans", "generate", "--scale", "nan", "--out", str(tmp_path / "c.jsonl")]) == 2
    assert "--scale must be in (0, 10]" in capsys.readouterr().err


def test_predict_output_not_utf8_gets_a_verdict_as_check_does(tmp_path, capsys):
    # a model's answer that is not text is a wrong answer, not a file the tool cannot read
    from planning_core.console import main
    from tests.toolplans.toolplans_fixtures import DATASET
    out = tmp_path / "o.json"
    out.write_bytes(b'{"role": "assistant", "thought": "\xff", "tool_calls": []}')
    code = main(["toolplans", "predict", f"{DATASET / 'travel.json'}#travel-02",
                 "--output", str(out), "--k", "1", "--time-limit", "5"])
    assert code == 1 and "E2 premature_conclusion" in capsys.readouterr().out


def test_tool_broken_first_step_text_only_is_other_even_if_a_later_step_replaces():
    # Figure 36, Category 5: "only provided a text response without any tool call"
    from planning_core.validators.toolplans import judge_prediction
    ctx = mini()
    prefix = 'login(username="ana.l")\nweather(city="Paris")'   # weather is the broken tool
    text = {"role": "assistant", "thought": "the weather tool failed", "tool_calls": []}
    search = {"role": "assistant", "thought": "t", "tool_calls": [{"type": "function", "function": {
        "name": "search", "arguments": {"origin": "Paris", "destination": "Rome",
                                        "date": "2025-05-01"}}}]}
    rep = judge_prediction(ctx, prefix, json.dumps([text, search]), 2, replacement="search")
    assert rep.behaviour == "other"
    rep = judge_prediction(ctx, prefix, json.dumps([search, text]), 2, replacement="search")
    assert rep.behaviour == "replace"


def test_reject_beside_step_wise_tool_calls_is_a_hedge_too():
    from planning_core.validators.toolplans import judge_prediction
    ctx = mini()
    hedge = {"status": "REJECT", "tool_calls": [{"type": "function", "function": {
        "name": "search", "arguments": {"origin": "Paris", "destination": "Rome",
                                        "date": "2025-05-01"}}}]}
    rep = judge_prediction(ctx, 'login(username="ana.l")', json.dumps(hedge), 1)
    assert not rep.refused and rep.correct is False and rep.classes == {"E3": [None]}


def test_format_violations_are_one_non_critical_component_of_the_holistic_grade():
    # lines 636-646: a logically sound chain is not "zero logical merit" for a format
    # violation of its entries
    from planning_core.validators.toolplans.faults import Fault
    from planning_core.validators.toolplans.grade import holistic_grade
    ctx = mini()
    odd = [dict(c, reason=7) for c in VALID_CHAIN]
    rep = check_output(ctx, json.dumps({"plan": "p", "tool_chain": odd}))
    assert rep.classes == {"E3": [1, 2, 3, 4]} and rep.grade == 0.8
    one = [odd[0]] + VALID_CHAIN[1:]
    assert check_output(ctx, json.dumps({"plan": "p", "tool_chain": one})).grade == 0.8
    fmt = [Fault("format_violation", k, "x") for k in (1, 2)] + [Fault("format_violation", None, "x")]
    assert holistic_grade(4, fmt, 0) == 0.8
    assert holistic_grade(4, fmt + [Fault("premature_call", 3, "x")], 0) == 0.4  # 2 components, 3 correct


def test_report_rejects_result_rows_of_the_wrong_types(tmp_path, capsys):
    from planning_core.console import main
    res = tmp_path / "r.jsonl"
    good = {"id": "0", "setting": "holistic", "correct": False, "grade": 0.4,
            "classes": {"E2": [None]}, "e1": "undecided"}
    for bad, what in ((dict(good, grade="high"), "'grade'"), (dict(good, grade=1e999), "'grade'"),
                      (dict(good, classes="E2"), "'classes'"), (dict(good, correct=1), "'correct'")):
        res.write_text(json.dumps(good) + "\n" + json.dumps(dict(bad, id="1")) + "\n")
        assert main(["toolplans", "report", str(res)]) == 2
        err = capsys.readouterr().err
        assert "result row 2 (id '1')" in err and what in err and "Traceback" not in err
    res.write_text(json.dumps(good) + "\n")
    assert main(["toolplans", "report", str(res)]) == 0


def test_predict_replacement_must_be_a_tool_of_the_task(capsys):
    from planning_core.console import main
    from tests.toolplans.toolplans_fixtures import DATASET
    code = main(["toolplans", "predict", f"{DATASET / 'travel.json'}#travel-02", "--output",
                 '{"status": "REJECT"}', "--replacement", "serch_flights", "--time-limit", "5"])
    assert code == 2 and "is not a tool of the task" in capsys.readouterr().err


def test_a_tool_chain_entry_without_a_string_name_does_not_hide_the_other_calls():
    # line 631: "evaluate all 6 categories independently"; one bad entry is E3 + E6 there
    ctx = mini()
    chain = [VALID_CHAIN[0], {"name": 5, "parameter_description": {}, "reason": "r"},
             VALID_CHAIN[1], "oops", dict(VALID_CHAIN[2], name="Book"), VALID_CHAIN[3]]
    rep = check_output(ctx, json.dumps({"plan": "p", "tool_chain": chain}))
    assert rep.calls == 6 and rep.primary.kind != "malformed_output"
    assert rep.classes["E3"] == [2, 4] and rep.classes["E6"][:3] == [2, 4, 5]


def test_a_prefix_may_be_a_chat_transcript_ending_with_the_tool_error():
    # Figure 36: "Trajectory So Far (ending with the error)": user and tool messages carry
    # no calls; the broken call's error output ends the prefix
    from planning_core.validators.toolplans import judge_prediction
    ctx = mini()
    prefix = json.dumps([
        {"role": "user", "content": "Book the flight"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "1", "type": "function",
         "function": {"name": "login", "arguments": '{"username": "ana.l"}'}}]},
        {"role": "tool", "tool_call_id": "1", "content": "token"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "2", "type": "function",
         "function": {"name": "weather", "arguments": '{"city": "Paris"}'}}]},
        {"role": "tool", "tool_call_id": "2", "content": "Error: weather is unavailable (503)"}])
    step = {"role": "assistant", "thought": "t", "tool_calls": [{"type": "function", "function": {
        "name": "search", "arguments": {"origin": "Paris", "destination": "Rome",
                                        "date": "2025-05-01"}}}]}
    rep = judge_prediction(ctx, prefix, json.dumps(step), 1, replacement="search")
    assert rep.correct and rep.behaviour == "replace"


def test_solved_chains_use_the_declared_spelling():
    # the optimal chain `solve` prints (and APB cases' references) must pass `check`
    from planning_core.validators.toolplans import TaskContext, parse_task
    from planning_core.validators.toolplans.feasibility import plan_calls
    from tests.toolplans.toolplans_fixtures import TOOLS
    tools = [dict(t, function=dict(t["function"], name=t["function"]["name"].title()))
             for t in TOOLS]
    ctx = TaskContext(parse_task(dict(TASK, tools=tools)))
    calls = plan_calls(ctx, ctx.feasibility().plan)
    assert [c["name"] for c in calls] == ["Login", "Search", "Book", "Pay"]
    assert check_output(ctx, json.dumps(calls)).correct


def test_the_holistic_grade_counts_the_calls_a_chain_lacks_not_the_outputs():
    # lines 640-644: "misses one key component" (0.6) vs "might get one simple step right"
    # (0.2); goal booking + receipt needs login, search, book, pay
    from planning_core.validators.toolplans.grade import missing_calls
    ctx = mini()
    by_hand = {1: 0.2, 2: 0.4, 3: 0.6, 4: 1.0}   # 3, 2, 1, 0 calls lacking
    for n, grade in by_hand.items():
        rep = check_output(ctx, json.dumps({"plan": "p", "tool_chain": VALID_CHAIN[:n]}))
        assert rep.grade == grade, n
    task = ctx.task
    assert missing_calls(task, {"city", "date", "passenger", "username", "card"}, set()) == 4
    assert missing_calls(task, {"city", "date", "passenger", "username", "card", "auth_token",
                                "offer"}, {"login", "search"}) == 2


def test_entries_without_reason_are_no_format_violation_as_in_figure_51():
    # line 927 (Figure 51): the "Normal Evaluation" prediction's tool_chain entries are
    # {"name", "arguments"} only, no "reason", and it is graded "Score: 1.0 (Correct)",
    # i.e. "All errors are 0" (Figure 35), E3 included, although Figure 34 (line 690) asks
    # for 3 keys per entry
    ctx = mini()
    bare = [{k: v for k, v in c.items() if k != "reason"} for c in VALID_CHAIN]
    rep = check_output(ctx, json.dumps({"plan": "p", "tool_chain": bare}))
    assert (rep.correct, rep.grade, rep.classes) == (True, 1.0, {})
    figure51 = [{"name": "login", "arguments": {"username": "ana.l"}},
                {"name": "search", "arguments": {"origin": "Paris", "destination": "Rome",
                                                 "date": "2025-05-01"}}]
    rep = check_output(ctx, json.dumps({"plan": "p", "tool_chain": figure51}))
    assert "E3" not in rep.classes
    empty = [dict(c, reason="") for c in VALID_CHAIN[:1]] + [dict(c, reason=None)
                                                             for c in VALID_CHAIN[1:]]
    rep = check_output(ctx, json.dumps({"plan": "p", "tool_chain": empty}))
    assert (rep.correct, rep.classes) == (True, {})
    # still a violation: a 'reason' that is not text
    rep = check_output(ctx, json.dumps({"plan": "p", "tool_chain":
                                        [dict(VALID_CHAIN[0], reason={"x": 1})] + VALID_CHAIN[1:]}))
    assert rep.classes == {"E3": [1]} and any("'reason' must be a string" in f.message
                                              for f in rep.faults)
