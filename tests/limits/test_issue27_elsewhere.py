"""Issue 27, "look for the same shape elsewhere": every ground() and search a validator room
makes runs under the budget of its row or command, and every file a user or an earlier run
wrote (results files, journals, the response cache) is read bounded. Each test feeds a small
input that explodes without its fix and asserts the row, verdict or error it ends with."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planning_core.console import main
from planning_core.limits import LimitReached, Limits, metering
from planning_core.pddl.parser import parse_domain, parse_problem

ROOT = Path(__file__).resolve().parents[2]
HOUSEHOLD = ROOT / "domains" / "household"
CLI = "import sys; from planning_core.console import main; sys.exit(main(sys.argv[1:]))"

#: one action over three copies of one kind of object: 1,000 objects ground to 10^9
#: actions (minutes and gigabytes unbounded); every budget below stops it in its fixpoint
COPIES_DOMAIN = """(define (domain copies) (:requirements :strips :typing) (:types obj)
  (:predicates (free ?x - obj) (done))
  (:action use :parameters (?a ?b ?c - obj)
    :precondition (and (free ?a) (free ?b) (free ?c)) :effect (done)))
"""


def copies_problem(n: int = 1000) -> str:
    names = " ".join(f"o{i}" for i in range(n))
    init = " ".join(f"(free o{i})" for i in range(n))
    return (f"(define (problem copies) (:domain copies) (:objects {names} - obj)\n"
            f"  (:init {init}) (:goal (done)))\n")


def _child(*argv, timeout=120):
    return subprocess.run([sys.executable, "-c", CLI, *map(str, argv)], capture_output=True,
                          text=True, timeout=timeout)


# ------------------------------------------------------------------ adaptive

def test_adaptive_build_gives_each_task_its_own_limit_and_builds_the_next(tmp_path):
    hostile, small = tmp_path / "copies", tmp_path / "small"
    hostile.mkdir()
    small.mkdir()
    (hostile / "domain.pddl").write_text(COPIES_DOMAIN)
    (hostile / "p01.pddl").write_text(copies_problem())
    for name in ("domain.pddl", "p01.pddl"):
        (small / name).write_text((HOUSEHOLD / name).read_text())
    out = tmp_path / "out"
    run = _child("adaptive", "build", hostile, small, "--out", out, "--json",
                 "--diverse", "iterated", "--time-limit", "1.5")
    assert run.returncode == 1, run.stderr          # one task failed, reported as a row
    assert "Traceback" not in run.stderr
    rows = {r["task"]: r for r in map(json.loads, run.stdout.splitlines())}
    stopped = rows["copies/p01"]
    assert stopped["limit"] == "time limit" and "tiers" not in stopped
    assert stopped["error"].startswith("stopped at the time limit (1.5 s of CPU time used)")
    assert not (out / "copies" / "p01.json").exists()
    assert set(rows["small/p01"]["tiers"]) == {"low", "mid", "high"}
    assert (out / "small" / "p01.json").is_file()


def test_adaptive_build_default_limit_is_the_builders():
    from planning_core.validators.adaptive import cli, tasks

    assert cli.BUILD_TIME_LIMIT_S == tasks.BUILD_TIME_LIMIT_S


def test_solve_under_bounds_grounding_by_its_time_limit():
    from planning_core.result import Status
    from planning_core.validators.adaptive.compile import GroundCache, solve_under
    from planning_core.validators.adaptive.profile import Profile

    domain, problem = parse_domain(COPIES_DOMAIN), parse_problem(copies_problem())
    profile = Profile("d.pddl", "p.pddl", (), (), seed=0)
    for cache in (None, GroundCache()):
        result = solve_under(domain, problem, profile, (), time_limit=0.3, cache=cache)
        assert result.status is Status.UNKNOWN and result.reason == "time limit"
        assert dict(result.stats)["phase"] == "ground"
    # under an active budget (adaptive build's per task) that ran out, the stop is raised:
    # a builder must not read it as one more candidate left open
    with metering(Limits(time_s=0.3).budget()):
        with pytest.raises(LimitReached, match="0.3 s of CPU time used"):
            solve_under(domain, problem, profile, (), time_limit=60.0)


# ------------------------------------------------------------------ CoPE's LTL pipeline

def test_ltl_argument_completion_grounds_under_the_answers_budget():
    from planning_core.validators.formalizations.ltl import complete_arguments

    domain, problem = parse_domain(COPIES_DOMAIN), parse_problem(copies_problem())
    with pytest.raises(LimitReached, match="0.3 s of CPU time used"):
        complete_arguments(("(use o1)",), domain, problem,
                           budget=Limits(time_s=0.3).budget())
    with metering(Limits(time_s=0.3).budget()):      # judge_ltl's budget, made active
        with pytest.raises(LimitReached):
            complete_arguments(("(use o1)",), domain, problem)


CHAIN_DOMAIN = """(define (domain chain) (:requirements :strips :typing) (:types node)
  (:predicates (at ?n - node) (next ?a ?b - node))
  (:action step :parameters (?from ?to - node)
    :precondition (and (at ?from) (next ?from ?to)) :effect (and (at ?to) (not (at ?from)))))
