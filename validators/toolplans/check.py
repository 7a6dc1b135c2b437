"""Check a model's tool chain (or refusal) on the compiled task with the core validator.

The chain is turned into plan steps (:mod:`.chain`) and simulated by
``planning_core.validate`` on the PDDL3 form of the task; each verdict of the validator is
mapped back to tool-use terms (:mod:`.faults`):

==================== =========================================================
validator verdict     fault
==================== =========================================================
unknown action        ``unknown_tool`` (E6)
wrong arity, types    ``wrong_arguments`` (E5)
unknown object        ``hallucinated_input`` (E6)
precondition failed   ``broken_tool`` (E5) for ``(working-T)``; ``constraint_violated``
                      (E3) for a call limit; else ``premature_call`` (E6 in a
                      holistic chain, paper line 659; E4 in a step-wise prediction, line
                      619) when the missing input's maker is called later,
                      ``missing_prerequisite`` (E4) when it never is
goal not satisfied    ``incomplete`` (E2)
constraint violated   ``forbidden_tool`` or ``constraint_violated`` (E3)
==================== =========================================================

The validator stops at the first failing step and checks trajectory constraints only at
the end, so the executed prefix is checked again without the goal for a constraint broken
earlier; the earliest fault is the verdict's ``primary``. Extraneous calls (tools no
required output depends on, by relevance analysis) and redundant calls (that add nothing)
are listed but do not make a chain wrong. The grade is numbers, not a scale: the chain's
cost beside the optimal cost (from the solver) for a correct chain; the longest valid
prefix and the fraction of required outputs it produces for an incorrect one.
"""
from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field

from planning_core.pddl.plans import Plan, PlanStep
from planning_core.result import Status
from planning_core.validate import ValidationReport, Validator, Verdict
from planning_core.validators.toolplans.calls import ModelOutput, parse_output
from planning_core.validators.toolplans.chain import StepInfo, to_steps
from planning_core.validators.toolplans.compile import output_object
from planning_core.validators.toolplans.context import TaskContext
from planning_core.validators.toolplans.faults import Fault, classes_of
from planning_core.validators.toolplans.grade import holistic_grade, missing_calls

__all__ = ["ChainReport", "check_output", "execute"]

_PRIORITY = {"format_violation": 0, "unknown_tool": 0, "forbidden_tool": 1, "extraneous_tool": 1,
             "wrong_arguments": 2, "broken_tool": 3, "hallucinated_input": 4,
             "inaccessible_input": 4, "constraint_violated": 5, "premature_call": 6,
             "missing_prerequisite": 6, "dead_end": 7, "incomplete": 8,
             "premature_conclusion": 8, "goal_misunderstood": 9, "off_goal": 9, "missed_refusal": 9,
             "unjustified_refusal": 9, "malformed_output": 9}


