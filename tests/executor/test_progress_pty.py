"""Every batch command's progress bar, drawn on a real terminal (issue 19 item 13).

The other tests pass ``--no-progress`` or capture stderr, so tqdm never draws and a bar
that is fed the wrong thing goes unnoticed (``validate --batch`` crashed with exit 4 on any
terminal: ``bar.update`` was handed a row). Here each command runs as its own process with
stderr on a pseudo-terminal (``pty``), so tqdm draws, and must finish with its usual exit
code, a drawn bar at 100 %, and no internal error.
"""
from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.acp.acp_fixtures import write_score_files
from tests.cope.minicope import write_minicope, write_outputs
from tests.conftest import DOMAINS
from tests.toolplans.toolplans_fixtures import TASK, VALID

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="pseudo-terminals as Linux has them")

ROOT = Path(__file__).resolve().parents[2]
CLI = "import sys; from planning_core.console import main; sys.exit(main(sys.argv[1:]))"
BLOCKS = DOMAINS / "blocksworld"
PLAN = ("(unstack c a)", "(putdown c)", "(pickup b)", "(stack b c)", "(pickup a)",
        "(stack a b)")


def on_terminal(argv: list[str], cwd: Path, timeout: float = 240) -> tuple[int, str]:
    """Run the CLI with stderr on a pseudo-terminal; its exit code and what it drew."""
    master, slave = pty.openpty()
    # a fresh pty is 0 x 0: tqdm would draw an empty bar; give it the size of a terminal
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    with open(cwd / "stdout.txt", "wb") as out:
        proc = subprocess.Popen([sys.executable, "-c", CLI, *map(str, argv)], cwd=cwd,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=slave,
                                env=dict(os.environ, COLUMNS="100"))
    os.close(slave)
    drawn = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:   # EIO: every holder of the terminal's other end is gone
                break
            if not chunk:
                break
            drawn += chunk
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return code, drawn.decode("utf-8", "replace")


def assert_drawn(code: int, drawn: str, expected_code: int, unit: str) -> None:
    assert "internal error" not in drawn and "Traceback" not in drawn, drawn
    assert code == expected_code, drawn
    assert "100%" in drawn and unit in drawn, drawn   # the bar was drawn and finished


def _manifest(folder: Path) -> Path:
    plan = folder / "p.plan"
    plan.write_text((BLOCKS / "p01.plan").read_text())
    lines = [{"id": f"m{k}", "plan": "p.plan", "domain": str(BLOCKS / "domain.pddl"),
              "problem": str(BLOCKS / "p01.pddl")} for k in range(6)]
    manifest = folder / "m.jsonl"
    manifest.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return manifest


@pytest.mark.parametrize("where", [[], ["--workers", "2"]], ids=["serial", "local-2"])
@pytest.mark.parametrize("out", [False, True], ids=["stdout", "out"])
def test_validate_batch_draws_its_bar_on_a_terminal(tmp_path, where, out):
    manifest = _manifest(tmp_path)
    extra = ["--out", tmp_path / "r.jsonl"] if out else []
    code, drawn = on_terminal(["validate", "--batch", manifest, *extra, *where], tmp_path)
    assert_drawn(code, drawn, 0, "plan")   # the fixture's plan is valid
    rows = (tmp_path / "r.jsonl").read_text() if out else \
        (tmp_path / "stdout.txt").read_text()
    assert len(rows.splitlines()) == 6


@pytest.mark.slow
def test_validate_batch_draws_its_bar_on_a_dask_cluster(tmp_path):
    pytest.importorskip("distributed")
    manifest = _manifest(tmp_path)
    code, drawn = on_terminal(["validate", "--batch", manifest, "--out", tmp_path / "r.jsonl",
                               "--scheduler", "local:1"], tmp_path)
    assert "internal error" not in drawn and "100%" in drawn, drawn
    assert code in (0, 1) and len((tmp_path / "r.jsonl").read_text().splitlines()) == 6


@pytest.fixture
def acp_files(tmp_path):
    return write_score_files(tmp_path)


