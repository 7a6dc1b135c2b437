"""ENHSP (numeric), LPG-td and TAMER (temporal) as external engines for PDDL 2.1 tasks.

No planner is a dependency of the core: they come with the ``planners`` extra
(``pip install planning-core[planners]``, which installs ``up-enhsp``, ``up-lpg`` and
``up-tamer``).

* **ENHSP** (Scala-Meynet, Haslum, Ramirez 2017/2020), a Java program: the jar inside the
  ``up-enhsp`` wheel is run directly with ``java`` (found on ``PATH``), with the search that
  unified-planning's own ENHSP engine uses (``-h hadd -s gbfs -npm``). It plans for PDDL 2.1
  level 2 (numeric fluents); it does not accept durative actions.
* **LPG-td** (Gerevini, Saetti, Serina 2003/2006), a C program: the binary inside the
  ``up-lpg`` wheel is run directly (``-n 1``: the first plan, with a fixed ``-seed`` so
  that the same task gives the same plan, and ``-cputime`` at the CPU limit). It plans for
  PDDL 2.1 levels 2 and 3 (numeric fluents, durative actions). It separates dependent
  happenings by 0.00025 time units (``up_lpg``'s ``LPG_EPSILON``), less than a tenth of
  VAL's default tolerance 0.01, so its timed plans are valid at VAL's ``-t 0.001``
  (:data:`LPG_TOLERANCE`) and not at the default: ``solve`` says which tolerance it
  checked a plan at.
* **TAMER** (Valentini, Micheli, Cimatti 2020), a C++ library behind ``up-tamer``: it can
  only be called through unified-planning, whose import alone costs ~2.5 s and which has no
  time limit for TAMER, so it runs in a child Python process (:data:`_TAMER_CHILD`) that
  reads the written PDDL with UP's reader and prints the time-triggered plan.

Both run under ``limited_process.run_limited``: ``RLIMIT_CPU`` and a wall-clock kill of the
process group as for Fast Downward; ``RLIMIT_AS`` for TAMER. The JVM reserves far more
address space than it uses (heap, code cache, metaspace), so ENHSP gets no ``RLIMIT_AS``;
its heap is capped with ``-Xmx`` at the memory limit instead, and a Java
``OutOfMemoryError`` is the memory limit. Single-threaded garbage collection keeps the
JVM's CPU time that of one core.

Locating either planner never imports unified-planning (``importlib.util.find_spec``), so
the command line's start-up stays cheap. What comes back is only the planner's claim:
``solve`` validates every plan with our own validator before reporting it.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from planning_core.errors import EngineError, UnsupportedFeature
from planning_core.result import SolveResult, Status
from planning_core.search.limited_process import ProcessRun, run_limited

ENGINES = ("enhsp", "tamer", "lpg")
#: the tolerance (VAL's ``-t``) LPG-td's timed plans are valid at (module doc)
LPG_TOLERANCE = 0.001
#: LPG-td's random seed: local search, so a fixed seed makes a task's plan repeatable
LPG_SEED = 2002
#: unified-planning's own ENHSP search (up_enhsp.ENHSPEngine's default parameters)
ENHSP_SEARCH = ("-h", "hadd", "-s", "gbfs")
#: with a CPU budget, the wall-clock kill comes at this multiple of the limit plus the slack
#: (as fast_downward.CPU_BUDGET_WALL_FACTOR): only a guard against a process that waits
CPU_BUDGET_WALL_FACTOR = 4.0
CPU_BUDGET_WALL_SLACK_S = 30.0
#: heap share of the memory limit for the JVM (the rest: code cache, metaspace, stacks)
JVM_HEAP_SHARE = 0.8


@dataclass(frozen=True, slots=True)
class PlannerPaths:
    engine: str
    program: tuple[str, ...]   # what to run before the planner's own arguments


def _package_dir(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def locate(engine: str) -> PlannerPaths:
    """The planner's command; ``EngineError`` saying what to install when it is missing."""
    if engine == "enhsp":
        root = _package_dir("up_enhsp")
        if root is None:
            raise EngineError("ENHSP not found: the 'up-enhsp' package is not installed "
                              "(pip install 'planning-core[planners]')")
        jar = root / "ENHSP" / "enhsp.jar"
        if not jar.is_file():
            raise EngineError(f"the 'up-enhsp' installation is incomplete; missing: {jar}")
        java = shutil.which("java")
        if java is None:
            raise EngineError("ENHSP needs a Java runtime (11 or newer) and 'java' is not on "
                              "PATH (e.g. apt-get install default-jre-headless)")
        return PlannerPaths(engine, (java,))
    if engine == "tamer":
        if _package_dir("up_tamer") is None or _package_dir("unified_planning") is None:
            raise EngineError("TAMER not found: the 'up-tamer' package is not installed "
                              "(pip install 'planning-core[planners]')")
        return PlannerPaths(engine, (sys.executable,))
    if engine == "lpg":
        root = _package_dir("up_lpg")
        if root is None:
            raise EngineError("LPG-td not found: the 'up-lpg' package is not installed "
                              "(pip install 'planning-core[planners]')")
        binary = root / "lpg"
        if not binary.is_file() or not os.access(binary, os.X_OK):
            raise EngineError(f"the 'up-lpg' installation is incomplete; missing or not "
                              f"executable: {binary}")
        return PlannerPaths(engine, (str(binary),))
    raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")


