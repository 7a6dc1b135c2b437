"""Fast Downward (Helmert 2006) as an external engine, called as subprocesses.

The planner ships built inside the ``up-fast-downward`` wheel. We locate its files with
``importlib.util.find_spec`` (which does not import the package, and so never pulls in
unified-planning, ~2.5 s) and run its two components ourselves instead of its driver:

1. the translator, ``python -S -m fast_downward.translate`` with the wheel's copy on
   ``PYTHONPATH`` (the copy matching the binary, as the driver does); ``-S`` skips
   site-packages, which the translator does not need, and saves ~20 ms;
2. the search binary ``downward`` reading ``output.sas`` on stdin.

Skipping the driver saves one interpreter start (~60 ms on a trivial task) and lets us read
the translated task before searching: ``sas_features`` sees exactly which conditional
effects and axioms survived translation, so ``choose_search`` never picks a heuristic the
binary would reject. Limits are those of the driver (``RLIMIT_CPU``, ``RLIMIT_AS``) plus a
wall-clock kill of the process group; see ``limited_process``.

Exit codes are FD's own (driver/returncodes.py in the wheel). Only proofs become
``UNSOLVABLE``: the translator's relaxed-reachability and mutex checks, and code 11, which
the binary emits only after a complete search exhausted the state space (and which we
trust with axioms only for blind search, since FD's relaxation heuristics are unsafe there).
"""
from __future__ import annotations

import functools
import importlib.util
import logging
import os
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, Union

from planning_core.errors import EngineError, InputError
from planning_core.result import SolveResult, Status
from planning_core.search.features import TaskFeatures
from planning_core.search.limited_process import ProcessRun, run_limited

log = logging.getLogger(__name__)

ENGINE = "fast-downward"
TextOrPath = Union[str, os.PathLike]

# Named configurations (STYLE: explicit registry); any other string is passed to --search.
SEARCHES: dict[str, str] = {
    "lmcut": "astar(lmcut())",
    "hmax": "astar(hmax())",
    "blind": "astar(blind())",
    "lazy-ff": "let(hff, ff(), lazy_greedy([hff], preferred=[hff]))",
    "eager-ff": "let(hff, ff(), eager_greedy([hff], preferred=[hff]))",
    "lazy-add": "let(hadd, add(), lazy_greedy([hadd], preferred=[hadd]))",
    # the driver's alias lama-first (Richter & Westphal 2010, first iteration): FD's
    # standard satisficing configuration
    "lama-first": "let(hlm, eval_modify_costs(landmark_sum(lm_factory="
                  "lm_reasonable_orders_hps(lm_rhw()),pref=false),cost_type=one),"
                  "let(hff, eval_modify_costs(ff(),cost_type=one),"
                  "lazy_greedy([hff,hlm],preferred=[hff,hlm],cost_type=one,"
                  "reopen_closed=false)))",
}
#: With ``cpu_budget``, the wall-clock kill comes at this multiple of the CPU limit plus
#: ``CPU_BUDGET_WALL_SLACK_S``: it only protects the user from a process that waits.
CPU_BUDGET_WALL_FACTOR = 4.0
CPU_BUDGET_WALL_SLACK_S = 30.0

# Exit codes, as documented by FD (driver/returncodes.py).
_CODE_NAMES = {
    0: "SUCCESS", 1: "SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY", 2: "SEARCH_PLAN_FOUND_AND_OUT_OF_TIME",
    3: "SEARCH_PLAN_FOUND_AND_OUT_OF_MEMORY_AND_TIME", 10: "TRANSLATE_UNSOLVABLE",
    11: "SEARCH_UNSOLVABLE", 12: "SEARCH_UNSOLVED_INCOMPLETE",
    13: "SEARCH_UNSOLVABLE_WITHIN_BOUND", 20: "TRANSLATE_OUT_OF_MEMORY",
    21: "TRANSLATE_OUT_OF_TIME", 22: "SEARCH_OUT_OF_MEMORY", 23: "SEARCH_OUT_OF_TIME",
    24: "SEARCH_OUT_OF_MEMORY_AND_TIME", 30: "TRANSLATE_CRITICAL_ERROR",
    31: "TRANSLATE_INPUT_ERROR", 32: "SEARCH_CRITICAL_ERROR", 33: "SEARCH_INPUT_ERROR",
    34: "SEARCH_UNSUPPORTED", 35: "DRIVER_CRITICAL_ERROR", 36: "DRIVER_INPUT_ERROR",
    37: "DRIVER_UNSUPPORTED",
}
_LIMIT_REASONS = {20: "memory limit", 21: "time limit", 22: "memory limit", 23: "time limit",
                  24: "time and memory limit"}