@dataclass(frozen=True, slots=True)
class ChainReport:
    """The verdict on one model output.

    ``correct`` is True/False, or None when the solver hit a limit deciding a refusal.
    ``faults`` are sorted, the first being the verdict's reason (``primary``).
    ``valid_prefix`` counts the calls before the first fault; ``outputs_produced`` is the
    fraction of required outputs that prefix makes available. ``cost`` is the chain's cost
    when it is valid, ``optimal_cost`` the solver's (None when not graded or unsolvable).
    """

    correct: bool | None
    refused: bool
    calls: int
    faults: tuple[Fault, ...] = ()
    valid_prefix: int = 0
    outputs_produced: float = 0.0
    cost: float | None = None
    optimal_cost: float | None = None
    extraneous: tuple[int, ...] = ()
    redundant: tuple[int, ...] = ()
    feasibility: object = field(default=None, compare=False)
    grade: float | None = None          # APB's Plan Grade, holistic reading (grade.py)
    e1: bool | None = None              # E1 decided (True/False) or undecided (None)
    e1_reason: str = ""
    undecided: tuple[tuple[int, str], ...] = ()   # (call, parameter) read only by type
    format: str = "ours"
    missing_outputs: int = 0

    @property
    def classes(self) -> dict[str, list]:
        """Every APB class that holds, with the calls where it holds (None: the chain)."""
        return classes_of(self.faults)

    @property
    def primary(self) -> Fault | None:
        return self.faults[0] if self.faults else None

    @property
    def excess_cost(self) -> float | None:
        if self.cost is None or self.optimal_cost is None:
            return None
        return self.cost - self.optimal_cost

    @property
    def verdict(self) -> str:
        if self.correct is None:
            return "unknown"
        if self.refused:
            return "right_refusal" if self.correct else "wrong_refusal"
        return "valid" if self.correct else "invalid"

    def to_dict(self) -> dict:
        feas = self.feasibility
        return {"verdict": self.verdict, "correct": self.correct, "refused": self.refused,
                "calls": self.calls,
                "class": self.primary.code if self.primary else None,
                "fault": self.primary.kind if self.primary else None,
                "step": self.primary.step if self.primary else None,
                "faults": [f.to_dict() for f in self.faults],
                "valid_prefix": self.valid_prefix,
                "outputs_produced": round(self.outputs_produced, 4),
                "cost": _num(self.cost), "optimal_cost": _num(self.optimal_cost),
                "excess_cost": _num(self.excess_cost),
                "extraneous": list(self.extraneous), "redundant": list(self.redundant),
                "classes": self.classes, "grade": self.grade,
                "e1": "undecided" if self.e1 is None else self.e1, "e1_reason": self.e1_reason,
                "undecided_arguments": [{"call": k, "parameter": p} for k, p in self.undecided],
                "format": self.format, "missing_outputs": self.missing_outputs,
                "feasibility": feas.to_dict() if feas is not None else None}


def _num(x):
    if x is None:
        return None
    return int(x) if float(x).is_integer() else x


# ------------------------------------------------------------------ fault mapping

def _did_you_mean(task, name: str) -> str:
    names = {t.name: t.spelling for t in task.tools}
    close = difflib.get_close_matches(name.lower(), list(names), n=1)
    return f" (did you mean {names[close[0]]}?)" if close else ""


def _last_calls(infos: tuple[StepInfo, ...]) -> dict[str, int]:
    """Tool name -> the index of its last call: "called after call k" in constant time, so
    checking stays linear in the chain's length (a hostile chain may hold 10,000 calls)."""
    return {i.tool.name: i.index for i in infos if i.tool is not None}


def _called_later(last: dict[str, int], after: int, tool: str) -> bool:
    return last.get(tool, 0) > after


def _precondition_fault(ctx: TaskContext, report: ValidationReport,
                        infos: tuple[StepInfo, ...]) -> Fault:
    k = report.step
    info = infos[k - 1]
    tool = info.tool
    text = info.call.text()
    unsat = report.unsatisfied
    last = _last_calls(infos)
    if any(u == f"(working-{tool.name})" for u in unsat):
        return Fault("broken_tool", k, f"call {k} uses {tool.name}, which is broken: it fails "
                                       "whatever it is given", text)
    limit = [u for u in unsat if u.startswith("(not (count-") or u == f"(not (called-{tool.name}))"]
    if limit:
        rules = [c.describe() for c in ctx.task.constraints if c.kind == "at_most"
                 and c.tool in (tool.name, None)]
        return Fault("constraint_violated", k, f"call {k} of {tool.name} breaks the limit: "
                                               + "; ".join(rules), text)
    hidden = {i.name for i in ctx.task.items if not i.accessible}
    unseen = [u[6:-1] for u in unsat if u.startswith("(have ") and u[6:-1] in hidden]
    if unseen:
        return Fault("inaccessible_input", k, f"call {k} {tool.name} uses {', '.join(unseen)}, "
                                              "an input no tool can read (missing visual "
                                              "evidence)", text)
    # a missing input, extra required type or earlier tool
    needs = []
    later = False
    for u in unsat:
        if u.startswith("(have "):
            obj = u[6:-1]
            maker = ctx.pddl3.producers.get(obj)
            param = next((p for p, o in info.objects.items() if o == obj), None)
            what = f"argument {param!r} " if param else ""
            needs.append(f"{what}needs {ctx.pddl3.item_type.get(obj, obj)} from {maker}")
            later |= maker is not None and _called_later(last, k, maker)
        elif u.startswith("(exists "):
            m = re.search(r"- ([^\s)]+)\)", u)
            dtype = m.group(1) if m else u
            needs.append(f"needs a {dtype}")
            later |= any(_called_later(last, k, t.name) for t in ctx.task.tools
                         if dtype in t.produces)
        elif u.startswith("(called-"):
            other = u[len("(called-"):-1]
            needs.append(f"must come after {other}")
            later |= _called_later(last, k, other)
        else:
            needs.append(u)
    kind = "premature_call" if later else "missing_prerequisite"
    why = "before the call it depends on" if later else "without a call it depends on"
    return Fault(kind, k, f"call {k} {tool.name} comes {why}: {'; '.join(needs)}", text)


