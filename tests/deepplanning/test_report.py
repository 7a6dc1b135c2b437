"""Table 2 aggregation (paper and released) and the error taxonomy."""
from __future__ import annotations

from planning_core.validators.deepplanning.agent import run_episode, score_episode
from planning_core.validators.deepplanning.chat_tools import ScriptedToolModel
from planning_core.validators.deepplanning.report import render_markdown, table, taxonomy
from planning_core.validators.deepplanning.shopping_gen import generate_level
from planning_core.validators.deepplanning.tasks import find_tasks


def _shop(run, match, matched, expected, case, completed=True, mode="paper"):
    return {"domain": "shopping", "run": run, "score": {
        "mode": mode, "match": match, "matched": matched, "expected": expected,
        "case_acc": case, "completed": completed}}


def _travel(run, cs, ps, case, mode="paper"):
    return {"domain": "travel", "run": run, "score": {
        "mode": mode, "commonsense": cs, "personalized": ps,
        "composite": None if ps is None else (cs + ps) / 2, "case_acc": case}}


def test_table_per_run_and_mean_with_undecided_cases_counted_in_n():
    """An undecided case stays in N (paper line 176 averages over all tasks): it counts 0 in
    PS, Comp and Case Acc, and the report says how many there are."""
    rows = [_travel(0, 1.0, 1, 1), _travel(0, 0.5, 0, 0), _travel(0, 1.0, None, None),
            _shop(0, 1.0, 2, 2, 1), _shop(0, 0.5, 1, 2, 0),
            _travel(1, 0.75, 1, 0), _shop(1, 0.0, 0, 4, 0)]
    t = table(rows)
    r0 = t["runs"]["0"]
    assert r0["cs"] == 2.5 / 3 and r0["ps"] == 1 / 3 and r0["travel_undecided"] == 1
    assert r0["comp"] == (1.0 + 0.25 + 0.5) / 3
    assert r0["travel_case_acc"] == 1 / 3 and r0["match"] == 0.75
    assert r0["avg_acc"] == (1 / 3 + 0.5) / 2
    assert r0["n"] == {"cs": 3, "ps": 3, "comp": 3, "travel_case_acc": 3, "match": 2,
                       "shopping_case_acc": 2}
    assert t["average"]["n"]["travel_case_acc"] == 4 and t["average"]["travel_undecided"] == 1
    md = render_markdown(t)
    assert "| mean |" in md and "N=4" in md and "count as 0" in md


def test_report_intervals_wilson_for_accuracy_normal_for_means():
    rows = [_shop(0, m, 1, 2, c) for m, c in ((1.0, 1), (0.5, 0), (0.5, 0), (1.0, 1))]
    ci = table(rows)["runs"]["0"]["ci95"]
    # Wilson, p = 0.5, n = 4: 0.5 +- 1.96 sqrt(0.0625 + 0.2401) / 1.9604
    half = 1.96 * (0.25 / 4 + 1.96 ** 2 / 64) ** 0.5 / (1 + 1.96 ** 2 / 4)
    assert abs(ci["shopping_case_acc"][0] - (0.5 - half)) < 1e-12
    assert abs(ci["shopping_case_acc"][1] - (0.5 + half)) < 1e-12
    sd = (4 * 0.25 ** 2 / 3) ** 0.5
    assert abs(ci["match"][0] - (0.75 - 1.96 * sd / 2)) < 1e-12
    assert ci["match"][1] == 1.0   # clipped


def test_released_match_pools_counts_and_marks_runs_with_many_incomplete_cases():
    rows = [_shop(0, 1.0, 1, 1, 1, mode="released"),
            _shop(0, 0.0, 0, 3, 0, completed=False, mode="released")]
    t = table(rows)
    assert t["runs"]["0"]["match"] == 0.25 and t["runs"]["0"]["valid"] is False


def test_taxonomy_from_trajectories():
    travel_row = {"domain": "travel", "final": '{"daily_plans": [{"activities": '
                  '[{"type": "meal"}]}]}',
                  "messages": [{"role": "assistant", "tool_calls": [
                      {"function": {"name": "query_hotel_info"}}]},
                      {"role": "tool", "content": '{"error": "missing"}'}],
                  "score": {"case_acc": 0, "checkpoints": {
                      "validated_meals": {"passed": False, "reason": "x: cost 3 is not the "
                                                                    "database's 5"},
                      "dining_within_service_hours": {"passed": False},
                      "no_time_overlaps": {"passed": False}},
                      "constraints": {"hotel_highest_rated": {"passed": False}}}}
    assert taxonomy(travel_row) == ["A1", "A2", "A3", "B1", "B2", "C"]
    travel_row["messages"][1]["content"] = '{\n  "error": "Missing required argument: x"\n}'
    assert "A2" in taxonomy(travel_row)      # indented, as the released tools answer
    assert taxonomy({"domain": "travel", "score": {"case_acc": 1}}) == []
    assert taxonomy({"domain": "travel", "score": {"case_acc": 0}}) == ["undecided"]


def test_a_valid_but_not_optimal_cart_is_a_global_failure(tmp_path):
    generate_level(1, 4, 2, tmp_path)
    task = next(find_tasks(tmp_path, "shopping", levels=(2,)))
    case, spec = task.shopping_case(), task.spec()
    from planning_core.validators.deepplanning.shopping_gen import case_problem
    problem = case_problem(case, spec)
    best = case.truth["ground_truth_products"]
    # swap one item for a dearer candidate that meets its filters: still above the floor,
    # every request met, but not the cheapest such cart
    chosen = [b["product_id"] for b in best]
    for item in problem.items:
        mine = next(p for p in chosen if p in item)
        dearer = sorted((p for p in item if item[p] > item[mine]), key=item.get)
        if dearer:
            chosen[chosen.index(mine)] = dearer[0]
            break
    else:
        raise AssertionError("no dearer candidate in this case")
    steps = [("add_product_to_cart", {"product_id": p}) for p in chosen]

    def policy(messages, tools):
        n = sum(1 for m in messages if m["role"] == "tool")
        if n < len(steps):
            import json
            return {"tool_calls": [{"name": steps[n][0],
                                    "arguments": json.dumps(steps[n][1])}]}
        return {"content": "done"}
    ep = run_episode(ScriptedToolModel(policy), task)
    s = score_episode(task, ep)
    assert s["case_acc"] == 0 and s["cart_valid"] is True
    assert "C" in taxonomy({"domain": "shopping", "score": s, "messages": ep["messages"]})


import pytest  # noqa: E402


@pytest.mark.parametrize("content, where", [
    (b'{"run": 0}\n{"final": "caf\xc3', "rows.jsonl:2:"),           # a cut UTF-8 character
    (b'{"run": 0}\n{"a": ' + b"9" * 5000 + b"}\n", "rows.jsonl:2:"),  # ValueError in json
    (b"[" * 100_000 + b"\n", "rows.jsonl:1:"),                       # RecursionError in json
    (b'{"run": 0}\n7\n', "rows.jsonl:2:"),                           # not an object
], ids=("cut-utf8", "long-int", "deep", "not-object"))
def test_a_bad_results_line_is_a_located_error_exit_2(tmp_path, capsys, content, where):
    """deepplanning report (and run's resume, which reads the same file) said "internal
    error ... a bug", exit 4, for these lines."""
    from planning_core.console import main

    path = tmp_path / "rows.jsonl"
    path.write_bytes(content)
    code = main(["deepplanning", "report", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "internal error" not in err and where in err
