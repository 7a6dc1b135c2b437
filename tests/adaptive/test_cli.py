"""``planning-core adaptive build|play|run|report`` end to end, and the shared CoPE tasks."""
from __future__ import annotations

import io
import json
import sys

import pytest

from planning_core.console import main
from planning_core.validators.adaptive.metrics import read_episodes
from planning_core.validators.adaptive.tasks import load_task
from planning_core.validators.adaptive.compile import prove_solvable

from tests.adaptive.conftest import HOUSEHOLD, PLAN_CLOTH, PLAN_VACUUM, ROOT, profile_json
from tests.conftest import require_shared


@pytest.fixture
def hand_profile(tmp_path):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(profile_json()))
    return path


def test_build_run_report(tmp_path, capsys):
    out = tmp_path / "profiles"
    assert main(["adaptive", "build", str(HOUSEHOLD / "p03.pddl"), "--out", str(out),
                 "--diverse", "iterated"]) == 0
    built = out / "household" / "p03.json"
    profile, domain, problem = load_task(built)         # relative paths resolve
    assert [t.name for t in profile.tiers] == ["low", "mid", "high"]
    # the paper's two kinds by default (the extensions need --extended-kinds)
    assert profile.constraints
    assert {c.kind for c in profile.constraints} <= {"object_unavailable",
                                                    "avoid_attribute_use"}
    runs = tmp_path / "runs.jsonl"
    every = ["--tiers", "low,mid,high"]
    assert main(["adaptive", "run", str(out), "--agent", "oracle", "--out", str(runs)]
                + every) == 0
    assert main(["adaptive", "run", str(out), "--agent", "oracle", "--out", str(runs)]
                + every) == 0
    assert "3 already in" in capsys.readouterr().out       # resumed: nothing run twice
    assert len(read_episodes(runs)) == 3
    md, png = tmp_path / "r.md", tmp_path / "r.png"
    assert main(["adaptive", "report", str(runs), "--out", str(md), "--plot", str(png),
                 "--overall"]) == 0
    assert "| overall | symbolic | pddl | 3 | 0 | 100.00" in md.read_text()
    assert png.stat().st_size > 1000


def test_play_session(hand_profile, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(PLAN_VACUUM + "\n\n" + PLAN_CLOTH + "\n\n"))
    assert main(["adaptive", "play", str(hand_profile), "--tier", "main"]) == 0
    out = capsys.readouterr().out
    assert "There is no vacuum at home." in out and "outcome: success" in out


def test_play_ends_at_end_of_input(hand_profile, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("(((\n\n"))
    assert main(["adaptive", "play", str(hand_profile), "--tier", "main"]) == 0
    out = capsys.readouterr().out
    assert "cannot be read" in out and "session over" in out


def test_model_agent_through_a_command_model(hand_profile, tmp_path):
    script = tmp_path / "model.py"
    script.write_text("import sys\nsys.stdin.read()\nprint('Plan:')\nprint('```')\n"
                      + "".join(f"print({line!r})\n" for line in PLAN_CLOTH.splitlines())
                      + "print('```')\n")
    runs = tmp_path / "m.jsonl"
    assert main(["adaptive", "run", str(hand_profile), "--tiers", "main", "--agent", "model",
                 "--command", f"{sys.executable} {script}", "--no-cache",
                 "--out", str(runs)]) == 0
    (ep,) = read_episodes(runs)
    assert ep.success and len(ep.turns) == 1


