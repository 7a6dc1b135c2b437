"""Shared pieces of the sandbox tests: small limits, canaries, and process checks."""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from planning_core.validators.formalizations.sandbox import SandboxLimits, isolation_available

HERE = Path(__file__).resolve().parent
# small enough to keep the suite quick, large enough for z3 on a loaded two-core machine;
# tests that expect a time-out set a shorter wall limit themselves
LIMITS = SandboxLimits(cpu_s=2, wall_s=10.0, memory_mb=512, processes=16, file_size_mb=8,
                       tmpfs_mb=32, stdout_bytes=256 << 10, stderr_bytes=1 << 20)

# skipped on a developer's machine without bubblewrap; in CI (.ci/run installs it) a
# missing sandbox fails these tests instead
needs_namespaces = pytest.mark.skipif(
    isolation_available() is None and not os.environ.get("CI"),
    reason="the sandbox needs bubblewrap (Debian package bubblewrap; .ci/run installs it)")


def processes_in_namespace(namespace: int | None) -> list[int]:
    """Host process ids still running in the PID namespace ``namespace`` (a run's
    ``pid_namespace``): a sandbox that ended must leave none. Zombies (a dead PID 1 not yet
    reaped by the host's init) run nothing and are not counted."""
    assert namespace is not None
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.readlink(f"/proc/{entry}/ns/pid") != f"pid:[{namespace}]":
                    continue
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    if handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X"):
                        found.append(int(entry))
            except (OSError, IndexError):
                continue
    return found


def processes_of(uid: int) -> list[int]:
    """Process ids whose real uid is ``uid`` (read from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status") as handle:
                for line in handle:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) == uid:
                            found.append(int(entry))
                        break
        except (OSError, ValueError):
            continue
    return found


def snapshot(root: Path) -> dict[str, tuple[int, str]]:
    """Every file and directory under ``root`` with its mode and content hash."""
    state = {}
    for path in sorted(root.rglob("*")) + [root]:
        info = path.lstat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        state[str(path.relative_to(root))] = (info.st_mode, digest)
    return state


class Canaries:
    """Files the programs try to change: one tree in pytest's tmp dir (under /tmp, which
    the sandbox replaces) and one world-writable tree beside this file (on the root
    mount, which the sandbox makes read-only). ``secret`` is readable by root only."""

    def __init__(self, tmp_path: Path) -> None:
        self.inside_tmp = tmp_path / "canary"
        self.outside_tmp = Path(tempfile.mkdtemp(prefix="_canary_", dir=HERE))
        for root in (self.inside_tmp, self.outside_tmp):
            root.mkdir(exist_ok=True)
            root.chmod(0o777)
            (root / "keep.txt").write_text("do not touch\n")
            (root / "keep.txt").chmod(0o666)
            (root / "sub").mkdir()
            (root / "sub").chmod(0o777)
            (root / "sub" / "data.bin").write_bytes(bytes(range(256)))
            (root / "secret.txt").write_text("TOP-SECRET-CANARY-7c1e\n")
            (root / "secret.txt").chmod(0o600)
        self.before = self.state()

    @property
    def roots(self) -> tuple[Path, Path]:
        return (self.inside_tmp, self.outside_tmp)

    def state(self) -> tuple[dict, dict]:
        return tuple(snapshot(root) for root in self.roots)

    def unchanged(self) -> bool:
        return self.state() == self.before

    def remove(self) -> None:
        shutil.rmtree(self.outside_tmp, ignore_errors=True)
