"""The engine subcommands of ``planning-core``: ground, reachable, landmarks, solve.

:func:`register` adds them to ``planning-core``'s parser with ``cmd_<name>`` as each one's
handler; each handler prints to stdout and returns the exit code. ``args`` carries
``domain``, ``problem`` (the two files in either order: their roles are told apart by
content, as ``validate`` does), ``json``, ``time_limit`` (seconds: CPU time for the
verdict, and wall-clock time as a guard for the user), ``memory_limit`` (MB; default half
the machine) and, per command, ``dump`` (ground), ``optimal`` and ``engine`` (solve).

Exit codes:

====  ==================================================================================
0     success: the command ran; for ``solve``, a plan was found
1     ``solve``: the task is unsolvable (proved); ``reachable``/``landmarks``: the goal is
      relaxed-unreachable, so no plan exists (the output is still printed)
2     bad input: a file that cannot be read or parsed, or semantic errors (undeclared
      names, arity, types); every error is printed to stderr as ``file:line:col: message``
3     unknown: the time or memory limit ran out before an answer (every command; the
      limit is named on stderr, and ``solve`` prints ``; status = unknown (time limit)``)
====  ==================================================================================

Output: ``solve`` prints the plan in VAL's plan format (one ``(action args)`` per line),
then ``; cost = N`` and ``; status = solved|unsolvable|unknown``; with ``--json`` it prints
exactly ``{"status", "plan", "cost", "engine", "time_s"}``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

from planning_core import cli
from planning_core.cli import ExitCode, error_line
from planning_core.cli.args import seconds
from planning_core.errors import PlanningError


class _BadInput(Exception):
    """Carries the diagnostics already printed; becomes exit code 2."""


def _roles(first: str, second: str) -> tuple[str, str]:
    """(domain path, problem path) of two files given in either order (by content)."""
    from planning_core.pddl.files import read_text
    from planning_core.cli.validate import classify
    try:
        if classify(read_text(first)) == "problem" and classify(read_text(second)) == "domain":
            return second, first
    except PlanningError:
        pass                          # the parser below reports the unreadable file
    return first, second


def _load(args):
    """Parse and check both files; print every error as file:line:col and raise _BadInput.

    Reading, parsing and checking count against the command's budget (``budget_of``):
    a 10 MB problem or a domain of 20,000 schemas stops at ``--time-limit`` like any
    later phase (``LimitReached``, answered unknown by ``_guarded``)."""
    from planning_core.limits import metering
    from planning_core.pddl.checker import check, errors_of
    from planning_core.pddl.parser import parse_domain_file, parse_problem_file
    with metering(budget_of(args)):
        args.domain, args.problem = _roles(args.domain, args.problem)
        try:
            domain = parse_domain_file(args.domain)
            problem = parse_problem_file(args.problem)
        except PlanningError as err:
            print(error_line(err), file=sys.stderr)
            raise _BadInput() from None
        diags = check(domain, problem)
    if not getattr(args, "no_warnings", False):
        for d in diags:
            if d.severity == "warning":
                print(str(d), file=sys.stderr)
    errors = errors_of(diags)
    if errors:
        for d in errors:
            print(str(d) if d.file else f"{args.domain}: error: {d.message}", file=sys.stderr)
        raise _BadInput()
    return domain, problem


def budget_of(args):
    """The ``Budget`` of a command: ``--time-limit`` CPU seconds (and as many wall-clock
    seconds, to give the user their prompt back on a busy machine), ``--memory-limit`` MB.
    One budget per command, made on the first call (before the files are read)."""
    from planning_core.limits import Budget, Limits
    budget = getattr(args, "_budget", None)
    if budget is not None:
        return budget
    seconds = getattr(args, "time_limit", None)
    memory = getattr(args, "memory_limit", None)
    budget = Budget(Limits(time_s=seconds, memory_mb=memory, wall_s=seconds))
    if cli.CAP_ADDRESS_SPACE and budget.memory_mb is not None:
        _cap_address_space(budget.memory_mb)
    args._budget = budget
    return budget



def _cap_address_space(memory_mb: float) -> None:
    """The last resort behind the estimates: a soft RLIMIT_AS of twice the memory limit
    (address space runs ahead of resident memory), so an allocation the meters did not see
    fails with ``MemoryError`` instead of swapping the machine. Only the soft limit: Fast
    Downward children set their own (``limited_process``)."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = int(max(2 * memory_mb, memory_mb + 1024) * 2**20)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft == resource.RLIM_INFINITY or soft > cap:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))


def _ground(domain, problem, budget):
    from planning_core.ground.grounder import ground
    return ground(domain, problem, budget=budget)


def _number(x: float | None):
    if x is None:
        return None
    return int(x) if float(x).is_integer() else x


