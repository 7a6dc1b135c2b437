"""Issue 31: the judged mode (three rubric judges on the shared model client), the words
condition (a request in words, a plan in words mapped by a model-based reader), and the
user simulator, end to end against a local OpenAI-compatible stub server."""
from __future__ import annotations

import json
import re

import pytest

from planning_core.console import main
from planning_core.validators.adaptive import rubric
from planning_core.validators.adaptive.agents import ModelAgent, run_episode
from planning_core.validators.adaptive.env import AdaptiveEnv
from planning_core.validators.adaptive.metrics import read_episodes, read_results, \
    render_markdown
from planning_core.validators.adaptive.words import ModelReader, parse_mapping, \
    request_in_words

from tests.adaptive.conftest import PLAN_CLOTH, PLAN_VACUUM, profile_json
from tests.models.chat_server import ChatServer, answer

# the agent's plans in words, and what a reader makes of each step on household p01
WORDS_VACUUM = "1. Pick up the vacuum in the kitchen.\n2. Clean the window with the vacuum."
WORDS_CLOTH = ("1. Walk to the hall.\n2. Pick up the cloth there.\n3. Walk back to the "
               "kitchen.\n4. Clean the window with the cloth.")
READS = {"Pick up the vacuum in the kitchen.": ["(pick-up vacuum kitchen)"],
         "Clean the window with the vacuum.": ["(clean vacuum window kitchen)"],
         "Walk to the hall.": ["(move kitchen hall)"],
         "Pick up the cloth there.": ["(pick-up cloth hall)"],
         "Walk back to the kitchen.": ["(move hall kitchen)"],
         "Clean the window with the cloth.": ["(clean cloth window kitchen)"]}
SCORES = {"j1": 5, "j2": 4}          # j3 answers junk: a judge failure


def _scores(n: int) -> str:
    return json.dumps({"scores": {k: n for k in rubric.KEYS},
                       "reasons": {"effectiveness": "fine"}})


def stub(request: dict, number: int):
    """The stub server: judges by model name, the reader, the simulator and the agent by
    what their prompts say."""
    prompt = ChatServer.prompt_of(request)
    model = request["model"]
    if prompt.startswith("You are a rubric judge"):
        return answer(_scores(SCORES[model]) if model in SCORES else "I like it! " * 50)
    if prompt.startswith("You map a household plan"):
        steps = re.findall(r"^\d+\. (.*)$", prompt.split("Plan in words:")[1], re.M)
        return answer(json.dumps({"steps": [
            {"step": i, "actions": READS[s]} if s in READS else
            {"step": i, "unreadable": "no such thing here"}
            for i, s in enumerate(steps, start=1)]}))
    if prompt.startswith("You are a person at home"):
        return answer("Sorry, we don't have a vacuum at home.")
    words = "You are at home" in prompt
    first = "Your plan at turn 1" not in prompt
    plan = (WORDS_VACUUM if first else WORDS_CLOTH) if words else \
        (PLAN_VACUUM if first else PLAN_CLOTH)
    return answer(f"Here is my plan:\n```\n{plan}\n```")


@pytest.fixture
def hand_profile(tmp_path):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(profile_json()))
    return path


def _run(server, profile, out, *extra):
    return main(["adaptive", "run", str(profile), "--tiers", "main", "--agent", "model",
                 "--model", "agent", "--base-url", server.base_url, "--no-cache",
                 "--out", str(out), "--judge", "j1", "--judge", "j2", "--judge", "j3",
                 *extra])


