"""The default memory limit is half of what this process may use: physical memory, its own
cgroup's limits and its ancestors' (v2 and v1), and Slurm's memory variables. A job allowed
8 GB on a 512 GB node used to default to 256 GB, so the scheduler's OOM killer ended the run
before the budget could answer UNKNOWN. Each test builds a fake file-system root (its own
/proc/self/cgroup, /proc/self/mountinfo and cgroup files) under tmp_path."""
from __future__ import annotations

import os

import pytest

from planning_core import limits

MB = 2**20
SLURM = ("SLURM_MEM_PER_NODE", "SLURM_MEM_PER_CPU", "SLURM_CPUS_ON_NODE",
         "SLURM_CPUS_PER_TASK")
V2_MOUNT = "30 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
V1_MOUNTS = ("31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
             "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
             "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n")
JOB = "/system.slice/slurmstepd.scope/job_123/step_0/user/task_0"


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for name in SLURM:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("PLANNING_CORE_MEMORY_LIMIT_MB", raising=False)
    limits._machine_memory_mb.cache_clear()
    yield
    limits._machine_memory_mb.cache_clear()


def physical_mb() -> float:
    return os.sysconf("SC_PHYS_PAGES") * limits._PAGE / MB


def write(root, rel: str, text: str) -> None:
    path = root / rel.lstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def v2_tree(root, own: str = JOB, mountinfo: str = V2_MOUNT):
    write(root, "proc/self/cgroup", f"0::{own}\n")
    write(root, "proc/self/mountinfo", mountinfo)
    return root / "sys/fs/cgroup"


def v1_tree(root, own: str = "/slurm/uid_1000/job_123/step_0/task_0"):
    write(root, "proc/self/cgroup", f"5:cpu,cpuacct:/\n4:memory:{own}\n1:name=systemd:/\n")
    write(root, "proc/self/mountinfo", V1_MOUNTS)
    return root / "sys/fs/cgroup/memory"


def limit_at(folder, name: str, value) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(f"{value}\n")


def test_v2_the_job_cgroup_limit_is_the_default(tmp_path):
    cg = v2_tree(tmp_path)
    limit_at(cg / JOB.lstrip("/"), "memory.max", 8 * 1024 * MB)
    assert limits._machine_memory_mb(str(tmp_path)) == min(physical_mb(), 8192)


def test_v2_an_ancestor_limit_below_the_job_wins_and_max_is_none(tmp_path):
    cg = v2_tree(tmp_path)
    limit_at(cg / JOB.lstrip("/"), "memory.max", "max")
    limit_at(cg / "system.slice/slurmstepd.scope/job_123", "memory.max", 300 * MB)
    limit_at(cg / "system.slice/slurmstepd.scope/job_123/step_0", "memory.max", 500 * MB)
    limit_at(cg / "system.slice", "memory.max", "max")
    assert limits._machine_memory_mb(str(tmp_path)) == 300


def test_v2_memory_high_counts_and_the_mount_point_is_read(tmp_path):
    cg = v2_tree(tmp_path)
    limit_at(cg / JOB.lstrip("/"), "memory.max", 900 * MB)
    limit_at(cg / JOB.lstrip("/"), "memory.high", 600 * MB)
    assert limits._machine_memory_mb(str(tmp_path)) == 600
    limits._machine_memory_mb.cache_clear()
    limit_at(cg, "memory.max", 200 * MB)      # a container's namespace root
    assert limits._machine_memory_mb(str(tmp_path)) == 200


def test_v2_a_sibling_cgroup_limit_does_not_apply(tmp_path):
    cg = v2_tree(tmp_path)
    limit_at(cg / "system.slice/slurmstepd.scope/job_999", "memory.max", 100 * MB)
    limit_at(cg / JOB.lstrip("/"), "memory.max", 700 * MB)
    assert limits._machine_memory_mb(str(tmp_path)) == 700


