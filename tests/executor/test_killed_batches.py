"""Issue 13 for every batch command with ``--out``: killing it loses no computed row and
duplicates none, and a rerun does not compute again what the killed run computed.

Each test runs the real command as its own process with two local workers and a slow
early item, so rows finished on the other worker are held back for input order: only the
journal (``OUT.pending``, :class:`~planning_core.results_file.ResultsWriter`) has them. The
test SIGKILLs the command's process group once the journal holds them, runs the command
again, and checks that every item is in ``OUT`` exactly once, in input order, with the row
of an uninterrupted run, and that the rerun did not read the files of the journalled items
(an inotify spy, :class:`~tests.executor.kill_helpers.Opens`) but did read the slow one's.

``validate --batch --out``: the slow item's plan is a valid plan of 600,006 steps (a
regular file: a named pipe, which earlier let its reader through on the test's word, is now
refused as input, issue 27 item 4), seconds of simulation where the others take
milliseconds. ``cope check --out`` and ``cope eval``: the slow pair is an unsolvable twelve-block task that the solver gives up on at its
CPU time limit (``unknown``); the others take milliseconds.
"""
from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.cope.minicope import DOMAIN, PROBLEM, write_minicope, write_outputs
from tests.executor.kill_helpers import Opens, finish, start, stop, wait_for_lines

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the open spy uses Linux inotify")


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _without(rows: list[dict], *fields: str) -> list[dict]:
    """The rows without the fields that differ from run to run (CPU and wall seconds)."""
    return [{k: v for k, v in row.items() if k not in fields} for row in rows]


# ------------------------------------------------------------------ validate --batch

PLANS = {
    "q1": "(unstack c a)\n(putdown c)\n(pickup b)\n(stack b c)\n(pickup a)\n(stack a b)\n",
    "q2": "(unstack c a)\n(putdown c)\n(pickup b)\n(stack b c)\n",          # goal not reached
    "q3": "(pickup a)\n",                                                    # not applicable
    "q4": "(unstack c a)\n(putdown c)\n(pickup b)\n(stack b c)\n(pickup a)\n(stack a b)\n",
}


#: the slow plan: c taken off a and put back 300,000 times, then q1 (valid)
SLOW_PLAN = "(unstack c a)\n(stack c a)\n" * 300_000 + PLANS["q1"]   # 7.8 MB, under the cap


@pytest.mark.slow
def test_killed_validate_batch_loses_no_validated_row(tmp_path):
    (tmp_path / "plans").mkdir()
    (tmp_path / "domain.pddl").write_text(DOMAIN)
    # two problem files: the slow plan's task is a group of its own, on its own worker
    (tmp_path / "p0.pddl").write_text(PROBLEM)
    (tmp_path / "p1.pddl").write_text(PROBLEM)
    for ident, plan in PLANS.items():
        (tmp_path / "plans" / f"{ident}.txt").write_text(plan)
    slow = tmp_path / "plans" / "slow.txt"
    slow.write_text(SLOW_PLAN)
    entries = [{"id": "slow", "plan": "plans/slow.txt", "domain": "domain.pddl",
                "problem": "p0.pddl"}]
    entries += [{"id": ident, "plan": f"plans/{ident}.txt", "domain": "domain.pddl",
                 "problem": "p1.pddl"} for ident in PLANS]
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text("".join(json.dumps(e) + "\n" for e in entries))
    ids = [e["id"] for e in entries]
    watched = [tmp_path / "plans" / f"{ident}.txt" for ident in PLANS]

    def validate(out: Path):
        return start("validate", "--batch", str(manifest), "--out", str(out), "--workers",
                     "2", "--no-progress")

    with Opens(watched) as opens, Opens([slow]) as slow_opens:
        code, err = finish(validate(tmp_path / "whole.jsonl"))
        assert code == 1, err   # q2 and q3 are invalid
        whole = _rows(tmp_path / "whole.jsonl")
        assert [r["id"] for r in whole] == ids
        assert whole[0]["verdict"] == "valid"
        assert set(opens.take().values()) == {1}   # each plan read once
        assert set(slow_opens.take().values()) == {1}

        out = tmp_path / "out.jsonl"
        journal = Path(f"{out}.pending")
        proc = validate(out)   # the slow plan is still being simulated when it is killed
        wait_for_lines(proc, journal, len(PLANS))
        stop(proc)
        assert out.read_text() == ""   # every row held back behind the slow one
        assert sorted(r["id"] for r in _rows(journal)) == sorted(PLANS)
        assert set(opens.take().values()) == {1}
        slow_opens.take()

        code, err = finish(validate(out))
        assert code == 1, err
        assert f"{len(PLANS)} row(s) computed by an interrupted run recovered" in err
        assert "(1 validated now)" in err
        assert set(opens.take().values()) == {0}   # no journalled plan read again
        assert set(slow_opens.take().values()) == {1}   # the slow one was: it had no row
    rows = _rows(out)
    assert [r["id"] for r in rows] == ids   # each once, in manifest order
    assert _without(rows, "cpu_s") == _without(whole, "cpu_s")
    assert not journal.exists()


# ------------------------------------------------------------------ cope check, cope eval