"""


def test_ltl_argument_completion_of_a_long_plan_needs_no_recursion():
    """1,500 steps, each missing its second argument: the recursive search this replaced
    raised RecursionError past ~990 steps (an internal error for the answer)."""
    from planning_core.validators.formalizations.ltl import complete_arguments

    n = 1500
    names = " ".join(f"n{i}" for i in range(n + 1))
    links = " ".join(f"(next n{i} n{i + 1})" for i in range(n))
    problem = parse_problem(f"(define (problem c) (:domain chain) (:objects {names} - node)"
                            f" (:init (at n0) {links}) (:goal (at n{n})))")
    steps = tuple(f"(step n{i})" for i in range(n))
    done = complete_arguments(steps, parse_domain(CHAIN_DOMAIN), problem)
    assert done.complete and len(done.filled) == n
    assert done.steps[-1] == f"(step n{n - 1} n{n})"
    # a step that fits no action: no completion, after trying every candidate once
    wrong = steps[:-1] + (f"(step n{n})",)
    assert not complete_arguments(wrong, parse_domain(CHAIN_DOMAIN), problem).complete


# ------------------------------------------------------------------ ACP question generator

def test_acp_generator_stops_at_its_budget_instead_of_grounding_on():
    from planning_core.validators.acp.generate import generate

    with pytest.raises(LimitReached, match="0.5 s of CPU time used"):
        generate(COPIES_DOMAIN, copies_problem(), time_limit=0.5)


def test_a_problems_ground_task_stops_at_the_active_budget_and_is_not_remembered():
    from planning_core.validators.acp.problem import ProblemInfo

    info = ProblemInfo.build(COPIES_DOMAIN, copies_problem())
    with metering(Limits(time_s=0.3).budget()):
        with pytest.raises(LimitReached, match="0.3 s of CPU time used"):
            info.task
    assert info._task is None       # the question's own limit was not what stopped it


# ------------------------------------------------------------------ toolplans single commands

def _tool_copies():
    """The toolplans fixture task with 2,000 copies of its search tool."""
    import copy

    sys.path.insert(0, str(ROOT / "tests" / "toolplans"))
    from toolplans_fixtures import TASK, s, tool

    task = copy.deepcopy(TASK)
    task["tools"] += [tool(f"search_{i}", {"origin": s("city"), "destination": s("city"),
                                           "date": s()}, ["origin", "destination", "date"],
                           ["offer"]) for i in range(2000)]
    return task


def test_toolplans_single_commands_ground_under_their_time_limit(tmp_path, capsys):
    """``toolplans solve/check`` grounded 2,000 copies of one tool for 16 CPU-s at
    ``--time-limit 1`` (only ``toolplans batch`` rows had a budget)."""
    task = _tool_copies()
    from toolplans_fixtures import TASK, VALID

    path = tmp_path / "task.json"
    path.write_text(json.dumps(task))
    output = tmp_path / "out.txt"
    output.write_text(VALID if isinstance(VALID, str) else json.dumps(VALID))
    for argv in (["solve", path], ["check", path, output]):
        assert main(["toolplans", *map(str, argv), "--time-limit", "0.5", "--json"]) == 3
        row = json.loads(capsys.readouterr().out)
        assert row["verdict"] == "unknown" and row["limit"] == "time limit"
        assert "0.5 s of CPU time used" in row["error"]
    small = tmp_path / "small.json"
    small.write_text(json.dumps(TASK))
    assert main(["toolplans", "solve", str(small), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["optimal_cost"] == 4


def test_toolplans_run_scores_each_answer_under_its_time_limit():
    """``toolplans run``'s scorer checked an answer with no budget for grounding."""
    from planning_core.validators.toolplans.run import Scorer

    case = {"id": "copies", "setting": "holistic", "task": _tool_copies()}
    from toolplans_fixtures import TASK, VALID

    scorer = Scorer(time_limit=0.5)
    row = scorer(case, VALID)
    assert row["verdict"] == "unknown" and row["limit"] == "time limit"
    assert "0.5 s of CPU time used" in row["check_error"]
    row = scorer(case, VALID)                      # the task is not grounded again
    assert row["verdict"] == "unknown" and "not tried again" in row["check_error"]
    assert scorer({"id": "small", "setting": "holistic", "task": TASK}, VALID)["correct"]