def available(engine: str) -> bool:
    """Whether ``engine`` can run here (its package, and for ENHSP a ``java``)."""
    try:
        locate(engine)
    except EngineError:
        return False
    return True


# ------------------------------------------------------------------------------ ENHSP

_ENHSP_STEP = re.compile(r"^\s*\(([^()]*)\)\s*$")


def _enhsp_cmd(java: str, memory_limit_mb: int | None) -> list[str]:
    root = _package_dir("up_enhsp")
    assert root is not None
    cmd = [java, "-XX:+UseSerialGC", "-XX:ActiveProcessorCount=1"]
    if memory_limit_mb is not None:
        cmd.append(f"-Xmx{max(64, int(memory_limit_mb * JVM_HEAP_SHARE))}m")
    return cmd + ["-jar", str(root / "ENHSP" / "enhsp.jar"), "-o", "domain.pddl",
                  "-f", "problem.pddl", "-sp", "plan", "-npm", *ENHSP_SEARCH]


def _read_enhsp_plan(text: str) -> tuple[str, ...]:
    steps = []
    for line in text.splitlines():
        found = _ENHSP_STEP.match(line)
        if found:
            steps.append("(" + " ".join(found.group(1).lower().split()) + ")")
    return tuple(steps)


# ------------------------------------------------------------------------------ LPG-td

#: a step of LPG-td's plan file: ``0.0003:   (SWITCH A B) [2.0000]`` (a ``)`` may follow)
_LPG_STEP = re.compile(r"^\s*([0-9.]+)\s*:\s*\(([^()]*)\)\s*(?:\[\s*([0-9.eE+-]+)\s*\])?")


def _lpg_cmd(binary: str, time_limit: float) -> list[str]:
    return [binary, "-o", "domain.pddl", "-f", "problem.pddl", "-n", "1", "-seed",
            str(LPG_SEED), "-cputime", str(_lpg_cputime(time_limit)), "-out", "plan"]


def _lpg_cputime(time_limit: float) -> int:
    return max(1, int(time_limit))


def _read_lpg_plan(text: str, durative: frozenset[str] | None) -> tuple[str, ...]:
    """LPG-td's plan in VAL's format. ``durative`` (the names of the domain's durative
    actions) makes it a timed plan, ``t: (a ...) [d]`` (no ``[d]`` on an instantaneous
    action); None (a numeric task) a sequential one, in the order of the start times."""
    steps = []
    for line in text.splitlines():
        found = _LPG_STEP.match(line)
        if found:
            action = " ".join(found.group(2).lower().split())
            steps.append((float(found.group(1)), action, found.group(3)))
    if durative is None:
        return tuple(f"({a})" for _, a, _ in sorted(steps, key=lambda s: s[0]))
    out = []
    for start, action, duration in steps:
        step = f"{_fmt_time(start)}: ({action})"
        if duration is not None and action.split()[0] in durative:
            step += f" [{_fmt_time(float(duration))}]"
        out.append(step)
    return tuple(out)