def test_model_agent_from_python(task, profile):
    from planning_core.validators.adaptive.agents import ModelAgent, run_episode
    from planning_core.validators.adaptive.env import AdaptiveEnv
    from planning_core.validators.models.base import ScriptedModel

    model = ScriptedModel([PLAN_VACUUM, "```\n" + PLAN_CLOTH + "\n```"])
    ep = run_episode(AdaptiveEnv(*task, profile, "main"), ModelAgent(model))
    assert ep.success and len(ep.turns) == 2
    # the paper's standard protocol: the dialogue so far, no separate constraint list
    assert "Your plan at turn 1:\n" + PLAN_VACUUM in model.prompts[1]
    assert "There is no vacuum at home." in model.prompts[1]      # the user's words
    assert "[w1]" not in model.prompts[1]
    assert "Constraints disclosed so far" not in model.prompts[1]
    model = ScriptedModel([PLAN_VACUUM, PLAN_CLOTH])
    run_episode(AdaptiveEnv(*task, profile, "main"), ModelAgent(model, memory=True))
    assert "Constraints disclosed so far:\n- There is no vacuum at home." in model.prompts[1]
    assert "Constraints disclosed so far" not in model.prompts[0]


def test_bad_input_exit_codes(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": 3')
    assert main(["adaptive", "play", str(bad)]) == 2
    assert "bad.json:1:" in capsys.readouterr().err
    assert main(["adaptive", "build", str(tmp_path / "none"), "--out", str(tmp_path)]) == 2
    assert main(["adaptive", "run", str(bad), "--agent", "model", "--no-cache", "--out",
                 str(tmp_path / "x.jsonl")]) == 2       # no --model and no --command
    runs = tmp_path / "failed.jsonl"
    assert main(["adaptive", "run", str(bad), "--out", str(runs)]) == 0
    assert "error" in json.loads(runs.read_text().splitlines()[0])


@pytest.mark.slow
@pytest.mark.shared
@pytest.mark.parametrize("dataset,problems", [("BlocksWorld-100", ("p01", "p02")),
                                              ("CoinCollector-100", ("p01", "p10"))])
def test_cope_profiles_built_from_shared_data(dataset, problems, tmp_path):
    folder = require_shared() / "cope" / dataset / "pddl"
    out = tmp_path / "profiles"
    # the paper's two kinds need substitutable objects, which these puzzles lack (every
    # block is a goal object): the extension kinds (orders, detours) are what binds here
    assert main(["adaptive", "build", *(str(folder / f"{p}.pddl") for p in problems),
                 "--out", str(out), "--extended-kinds"]) == 0
    built = sorted(out.rglob("*.json"))
    assert len(built) == 2
    with_constraints = 0
    for path in built:
        profile, domain, problem = load_task(path)
        # BlocksWorld p01's goal holds initially: nothing can be forbidden there (its
        # notes say so); the second problem of each has detours
        with_constraints += bool(profile.tiers[-1].constraints)
        for tier in profile.tiers:
            assert tier.note.startswith("round ")      # what the round tried, and why
            prove_solvable(domain, problem, profile, tier.name)
    assert with_constraints


def test_build_explains_a_task_that_admits_no_constraint(tmp_path, capsys):
    coins = ROOT / "domains" / "coins" / "p01.pddl"
    assert main(["adaptive", "build", str(coins), "--out", str(tmp_path),
                 "--diverse", "iterated"]) == 0
    out = capsys.readouterr().out
    assert "low=0 mid=0 high=0" in out
    assert "no constraint: round 3 added nothing; all " in out


def test_run_protocol_switches(hand_profile, tmp_path):
    runs = tmp_path / "switches.jsonl"
    assert main(["adaptive", "run", str(hand_profile), "--tiers", "main", "--agent", "same",
                 "--refine", "3", "--max-turns", "4", "--patience", "3",
                 "--constraints", "user", "--out", str(runs)]) == 0
    (episode,) = read_episodes(runs)
    assert episode.refine == 3 and episode.constraints == "user"
    assert episode.world_total == 0
    with pytest.raises(SystemExit) as err:
        main(["adaptive", "run", str(hand_profile), "--refine", "-1", "--out", str(runs)])
    assert err.value.code == 2


def test_defaults_tier_mid(hand_profile, tmp_path, capsys):
    runs = tmp_path / "mid.jsonl"
    assert main(["adaptive", "run", str(hand_profile), "--out", str(runs)]) == 0
    row = json.loads(runs.read_text())
    assert row["tier"] == "mid" and "no tier 'mid'" in row["error"]   # the hand profile
    assert main(["adaptive", "report", str(runs)]) == 0
    assert "| mid | symbolic | pddl | 1 | 1 | 0.00" in capsys.readouterr().out          # a failed query


def test_a_profile_that_fails_to_load_is_a_failed_query_per_tier(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    runs = tmp_path / "bad.jsonl"
    assert main(["adaptive", "run", str(bad), "--tiers", "low,mid,high", "--out",
                 str(runs)]) == 0
    rows = [json.loads(line) for line in runs.read_text().splitlines()]
    assert [r["tier"] for r in rows] == ["low", "mid", "high"]
    assert main(["adaptive", "report", str(runs), "--overall"]) == 0
    assert "| overall | symbolic | pddl | 3 | 3 | 0.00" in capsys.readouterr().out


def test_run_cuts_a_torn_row_and_refuses_a_held_file(hand_profile, tmp_path, capsys):
    from planning_core.results_file import open_results

    runs = tmp_path / "runs.jsonl"
    args = ["adaptive", "run", str(hand_profile), "--tiers", "main", "--out", str(runs)]
    assert main(args) == 0
    runs.write_text(runs.read_text() + '{"task": "torn')       # a run killed mid-row
    assert main(args) == 0
    assert "1 already in" in capsys.readouterr().out
    assert [json.loads(line)["tier"] for line in runs.read_text().splitlines()] == ["main"]
    held, _ = open_results(runs)
    with held:
        assert main(args) == 2
    assert "another run is writing" in capsys.readouterr().err


def test_play_defaults_to_the_mid_tier(hand_profile, capsys):
    assert main(["adaptive", "play", str(hand_profile)]) == 2      # the hand profile: 'main'
    assert "no tier 'mid'" in capsys.readouterr().err


def test_play_with_the_protocol_switches(hand_profile, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(PLAN_VACUUM + "\n\n"))
    assert main(["adaptive", "play", str(hand_profile), "--tier", "main", "--hint-withheld",
                 "--show-attributes", "--validator-feedback"]) == 0
    out = capsys.readouterr().out
    assert "(noisy vacuum)" in out and "other type" in out


def test_runs_under_other_settings_or_agents_are_not_skipped_nor_pooled(hand_profile,
                                                                         tmp_path, capsys):
    runs = tmp_path / "mixed.jsonl"
    base = ["adaptive", "run", str(hand_profile), "--tiers", "main", "--out", str(runs)]
    assert main(base + ["--agent", "oracle"]) == 0
    capsys.readouterr()
    # the dual ablation into the same file: before, "1 already in" and nothing ran
    assert main(base + ["--agent", "oracle", "--constraints", "world"]) == 0
    assert "1 episode(s) run, 0 already in" in capsys.readouterr().out
    assert main(base + ["--agent", "oracle", "--constraints", "world"]) == 0
    assert "0 episode(s) run, 1 already in" in capsys.readouterr().out   # a resume
    assert main(base + ["--agent", "same"]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in runs.read_text().splitlines()]
    assert [r["protocol"]["constraints"] for r in rows] == ["both", "world", "both"]
    # the report keeps agents and settings apart: before, one pooled "main" row of 3
    assert main(["adaptive", "report", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "| oracle / main | symbolic | pddl | 1 | 0 | 100.00" in out
    assert "| oracle constraints=world / main | symbolic | pddl | 1 | 0 | 100.00" in out
    assert "| same / main | symbolic | pddl | 1 | 0 | 0.00" in out
    assert "| main |" not in out and "| overall |" not in out
    # one agent under one setting: the plain table
    single = tmp_path / "single.jsonl"
    single.write_text(json.dumps(rows[0]) + "\n")
    assert main(["adaptive", "report", str(single)]) == 0
    assert "| main | symbolic | pddl | 1 | 0 | 100.00" in capsys.readouterr().out


def test_rows_of_two_command_models_are_told_apart(hand_profile, tmp_path, capsys):
    runs = tmp_path / "models.jsonl"
    for answer in ("", "(pick-up vacuum kitchen)"):
        script = tmp_path / f"m{len(answer)}.py"
        script.write_text(f"import sys; sys.stdin.read(); print({answer!r})\n")
        assert main(["adaptive", "run", str(hand_profile), "--tiers", "main", "--agent",
                     "model", "--no-cache", "--command", f"{sys.executable} {script}",
                     "--out", str(runs)]) == 0
        assert "1 episode(s) run" in capsys.readouterr().out
    agents = [json.loads(line)["agent"] for line in runs.read_text().splitlines()]
    assert len(set(agents)) == 2 and all(a.startswith("model ") for a in agents)


def test_a_query_named_twice_runs_once(hand_profile, tmp_path, capsys):
    # before: the same profile under two spellings and a tier named twice gave four rows,
    # so the query weighed four times in N
    runs = tmp_path / "dup.jsonl"
    other = hand_profile.parent / "." / hand_profile.name
    assert main(["adaptive", "run", str(hand_profile), str(other), str(hand_profile.parent),
                 "--tiers", "main,main", "--agent", "oracle", "--out", str(runs)]) == 0
    assert "1 episode(s) run" in capsys.readouterr().out
    assert len(runs.read_text().splitlines()) == 1
    assert main(["adaptive", "run", str(hand_profile), "--tiers", " , ", "--out",
                 str(runs)]) == 2
    assert "names no tier" in capsys.readouterr().err


def test_a_failed_model_episode_is_run_again_on_resume_and_superseded(hand_profile,
                                                                       tmp_path, capsys):
    # before: a model that could not answer (an outage) left a failure row that every
    # resumed run skipped, so the query stayed a failure for good
    runs = tmp_path / "flaky.jsonl"
    script = tmp_path / "m.py"
    script.write_text("import sys\nsys.stdin.read()\nsys.exit(3)\n")
    args = ["adaptive", "run", str(hand_profile), "--tiers", "main", "--agent", "model",
            "--no-cache", "--command", f"{sys.executable} {script}", "--out", str(runs)]
    assert main(args) == 0
    assert json.loads(runs.read_text())["stage"] == "episode"
    assert main(["adaptive", "report", str(runs)]) == 0
    assert "| main | symbolic | pddl | 1 | 1 | 0.00" in capsys.readouterr().out
    script.write_text(f"import sys\nsys.stdin.read()\nprint({PLAN_CLOTH!r})\n")
    assert main(args) == 0
    assert "1 episode(s) run, 0 already in" in capsys.readouterr().out
    assert main(["adaptive", "report", str(runs)]) == 0
    assert "| main | symbolic | pddl | 1 | 0 | 100.00" in capsys.readouterr().out  # superseded
    assert main(args) == 0
    assert "0 episode(s) run, 1 already in" in capsys.readouterr().out
    # a tier the profile lacks is final (stage load), not retried
    missing = tmp_path / "missing.jsonl"
    assert main(["adaptive", "run", str(hand_profile), "--tiers", "nosuch", "--out",
                 str(missing)]) == 0
    assert json.loads(missing.read_text())["stage"] == "load"
    assert main(["adaptive", "run", str(hand_profile), "--tiers", "nosuch", "--out",
                 str(missing)]) == 0
    assert "0 episode(s) run, 1 already in" in capsys.readouterr().out


def test_report_plot_into_a_missing_folder_is_bad_input(hand_profile, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    runs = tmp_path / "r.jsonl"
    assert main(["adaptive", "run", str(hand_profile), "--tiers", "main", "--out",
                 str(runs)]) == 0
    target = tmp_path / "nowhere" / "p.png"
    assert main(["adaptive", "report", str(runs), "--plot", str(target)]) == 2  # was 4
    assert f"{target}: error: cannot write" in capsys.readouterr().err


def _cycling_model(tmp_path, plans) -> str:
    """A --command model answering ``plans`` in turn (a counter file keeps its place)."""
    script = tmp_path / "cycle.py"
    script.write_text(
        "import json, pathlib, sys\nsys.stdin.read()\n"
        f"plans = {json.dumps(plans)}\n"
        f"state = pathlib.Path({str(tmp_path / 'turn')!r})\n"
        "i = int(state.read_text()) if state.exists() else 0\n"
        "state.write_text(str(i + 1))\n"
        "print('```\\n' + plans[i % len(plans)] + '\\n```')\n")
    return f"{sys.executable} {script}"


def test_report_equals_a_hand_computed_trace(hand_profile, tmp_path, capsys):
    # tier main: w1 vacuum unavailable, w2 sponge at most once, u1 nothing noisy held (the
    # vacuum), u2 hold the cloth before the window is clean.
    # both: t1 vacuum plan V={w1,u1,u2}, F={w1} new; t2 sponge plan V={w2,u2}, F={w2} new;
    #       t3 vacuum again F={w1} repeated (stall); t4 the same (stall): early stop at 4.
    #       T=4, AWRV=2, AURV=0 (u1, u2 withheld), ATWC=2/4, ATUC=0, Acc=VPR=0, ES=1.
    # user: t1 vacuum V={u1,u2} new; t2 vacuum both repeated (stall); t3 sponge V={u2}
    #       repeated (stall): early stop at 3. T=3, AURV=2+1=3, ATUC=2/3, ATWC=0.
    expect = {"both": {"Avg Turns": 4, "AWRV": 2, "AURV": 0, "ATWC": 0.5, "ATUC": 0},
              "user": {"Avg Turns": 3, "AWRV": 0, "AURV": 3, "ATWC": 0, "ATUC": 2 / 3}}
    sponge = ("(move kitchen hall)\n(pick-up sponge hall)\n(move hall kitchen)\n"
              "(clean sponge window kitchen)")
    answers = {"both": [PLAN_VACUUM, sponge, PLAN_VACUUM, PLAN_VACUUM],
               "user": [PLAN_VACUUM, PLAN_VACUUM, sponge]}
    for setting, values in expect.items():
        work = tmp_path / setting
        work.mkdir()
        runs = work / "r.jsonl"
        command = _cycling_model(work, answers[setting])
        assert main(["adaptive", "run", str(hand_profile), "--tiers", "main", "--agent",
                     "model", "--no-cache", "--command", command, "--constraints", setting,
                     "--out", str(runs)]) == 0
        capsys.readouterr()
        assert main(["adaptive", "report", str(runs), "--json"]) == 0
        row = json.loads(capsys.readouterr().out)["main"]
        for metric, value in values.items():
            assert row[metric]["value"] == pytest.approx(value), (setting, metric)
        for share in ("Acc", "VPR", "MT"):
            assert row[share]["value"] == 0.0
        assert row["ES"]["value"] == 1.0 and row["Acc"]["n"] == 1


def test_report_as_latex_and_csv_holds_the_markdown_cells(hand_profile, tmp_path, capsys):
    """Issue 32 item 4: ``adaptive report --format`` (printed and ``--out``)."""
    runs = tmp_path / "r.jsonl"
    assert main(["adaptive", "run", str(hand_profile), "--tiers", "main", "--agent",
                 "oracle", "--out", str(runs)]) == 0
    capsys.readouterr()
    assert main(["adaptive", "report", str(runs)]) == 0
    md = capsys.readouterr().out
    row = next(l for l in md.splitlines() if l.startswith("| main |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    tex = tmp_path / "r.tex"
    assert main(["adaptive", "report", str(runs), "--format", "latex", "--out",
                 str(tex)]) == 0
    printed = capsys.readouterr().out
    assert printed == tex.read_text() and r"\begin{tabular}" in printed
    assert " & ".join(cells) + r" \\" in printed.replace(r"\%", "%").replace(r"\_", "_")
    assert main(["adaptive", "report", str(runs), "--format", "csv"]) == 0
    assert ",".join(cells) in capsys.readouterr().out