def _step_fault(ctx: TaskContext, report: ValidationReport, infos: tuple[StepInfo, ...],
                steps: tuple[PlanStep, ...]) -> Fault | None:
    v, k = report.verdict, report.step
    if v is Verdict.PRECONDITION_FAILED:
        return _precondition_fault(ctx, report, infos)
    info = infos[k - 1] if k else None
    text = info.call.text() if info else None
    if v is Verdict.UNKNOWN_ACTION:
        hint = _did_you_mean(ctx.task, info.call.name)
        return Fault("unknown_tool", k, f"call {k}: there is no tool {info.call.name!r}{hint}", text)
    if v is Verdict.WRONG_ARITY:
        if any(f.kind == "wrong_arguments" for f in info.faults):
            return None  # the missing argument is already named
        return Fault("wrong_arguments", k, f"call {k}: {report.message}", text)
    if v is Verdict.UNKNOWN_OBJECT:
        bad = [(p, info.call.arguments[p]) for p, o in info.objects.items() if o is None]
        where = ", ".join(f"{p}={v!r}" for p, v in bad) or report.message
        return Fault("hallucinated_input", k, f"call {k}: {where} is neither a data item the "
                                              "user supplied nor an output of any call", text)
    if v is Verdict.TYPE_ERROR:
        for p in info.tool.data_params:
            obj = info.objects.get(p.name)
            if obj is not None and ctx.pddl3.item_type.get(obj) != p.data_type:
                return Fault("wrong_arguments", k,
                             f"call {k}: argument {p.name!r} is given {obj} of type "
                             f"{ctx.pddl3.item_type.get(obj)}, but needs a {p.data_type}", text)
        return Fault("wrong_arguments", k, f"call {k}: {report.message}", text)
    if v is Verdict.CONSTRAINT_VIOLATED:
        c = report.unsatisfied[0] if report.unsatisfied else ""
        m = re.match(r"\(always \(not \(called-([^\s()]+)\)\)\)", c)
        if m:
            return Fault("forbidden_tool", k, f"call {k} uses {m.group(1)}, which the user "
                                              "forbade", text)
        m = re.match(r"\(sometime-before \(called-([^\s()]+)\) \(called-([^\s()]+)\)\)", c)
        if m:
            return Fault("constraint_violated", k, f"call {k} calls {m.group(1)} before "
                                                   f"{m.group(2)}, which the user forbade", text)
        m = re.match(r"\(sometime \(called-([^\s()]+)\)\)", c)
        if m:
            return Fault("constraint_violated", None, f"the chain never calls {m.group(1)}, "
                                                      "which the user asked for")
        return Fault("constraint_violated", k, report.message, text)
    return None


