"""Choosing and driving the run's cgroup on fake hierarchies (v2, hybrid v1, none): the
files written and read are the kernel's, the directories are plain ones under tmp_path.
The real hierarchy of this machine is exercised by every sandbox test."""
from __future__ import annotations

from pathlib import Path

import pytest

from planning_core.validators.formalizations import sandbox_cgroup
from planning_core.validators.formalizations.sandbox_cgroup import create_group


@pytest.fixture
def fake_root(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox_cgroup, "CGROUP_ROOT", tmp_path)
    monkeypatch.setattr(sandbox_cgroup.os, "geteuid", lambda: 0)
    return tmp_path


def _own(monkeypatch, paths: dict[str, str]) -> None:
    monkeypatch.setattr(sandbox_cgroup, "_own_paths", lambda: paths)


def test_cgroup_v2_when_memory_is_delegated(fake_root: Path, monkeypatch):
    parent = fake_root / "user.slice" / "me"
    parent.mkdir(parents=True)
    (fake_root / "cgroup.controllers").write_text("cpu memory pids\n")
    (parent / "cgroup.subtree_control").write_text("memory pids\n")
    _own(monkeypatch, {"": "/user.slice/me"})
    group = create_group(256 << 20, 16)
    assert group is not None and group.mechanism == "cgroup v2"
    (directory,) = group.dirs
    assert directory.parent == parent
    assert (directory / "memory.max").read_text() == str(256 << 20)
    assert group.procs == (directory / "cgroup.procs",)
    (directory / "memory.events").write_text("low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\n")
    (directory / "memory.peak").write_text("268431360\n")
    assert group.oom_kills() == 2 and group.peak_bytes() == 268431360


def test_cgroup_v1_on_a_hybrid_layout(fake_root: Path, monkeypatch):
    """v2 mounted at unified/ without the memory controller (this project's machines):
    the v1 memory hierarchy, with swap included, and a pids group beside it."""
    (fake_root / "unified").mkdir()
    (fake_root / "unified" / "cgroup.controllers").write_text("hugetlb\n")
    (fake_root / "unified" / "cgroup.subtree_control").write_text("")
    memory = fake_root / "memory" / "jobs" / "42"
    memory.mkdir(parents=True)
    (fake_root / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")
    pids = fake_root / "pids"
    pids.mkdir()
    _own(monkeypatch, {"": "/", "memory": "/jobs/42", "pids": "/"})
    group = create_group(128 << 20, 8)
    assert group is not None and group.mechanism == "cgroup v1"
    memory_group, pids_group = group.dirs
    assert memory_group.parent == memory and pids_group.parent == pids
    assert (memory_group / "memory.limit_in_bytes").read_text() == str(128 << 20)
    assert (pids_group / "pids.max").read_text() == "8"
    (memory_group / "memory.oom_control").write_text(
        "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
    assert group.oom_kills() == 1


def test_no_cgroup_without_a_writable_hierarchy(fake_root: Path, monkeypatch):
    _own(monkeypatch, {"": "/"})
    assert create_group(128 << 20, 8) is None  # nothing mounted
    monkeypatch.setattr(sandbox_cgroup.os, "geteuid", lambda: 1000)
    assert create_group(128 << 20, 8) is None  # not root