def test_judged_words_run_with_three_judges_a_reader_and_a_simulator(hand_profile,
                                                                     tmp_path, capsys):
    runs = tmp_path / "runs.jsonl"
    with ChatServer(stub) as server:
        assert _run(server, hand_profile, runs, "--condition", "words", "--reader",
                    "reader", "--simulator", "user") == 0
        sent = [ChatServer.prompt_of(r) for r in server.requests]
    row = json.loads(runs.read_text())
    assert row["protocol"]["judges"] == ["j1", "j2", "j3"]
    assert row["protocol"]["condition"] == "words" and row["judges"] == ["j1", "j2", "j3"]
    first, second = row["turns"]
    # the agent saw the request in words, no PDDL and no list of usable tools
    agent_prompt = next(p for p in sent if "You are at home" in p and "rubric" not in p
                        and not p.startswith("You map"))
    assert "(:init" not in agent_prompt and "can-clean" not in agent_prompt
    # every mapping kept; the mapped plan checked exactly: the vacuum is unavailable
    assert [m["actions"] for m in first["words"]["steps"]] == [
        ["(pick-up vacuum kitchen)"], ["(clean vacuum window kitchen)"]]
    assert "w1" in first["violated"] and first["revealed"] == ["w1"]
    # the simulator's words, and no constraint id or attribute in the feedback
    assert "Sorry, we don't have a vacuum" in first["feedback"]
    assert "[w1]" not in first["feedback"] and first["simulator"] == {"simulator": "user"}
    # every judge's scores kept, the junk judge a recorded failure left out of the mean
    judges = second["rubric"]["judges"]
    assert [j["judge"] for j in judges] == ["j1", "j2", "j3"]
    assert judges[0]["scores"]["safety"] == 5 and judges[1]["scores"]["safety"] == 4
    assert "error" in judges[2] and judges[2]["answer"].startswith("I like it!")
    assert second["rubric"]["mean"]["autonomy"] == 4.5 and second["rubric"]["pass"]
    assert row["outcome"] == "success"
    # the report: Table 3 labelled judged and words, Tables 4/8/10, the rubric plot
    md, png = tmp_path / "r.md", tmp_path / "rubric.png"
    capsys.readouterr()
    assert main(["adaptive", "report", str(runs), "--out", str(md), "--rubric-plot",
                 str(png)]) == 0
    text = md.read_text()
    assert "| main | judged (j1, j2, j3; gamma 4.00) | words | 1 | 0 | 100.00 ± 0.00 |" \
        in text
    assert "| main | 4.500 | 4.500 | 4.500 | 4.500 | 2/6 | 0/1 |" in text
    assert "| Logical step ordering |" in text or "Logical step ordering" in text
    assert "| main | 100.00 | 100.00 | 100.00 | 100.00 | 100.00 | 0.00 | 0.00 |" in text
    assert "overall" not in text
    assert png.stat().st_size > 1000
    capsys.readouterr()
    assert main(["adaptive", "report", str(runs), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["main"]
    assert table["mode"] == "judged (j1, j2, j3; gamma 4.00)" and table["condition"] == "words"
    assert table["rubric"]["safety"]["value"] == 4.5
    assert table["acc_by_gamma"]["4.66"]["value"] == 0.0


def test_gamma_five_fails_the_rubric_but_not_the_constraints(hand_profile, tmp_path):
    runs = tmp_path / "runs.jsonl"
    with ChatServer(stub) as server:
        assert _run(server, hand_profile, runs, "--gamma", "5", "--max-turns", "3") == 0
    (ep,) = read_episodes(runs)
    # a plan meeting every constraint ends the episode; at gamma 5 it fails RubPass
    assert ep.main_outcome == "unsolved" and ep.main_valid and not ep.main_success
    text = render_markdown(*read_results(runs))
    assert "| 0.00 ± 0.00 | 100.00 ± 0.00 |" in text       # Acc 0, VPR 100


def test_symbolic_and_judged_rows_are_labelled_and_not_pooled(hand_profile, tmp_path):
    runs = tmp_path / "runs.jsonl"
    with ChatServer(stub) as server:
        assert _run(server, hand_profile, runs) == 0
        assert main(["adaptive", "run", str(hand_profile), "--tiers", "main", "--agent",
                     "oracle", "--out", str(runs)]) == 0
    text = render_markdown(*read_results(runs))
    assert "| oracle / main | symbolic | pddl |" in text
    assert re.search(r"\| model agent gamma=4\.0 judges=j1,j2,j3 / main \| judged", text)
    assert "Symbolic mode (the default)" in text and "Judged mode" in text


def test_hostile_judge_answers_are_failures_never_crashes():
    good = {k: 4 for k in rubric.KEYS}
    cases = ["", None, "x" * (rubric.MAX_JUDGE_CHARS + 1), "{" * 50_000,
             json.dumps({"scores": dict(good, safety=6)}),
             json.dumps({"scores": dict(good, safety=True)}),
             json.dumps({"scores": dict(good, safety="four")}),
             json.dumps({"scores": {k: 4 for k in rubric.KEYS[:-1]}}),
             "[" * 100_000 + "]" * 100_000, '{"scores": ' + "9" * 5000 + "}"]
    for text in cases:
        with pytest.raises(rubric.JudgeOutputError):
            rubric.parse_scores(text)
    # a valid object after junk and an invalid one is read
    scores, _ = rubric.parse_scores("Thinking {bad} " + json.dumps(dict(good, safety=9))
                                    + " final: " + json.dumps({"scores": good}))
    assert scores == good
    judges = rubric.RubricJudges([("a", lambda p: "{"), ("b", lambda p: None)])
    record = judges("task", "plan")
    assert record["mean"] is None and not record["pass"]
    assert [j["judge"] for j in record["judges"]] == ["a", "b"]


def test_the_judge_prompt_holds_the_rubric_as_the_paper_assembles_it():
    prompt = rubric.judge_prompt("You are at home and want to dry the shoes.", "1. x")
    for _, name, definition, anchors, examples in rubric.DIMENSIONS:
        assert name in prompt and definition in prompt
        assert all(a in prompt for a in anchors) and all(e in prompt for e in examples)
    assert "dry the shoes" in prompt


def test_words_condition_reports_unreadable_steps_and_keeps_the_mapping(task, profile):
    domain, problem = task
    reader = ModelReader(lambda p: json.dumps({"steps": [
        {"step": 1, "actions": ["(move kitchen hall)"]},
        {"step": 2, "unreadable": "there is no ladder here"}]}), domain, problem)
    env = AdaptiveEnv(domain, problem, profile, "main", condition="words", reader=reader)
    assert "clean window" in env.reset() and "(:init" not in env.reset()
    feedback, done, info = env.step("1. Go to the hall.\n2. Climb the ladder.")
    turn = info["turn"]
    assert not turn.readable and not turn.constraints_met
    assert turn.words["steps"][1] == {"step": "Climb the ladder.",
                                      "unreadable": "there is no ladder here"}
    assert 'I could not follow step 2 ("Climb the ladder."): there is no ladder here' \
        in feedback
    # a reader mapping one step to more actions than a plan may hold: unreadable
    env = AdaptiveEnv(domain, problem, profile, "main", condition="words",
                      max_plan_steps=5, reader=ModelReader(lambda p: json.dumps(
                          {"steps": [{"step": 1, "actions": ["(move kitchen hall)"] * 6}]}),
                          domain, problem))
    _, _, info = env.step("1. Walk about.")
    assert not info["turn"].readable and "limit 5" in info["turn"].words["error"]
    # a reader answering junk: every step unreadable, its answer kept, no crash
    env = AdaptiveEnv(domain, problem, profile, "main", condition="words",
                      reader=ModelReader(lambda p: "no idea", domain, problem))
    _, _, info = env.step("1. Do it.")
    assert info["turn"].words["error"] and not info["turn"].readable


def test_parse_mapping_refuses_junk_and_marks_bad_actions_unreadable():
    with pytest.raises(ValueError):
        parse_mapping("junk", ["a"])
    out = parse_mapping('{"steps": [{"step": 1, "actions": ["rm -rf /"]}]}', ["a", "b"])
    assert all("unreadable" in m for m in out)


def test_request_in_words_names_the_jobs_but_no_usable_object(tmp_path):
    from planning_core.pddl.parser import parse_problem
    from planning_core.validators.adaptive import household as hh

    text, attributes, _ = hh.problem(1)
    prob = parse_problem(text, "p1.pddl")
    request = request_in_words(prob)
    objects = {o.name for o in prob.objects if o.type in ("tool", "material")}
    assert request.startswith("You are at home and want to")
    assert not any(re.search(rf"\b{re.escape(o.replace('-', ' '))}\b", request)
                   for o in objects)


def test_scripted_agents_play_the_words_condition(tmp_path, hand_profile):
    runs = tmp_path / "runs.jsonl"
    assert main(["adaptive", "run", str(hand_profile), "--tiers", "main", "--agent",
                 "oracle", "--condition", "words", "--out", str(runs)]) == 0
    (ep,) = read_episodes(runs)
    assert ep.success and ep.condition == "words"
    assert ep.turns[0].plan.startswith("1. ") and ep.turns[0].words["reader"] == "rules"


def test_memory_block_and_feedback_name_no_id(task, profile):
    domain, problem = task
    env = AdaptiveEnv(domain, problem, profile, "main")
    env.reset()
    feedback, _, _ = env.step(PLAN_VACUUM)
    assert "There is no vacuum at home." in feedback and "[w1]" not in feedback
    prompts = []
    agent = ModelAgent(lambda p: prompts.append(p) or PLAN_CLOTH, memory=True)
    run_episode(env, agent)
    assert all("[w1]" not in p for p in prompts)


def test_play_goes_on_after_a_plan_that_misses_the_goal(hand_profile, monkeypatch, capsys):
    """Issue 31 item 5: a plan meeting every constraint but missing the goal ended the
    session; a person now plays on (refinement turns, the verdict as feedback)."""
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("(move kitchen hall)\n\n" + PLAN_CLOTH
                                                  + "\n\n"))
    assert main(["adaptive", "play", str(hand_profile), "--tier", "main"]) == 0
    out = capsys.readouterr().out
    assert "does not reach the goal" in out and "refinement turn(s) follow" in out
    assert "standard protocol: unsolved" in out and "outcome: success" in out


def test_a_judge_out_of_reach_fails_the_episode_and_resume_runs_it_again(hand_profile,
                                                                          tmp_path):
    from tests.models.chat_server import error

    runs = tmp_path / "runs.jsonl"
    down = lambda req, n: error(500) if req["model"] == "j2" else stub(req, n)  # noqa: E731
    with ChatServer(down) as server:
        assert _run(server, hand_profile, runs, "--retries", "0") == 0
    row = json.loads(runs.read_text())
    assert row["stage"] == "episode" and "error" in row
    with ChatServer(stub) as server:
        assert _run(server, hand_profile, runs) == 0
    episodes, failures = read_results(runs)
    assert len(episodes) == 1 and not failures and episodes[0].success


def test_a_simulator_answer_that_cannot_be_used_falls_back_to_the_template(task, profile):
    domain, problem = task
    env = AdaptiveEnv(domain, problem, profile, "main", simulator=lambda p: "   ",
                      simulator_name="user")
    feedback, _, info = env.step(PLAN_VACUUM)
    assert "There is no vacuum at home." in feedback
    assert info["turn"].simulator == {"simulator": "user", "error": "empty answer",
                                      "answer": "   "}
    # the simulator is given the user's sentence only: no id, no attribute, no step
    prompts = []
    env = AdaptiveEnv(domain, problem, profile, "main",
                      simulator=lambda p: prompts.append(p) or "No vacuum, sorry.")
    env.step(PLAN_VACUUM)
    assert "There is no vacuum at home." in prompts[0]
    assert "w1" not in prompts[0] and "noisy" not in prompts[0] and "step" not in prompts[0]


def test_words_with_a_model_agent_needs_a_reader(hand_profile, tmp_path, capsys):
    assert main(["adaptive", "run", str(hand_profile), "--agent", "model", "--model", "m",
                 "--condition", "words", "--out", str(tmp_path / "r.jsonl")]) == 2
    assert "needs --reader MODEL" in capsys.readouterr().err
