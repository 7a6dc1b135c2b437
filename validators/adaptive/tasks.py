"""Finding tasks in folders and profiles on disk, and building profiles for many tasks.

A task is a problem file with a ``domain.pddl`` in its folder (the layout of ``domains/*``
and of CoPE's ``pddl/`` folders). ``build_many`` builds one profile per task and writes it
to ``<out>/<folder name>/<problem stem>.json`` with paths relative to that file; a task that
cannot be built (no plan, an unsupported feature, a parse error) becomes a failure row and
the batch goes on.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from planning_core.errors import InputError, PlanningError
from planning_core.pddl import ast as pddl
from planning_core.pddl.parser import parse_domain_file, parse_problem_file
from planning_core.validators.adaptive.build import build_profile
from planning_core.validators.adaptive.compile import check_profile
from planning_core.validators.adaptive.profile import Profile, dump_profile, load_profile

__all__ = ["TaskRef", "find_tasks", "find_profiles", "load_task", "build_many"]


@dataclass(frozen=True, slots=True)
class TaskRef:
    domain: Path
    problem: Path

    @property
    def name(self) -> str:
        return f"{self.problem.parent.name}/{self.problem.stem}"


def find_tasks(paths, limit: int | None = None) -> list[TaskRef]:
    """Problems under ``paths`` (files or folders, searched recursively, sorted) that have a
    ``domain.pddl`` beside them; at most ``limit`` per folder."""
    found: list[TaskRef] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError("no such file or folder", file=str(path))
        files = [path] if path.is_file() else sorted(path.rglob("*.pddl"))
        per_folder: dict[Path, int] = {}
        for f in files:
            domain = f.parent / "domain.pddl"
            if f.name == "domain.pddl" or not domain.is_file():
                continue
            if limit is not None and per_folder.get(f.parent, 0) >= limit:
                continue
            per_folder[f.parent] = per_folder.get(f.parent, 0) + 1
            found.append(TaskRef(domain, f))
    return found


def find_profiles(paths) -> list[Path]:
    """The profile files under ``paths``, each once (a file named twice, or also found in a
    folder given, is one query: counted twice it would weigh double in N)."""
    out: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError("no such file or folder", file=str(path))
        for found in [path] if path.is_file() else sorted(path.rglob("*.json")):
            key = found.resolve()
            if key not in seen:
                seen.add(key)
                out.append(found)
    return out


def load_task(profile: Profile | str | Path) -> tuple[Profile, pddl.Domain, pddl.Problem]:
    """A profile with its parsed, checked task (ProfileError on any mismatch)."""
    if not isinstance(profile, Profile):
        profile = load_profile(profile)
    dpath, ppath = profile.task_paths()
    domain, problem = parse_domain_file(dpath), parse_problem_file(ppath)
    check_profile(domain, problem, profile)
    return profile, domain, problem


#: CPU seconds ``adaptive build`` gives one task by default (``--time-limit``): reading,
#: grounding and every solve of its construction; a typical profile takes under 2 s.
BUILD_TIME_LIMIT_S = 300.0


def build_many(tasks: list[TaskRef], out: Path, *, seed: int = 0, rounds: int = 3,
               method: str = "auto", on_done=None, kinds=None,
               time_limit: float | None = BUILD_TIME_LIMIT_S,
               memory_limit: float | None = None) -> list[dict]:
    """Build and write a profile per task; one summary row per task (``error`` on failure).

    Each task runs under a budget of its own (``time_limit`` CPU seconds, ``memory_limit``
    MB, None: the default), made active for everything it does: reading and parsing its
    files, grounding, every solve of the construction. A task that reaches it is a failure
    row naming the limit (no profile is written: one built with fewer candidates tried would
    depend on machine speed), and the next task is built."""
    from planning_core.limits import LimitReached, Limits, metering

    rows = []
    for ref in tasks:
        target = out / ref.problem.parent.name / f"{ref.problem.stem}.json"
        row = {"task": ref.name, "profile": str(target)}
        budget = Limits(time_s=time_limit, memory_mb=memory_limit).budget()
        try:
            with metering(budget):
                _build_one(ref, target, row, seed, rounds, method, kinds)
        except LimitReached as stop:
            stop = budget.exceeded() or stop    # named by the task's limit, not a stage's
            row.pop("tiers", None)
            row["error"] = (f"stopped at the {stop.limit} ({stop.detail}) after "
                            f"{budget.cpu_s():.2f} CPU s; no profile written "
                            "(--time-limit/--memory-limit give a task more)")
            row["limit"] = stop.limit
        rows.append(row)
        if on_done:
            on_done(row)
    return rows


def _build_one(ref: TaskRef, target: Path, row: dict, seed: int, rounds: int, method: str,
               kinds) -> None:
    try:
        domain = parse_domain_file(ref.domain)
        problem = parse_problem_file(ref.problem)
        target.parent.mkdir(parents=True, exist_ok=True)
        rel = target.parent.resolve()
        profile = build_profile(
            domain, problem, seed=seed, rounds=rounds, method=method,
            **({"kinds": kinds} if kinds is not None else {}),
            domain_path=os.path.relpath(ref.domain.resolve(), rel),
            problem_path=os.path.relpath(ref.problem.resolve(), rel))
        target.write_text(dump_profile(replace(profile, filename=str(target))),
                          encoding="utf-8")
        row["tiers"] = {t.name: len(t.constraints) for t in profile.tiers}
        if profile.tiers and not profile.tiers[-1].constraints:
            row["note"] = profile.tiers[-1].note      # why the task admits none
    except PlanningError as err:
        row["error"] = str(err)
        if hasattr(err, "proof"):
            row["proof"] = err.proof
    except OSError as err:
        row["error"] = f"{target}: cannot write: {err.strerror or err}"