# ------------------------------------------------------------------------------ TAMER

#: The child that runs TAMER: reads the two files with unified-planning's PDDL reader and
#: prints ``STATUS name`` and one ``STEP start|action args|duration`` line per action.
_TAMER_CHILD = r'''
import sys, warnings
warnings.simplefilter("ignore")
from unified_planning.io import PDDLReader
from unified_planning.shortcuts import OneshotPlanner, get_environment
get_environment().credits_stream = None
try:
    problem = PDDLReader().parse_problem("domain.pddl", "problem.pddl")
except Exception as err:
    print("READER", type(err).__name__, str(err).replace("\n", " ")[:300])
    sys.exit(4)
with OneshotPlanner(name="tamer", problem_kind=problem.kind) as planner:
    result = planner.solve(problem)
print("STATUS", result.status.name, flush=True)
plan = result.plan
if plan is not None:
    if hasattr(plan, "timed_actions"):
        items = plan.timed_actions
    else:
        items = [(None, a, None) for a in plan.actions]
    for start, ai, dur in items:
        args = " ".join(str(p) for p in ai.actual_parameters)
        print("STEP %s|%s %s|%s" % ("" if start is None else repr(float(start)),
                                    ai.action.name, args, "" if dur is None else repr(float(dur))))
'''


def _fmt_time(value: float) -> str:
    text = f"{value:.6f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _read_tamer(stdout: str) -> tuple[str | None, tuple[str, ...]]:
    status = None
    steps = []
    for line in stdout.splitlines():
        if line.startswith("STATUS "):
            status = line.split()[1]
        elif line.startswith("STEP "):
            start, action, duration = line[5:].split("|")
            step = "(" + " ".join(action.lower().split()) + ")"
            if start:
                step = f"{_fmt_time(float(start))}: {step}"
            if duration:
                step += f" [{_fmt_time(float(duration))}]"
            steps.append(step)
    return status, tuple(steps)


# ------------------------------------------------------------------------------ running

def _limit_reason(run: ProcessRun, time_limit: float) -> str | None:
    if run.killed_at_wall_limit:
        return "time limit"
    if run.signal_name in ("SIGXCPU", "SIGKILL") and run.cpu_s >= max(1.0, int(time_limit)) - 0.5:
        return "time limit"
    text = run.stdout[-4000:] + run.stderr[-4000:]
    if "OutOfMemoryError" in text or "MemoryError" in text or "std::bad_alloc" in text:
        return "memory limit"
    return None