_PLAN_FOUND = frozenset({0, 1, 2, 3})

# The translator proves unsolvability itself and then writes a trivially unsolvable task.
_TRANSLATOR_PROOFS = (
    ("No relaxed solution", "relaxed unreachable"),
    ("Goal violates a mutex", "goal violates a mutex"),
    ("Simplified to trivially false goal", "goal simplified to false"),
    ("Trivially false goal", "goal trivially false"),
)

# Evaluators and search engines whose exhaustion is a proof even with axioms: FD documents
# its relaxation heuristics (add, ff, hmax, ...) as unsafe on tasks with axioms.
_SOUND_WITH_AXIOMS = frozenset({
    "astar", "eager", "lazy", "eager_greedy", "lazy_greedy", "eager_wastar", "lazy_wastar",
    "iterated", "let", "blind", "const", "g", "sum", "max", "weight", "single",
    "tiebreaking", "alt", "pareto",
})


@dataclass(frozen=True, slots=True)
class FastDownwardPaths:
    root: Path        # the wheel's downward/ folder
    driver: Path      # downward/fast-downward.py (not used to solve; for users and checks)
    search: Path      # builds/release/bin/downward
    translator: Path  # builds/release/bin/fast_downward/translate (a Python package)

    @property
    def translator_pythonpath(self) -> Path:
        return self.translator.parent.parent


@functools.lru_cache(maxsize=1)
def locate_fast_downward() -> FastDownwardPaths:
    """Find the planner inside the installed ``up-fast-downward`` wheel, without importing it."""
    spec = importlib.util.find_spec("up_fast_downward")
    if spec is None or spec.origin is None:
        raise EngineError("Fast Downward not found: the 'up-fast-downward' package is not "
                          "installed (pip install up-fast-downward)")
    root = Path(spec.origin).parent / "downward"
    bin_dir = root / "builds" / "release" / "bin"
    paths = FastDownwardPaths(root=root, driver=root / "fast-downward.py",
                              search=bin_dir / "downward",
                              translator=bin_dir / "fast_downward" / "translate")
    missing = [p for p in (paths.driver, paths.search, paths.translator / "__main__.py")
               if not p.exists()]
    if missing:
        raise EngineError("the 'up-fast-downward' installation is incomplete; missing: "
                          + ", ".join(map(str, missing)))
    if not os.access(paths.search, os.X_OK):
        raise EngineError(f"Fast Downward's search binary is not executable: {paths.search}")
    return paths


def sas_features(sas_text: str) -> TaskFeatures:
    """Exact conditional effects, axioms and action costs of a translated SAS+ task.

    Reads FD's output.sas format: an effect line is ``ncond [var val]* var pre post``, an
    axiom block starts with ``begin_rule``, and the metric block holds 1 for action costs.
    Negation, quantifiers and disjunctions never survive translation, so they are False.
    """
    lines = sas_text.splitlines()
    conditional = axioms = costs = False
    index, count = 0, len(lines)
    while index < count:
        line = lines[index]
        if line == "begin_metric" and index + 1 < count:
            costs = lines[index + 1].strip() == "1"
        elif line == "begin_rule":
            axioms = True
        elif line == "begin_operator":
            prevails = int(lines[index + 2])
            effects_at = index + 3 + prevails
            effects = int(lines[effects_at])
            for effect in lines[effects_at + 1:effects_at + 1 + effects]:
                if not effect.startswith("0 "):
                    conditional = True
            index = effects_at + effects
        index += 1
    return TaskFeatures(has_conditional_effects=conditional, has_derived_predicates=axioms,
                        has_action_costs=costs)