def _earliest_violation(ctx: TaskContext, steps: tuple[PlanStep, ...], infos, upto: int) -> Fault | None:
    """The first step-located trajectory-constraint violation within ``steps[:upto]``.

    The validator names the first violated constraint, not the earliest step, so shorter
    prefixes are tried until none is violated (constraints here break for good once broken).
    """
    if ctx.pddl3.problem.constraints is None:
        return None
    found = None
    while upto > 0:
        rep = ctx.prefix_validator.validate(Plan(steps[:upto]))
        if rep.verdict is not Verdict.CONSTRAINT_VIOLATED or rep.step is None:
            break
        found = _step_fault(ctx, rep, infos, steps)
        upto = rep.step - 1
    return found


# ------------------------------------------------------------------------ checking

@dataclass(frozen=True, slots=True)
class Execution:
    """A chain run through the validator: steps, per-call readings, faults, trace."""

    steps: tuple[PlanStep, ...]
    infos: tuple[StepInfo, ...]
    report: ValidationReport
    faults: tuple[Fault, ...]


def execute(ctx: TaskContext, calls, validator: Validator | None = None) -> Execution:
    """Validate ``calls`` (with the goal, or with ``validator``) and collect every fault."""
    steps, infos = to_steps(ctx, tuple(calls))
    report = (validator or ctx.validator).validate(Plan(steps), trace=True)
    faults = [f for info in infos for f in info.faults]
    if report.verdict is Verdict.GOAL_NOT_SATISFIED:
        lacking = report.unsatisfied_goals
        types = re.findall(r"- ([^\s)]+)\)", " ".join(lacking))
        faults.append(Fault("incomplete", None, "the chain ends without producing "
                                                + ", ".join(types or lacking)))
    else:
        main = _step_fault(ctx, report, infos, steps)
        if main is not None:
            faults.append(main)
    if report.verdict is not Verdict.VALID:
        # the calls that executed: all of them, up to a violated constraint's call, or
        # those before the call that failed
        if report.step is None:
            upto = len(steps)
        elif report.verdict is Verdict.CONSTRAINT_VIOLATED:
            upto = report.step
        else:
            upto = report.step - 1
        early = _earliest_violation(ctx, steps, infos, upto)
        if early is not None:
            faults.append(early)
    # optional data arguments: checked against the items available at their call
    have = _have_before(ctx, report, len(steps))
    last = _last_calls(infos)
    for info in infos:
        if info.tool is None:
            continue
        for p in info.tool.params:
            if p.required or p.data_type is None or p.name not in info.objects:
                continue
            obj = info.objects[p.name]
            text = info.call.text()
            if obj is None:
                faults.append(Fault("hallucinated_input", info.index,
                                    f"call {info.index}: optional argument {p.name!r} is "
                                    "neither a data item the user supplied nor an output "
                                    "of any call", text))
            elif info.index - 1 < len(have) and obj not in have[info.index - 1]:
                maker = ctx.pddl3.producers.get(obj)
                kind = "premature_call" if maker and _called_later(last, info.index, maker) \
                    else "missing_prerequisite"
                faults.append(Fault(kind, info.index, f"call {info.index}: optional argument "
                                                      f"{p.name!r} needs {obj} from {maker}", text))
    # past the validator's failing call: the same semantics, continued (see _continue)
    faults += _continue(ctx, report, infos, steps, validator is None)
    return Execution(steps, infos, report, _unique(faults))


def _unique(faults) -> tuple[Fault, ...]:
    """One fault per kind and step (the first found; minor only if every one is minor)."""
    unique: dict = {}
    for f in faults:
        key = (f.kind, f.step)
        if key not in unique:
            unique[key] = f
        elif unique[key].minor and not f.minor:
            unique[key] = Fault(f.kind, f.step, unique[key].message, unique[key].call, False)
    return tuple(sorted(unique.values(), key=lambda f: (f.sort_key(), _PRIORITY[f.kind])))