# ------------------------------------------------------------------ reads: the line reader

from planning_core.errors import InputError  # noqa: E402
from planning_core.pddl import files  # noqa: E402


@pytest.fixture
def small_cap(monkeypatch):
    """The line cap at 1,000 bytes: a 5,000-byte line stands for a line of gigabytes."""
    monkeypatch.setattr(files, "MAX_LINE_BYTES", 1000)
    return 1000


def test_read_lines_streams_skips_an_oversized_line_and_refuses_what_blocks(tmp_path,
                                                                          small_cap):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"id": 1}\n' + b"x" * 5000 + b'\n{"id": 2}\n{"id": 3')
    lines = list(files.read_lines(path))
    assert [(x.number, x.data, x.ended) for x in lines] == [
        (1, b'{"id": 1}', True), (2, None, True), (3, b'{"id": 2}', True),
        (4, b'{"id": 3', False)]
    assert (lines[1].start, lines[1].end) == (10, 5011)
    fifo = tmp_path / "r.fifo"
    os.mkfifo(fifo)
    for where, kind in ((fifo, "a FIFO (named pipe)"), ("/dev/urandom", "a character device")):
        with pytest.raises(InputError) as err:
            list(files.read_lines(where))
        assert err.value.file == str(where) and f"is {kind}" in err.value.message


# ------------------------------------------------------------------ results files, journals

def _write_rows(path, *rows, extra=b""):
    path.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in rows) + extra)


@pytest.mark.timeout(60, method="thread")
def test_a_fifo_as_results_file_or_journal_is_refused_not_opened(tmp_path):
    from planning_core.results_file import ResultsWriter

    out = tmp_path / "out.jsonl"
    os.mkfifo(out)
    with pytest.raises(InputError, match="is a FIFO") as err:
        ResultsWriter(out, key=lambda row: row.get("id"))
    assert err.value.file == str(out)
    out.unlink()
    _write_rows(out, {"id": 1})
    os.mkfifo(tmp_path / "out.jsonl.pending")
    with pytest.raises(InputError, match="is a FIFO") as err:
        ResultsWriter(out, key=lambda row: row.get("id"))
    assert err.value.file == str(tmp_path / "out.jsonl.pending")