def choose_search(features: TaskFeatures, optimal: bool = True) -> str:
    """The strongest configuration FD accepts, and keeps sound, for these features.

    Optimal: A* with LM-cut (Helmert & Domshlak 2009) when there are neither conditional
    effects nor axioms (the binary rejects both); A* with h_max (Bonet & Geffner 2001) with
    conditional effects (admissible and safe there, unlike with axioms); A* with the blind
    heuristic when there are axioms, as every FD heuristic that accepts axioms is documented
    as possibly unsafe with them. Satisficing: lazy greedy best-first search with h_FF and
    preferred operators (Hoffmann & Nebel 2001; Richter & Helmert 2009), which accepts all
    of these features (only its unsolvability claims suffer from axioms, see module doc).
    """
    if not optimal:
        return SEARCHES["lazy-ff"]
    if features.has_derived_predicates:
        return SEARCHES["blind"]
    if features.has_conditional_effects:
        return SEARCHES["hmax"]
    return SEARCHES["lmcut"]


def _exhaustion_is_proof(search: str, features: TaskFeatures) -> bool:
    if not features.has_derived_predicates:
        return True
    return set(re.findall(r"([A-Za-z_]\w*)\s*\(", search)) <= _SOUND_WITH_AXIOMS


def _input_file(source: TextOrPath, folder: Path, name: str) -> tuple[Path, str | None]:
    """A file the translator can read, and the user's path (for error messages) if any.

    A ``str`` containing ``(`` is PDDL text; any other ``str`` or path-like is a file name.
    """
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "(" not in source):
        path = Path(source)
        if not path.is_file():
            raise InputError(f"PDDL file not found: {path}", file=str(path))
        return path.resolve(), str(path)
    target = folder / name
    target.write_text(source)
    return target, None


def read_plan(text: str) -> tuple[tuple[str, ...], float | None]:
    """Steps (lower-cased, ``"(name arg ...)"``) and the cost from FD's ``; cost = N`` line."""
    steps: list[str] = []
    cost = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith(";"):
            found = re.search(r"cost\s*=\s*(-?\d+(?:\.\d+)?)", line)
            if found:
                cost = float(found.group(1))
            continue
        inner = line[1:-1] if line.startswith("(") and line.endswith(")") else line
        steps.append("(" + " ".join(inner.lower().split()) + ")")
    return tuple(steps), cost


_STAT_PATTERNS = (
    ("sas_variables", re.compile(r"^Translator variables: (\d+)", re.M), int),
    ("sas_facts", re.compile(r"^Translator facts: (\d+)", re.M), int),
    ("sas_operators", re.compile(r"^Translator operators: (\d+)", re.M), int),
    ("sas_axioms", re.compile(r"^Translator axioms: (\d+)", re.M), int),
    ("expanded", re.compile(r"\] Expanded (\d+) state", re.M), int),
    ("evaluated", re.compile(r"\] Evaluated (\d+) state", re.M), int),
    ("generated", re.compile(r"\] Generated (\d+) state", re.M), int),
    ("search_time_s", re.compile(r"\] Search time: ([\d.]+)s", re.M), float),
    ("search_peak_memory_kb", re.compile(r"^Peak memory: (\d+) KB", re.M), int),
    ("plan_cost", re.compile(r"\] Plan cost: (\d+)", re.M), int),
)


def _parse_stats(output: str) -> dict[str, object]:
    stats: dict[str, object] = {}
    for key, pattern, convert in _STAT_PATTERNS:
        found = pattern.findall(output)
        if found:
            stats[key] = convert(found[-1])
    return stats


def _engine_error(component: str, run: ProcessRun, user_file: str | None = None) -> EngineError:
    if run.returncode < 0:
        what = f"was killed by {run.signal_name}"
    else:
        what = (f"failed with exit code {run.returncode} "
                f"({_CODE_NAMES.get(run.returncode, 'undocumented')})")
    tail = run.tail()
    return EngineError(f"Fast Downward's {component} {what}" + (f":\n{tail}" if tail else ""),
                       file=user_file)


#: A run stopped by its CPU limit whose peak resident set reached this share of its
#: address-space limit was held at the memory limit too: just under ``RLIMIT_AS`` the
#: translator can spin on failing allocations until the CPU limit kills it (measured: at
#: 80 MB it burnt its whole 30 s at 78.5 MB resident), so "time limit" alone would hide
#: the cause, and which of the two limits strikes first varies between machines.
AT_MEMORY_LIMIT_SHARE = 0.9