def test_v2_mount_point_comes_from_mountinfo_with_escapes(tmp_path):
    mountinfo = ("22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
                 "40 22 0:38 / /odd\\040place/cg rw,relatime - cgroup2 cgroup2 rw\n")
    v2_tree(tmp_path, own="/job", mountinfo=mountinfo)
    limit_at(tmp_path / "odd place/cg/job", "memory.max", 123 * MB)
    limit_at(tmp_path / "sys/fs/cgroup/job", "memory.max", 1 * MB)   # not the mount: unread
    assert limits._machine_memory_mb(str(tmp_path)) == 123


def test_a_mount_rooted_below_the_hierarchy_strips_its_root(tmp_path):
    # a container without a cgroup namespace: /proc/self/cgroup names /docker/abc, the
    # mount shows that cgroup at its mount point
    mountinfo = "40 22 0:38 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n"
    cg = v2_tree(tmp_path, own="/docker/abc/inner", mountinfo=mountinfo)
    limit_at(cg, "memory.max", 400 * MB)
    limit_at(cg / "inner", "memory.max", 450 * MB)
    limit_at(cg / "docker/abc", "memory.max", 1 * MB)    # would be a wrong join: unread
    assert limits._machine_memory_mb(str(tmp_path)) == 400


def test_without_mountinfo_the_usual_places_are_read(tmp_path):
    write(tmp_path, "proc/self/cgroup", "0::/job\n")
    limit_at(tmp_path / "sys/fs/cgroup/job", "memory.max", 321 * MB)
    assert limits._machine_memory_mb(str(tmp_path)) == 321


def test_v1_the_memory_line_path_and_its_ancestors(tmp_path):
    cg = v1_tree(tmp_path)
    limit_at(cg, "memory.limit_in_bytes", 9223372036854771712)     # v1's "unlimited"
    limit_at(cg / "slurm/uid_1000/job_123", "memory.limit_in_bytes", 2048 * MB)
    limit_at(cg / "slurm/uid_1000/job_123/step_0/task_0", "memory.limit_in_bytes",
             9223372036854771712)
    assert limits._machine_memory_mb(str(tmp_path)) == min(physical_mb(), 2048)


def test_v1_and_v2_both_apply_on_a_hybrid_machine(tmp_path):
    v1 = v1_tree(tmp_path, own="/job")
    write(tmp_path, "proc/self/cgroup", "4:memory:/job\n0::/job\n")
    write(tmp_path, "proc/self/mountinfo",
          V1_MOUNTS + "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n")
    limit_at(v1 / "job", "memory.limit_in_bytes", 800 * MB)
    limit_at(tmp_path / "sys/fs/cgroup/unified/job", "memory.max", 700 * MB)
    assert limits._machine_memory_mb(str(tmp_path)) == 700


@pytest.mark.parametrize("garbage", ["", "max", "-5", "0", "12 MB", "1e9", "0x100",
                                     "\x00\xff", "9" * 5000, "nan", "\u00b2", "\u0663"])
def test_garbage_limit_files_are_skipped(tmp_path, garbage):
    cg = v2_tree(tmp_path)
    (cg / JOB.lstrip("/")).mkdir(parents=True)
    (cg / JOB.lstrip("/") / "memory.max").write_text(garbage)
    limit_at(cg / "system.slice", "memory.max", 600 * MB)
    assert limits._machine_memory_mb(str(tmp_path)) == 600


@pytest.mark.parametrize("cgroup, mountinfo", [
    ("", ""),
    ("garbage without colons\n0:\n::\n0::relative/path\n", "x - y\n - cgroup2\n"),
    ("0::/../../../etc\n", V2_MOUNT),
    ("\x00\xff\xfe" * 100, "\x00" * 1000 + " - cgroup2 cgroup2 rw\n"),
    ("0::/job\n", "40 22 0:38 / /sys/fs/cgroup\\ rw - cgroup2 cgroup2 rw\n"),
])
def test_garbage_proc_files_never_raise(tmp_path, cgroup, mountinfo):
    write(tmp_path, "proc/self/cgroup", cgroup)
    write(tmp_path, "proc/self/mountinfo", mountinfo)
    (tmp_path / "sys/fs/cgroup").mkdir(parents=True)
    limit_at(tmp_path / "etc", "memory.max", 1 * MB)   # a "../" path must not reach it
    assert limits._machine_memory_mb(str(tmp_path)) == physical_mb()