_STOPS = (Verdict.PRECONDITION_FAILED, Verdict.UNKNOWN_ACTION, Verdict.UNKNOWN_OBJECT,
          Verdict.TYPE_ERROR, Verdict.WRONG_ARITY)


def _continue(ctx: TaskContext, report: ValidationReport, infos: tuple[StepInfo, ...],
              steps, with_goal: bool) -> list[Fault]:
    """Every fault of every call, including those after the one the validator stopped at
    (APB: "evaluate all 6 categories independently; do not stop after finding the first
    error", paper lines 631 and 139), and of the chain's end (required outputs never made,
    a must-call tool never called: the validator reports only one of the two).

    Every call is judged in the state the calls before it *would* have left had each of
    them succeeded: a failed call's outputs count as made (the model's plan relies on them,
    and a missing input is charged once, at the call that lacks it), an unknown tool makes
    nothing. :func:`simulate` does this on the tool semantics, which is what the PDDL
    compilation encodes, so both agree on the first fault (a test checks it on every dataset
    chain) and this adds the faults the validator, stopping at its first, cannot see."""
    sim = simulate(ctx, infos)
    out = [f for f in sim.faults if f.step is not None]
    if with_goal:   # the validator checks the goal or the trajectory constraints, not both
        out += [f for f in sim.faults if f.step is None]
    return out


@dataclass(frozen=True, slots=True)
class Simulation:
    faults: tuple[Fault, ...]
    have: frozenset          # objects held at the end
    called: frozenset        # tools called (successfully or not) at the end
    counts: dict = field(default_factory=dict, compare=False)   # at_most constraint -> calls

    def types(self, ctx: TaskContext) -> set[str]:
        return {ctx.pddl3.item_type[o] for o in self.have}