#: What a program that could not even start under its ``RLIMIT_AS`` prints: the dynamic
#: loader failing to map a library, or Python's ``MemoryError`` while importing (before
#: FD's translator sets up its own out-of-memory exit code 20, so it exits with 1). Where
#: that happens depends on the machine's Python build, so the same small limit was an
#: engine error on one machine and "memory limit" on another.
_STARTUP_OUT_OF_MEMORY = ("MemoryError", "failed to map segment", "Cannot allocate memory")


def _limit_reason(run: ProcessRun, time_limit: float,
                  memory_limit_mb: int | None = None) -> str | None:
    """Why a run ended at a limit, or None if it did not."""
    if run.returncode in _LIMIT_REASONS:
        reason = _LIMIT_REASONS[run.returncode]
    elif run.killed_at_wall_limit:
        reason = "time limit"
    elif run.signal_name in ("SIGXCPU", "SIGKILL") and run.cpu_s >= max(1.0, int(time_limit)):
        reason = "time limit"  # the hard CPU limit struck before FD's handler finished
    elif (memory_limit_mb is not None and run.returncode > 0
          and any(marker in run.stderr for marker in _STARTUP_OUT_OF_MEMORY)):
        return "memory limit"  # out of address space before FD's own handler was set up
    else:
        return None
    if (reason == "time limit" and memory_limit_mb is not None
            and run.peak_rss_kb >= AT_MEMORY_LIMIT_SHARE * memory_limit_mb * 1024):
        return "time and memory limit"
    return reason


def _translator_env(paths: FastDownwardPaths) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(paths.translator_pythonpath), PYTHONHASHSEED="0")


def _translate(paths: FastDownwardPaths, domain: Path, problem: Path, folder: Path,
               time_limit: float, memory_limit_mb: int | None,
               wall_limit: float | None = None) -> ProcessRun:
    cmd = [sys.executable, "-S", "-m", "fast_downward.translate", domain, problem,
           "--sas-file", "output.sas"]
    log.debug("translate: %s", cmd)
    return run_limited(cmd, cwd=folder, time_limit=time_limit, memory_limit_mb=memory_limit_mb,
                       env=_translator_env(paths), name="translate", wall_limit=wall_limit)


def _protective_wall(cpu_limit: float) -> float:
    return CPU_BUDGET_WALL_FACTOR * cpu_limit + CPU_BUDGET_WALL_SLACK_S


