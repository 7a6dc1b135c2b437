"""Issue 9's hostile programs run end to end through ``cope eval --method smt``: one row
per finding, each with the outcome it must have; a run that cannot build the sandbox
fails closed; ``--unsafe-no-sandbox`` is the only way to run without it; killing the
evaluator (with worker processes) ends its sandboxes at once."""
from __future__ import annotations

import json
import os
import platform
import signal
import subprocess
import sys
from dataclasses import replace

import pytest
from conftest import require_shared

from formalizations import hostile_programs as findings
from formalizations.hostile_programs import unix_listener  # noqa: F401 (fixture)
from formalizations.sandbox_helpers import needs_namespaces
from formalizations.smt_programs import bounded_program
from planning_core.console import main
from planning_core.pddl.parser import parse_domain_file, parse_problem_file
from planning_core.validators.cope.dataset import load_dataset
from planning_core.validators.formalizations import smt

pytestmark = needs_namespaces


@pytest.fixture(scope="module")
def dataset():
    root = require_shared() / "cope" / "BlocksWorld-100"
    pairs = sorted(load_dataset(root), key=lambda p: (p.category, p.problem, p.constraint))
    return root, pairs


def _row(pair, program: str) -> dict:
    return {"category": pair.category, "problem": pair.problem, "constraint": pair.constraint,
            "output": f"My encoding:\n```python\n{program}\n```\n"}


def _eval(root, outputs, results, *extra) -> int:
    return main(["cope", "eval", "--dataset", str(root), "--method", "smt", "--outputs",
                 str(outputs), "--out", str(results), "--no-progress", "--no-label-check",
                 *extra])


def _rows(results) -> dict[tuple, dict]:
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    return {(r["category"], r["problem"], r["constraint"]): r for r in rows}


@pytest.mark.slow
def test_hostile_programs_through_cope_eval(dataset, tmp_path, capsys, monkeypatch,
                                            unix_listener):
    root, pairs = dataset
    monkeypatch.setattr(smt, "SMT_LIMITS", replace(smt.SMT_LIMITS, memory_mb=256, cpu_s=10,
                                                   wall_s=120.0))
    socket_path, server = unix_listener
    programs = {
        "host_files": findings.READS_HOST_FILES,
        "memfd": findings.MEMFD_BOMB + "\nraise SystemExit(3)\n",
        "shm": findings.SHM_BOMB + "\nraise SystemExit(3)\n",
        "unix_socket": findings.unix_socket_program(socket_path) + "\nraise SystemExit(3)\n",
        "forged_setup_error": findings.FORGES_SETUP_ERROR,
        "memory_bomb": findings.MEMORY_BOMB,
        "children_cpu": findings.CHILDREN_BURN_CPU + "\nraise SystemExit(3)\n",
    }
    keys = {}
    lines = []
    for pair, (name, program) in zip(pairs, programs.items()):
        keys[name] = (pair.category, pair.problem, pair.constraint)
        lines.append(json.dumps(_row(pair, program)))
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("\n".join(lines) + "\n")
    results = tmp_path / "results.jsonl"
    assert _eval(root, outputs, results) == 0
    rows = _rows(results)
    detail = {name: rows[key]["detail"] for name, key in keys.items()}
    outcome = {name: rows[key]["outcome"] for name, key in keys.items()}

    # 1: nothing of the host to read
    assert outcome["host_files"] == "crashed"
    assert "refused /etc/passwd No such file or directory" in detail["host_files"]["stderr"]
    assert "root:" not in json.dumps(rows[keys["host_files"]])
    # 2: shared memory is charged to the run (cgroup) or refused (no cgroup)
    for name in ("memfd", "shm"):
        assert detail[name]["isolation"] == "bwrap"
        if detail[name]["memory_limit_mechanism"].startswith("cgroup"):
            assert outcome[name] == "memory_exceeded", rows[keys[name]]
        else:
            assert outcome[name] == "crashed" and "refused" in detail[name]["stdout_tail"]
    # 3: the host's Unix socket is out of reach, from the program and from its child
    assert outcome["unix_socket"] == "crashed"
    assert "parent refused Permission denied" in detail["unix_socket"]["stdout_tail"]
    assert "child 1 " in detail["unix_socket"]["stdout_tail"]
    with pytest.raises(BlockingIOError):
        server.accept()
    # 4: a forged setup error is the program's crash, not a sandbox failure
    assert outcome["forged_setup_error"] == "crashed"
    assert detail["forged_setup_error"]["returncode"] == 71
    # 5: the memory bomb
    assert outcome["memory_bomb"] == "memory_exceeded"
    assert detail["memory_bomb"]["limit"] == "memory"
    # 9: CPU time of children the program forked and left behind
    assert detail["children_cpu"]["cpu_s"] >= 1.2

    # every row is done: resuming (the forged row included) evaluates nothing again
    assert _eval(root, outputs, results) == 0
    assert len(results.read_text().splitlines()) == len(programs)
    capsys.readouterr()