def test_dropping_rows_streams_and_keeps_an_oversized_line_byte_for_byte(tmp_path, small_cap):
    from planning_core.results_file import ResultsWriter

    out = tmp_path / "out.jsonl"
    long_line = b"y" * 5000 + b"\n"
    _write_rows(out, {"id": 1, "retry": True}, extra=long_line + b'{"id": 2}\n')
    with ResultsWriter(out, key=lambda row: row.get("id")) as writer:
        assert writer.drop(lambda row: bool(row.get("retry"))) == 1
        writer.resume([])
    assert out.read_bytes() == long_line + b'{"id": 2}\n'


def test_a_journal_row_is_recovered_past_an_oversized_line(tmp_path, small_cap):
    from planning_core.results_file import ResultsWriter, pending_path

    out = tmp_path / "out.jsonl"
    _write_rows(out, {"id": 1}, extra=b"z" * 5000 + b"\n")
    _write_rows(pending_path(out), {"id": 2}, extra=b"z" * 5000 + b"\n")
    with ResultsWriter(out, key=lambda row: row.get("id")) as writer:
        assert writer.recovered == 1
        assert writer.resume([1, 2]) == [0]      # id 2 comes from the journal


# ------------------------------------------------------------------ each room's reader

def test_each_rooms_results_reader_names_or_skips_an_oversized_line(tmp_path, small_cap):
    from planning_core.validators.acp.dataset import DatasetError, read_results
    from planning_core.validators.adaptive.metrics import read_results as adaptive_report
    from planning_core.validators.adaptive.runner import _done
    from planning_core.validators.cope.evaluate import read_results as cope_results
    from planning_core.validators.deepplanning.report import load_rows

    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"x": "' + b"q" * 5000 + b'"}\n{"id": "1"}\n')
    with pytest.raises(DatasetError, match="a line longer than") as err:   # acp, toolplans
        read_results(path)
    assert (err.value.file, err.value.line) == (str(path), 1)
    rows, warnings = cope_results(path)                                    # cope, ltl/smt
    assert rows == () and any(w.startswith(f"{path}:1: a line longer than") for w in warnings)
    for reader in (load_rows, adaptive_report):                            # reports
        with pytest.raises(InputError, match="a line longer than") as err:
            reader(path)
        assert (err.value.file, err.value.line) == (str(path), 1)
    assert _done(path) == set()           # adaptive run's resume: no row of its own, skipped
    path.write_bytes(b'{"task": "t", "tier": "mid"}\n\xff\xfe\n')          # not UTF-8
    assert _done(path) == {("t", "mid", None, "null")}     # was UnicodeDecodeError