def run_fast_downward(domain: TextOrPath, problem: TextOrPath, *, search: str | None = None,
                      optimal: bool = True, features: TaskFeatures | None = None,
                      time_limit: float = 60, memory_limit_mb: int | None = 4096,
                      workdir: TextOrPath | None = None, cpu_budget: bool = False) -> SolveResult:
    """Translate and solve a task with Fast Downward; see the module doc for the contract.

    ``domain``/``problem`` are PDDL text or file paths. ``search`` is a key of ``SEARCHES``
    or an FD ``--search`` string; when None it is chosen by ``choose_search`` from the
    translated task's exact features, joined with ``features`` if given (a caller may add
    features to force a more general configuration, never remove them). ``time_limit`` is
    wall-clock seconds for translation and search together (a child gets up to
    ``limited_process.WALL_GRACE_S`` more to stop by itself). Temporary files live in a
    fresh folder inside ``workdir`` (default: the system's), removed afterwards.

    With ``cpu_budget`` the limit is CPU seconds instead: the search gets what the
    translator's CPU time left of it, and the wall-clock kill is only a generous guard
    (:data:`CPU_BUDGET_WALL_FACTOR`), so the verdict does not depend on machine load.
    """
    start = time.perf_counter()
    paths = locate_fast_downward()
    deadline = start + time_limit
    stats: dict[str, object] = {}

    def result(status: Status, reason: str = "", plan: tuple[str, ...] | None = None,
               cost: float | None = None) -> SolveResult:
        return SolveResult(status=status, plan=plan, cost=cost, engine=ENGINE,
                           time_s=time.perf_counter() - start,
                           stats=tuple(sorted(stats.items())), reason=reason)

    with tempfile.TemporaryDirectory(prefix="planning_core_fd_", dir=workdir) as tmp:
        folder = Path(tmp)
        domain_path, domain_file = _input_file(domain, folder, "domain.pddl")
        problem_path, problem_file = _input_file(problem, folder, "problem.pddl")
        wall = _protective_wall(time_limit) if cpu_budget else None
        translate = _translate(paths, domain_path, problem_path, folder,
                               time_limit, memory_limit_mb, wall)
        stats.update(_parse_stats(translate.stdout), translate_wall_s=round(translate.wall_s, 4),
                     translate_peak_rss_kb=translate.peak_rss_kb)
        if (reason := _limit_reason(translate, time_limit, memory_limit_mb)) is not None:
            return result(Status.UNKNOWN, reason)
        if translate.returncode != 0:
            raise _engine_error("translator", translate, domain_file or problem_file)
        for message, reason in _TRANSLATOR_PROOFS:
            if message in translate.stdout:
                return result(Status.UNSOLVABLE, reason)
        sas_path = folder / "output.sas"
        if not sas_path.is_file():
            raise _engine_error("translator (no output.sas)", translate)
        task_features = sas_features(sas_path.read_text())
        if features is not None:
            task_features = task_features.union(features)
        config = SEARCHES.get(search, search) if search else choose_search(task_features, optimal)
        stats["search"] = config
        if cpu_budget:
            remaining = time_limit - translate.cpu_s
        else:
            remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return result(Status.UNKNOWN, "time limit")
        cmd = [paths.search, "--search", config, "--internal-plan-file", "sas_plan"]
        log.debug("search: %s < output.sas", cmd)
        run = run_limited(cmd, cwd=folder, time_limit=remaining, memory_limit_mb=memory_limit_mb,
                          stdin_path=sas_path, name="search",
                          wall_limit=_protective_wall(remaining) if cpu_budget else None)
        found = _parse_stats(run.stdout)
        fd_cost = found.pop("plan_cost", None)
        stats.update(found, search_wall_s=round(run.wall_s, 4), search_peak_rss_kb=run.peak_rss_kb)
        plan_path = folder / "sas_plan"
        if run.returncode in _PLAN_FOUND and plan_path.is_file():
            plan, cost = read_plan(plan_path.read_text())
            if cost is None and fd_cost is not None:
                cost = float(fd_cost)
            return result(Status.SOLVED, plan=plan, cost=cost)
        if run.returncode == 0:
            raise _engine_error("search (exit 0 without a plan file)", run)
        if run.returncode == 11:
            if _exhaustion_is_proof(config, task_features):
                return result(Status.UNSOLVABLE, "search exhausted")
            return result(Status.UNKNOWN, "search exhausted, but the heuristic is not safe "
                                          "with axioms")
        if run.returncode == 12:
            return result(Status.UNKNOWN, "incomplete search failed")
        if run.returncode == 13:
            return result(Status.UNKNOWN, "no plan within the cost bound")
        if (reason := _limit_reason(run, remaining, memory_limit_mb)) is not None:
            return result(Status.UNKNOWN, reason)
        raise _engine_error(f"search '{config}'", run)


class TranslateRun(NamedTuple):
    """One translator run, for comparing grounders: its exit code, output and cost."""

    returncode: int
    sas_text: str | None
    time_s: float
    peak_rss_kb: int


def translator_only(domain: TextOrPath, problem: TextOrPath, time_limit: float = 60,
                    memory_limit_mb: int | None = 4096,
                    workdir: TextOrPath | None = None) -> TranslateRun:
    """Run only FD's translator; never raises for the translator's own failures.

    ``time_s`` is the child's wall-clock time, interpreter start (~40 ms) included;
    ``peak_rss_kb`` its own maximum resident set size from ``wait4``. A run killed at the
    wall-clock limit reports FD's translator time-out code, 21. ``sas_text`` is None unless
    the translator succeeded.
    """
    paths = locate_fast_downward()
    with tempfile.TemporaryDirectory(prefix="planning_core_fd_", dir=workdir) as tmp:
        folder = Path(tmp)
        domain_path, _ = _input_file(domain, folder, "domain.pddl")
        problem_path, _ = _input_file(problem, folder, "problem.pddl")
        run = _translate(paths, domain_path, problem_path, folder, time_limit, memory_limit_mb)
        sas_path = folder / "output.sas"
        sas = sas_path.read_text() if run.returncode == 0 and sas_path.is_file() else None
        code = 21 if run.killed_at_wall_limit else run.returncode
        return TranslateRun(code, sas, run.wall_s, run.peak_rss_kb)