def test_cope_eval_fails_closed_without_bubblewrap(dataset, tmp_path, capsys, monkeypatch):
    root, pairs = dataset
    pair = next(p for p in pairs if (p.category, p.problem) == ("baseline", "p20"))
    domain, problem = parse_domain_file(pair.domain_path), parse_problem_file(pair.problem_path)
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text(json.dumps(_row(pair, bounded_program(domain, problem))) + "\n")
    results = tmp_path / "results.jsonl"
    monkeypatch.setenv("PLANNING_CORE_BWRAP", str(tmp_path / "no-such-bwrap"))

    assert _eval(root, outputs, results) == 0
    (row,) = _rows(results).values()
    assert row["outcome"] == "sandbox_unavailable" and row["correct"] is False
    assert "bubblewrap" in row["detail"]["error"] and "not run" in row["detail"]["error"]

    results.unlink()
    assert _eval(root, outputs, results, "--unsafe-no-sandbox") == 0
    (row,) = _rows(results).values()
    assert row["outcome"] == "correct", row
    assert row["detail"]["isolation"] == "none"
    assert row["detail"]["memory_limit_mechanism"] == "rlimits"
    assert "--unsafe-no-sandbox" in capsys.readouterr().err


@pytest.mark.slow
def test_killing_cope_eval_ends_its_workers_sandboxes(dataset, tmp_path):
    root, pairs = dataset
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("".join(json.dumps(_row(pair, findings.SLEEPER)) + "\n"
                               for pair in pairs[:2]))
    code = "import sys\nfrom planning_core.console import main\nsys.exit(main(sys.argv[1:]))"
    evaluator = subprocess.Popen(
        [sys.executable, "-c", code, "cope", "eval", "--dataset", str(root), "--method",
         "smt", "--outputs", str(outputs), "--out", str(tmp_path / "results.jsonl"),
         "--no-progress", "--no-label-check", "--workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        findings.kill_and_check(evaluator, 2, signal.SIGKILL)
    finally:
        if evaluator.poll() is None:
            evaluator.kill()
            evaluator.wait()


@pytest.mark.slow
@pytest.mark.skipif(platform.machine() != "x86_64",
                    reason="the hostile programs use x86-64 system calls")
def test_issue19_sandbox_findings_through_cope_eval(dataset, tmp_path, capsys):
    """Issue 19, items 5-8, end to end: each program ends with exit status 3 (so that its
    row is ``crashed`` and keeps the last lines of its output) only if PID 1 survived it."""
    root, pairs = dataset
    programs = {
        "sockets": findings.RAW_SOCKETS,  # 5, 6
        "kernel_files": findings.READS_KERNEL_FILES,  # 7
        "pid_one": findings.ATTACKS_PID_ONE,  # 8
    }
    keys, lines = {}, []
    for pair, (name, program) in zip(pairs, programs.items()):
        keys[name] = (pair.category, pair.problem, pair.constraint)
        lines.append(json.dumps(_row(pair, program + "\nraise SystemExit(3)\n")))
    outputs = tmp_path / "outputs.jsonl"
    outputs.write_text("\n".join(lines) + "\n")
    results = tmp_path / "results.jsonl"
    assert _eval(root, outputs, results) == 0
    rows = _rows(results)
    detail = {name: rows[key]["detail"] for name, key in keys.items()}
    for name, key in keys.items():
        assert rows[key]["outcome"] == "crashed", rows[key]
        assert detail[name]["returncode"] == 3 and detail[name]["isolation"] == "bwrap"
    tail = {name: detail[name]["stdout_tail"].splitlines() for name in programs}
    # 5, 6: no socket of any family, with or without the upper 32 bits; foreign ABIs killed
    assert tail["sockets"][-1] == "sockets made: []"
    assert tail["sockets"][-3] == f"x32 signal {signal.SIGSYS.value}"
    assert tail["sockets"][-2] in (f"i386 signal {signal.SIGSYS.value}",
                                   f"i386 signal {signal.SIGSEGV.value}")  # no ia32 emulation
    assert "socketpair vsock True -1 13" in tail["sockets"]
    # 7: no root-only kernel file readable, the project's path not in the mount table
    assert tail["kernel_files"][-2:] == ["readable: []", "project in mountinfo: False"]
    # 8: PID 1 survived the signals and kept its settings
    assert tail["pid_one"][-1] == "allowed: []"
    assert (f"pid1 nice {os.getpriority(os.PRIO_PROCESS, 0)} policy 0 state S"
                in tail["pid_one"])
    capsys.readouterr()