def simulate(ctx: TaskContext, infos: tuple[StepInfo, ...], *, have=None, called=None,
             counts=None, goal: bool = True) -> Simulation:
    """Every plan-level fault of the calls ``infos`` on the tool semantics, each call judged
    in the state the earlier ones would have left (see :func:`_continue`). JSON-side faults
    (unknown or missing arguments, enums, forbidden and distractor tools) are in ``infos``
    already and not repeated. ``have``/``called``/``counts`` give a start state (a prefix's);
    ``goal`` adds the chain-level faults (required outputs not made, a must-call tool never
    called)."""
    task = ctx.task
    hidden = {i.name for i in task.items if not i.accessible}
    have = set(have if have is not None else {i.name for i in task.items if i.accessible})
    called = set(called or ())
    counts = dict(counts or {})
    limits = [c for c in task.constraints if c.kind == "at_most"]
    orders = [c for c in task.constraints if c.kind == "not_before"]
    faults: list[Fault] = []
    last = _last_calls(infos)
    for info in infos:
        k, tool, text = info.index, info.tool, info.call.text()
        if tool is None:
            hint = _did_you_mean(task, info.call.name)
            faults.append(Fault("unknown_tool", k, f"call {k}: there is no tool "
                                                   f"{info.call.name!r}{hint}", text))
            continue
        if tool.name in task.broken:
            faults.append(Fault("broken_tool", k, f"call {k} uses {tool.name}, which is "
                                                  "broken: it fails whatever it is given", text))
        # missing inputs: made by a later call (premature) or by none (missing); one call
        # may have both, and each is its own class holistically (E6 and E4, faults.py)
        needs: dict[bool, list[str]] = {True: [], False: []}
        halluc, hid, mistyped = [], [], []
        for p in tool.data_params:
            if p.name not in info.call.arguments:
                continue
            obj = info.objects.get(p.name)
            if obj is None:
                halluc.append(f"{p.name}={info.call.arguments[p.name]!r}")
            elif obj in hidden:
                hid.append(obj)
            elif ctx.pddl3.item_type.get(obj) != p.data_type:
                mistyped.append((p, obj))
            elif obj not in have:
                maker = ctx.pddl3.producers.get(obj)
                needs[maker is not None and _called_later(last, k, maker)].append(
                    f"argument {p.name!r} needs {ctx.pddl3.item_type.get(obj, obj)} "
                    f"from {maker}")
        for p in tool.params:   # optional data arguments, checked the same way
            if p.required or p.data_type is None or p.name not in info.objects:
                continue
            obj = info.objects[p.name]
            if obj is None:
                halluc.append(f"optional {p.name}={info.call.arguments[p.name]!r}")
            elif obj in hidden:
                hid.append(obj)
            elif obj not in have:
                maker = ctx.pddl3.producers.get(obj)
                needs[maker is not None and _called_later(last, k, maker)].append(
                    f"optional argument {p.name!r} needs {obj} from {maker}")
        held_types = {ctx.pddl3.item_type[o] for o in have}
        for r in tool.requires:
            if r not in held_types:
                needs[any(_called_later(last, k, t.name) for t in task.tools
                          if r in t.produces)].append(f"needs a {r}")
        for u in tool.after:
            if u not in called:
                needs[_called_later(last, k, u)].append(f"must come after {u}")
        if halluc:
            faults.append(Fault("hallucinated_input", k, f"call {k}: {', '.join(halluc)} is "
                                "neither a data item the user supplied nor an output of any "
                                "call", text))
        if hid:
            faults.append(Fault("inaccessible_input", k, f"call {k} {tool.name} uses "
                                f"{', '.join(hid)}, an input no tool can read (missing visual "
                                "evidence)", text))
        for p, obj in mistyped:
            faults.append(Fault("wrong_arguments", k, f"call {k}: argument {p.name!r} is given "
                                f"{obj} of type {ctx.pddl3.item_type.get(obj)}, but needs a "
                                f"{p.data_type}", text))
        for later, kind, why in ((True, "premature_call", "before the call it depends on"),
                                 (False, "missing_prerequisite",
                                  "without a call it depends on")):
            if needs[later]:
                faults.append(Fault(kind, k, f"call {k} {tool.name} comes {why}: "
                                             f"{'; '.join(needs[later])}", text))
        for c in orders:
            if c.tool == tool.name and c.until not in called:
                faults.append(Fault("constraint_violated", k, f"call {k} calls {tool.name} "
                                    f"before {c.until}, which the user forbade", text))
        for c in limits:
            if c.tool in (tool.name, None) and counts.get(c, 0) >= c.n:
                faults.append(Fault("constraint_violated", k, f"call {k} of {tool.name} breaks "
                                    f"the limit: {c.describe()}", text))
        for c in limits:
            if c.tool in (tool.name, None):
                counts[c] = counts.get(c, 0) + 1
        called.add(tool.name)
        have.update(output_object(tool.name, x) for x in tool.produces)
    if goal:
        held_types = {ctx.pddl3.item_type[o] for o in have}
        lacking = [g for g in task.goal if g not in held_types]
        if lacking:
            faults.append(Fault("incomplete", None, "the chain ends without producing "
                                                    + ", ".join(lacking)))
        for c in task.constraints:
            if c.kind == "must_call" and c.tool not in called:
                faults.append(Fault("constraint_violated", None, f"the chain never calls "
                                                                 f"{c.tool}, which the user asked for"))
    return Simulation(tuple(faults), frozenset(have), frozenset(called), counts)


def _have_before(ctx: TaskContext, report: ValidationReport, n: int) -> list[set[str]]:
    """``have[k]``: the items available before call k+1, for the executed steps."""
    have = {i.name for i in ctx.task.items if i.accessible}
    out = [set(have)]
    for st in report.trace:
        have |= {a[6:-1] for a in st.added if a.startswith("(have ")}
        out.append(set(have))
    return out[:n]


def _produced(ctx: TaskContext, report: ValidationReport, prefix: int) -> float:
    types = {i.type for i in ctx.task.items if i.accessible}
    for st in report.trace[:prefix]:
        types |= {ctx.pddl3.item_type.get(a[6:-1]) for a in st.added if a.startswith("(have ")}
    goal = ctx.task.goal
    return sum(1 for g in goal if g in types) / len(goal)