def test_validate_batch_resume_warns_of_an_oversized_line_and_keeps_its_rows(tmp_path, capsys,
                                                                           small_cap):
    from conftest import DOMAINS

    bw = DOMAINS / "blocksworld"
    manifest = tmp_path / "m.jsonl"
    manifest.write_text(json.dumps({"id": "a", "domain": str(bw / "domain.pddl"),
                                    "problem": str(bw / "p01.pddl"),
                                    "plan": str(bw / "p01.plan")}) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["validate", "--batch", str(manifest), "--out", str(out)]) == 0
    with open(out, "ab") as fh:
        fh.write(b"w" * 5000 + b"\n")
    capsys.readouterr()
    assert main(["validate", "--batch", str(manifest), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{out}:2: a line longer than" in err
    rows = [json.loads(x) for x in out.read_text().splitlines() if x.startswith("{")]
    assert [r["id"] for r in rows] == ["a"]        # the row already there was not redone


# ------------------------------------------------------------------ the response cache

@pytest.mark.timeout(60, method="thread")
def test_a_fifo_as_response_cache_is_refused(tmp_path):
    from planning_core.validators.models.cache import ResponseCache

    fifo = tmp_path / "responses.sqlite"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="is a FIFO") as err:
        ResponseCache(fifo)
    assert err.value.file == str(fifo)


def test_a_cached_row_too_long_or_malformed_is_a_miss_and_is_replaced(tmp_path, monkeypatch):
    import sqlite3

    from planning_core.validators.models import cache as cache_module
    from planning_core.validators.models.completion import Completion

    monkeypatch.setattr(cache_module, "MAX_VALUE_BYTES", 1000)
    path = tmp_path / "responses.sqlite"
    cache = cache_module.ResponseCache(path)
    good = Completion("the answer", "m", None, {"temperature": 0}, None, 0.1)
    cache.put("k0", [], good)
    raw = sqlite3.connect(path)
    for key, text, extra in (("big", "t" * 5000, None),              # past the cap
                             ("deep", "ok", "[" * 100_000),          # RecursionError before
                             ("typed", b"\x00blob", None)):         # not a text
        raw.execute("INSERT INTO responses (key, model, messages, params, text, created, "
                    "extra) VALUES (?, 'm', '[]', '{}', ?, 0, ?)", (key, text, extra))
    raw.commit()
    raw.close()
    assert cache.get("k0").text == "the answer"
    for key in ("big", "deep", "typed"):
        assert cache.get(key) is None
        cache.put(key, [], good)                     # the fresh answer replaces the row
        assert cache.get(key).text == "the answer"
    cache.put("huge", [], Completion("h" * 5000, "m", None, {}, None, 0.1))
    assert cache.get("huge") is None                 # past the cap: not stored


# ------------------------------------------------------------------ other user-named files

@pytest.mark.timeout(60, method="thread")
def test_a_fifo_as_scheduler_file_or_gzip_questions_is_refused_not_waited_on(tmp_path):
    from planning_core.executor.base import ExecutorUnavailable
    from planning_core.executor.dask import _check_scheduler_file
    from planning_core.validators.acp.dataset import load_questions

    fifo = tmp_path / "scheduler.json"
    os.mkfifo(fifo)
    with pytest.raises(ExecutorUnavailable, match="is a FIFO") as err:
        _check_scheduler_file(str(fifo))
    assert err.value.file == str(fifo)
    gz = tmp_path / "questions.jsonl.gz"
    os.mkfifo(gz)
    with pytest.raises(InputError, match="is a FIFO") as err:
        load_questions(gz)
    assert err.value.file == str(gz)


@pytest.mark.timeout(120, method="thread")
def test_no_batch_command_opens_a_fifo_named_as_its_results_file(tmp_path, capsys):
    """``--out FIFO``: refused before it is opened (appending to a FIFO waits for a
    reader; reading it back for the rows already there waits for a writer)."""
    from conftest import DOMAINS

    sys.path.insert(0, str(ROOT / "tests"))
    from acp.acp_fixtures import write_score_files
    from cope.minicope import write_minicope

    out = tmp_path / "out.fifo"
    os.mkfifo(out)
    questions, answers = write_score_files(tmp_path)
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("")
    manifest = tmp_path / "m.jsonl"
    bw = DOMAINS / "blocksworld"
    manifest.write_text(json.dumps({"id": "a", "domain": str(bw / "domain.pddl"),
                                    "problem": str(bw / "p01.pddl"),
                                    "plan": str(bw / "p01.plan")}) + "\n")
    rows = tmp_path / "rows.jsonl"
    rows.write_text("")
    commands = {
        "acp score": ["acp", "score", "--questions", questions, "--answers", answers,
                      "--out", out, "--no-progress"],
        "cope eval": ["cope", "eval", "--dataset", write_minicope(tmp_path), "--method",
                      "planner", "--outputs", outputs, "--out", out, "--no-progress",
                      "--no-label-check"],
        "validate --batch": ["validate", "--batch", manifest, "--out", out],
        "toolplans batch": ["toolplans", "batch", "--rows", rows, "--out", out,
                            "--no-progress"],
        "adaptive run": ["adaptive", "run", ROOT / "domains" / "profiles" / "blocks",
                         "--agent", "same", "--out", out],
    }
    for name, argv in commands.items():
        assert main(list(map(str, argv))) == 2, name
        err = capsys.readouterr().err
        assert f"{out}: error: is a FIFO (named pipe), not a regular file" in err, (name, err)