def run_planner(engine: str, domain_text: str, problem_text: str, *, time_limit: float = 60.0,
                memory_limit_mb: int | None = 4096, cpu_budget: bool = False,
                workdir: str | os.PathLike | None = None,
                durative: frozenset[str] | None = None) -> SolveResult:
    """Run ENHSP, LPG-td or TAMER on PDDL text; the plan is the planner's, not yet validated.

    ``durative`` (LPG-td only): the names of the domain's durative actions, for a temporal
    task, whose plan is then written as a timed plan (:func:`_read_lpg_plan`).

    ``time_limit`` is CPU seconds (``RLIMIT_CPU``); the wall-clock kill comes a moment after
    it, or, with ``cpu_budget``, only at a generous multiple (verdicts independent of load).
    A limit gives ``UNKNOWN`` with the limit in ``reason``; a planner that ends without a
    plan and without a limit gives ``UNKNOWN`` too ("no plan found"): neither planner's
    failure is a proof of unsolvability we can check.
    """
    paths = locate(engine)
    start = time.perf_counter()
    stats: dict[str, object] = {}

    def result(status: Status, reason: str = "", plan: tuple[str, ...] | None = None) -> SolveResult:
        return SolveResult(status=status, plan=plan, cost=None, engine=engine,
                           time_s=time.perf_counter() - start,
                           stats=tuple(sorted(stats.items())), reason=reason)

    wall = CPU_BUDGET_WALL_FACTOR * time_limit + CPU_BUDGET_WALL_SLACK_S if cpu_budget else None
    with tempfile.TemporaryDirectory(prefix=f"planning_core_{engine}_", dir=workdir) as tmp:
        folder = Path(tmp)
        (folder / "domain.pddl").write_text(domain_text)
        (folder / "problem.pddl").write_text(problem_text)
        if engine == "enhsp":
            cmd = _enhsp_cmd(paths.program[0], memory_limit_mb)
            run = run_limited(cmd, cwd=folder, time_limit=time_limit, memory_limit_mb=None,
                              name="enhsp", wall_limit=wall)
        elif engine == "lpg":
            run = run_limited(_lpg_cmd(paths.program[0], time_limit), cwd=folder,
                              time_limit=time_limit, memory_limit_mb=memory_limit_mb,
                              name="lpg", wall_limit=wall)
        else:
            (folder / "tamer_child.py").write_text(_TAMER_CHILD)
            run = run_limited([*paths.program, "tamer_child.py"], cwd=folder,
                              time_limit=time_limit, memory_limit_mb=memory_limit_mb,
                              name="tamer", wall_limit=wall)
        stats.update(planner_cpu_s=round(run.cpu_s, 3), planner_peak_rss_kb=run.peak_rss_kb)
        if engine == "enhsp":
            plan_file = folder / "plan"
            if run.returncode == 0 and plan_file.is_file():
                return result(Status.SOLVED, plan=_read_enhsp_plan(plan_file.read_text()))
        elif engine == "lpg":
            plan_file = folder / "plan_1.SOL"
            if plan_file.is_file():
                steps = _read_lpg_plan(plan_file.read_text(errors="replace"), durative)
                if steps or run.returncode == 0:
                    return result(Status.SOLVED, plan=steps)
            # LPG-td stops at its own -cputime (exit 0, no plan file) just before RLIMIT_CPU
            if run.cpu_s >= _lpg_cputime(time_limit) - 0.1:
                return result(Status.UNKNOWN, "time limit")
        else:
            status, steps = _read_tamer(run.stdout)
            if status is not None and status.startswith("SOLVED"):
                return result(Status.SOLVED, plan=steps)
            if run.returncode == 4 and run.stdout.startswith("READER"):
                raise UnsupportedFeature("TAMER reads PDDL through unified-planning, which "
                                         "cannot read this task: " + run.stdout[7:].strip())
        if (reason := _limit_reason(run, time_limit)) is not None:
            return result(Status.UNKNOWN, reason)
        if run.returncode not in (0, 1) and run.returncode != 4:
            tail = run.tail()
            raise EngineError(f"{engine} failed with exit code {run.returncode}"
                              + (f":\n{tail}" if tail else ""))
        return result(Status.UNKNOWN, f"{engine} found no plan")


# ------------------------------------------------------------------------- task kinds

#: AST classes (by name, so this module reads any parser version) that make a task numeric
_NUMERIC_NODES = frozenset({"Comparison", "NumericEffect"})
#: the one numeric fluent the classical engines handle: action costs
_COST_FLUENT = "total-cost"


def _walk(node, seen: set[int]):
    """Every dataclass node below ``node`` (tuples followed), each once."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (tuple, list)):
            stack.extend(item)
            continue
        fields = getattr(item, "__dataclass_fields__", None)
        if fields is None or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        stack.extend(getattr(item, name) for name in fields if name not in ("pos", "filename"))


def pddl21_kind(domain, problem) -> str | None:
    """``"temporal"`` (durative actions or timed initial literals), ``"numeric"`` (numeric
    conditions, or numeric effects on any fluent but ``total-cost``) or None (classical,
    action costs included), for the engine choice of ``solve``."""
    if any(getattr(a, "durative", False) for a in domain.actions) or \
            getattr(problem, "timed_literals", ()):
        return "temporal"
    seen: set[int] = set()
    for root in (domain.actions, problem.goal, getattr(domain, "derived", ())):
        for item in _walk(root, seen):
            kind = type(item).__name__
            if kind in _NUMERIC_NODES:
                return "numeric"
            if kind == "Increase":
                fluent = getattr(item, "fluent", None)
                if getattr(fluent, "name", _COST_FLUENT) != _COST_FLUENT:
                    return "numeric"
    return None