def _extraneous(ctx: TaskContext, infos: tuple[StepInfo, ...]) -> tuple[int, ...]:
    return tuple(i.index for i in infos if i.tool is not None and i.tool.name not in ctx.relevant)


def _redundant(report: ValidationReport) -> tuple[int, ...]:
    seen: set[str] = set()
    out = []
    for st in report.trace:
        new = {a for a in st.added if not a.startswith("(count-")} - seen
        if not new:
            out.append(st.step)
        seen |= new
    return tuple(out)


def _intent_met(task, calls, intent) -> bool:
    tool, args = intent
    from planning_core.validators.toolplans.chain import _same
    for c in calls:
        known = task.tool(tool)
        if known is None or c.name != known.spelling:
            continue
        ok = True
        for key, raw in args:
            want = json.loads(raw)
            got = c.arguments.get(key)
            if c.prose and isinstance(got, str) and isinstance(want, (str, int, float)) \
                    and not isinstance(want, bool):
                ok &= bool(re.search(r"(?<![\w])" + re.escape(str(want).casefold()) + r"(?![\w])",
                                     got.casefold()))
            else:
                ok &= got is not None and _same(got, want)
        if ok:
            return True
    return False


def intent_state(task, infos, intent) -> bool | None:
    """Whether some call of ``intent``'s tool has the values the request asks for: True,
    False, or None when a described value (APB's ``parameter_description``, line 690: values
    "described conceptually") could not be resolved to an item, so a judge must decide. A
    description resolved to an item is that item ("the IBAN provided in the query" is the
    user's IBAN)."""
    from planning_core.validators.toolplans.chain import _same
    tool, args = intent
    known = task.tool(tool)
    undecided = False
    for info in infos:
        c = info.call
        if known is None or c.name != known.spelling:
            continue
        ok, open_ = True, False
        for key, raw in args:
            want = json.loads(raw)
            got = c.arguments.get(key)
            item = next((i.name for i in task.items if _same(i.value, want)), None)
            if c.prose and isinstance(got, str) and not isinstance(want, bool):
                if isinstance(want, (str, int, float)) and re.search(
                        r"(?<![\w])" + re.escape(str(want).casefold()) + r"(?![\w])",
                        got.casefold()):
                    continue
                if key in info.undecided:
                    open_ = True
                elif item is None or info.objects.get(key) != item:
                    ok = False
            elif got is None or not (_same(got, want) or (
                    item is not None and info.objects.get(key) == item)):
                ok = False
        if ok and not open_:
            return True
        undecided |= ok and open_
    return None if undecided else False


def goal_understanding(ctx: TaskContext, calls, infos) -> tuple[bool | None, str, list[Fault]]:
    """E1, decided only where the goal is formal (paper lines 139, 613, 649: misreading the
    user's intent). The required output types are formal: a non-empty chain none of whose
    calls is of a tool relevant to them pursues another goal (E1). The values the user
    meant are formal only when the task lists them (``intent``: calls with argument values
    the request asks for); then E1 holds iff an intent's tool is called but never with the
    values asked for (a call that is missing altogether is incompleteness, E2, not a
    misreading). Otherwise E1 is undecided."""
    task = ctx.task
    known = [i for i in infos if i.tool is not None]
    if known and not any(i.tool.name in ctx.relevant for i in known):
        return True, "no call serves a required output", [Fault(
            "goal_misunderstood", None, "no call of the chain is of a tool that any required "
            "output (" + ", ".join(task.goal) + ") depends on")]
    if not task.intent:
        return None, "the request's intent is formal only up to data types", []
    called = {i.tool.name for i in infos if i.tool is not None}
    states = {t: intent_state(task, infos, t) for t in task.intent if t[0] in called}
    missed = [t for t, ok in states.items() if ok is False]
    if not missed and None in states.values():
        return None, "a described value could not be resolved to an item", []
    if missed:
        tool, args = missed[0]
        want = ", ".join(f"{k}={v}" for k, v in args)
        return True, "an intent is unmet", [Fault(
            "goal_misunderstood", None, f"the request asks for {tool}({want}); the chain calls {tool} with other values")]
    return False, "every intent of the request is met", []