BLOCKS = "a b c d e f g h i j k l".split()
# a cycle of seven blocks, each on the next: unsolvable, but not relaxed unreachable, no
# pair of its goals mutex (h^2), every connected set of at most six of them reachable (the
# projection proof's subsets), and twelve blocks are far too many states to exhaust before
# the time limit (a cycle of three is now proved by projection in well under a second)
CYCLE = "a b c d e f g".split()
HARD = textwrap.dedent(f"""\
    (define (problem p01)
      (:domain blocksworld)
      (:objects {' '.join(BLOCKS)})
      (:init {' '.join(f'(on-table {b}) (clear {b})' for b in BLOCKS)} (arm-empty))
      (:goal (and {' '.join(f'(on {x} {y})' for x, y in zip(CYCLE, CYCLE[1:] + CYCLE[:1]))})))
    """)
TIME_LIMIT = "3"   # CPU seconds the slow pair costs each run that computes it (the
# others together take well under one, so the kill comes long before it ends)
PLAN = "(unstack c a)\n(putdown c)\n(pickup b)\n(stack b c)\n(pickup a)\n(stack a b)\n"
PAIR_FIELDS = ("dataset", "category", "problem", "constraint")


@pytest.fixture(scope="module")
def slow_dataset(tmp_path_factory):
    """The tiny CoPE dataset, its second pair (``initial``) made slow to solve; the pf
    file of every pair (which a worker reads to check or judge the pair), in pair order."""
    root = write_minicope(tmp_path_factory.mktemp("cope-kill"))
    folder = root / "constraints" / "initial" / "pddl" / "p01"
    (folder / "p01_constraint5_df.pddl").write_text(DOMAIN)
    (folder / "p01_constraint5_pf.pddl").write_text(HARD)
    from planning_core.validators.cope.dataset import load_dataset

    pairs = load_dataset(root)
    assert pairs[1].category == "initial"
    return root, [pair.problem_path for pair in pairs], [pair.key for pair in pairs]


def _kill_and_resume(command, out: Path, pfs: list[Path], keys: list[tuple]):
    """The uninterrupted run's rows; then a run killed while the slow pair (the second)
    is computed and the rest are journalled, and the rerun. Returns both rows and the
    rerun's standard error."""
    whole = out.with_name("whole.jsonl")
    code, err = finish(command(whole))
    assert code in (0, 1, 3), err
    assert [tuple(r[f] for f in PAIR_FIELDS) for r in _rows(whole)] == keys

    journal = Path(f"{out}.pending")
    with Opens(pfs) as opens:
        proc = command(out)
        # every pair but the slow one is journalled; the first is also in OUT
        wait_for_lines(proc, journal, len(keys) - 1)
        wait_for_lines(proc, out, 1)   # the first pair's row is past the journal, in OUT
        stop(proc)
        assert [tuple(r[f] for f in PAIR_FIELDS) for r in _rows(out)] == keys[:1]
        opens.take()
        code, err = finish(command(out))
        assert code in (0, 1, 3), err
        read = opens.take()
    # the CLI reads every pair's files to list the dataset; a worker reads them again only
    # for a pair it computes: the slow one. The first pair was in OUT already, the others
    # came from the journal, so their files were read as often as the first one's.
    listed = read[pfs[0]]
    assert read[pfs[1]] > listed
    assert [read[pf] for pf in pfs[2:]] == [listed] * (len(pfs) - 2)
    assert f"{len(keys) - 2} row(s) computed by an interrupted run recovered" in err
    assert not journal.exists()
    rows = _rows(out)
    assert [tuple(r[f] for f in PAIR_FIELDS) for r in rows] == keys   # each once, in order
    return _rows(whole), rows, err


@pytest.mark.slow
def test_killed_cope_check_loses_no_checked_pair(slow_dataset, tmp_path):
    root, pfs, keys = slow_dataset

    def check(out: Path):
        return start("cope", "check", "--dataset", str(root), "--out", str(out),
                     "--time-limit", TIME_LIMIT, "--workers", "2", "--no-progress")

    whole, rows, _ = _kill_and_resume(check, tmp_path / "out.jsonl", pfs, keys)
    assert rows[1]["verdict"] == "unknown" and rows[1]["reason"] == "time limit"
    assert _without(rows, "time_s") == _without(whole, "time_s")


@pytest.mark.slow
def test_killed_cope_eval_loses_no_judged_output(slow_dataset, tmp_path):
    root, pfs, keys = slow_dataset
    # "no plan exists" for the slow pair: judging it means solving its ground truth
    outputs = write_outputs(tmp_path / "outputs.jsonl", [
        {"category": category, "problem": problem, "constraint": constraint,
         "output": "No plan exists." if k == 1 else PLAN}
        for k, (_, category, problem, constraint) in enumerate(keys)])

    def evaluate(out: Path):
        return start("cope", "eval", "--dataset", str(root), "--method", "planner",
                     "--outputs", str(outputs), "--out", str(out), "--time-limit",
                     TIME_LIMIT, "--workers", "2", "--no-progress")

    whole, rows, err = _kill_and_resume(evaluate, tmp_path / "out.jsonl", pfs, keys)
    assert rows[1]["outcome"] == "no_plan_claimed"
    assert rows == whole
    assert f"{len(keys) - 1} output(s) evaluated" in err   # the first was in OUT