@pytest.mark.parametrize("where", [[], ["--workers", "2"]], ids=["serial", "local-2"])
def test_acp_score_draws_its_bar_on_a_terminal(acp_files, tmp_path, where):
    q, a = acp_files
    code, drawn = on_terminal(["acp", "score", "--questions", q, "--answers", a, "--out",
                               tmp_path / "r.jsonl", *where], tmp_path)
    assert_drawn(code, drawn, 0, "answer")
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 4


def test_acp_check_gold_draws_its_bar_on_a_terminal(acp_files, tmp_path):
    q, _ = acp_files
    code, drawn = on_terminal(["acp", "check-gold", "--questions", q], tmp_path)
    assert "internal error" not in drawn and "Traceback" not in drawn, drawn
    assert code in (0, 1) and "100%" in drawn and "question" in drawn, drawn


@pytest.mark.parametrize("out", [False, True], ids=["report", "out"])
def test_cope_check_draws_its_bar_on_a_terminal(tmp_path, out):
    root = write_minicope(tmp_path)
    extra = ["--out", tmp_path / "r.jsonl"] if out else []
    code, drawn = on_terminal(["cope", "check", "--dataset", root, *extra], tmp_path)
    assert_drawn(code, drawn, 1, "pair")   # the mini dataset has defects: exit 1


def test_cope_eval_draws_its_bar_on_a_terminal(tmp_path):
    root = write_minicope(tmp_path)
    outputs = write_outputs(tmp_path / "outputs.jsonl", [
        {"category": "baseline", "problem": "p01", "constraint": "constraint1",
         "output": "\n".join(PLAN)},
        {"category": "goal", "problem": "p01", "constraint": "constraint2",
         "output": "No valid plan exists."}])
    code, drawn = on_terminal(["cope", "eval", "--dataset", root, "--method", "planner",
                               "--outputs", outputs, "--out", tmp_path / "r.jsonl"], tmp_path)
    assert "internal error" not in drawn and "Traceback" not in drawn, drawn
    assert code in (0, 1) and "100%" in drawn and "output" in drawn, drawn
    assert len((tmp_path / "r.jsonl").read_text().splitlines()) == 2


def test_toolplans_batch_draws_its_bar_on_a_terminal(tmp_path):
    rows = tmp_path / "rows.jsonl"
    lines = [{"id": "a", "task": TASK, "output": VALID},
             {"id": "b", "task": TASK, "output": "REFUSE"}]
    rows.write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, drawn = on_terminal(["toolplans", "batch", "--rows", rows, "--out",
                               tmp_path / "o.jsonl"], tmp_path)
    assert "internal error" not in drawn and "Traceback" not in drawn, drawn
    assert code == 0 and "100%" in drawn, drawn


def _chat_server():
    pytest.importorskip("openai")
    from tests.models.chat_server import ChatServer, answer

    return ChatServer(lambda request, n: answer("\n".join(PLAN)))


def test_acp_run_draws_its_bar_on_a_terminal(acp_files, tmp_path):
    q, _ = acp_files
    with _chat_server() as server:
        code, drawn = on_terminal(["acp", "run", "--model", "scripted", "--base-url",
                                   server.base_url, "--questions", q, "--out",
                                   tmp_path / "r.jsonl", "--no-cache", "--timeout", "20"],
                                  tmp_path)
    assert "internal error" not in drawn and "Traceback" not in drawn, drawn
    assert code in (0, 1) and "100%" in drawn and "question" in drawn, drawn


def test_cope_run_draws_its_bar_on_a_terminal(tmp_path):
    root = write_minicope(tmp_path)
    with _chat_server() as server:
        code, drawn = on_terminal(["cope", "run", "--method", "planner", "--model", "scripted",
                                   "--base-url", server.base_url, "--dataset", root,
                                   "--categories", "baseline,goal", "--out",
                                   tmp_path / "r.jsonl", "--no-cache", "--timeout", "20"],
                                  tmp_path)
    assert "internal error" not in drawn and "Traceback" not in drawn, drawn
    assert code in (0, 1) and "100%" in drawn, drawn