def check_output(ctx: TaskContext, output: str | ModelOutput | object, *, grade: bool = True,
                 engine: str = "auto", time_limit: float = 60.0) -> ChainReport:
    """The verdict on a model output (text, parsed JSON, or :class:`ModelOutput`)."""
    parsed = output if isinstance(output, ModelOutput) else parse_output(output)
    feas = ctx.feasibility(engine=engine, time_limit=time_limit) if (grade or parsed.refused) else None
    if parsed.error is not None:
        return ChainReport(False, False, len(parsed.calls),
                           (Fault("malformed_output", None, parsed.error),), feasibility=feas,
                           grade=0.0, format=parsed.format)
    if parsed.refused:
        if feas.status is Status.UNKNOWN:
            return ChainReport(None, True, 0, feasibility=feas, format=parsed.format)
        if feas.status is Status.UNSOLVABLE and parsed.clarification \
                and feas.kind != "missing_input":
            # only the information-missing judge passes a clarification request (line 739);
            # the others ask for an explicit refusal
            return ChainReport(False, True, 0, (Fault(
                "missed_refusal", None, f"asked for clarification, but the request cannot be "
                f"done ({feas.kind}: {feas.detail}): only missing information is asked for; "
                "this needs a refusal"),), feasibility=feas, grade=0.0, format=parsed.format)
        if feas.status is Status.UNSOLVABLE:
            return ChainReport(True, True, 0, feasibility=feas, grade=1.0, e1=False,
                               e1_reason="refused an unsolvable request", format=parsed.format)
        return ChainReport(False, True, 0, (Fault(
            "unjustified_refusal", None, f"the request is solvable with {_num(feas.cost)} "
                                         "call(s), but the model refused"),), feasibility=feas,
            grade=0.0, format=parsed.format)
    ex = execute(ctx, parsed.calls)
    faults = list(ex.faults)
    faults += [Fault("format_violation", k, m) for k, m in parsed.issues]
    e1, e1_reason, e1_faults = goal_understanding(ctx, parsed.calls, ex.infos)
    faults += e1_faults
    if feas is not None and feas.status is Status.UNSOLVABLE:
        faults.append(Fault("missed_refusal", None, f"the request cannot be done "
                                                    f"({feas.kind}: {feas.detail}); the model "
                                                    "should have refused"))
    faults = list(_unique(faults))
    n = len(parsed.calls)
    first = next((f.step for f in faults if f.step is not None), None)
    prefix = n if first is None else first - 1
    valid = not faults
    optimal = feas.cost if feas is not None and feas.status is Status.SOLVED else None
    sim = simulate(ctx, ex.infos)
    missing = sum(1 for g in ctx.task.goal if g not in sim.types(ctx))
    if feas is not None and feas.status is Status.UNSOLVABLE:
        plan_grade = 0.0   # blind execution of an impossible request (paper Figure 41)
    else:
        lacking = missing_calls(ctx.task, sim.types(ctx), set(sim.called)) if missing else 0
        plan_grade = holistic_grade(n, [f for f in faults if f.kind != "missed_refusal"], lacking)
    undecided = tuple((i.index, p) for i in ex.infos for p in i.undecided)
    return ChainReport(valid, False, n, tuple(faults), prefix, _produced(ctx, ex.report, prefix),
                       ex.report.cost if valid else None, optimal,
                       _extraneous(ctx, ex.infos), _redundant(ex.report), feas,
                       plan_grade, e1, e1_reason, undecided, parsed.format, missing)
