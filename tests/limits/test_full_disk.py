"""Issue 19 item 11: a full disk is "cannot write OUT: No space left on device", exit 2,
not "internal error ... a bug", exit 4; and the journal keeps what was computed.

The results file is a buffered handle: the row's flush fails with ENOSPC (already reported
as "cannot write"), and closing the handle flushes the same bytes again and fails again;
that second failure escaped as an internal error. The write is mocked here (a tiny tmpfs
shows the same: see the report of issue 19).
"""
from __future__ import annotations

import errno
import io
import json

import pytest

from cope.minicope import write_minicope
from planning_core import cli, results_file
from planning_core.cli import ExitCode
from planning_core.console import main

ENOSPC = OSError(errno.ENOSPC, "No space left on device")


class _FullDisk(io.TextIOBase):
    """A text handle whose disk is full: writes are buffered, every flush and the close
    fail with ENOSPC (the close still closes, as a real buffered file's does)."""

    def __init__(self, inner) -> None:
        self.inner, self.buffered = inner, ""

    def write(self, text: str) -> int:
        self.buffered += text
        return len(text)

    def flush(self) -> None:
        if self.buffered:
            raise OSError(errno.ENOSPC, "No space left on device")

    def close(self) -> None:
        self.inner.close()
        if self.buffered:
            raise OSError(errno.ENOSPC, "No space left on device")

    def fileno(self) -> int:
        return self.inner.fileno()

    def read(self, *args):
        return self.inner.read(*args)

    def seek(self, *args):
        return self.inner.seek(*args)


@pytest.fixture
def full_out(monkeypatch, tmp_path):
    """``OUT`` (not its journal) sits on a full disk."""
    out = tmp_path / "results.jsonl"
    real = results_file._open_append

    def open_append(path, *, lock):
        handle, cut = real(path, lock=lock)
        return (_FullDisk(handle) if path == out else handle), cut
    monkeypatch.setattr(results_file, "_open_append", open_append)
    return out


def test_cope_eval_on_a_full_disk_says_cannot_write(tmp_path, full_out, capsys):
    dataset = write_minicope(tmp_path)
    outputs = tmp_path / "o.jsonl"
    outputs.write_text(json.dumps({"category": "baseline", "problem": "p01",
                                   "constraint": "constraint1", "output": "(unstack c a)"})
                       + "\n")
    code = main(["cope", "eval", "--dataset", str(dataset), "--method", "planner",
                 "--outputs", str(outputs), "--out", str(full_out), "--no-progress",
                 "--no-label-check"])
    err = capsys.readouterr().err
    assert code == ExitCode.BAD_INPUT, err
    assert f"{full_out}: error: cannot write: No space left on device" in err
    assert "internal error" not in err
    journal = results_file.pending_path(full_out)
    assert len(journal.read_text().splitlines()) == 1       # kept for the next run


def test_any_disk_full_error_is_exit_2(capsys):
    def command(_args):
        raise OSError(errno.ENOSPC, "No space left on device", "/data/report.md")
    assert cli.run(command, None) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert "/data/report.md: error: cannot write: No space left on device" in err   # PATH: error:


def test_other_os_errors_are_still_internal(capsys):
    def command(_args):
        raise OSError(errno.EBADF, "Bad file descriptor")
    assert cli.run(command, None) == ExitCode.INTERNAL
    assert "internal error" in capsys.readouterr().err
