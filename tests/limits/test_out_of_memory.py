"""A command that runs out of memory (an input that is one endless line, such as /dev/zero,
under a cluster's ``ulimit -v``) says so, exit 3 (a limit ran out), not "internal error
... a bug", exit 4. The child runs under RLIMIT_AS so that nothing fills the machine."""
from __future__ import annotations

import resource
import subprocess
import sys

import pytest

from cope.minicope import write_minicope

pytestmark = pytest.mark.slow      # ~3 s each: the child reads up to its 1 GB cap

CLI = "import sys; from planning_core.console import main; sys.exit(main(sys.argv[1:]))"


def _capped():
    resource.setrlimit(resource.RLIMIT_AS, (2**30, resource.RLIM_INFINITY))


@pytest.mark.parametrize("command", ["cope", "deepplanning", "validate"])
def test_an_endless_input_line_is_out_of_memory_exit_3(tmp_path, command):
    # a sparse 3 GB regular file of zero bytes: one line larger than the 1 GB cap (a device
    # such as /dev/zero is refused before it is read: issue 27, every reader is bounded)
    endless = tmp_path / "endless.jsonl"
    with open(endless, "wb") as fh:
        fh.truncate(3 * 2**30)
    if command == "cope":
        argv = ["cope", "eval", "--dataset", str(write_minicope(tmp_path)), "--method",
                "planner", "--outputs", str(endless), "--out", str(tmp_path / "out.jsonl"),
                "--no-progress", "--no-label-check"]
    elif command == "deepplanning":
        argv = ["deepplanning", "report", str(endless)]
    else:   # a manifest is read whole (bounded by memory, not by a line cap)
        argv = ["validate", "--batch", str(endless), "--no-progress"]
    run = subprocess.run([sys.executable, "-c", CLI, *argv], capture_output=True, text=True,
                         timeout=120, preexec_fn=_capped)
    assert "internal error" not in run.stderr
    if command == "validate":
        assert run.returncode == 3, run.stderr
        assert "out of memory" in run.stderr
    else:
        # model outputs and results rows go through the line reader (issue 27): a line past
        # its 64 MB cap is a located error before memory runs out
        assert run.returncode == 2, run.stderr
        assert f"{endless}:1: " in run.stderr and "a line longer than 64 MB" in run.stderr