def _guarded(func):
    from planning_core.limits import LimitReached

    def run(args) -> int:
        try:
            return func(args)
        except _BadInput:
            return ExitCode.BAD_INPUT
        except LimitReached as err:
            return _unknown(args, err.limit, err.detail)
        except MemoryError:           # RLIMIT_AS, the command line's last resort
            return _unknown(args, "memory limit", "out of memory")
        except PlanningError as err:
            print(error_line(err), file=sys.stderr)
            return ExitCode.BAD_INPUT
    run.__name__ = func.__name__
    run.__doc__ = func.__doc__
    return run


def _out(text: str) -> None:
    sys.stdout.write(text + "\n")


def _unknown(args, limit: str, detail: str) -> int:
    if getattr(args, "json", False):
        _out(json.dumps({"status": "unknown", "reason": limit, "detail": detail}))
    else:
        _out(f"; status = unknown ({limit})")
    print(f"unknown: {limit}: {detail}", file=sys.stderr)
    return ExitCode.UNKNOWN


# ------------------------------------------------------------------------ commands

@_guarded
def cmd_ground(args) -> int:
    """Counts of the ground task (and with --dump the task itself)."""
    domain, problem = _load(args)
    t0 = time.perf_counter()
    task = _ground(domain, problem, budget_of(args))
    elapsed = time.perf_counter() - t0
    counts = {"facts": len(task.facts), "actions": len(task.actions),
              "axioms": len(task.axioms), "time_s": round(elapsed, 6)}
    if getattr(args, "json", False):
        data = dict(counts)
        if getattr(args, "dump", False):
            data["task"] = dump_task(task)
        _out(json.dumps(data, sort_keys=True))
        return ExitCode.OK
    _out(f"facts: {counts['facts']}\nactions: {counts['actions']}\naxioms: {counts['axioms']}\n"
         f"time: {elapsed:.3f} s")
    if getattr(args, "dump", False):
        d = dump_task(task)
        _out("init: " + " ".join(d["init"]))
        _out("goal: " + " ".join(d["goal"]))
        for a in d["actions"]:
            _out(f"action {a['name']} cost {a['cost']}")
            for key in ("pre", "add", "del"):
                _out(f"  {key}: {' '.join(a[key])}".rstrip())
            for ce in a["when"]:
                _out(f"  when {' '.join(ce['if'])}: add {' '.join(ce['add'])} "
                     f"del {' '.join(ce['del'])}".rstrip())
        for ax in d["axioms"]:
            _out(f"axiom {ax['head']} <- {' '.join(ax['body'])}")
    return ExitCode.OK


def dump_task(task) -> dict:
    """The ground task as plain data (atoms printed, negations as ``(not ...)``)."""
    from planning_core.ground.facts import atom_str, bits
    atoms = task.facts.atoms

    def lits(pos: int, neg: int = 0) -> list[str]:
        return ([atom_str(atoms[i]) for i in bits(pos)]
                + [f"(not {atom_str(atoms[i])})" for i in bits(neg)])

    actions = []
    for a in task.actions:
        actions.append({
            "name": str(a), "cost": _number(a.cost), "pre": lits(a.pre_pos, a.pre_neg),
            "add": lits(a.add), "del": lits(a.delete),
            "when": [{"if": lits(c.cond_pos, c.cond_neg), "add": lits(c.add),
                      "del": lits(c.delete)} for c in a.cond_effects]})
    return {"init": lits(task.init), "goal": lits(task.goal_pos, task.goal_neg),
            "actions": actions,
            "axioms": [{"head": atom_str(atoms[x.head]), "body": lits(x.body_pos, x.body_neg)}
                       for x in task.axioms]}


@_guarded
def cmd_reachable(args) -> int:
    """Atoms and actions reachable in the delete relaxation from the initial state."""
    from planning_core.ground.facts import atom_str
    from planning_core.heuristics.relaxed import reachable
    domain, problem = _load(args)
    task = _ground(domain, problem, budget_of(args))
    r = reachable(task)
    atoms = sorted(set(task.atoms_of(r.facts)) | set(task.static_atoms))
    atom_texts = [atom_str(a) for a in atoms]
    action_texts = sorted({str(task.actions[k]) for k in r.actions})
    goal_ok = r.reaches(task.goal_pos)
    if getattr(args, "json", False):
        _out(json.dumps({"atoms": atom_texts, "actions": action_texts,
                         "goal_reachable": goal_ok}, sort_keys=True))
    else:
        _out(f"; {len(atom_texts)} reachable atoms")
        for t in atom_texts:
            _out(t)
        _out(f"; {len(action_texts)} reachable actions")
        for t in action_texts:
            _out(t)
        _out(f"; goal relaxed-reachable: {'yes' if goal_ok else 'no'}")
    return ExitCode.OK if goal_ok else ExitCode.UNSOLVABLE