def test_missing_and_unreadable_files_are_skipped(tmp_path):
    assert limits._machine_memory_mb(str(tmp_path / "nothing-here")) == physical_mb()
    limits._machine_memory_mb.cache_clear()
    cg = v2_tree(tmp_path)
    (cg / JOB.lstrip("/") / "memory.max").mkdir(parents=True)      # a directory
    os.mkfifo(cg / JOB.lstrip("/") / "memory.high")                # must not hang
    limit_at(cg / "system.slice", "memory.max", 640 * MB)
    assert limits._machine_memory_mb(str(tmp_path)) == 640


def test_slurm_mem_per_node(tmp_path, monkeypatch):
    monkeypatch.setenv("SLURM_MEM_PER_NODE", "8192")
    assert limits._machine_memory_mb(str(tmp_path)) == min(physical_mb(), 8192)
    limits._machine_memory_mb.cache_clear()
    monkeypatch.setenv("SLURM_MEM_PER_NODE", "3G")
    assert limits._machine_memory_mb(str(tmp_path)) == 3072


@pytest.mark.parametrize("env, expected", [
    ({"SLURM_MEM_PER_CPU": "500", "SLURM_CPUS_ON_NODE": "4", "SLURM_CPUS_PER_TASK": "2"}, 2000),
    ({"SLURM_MEM_PER_CPU": "500", "SLURM_CPUS_PER_TASK": "3"}, 1500),
    ({"SLURM_MEM_PER_CPU": "500", "SLURM_CPUS_ON_NODE": "junk"}, 500),
    ({"SLURM_MEM_PER_CPU": "700"}, 700),
    ({"SLURM_MEM_PER_CPU": "500", "SLURM_CPUS_ON_NODE": "4", "SLURM_MEM_PER_NODE": "1000"},
     1000),
])
def test_slurm_mem_per_cpu_times_cpus(tmp_path, monkeypatch, env, expected):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert limits._machine_memory_mb(str(tmp_path)) == expected


@pytest.mark.parametrize("value", ["", "0", "-1", "lots", "1.5G", "G", "\x7f", "\u00b2"])
def test_slurm_garbage_or_zero_is_no_limit(tmp_path, monkeypatch, value):
    monkeypatch.setenv("SLURM_MEM_PER_NODE", value)
    monkeypatch.setenv("SLURM_MEM_PER_CPU", value)
    assert limits._machine_memory_mb(str(tmp_path)) == physical_mb()


def test_cgroup_and_slurm_together_the_least_wins(tmp_path, monkeypatch):
    cg = v2_tree(tmp_path)
    limit_at(cg / JOB.lstrip("/"), "memory.max", 8192 * MB)
    monkeypatch.setenv("SLURM_MEM_PER_NODE", "4096")
    assert limits._machine_memory_mb(str(tmp_path)) == 4096


def test_default_memory_is_half_of_it_and_the_override_wins(monkeypatch):
    monkeypatch.setenv("SLURM_MEM_PER_NODE", "8")
    assert limits.default_memory_mb() == 4
    assert limits.Budget().memory_mb == 4
    monkeypatch.setenv("PLANNING_CORE_MEMORY_LIMIT_MB", "100")
    assert limits.default_memory_mb() == 100


def test_read_once_per_process(tmp_path):
    cg = v2_tree(tmp_path)
    limit_at(cg / JOB.lstrip("/"), "memory.max", 500 * MB)
    assert limits._machine_memory_mb(str(tmp_path)) == 500
    limit_at(cg / JOB.lstrip("/"), "memory.max", 100 * MB)
    assert limits._machine_memory_mb(str(tmp_path)) == 500