@_guarded
def cmd_landmarks(args) -> int:
    """RHW fact landmarks of the initial state and their orderings."""
    from planning_core.heuristics.landmarks import rhw_landmarks
    from planning_core.heuristics.relaxed import goal_relaxed_reachable
    domain, problem = _load(args)
    budget = budget_of(args)
    task = _ground(domain, problem, budget)
    graph = rhw_landmarks(task, budget=budget)
    goal_ok = goal_relaxed_reachable(task)
    if getattr(args, "json", False):
        lms = [{"landmark": str(lm), "goal": lm.is_goal, "initial": lm.is_true}
               for lm in graph.landmarks]
        orders = [{"first": str(graph.landmarks[o.first]), "second": str(graph.landmarks[o.second]),
                   "kind": o.kind} for o in graph.orderings]
        _out(json.dumps({"landmarks": lms, "orderings": orders, "goal_reachable": goal_ok},
                        sort_keys=True))
    else:
        _out(f"; {len(graph.landmarks)} landmarks, {len(graph.orderings)} orderings")
        for line in graph.lines():
            _out(line)
    return ExitCode.OK if goal_ok else ExitCode.UNSOLVABLE


def _time_limit(args) -> float:
    value = getattr(args, "time_limit", None)
    return 60.0 if value is None else float(value)


@_guarded
def cmd_solve(args) -> int:
    """Find a plan (optimal with --optimal) and print it in VAL's plan format."""
    from planning_core.result import Status
    from planning_core.solve import solve
    domain, problem = _load(args)
    result = solve(domain, problem, optimal=bool(getattr(args, "optimal", False)),
                   time_limit=_time_limit(args),
                   engine=getattr(args, "engine", "auto") or "auto", budget=budget_of(args))
    # a timed plan valid only at a smaller tolerance than VAL's default (LPG-td's): the
    # -t to validate it with
    tolerance = dict(result.stats).get("tolerance") if result.status is Status.SOLVED else None
    if getattr(args, "json", False):
        _out(json.dumps({"status": result.status.value,
                         "plan": list(result.plan) if result.plan is not None else [],
                         "cost": _number(result.cost), "engine": result.engine,
                         "time_s": round(result.time_s, 6),
                         **({"tolerance": tolerance} if tolerance is not None else {})}))
    else:
        for step in result.plan or ():
            _out(step)
        if result.status is Status.SOLVED:
            _out(f"; cost = {_number(result.cost)}")
        if tolerance is not None:
            _out(f"; valid at tolerance {tolerance:g} (validate -t {tolerance:g})")
        _out(f"; status = {result.status.value}" + (f" ({result.reason})" if result.reason else ""))
    return {Status.SOLVED: ExitCode.OK, Status.UNSOLVABLE: ExitCode.UNSOLVABLE,
            Status.UNKNOWN: ExitCode.UNKNOWN}[result.status]


# ---------------------------------------------------------------- the command line

def _add_task_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("domain", help="domain file (the two files may come in either order)")
    p.add_argument("problem", help="problem file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--time-limit", type=seconds, default=60.0, metavar="S",
                   help="CPU seconds (also wall-clock seconds) before answering unknown, "
                        "exit 3 (default 60)")
    p.add_argument("--memory-limit", type=seconds, default=None, metavar="MB",
                   help="megabytes before answering unknown, exit 3 (default: half the "
                        "memory this process may use, cgroup and Slurm limits included, "
                        "or $PLANNING_CORE_MEMORY_LIMIT_MB)")
    p.add_argument("--no-warnings", action="store_true", help="do not print warnings")


def register(subparsers) -> None:
    """Add ``ground``, ``reachable``, ``landmarks`` and ``solve`` to ``planning-core``."""
    p = subparsers.add_parser("ground", help="ground a task and print its size")
    _add_task_arguments(p)
    p.add_argument("--dump", action="store_true", help="print the ground task")
    p.set_defaults(func=cmd_ground)

    p = subparsers.add_parser("reachable", help="relaxed-reachable atoms and actions")
    _add_task_arguments(p)
    p.set_defaults(func=cmd_reachable)

    p = subparsers.add_parser("landmarks", help="RHW fact landmarks and their orderings")
    _add_task_arguments(p)
    p.set_defaults(func=cmd_landmarks)

    p = subparsers.add_parser("solve", help="find a plan (optimal with --optimal)")
    _add_task_arguments(p)
    p.add_argument("--optimal", action="store_true", help="find a cost-optimal plan")
    p.add_argument("--engine", choices=("auto", "internal", "fd", "enhsp", "lpg", "tamer"),
                   default="auto",
                   help="in-process search, Fast Downward, or chosen by task size; numeric "
                        "and temporal (PDDL 2.1) tasks: ENHSP, LPG-td or TAMER (the "
                        "'planners' extra), their plans checked by our validator")
    p.set_defaults(func=cmd_solve)
