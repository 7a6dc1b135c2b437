"""The step-wise setting: given the calls so far, is a proposed next call a good one?

Two questions, as ACPBench Hard's ``nexta`` asks them of a planning state: is the call
*applicable now* (its tool exists and works, its inputs are available, no constraint
breaks), and is it *on some optimal continuation*: with h* the optimal remaining cost
(``planning_core.search.hstar``, on the folded task's ground form), a call ``a`` from state
``s`` is optimal iff ``h*(s) = cost(a) + h*(s')``. h* that hits its limit gives an unknown
answer, never a guess.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from planning_core.errors import PlanningError
from planning_core.validators.toolplans.split import split_h_star
from planning_core.validators.toolplans.calls import Call, OutputJSONError, loads, parse_output
from planning_core.validators.toolplans.check import execute
from planning_core.limits import time_left
from planning_core.validators.toolplans.context import TaskContext
from planning_core.validators.toolplans.faults import Fault, classes_of

__all__ = ["BEHAVIOURS", "NextReport", "PredictionReport", "judge_next", "judge_prediction"]


@dataclass(frozen=True, slots=True)
class NextReport:
    """``applicable`` (None: the prefix itself is faulty), ``optimal`` (None: unknown or not
    applicable), h* before and after the call, and the fault that makes it inapplicable."""

    applicable: bool | None
    optimal: bool | None
    h_before: float | None = None
    h_after: float | None = None
    fault: Fault | None = None
    message: str = ""

    def to_dict(self) -> dict:
        def num(x):
            return None if x is None else ("inf" if math.isinf(x) else int(x) if float(x).is_integer() else x)
        return {"applicable": self.applicable, "optimal": self.optimal,
                "h_before": num(self.h_before), "h_after": num(self.h_after),
                "fault": self.fault.to_dict() if self.fault else None, "message": self.message}


def _calls(value) -> tuple[Call, ...]:
    if isinstance(value, (list, tuple)) and all(isinstance(c, Call) for c in value):
        return tuple(value)
    parsed = parse_output(value)
    if parsed.error or parsed.refused:
        raise PlanningError(f"not a list of tool calls: {parsed.error or 'a refusal'}")
    return parsed.calls


def judge_next(ctx: TaskContext, prefix, call, *, time_limit: float = 30.0) -> NextReport:
    """Judge ``call`` after ``prefix`` (calls, text or JSON; an empty prefix is ``[]``)."""
    before = _prefix_calls(prefix)
    nxt = _calls(call)
    if len(nxt) != 1:
        raise PlanningError(f"expected one proposed call, found {len(nxt)}")
    ex = execute(ctx, before + nxt, ctx.prefix_validator)
    n = len(before)
    early = [f for f in ex.faults if f.step is not None and f.step <= n]
    if early:
        return NextReport(None, None, fault=early[0],
                          message=f"the prefix is not executable: {early[0].message}")
    here = [f for f in ex.faults if f.step == n + 1]
    if here:
        return NextReport(False, None, fault=here[0], message=here[0].message)
    task = ctx.ground
    state = task.init
    actions = []
    for step in ex.steps:
        a = task.action_by_name(str(step), state)
        actions.append(a)
        state_next = task.progress(state, a)
        if len(actions) <= n:
            state = state_next
    a = actions[-1]
    h0 = split_h_star(task, state, time_limit=time_left(time_limit), cpu_budget=True)
    if h0 is None:
        return NextReport(True, None, message=f"h* hit the {time_limit:g} s limit")
    after = task.progress(state, a)
    h1 = split_h_star(task, after, time_limit=time_left(time_limit), cpu_budget=True)
    if h1 is None:
        return NextReport(True, None, h0, message=f"h* hit the {time_limit:g} s limit")
    if math.isinf(h0):
        return NextReport(True, False, h0, h1, message="no chain completes the request from here")
    if math.isclose(h1 + a.cost, h0):
        return NextReport(True, True, h0, h1, message=f"optimal: h* drops from {h0:g} to {h1:g}")
    if math.isinf(h1):
        return NextReport(True, False, h0, h1, message="the call leads to a dead end")
    return NextReport(True, False, h0, h1, message=f"not optimal: h* is {h0:g} before and "
                                                   f"{h1:g} after a call of cost {a.cost:g}")


# ------------------------------------------------------------ APB's step-wise setting

@dataclass(frozen=True, slots=True)
class PredictionReport:
    """The verdict on a prediction of the next k actions (paper lines 69-79, 597-623).

    ``correct``: every predicted action is applicable in turn, none makes the request
    unreachable (h* finite after it), no class is flagged (format included) and no step
    concludes while work is left; ``optimal``: the actions' cost equals the drop of h*
    (reported, not required: "the step does NOT need to be optimal", line 600). ``grade``:
    the step-wise Plan Grade as a function of the flags (:func:`.grade.stepwise_grade`).
    ``behaviour``: in the tool-broken setting, Replace / Alter / Retry / Refusal / Other
    of the first action (paper lines 696-707)."""

    correct: bool | None
    grade: float | None
    faults: tuple[Fault, ...] = ()
    optimal: bool | None = None
    h_before: float | None = None
    h_after: float | None = None
    steps: int = 0
    refused: bool = False
    e1: bool | None = None
    behaviour: str | None = None
    message: str = ""

    def __post_init__(self) -> None:
        # every fault of a prediction is classed by the step-wise rubric (faults.py)
        object.__setattr__(self, "faults", tuple(f.as_stepwise() for f in self.faults))

    @property
    def classes(self) -> dict[str, list]:
        """Every APB class that holds, with the calls where it holds (None: the chain)."""
        return classes_of(self.faults)

    def to_dict(self) -> dict:
        def num(x):
            return None if x is None else ("inf" if math.isinf(x) else int(x) if float(x).is_integer() else x)
        return {"correct": self.correct, "grade": self.grade, "classes": self.classes,
                "faults": [f.to_dict() for f in self.faults], "optimal": self.optimal,
                "h_before": num(self.h_before), "h_after": num(self.h_after),
                "steps": self.steps, "refused": self.refused,
                "e1": "undecided" if self.e1 is None else self.e1,
                "behaviour": self.behaviour, "message": self.message}


_NO_CALLS = frozenset({"user", "system", "developer", "tool", "function"})


def _prefix_calls(value) -> tuple[Call, ...]:
    """The calls of a prefix: calls, or a chat transcript as APB's trajectories are ("Steps
    Completed So Far", Figure 28; the tool-broken one "ending with the error", Figure 36):
    user, system and tool-result messages carry no calls and are skipped."""
    data = value
    if isinstance(value, str) and value.strip()[:1] == "[":
        try:
            data = loads(value.strip())
        except OutputJSONError:
            data = value
    if isinstance(data, list):
        data = [m for m in data if not (isinstance(m, dict) and m.get("role") in _NO_CALLS)]
        if not data:
            return ()
    if data in ("", None, []):
        return ()
    return _calls(data)


def judge_prediction(ctx: TaskContext, prefix, output, k: int | None = None, *,
                     replacement: str | None = None, time_limit: float = 30.0) -> PredictionReport:
    """Judge a prediction of the next ``k`` actions after ``prefix`` (calls, text or JSON).

    The prefix is history: it must execute, except that a call of a broken tool is allowed
    (it returned an error and changed nothing: the tool-broken setting, lines 85-87). Each
    predicted action is judged in the state the earlier ones would have left (as in
    :func:`.check.simulate`); a step without a call concludes, which is E2 unless the
    required outputs are all held (lines 615, 679). ``replacement`` names the tool offered
    in place of a broken one: the first action is then classified (lines 696-707)."""
    from planning_core.ground.facts import UnknownAtomError
    from planning_core.validators.toolplans.calls import parse_prediction
    from planning_core.validators.toolplans.chain import to_steps
    from planning_core.validators.toolplans.check import _unique, simulate
    from planning_core.validators.toolplans.grade import stepwise_grade, trivial_e5

    before = _prefix_calls(prefix)
    parsed = parse_prediction(output, k)
    n = len(before)
    if parsed.error is not None:
        f = Fault("malformed_output", None, parsed.error)
        return PredictionReport(False, stepwise_grade({"E3"}), (f,), behaviour=_other(replacement),
                                message=parsed.error)
    steps, infos = to_steps(ctx, before + parsed.calls)
    broken = set(ctx.task.broken)
    history = tuple(i for i in infos[:n] if i.tool is None or i.tool.name not in broken)
    pre = simulate(ctx, history, goal=False)
    bad = [f for i in history for f in i.faults] + list(pre.faults)
    if bad:
        raise PlanningError(f"the prefix is not executable: {bad[0].message}")
    # the ground state after the prefix (broken calls changed nothing)
    task = ctx.ground
    state = task.init
    for st, info in zip(steps[:n], infos[:n]):
        if info in history:
            try:
                state = task.progress(state, task.action_by_name(str(st), state))
            except UnknownAtomError:
                pass   # an applicable call the grounding dropped as irrelevant: no effect
    h0 = split_h_star(task, state, time_limit=time_left(time_limit), cpu_budget=True)
    if parsed.refused:
        if h0 is None:
            return PredictionReport(None, None, refused=True, behaviour=_refusal(replacement, parsed.clarification),
                                    message=f"h* hit the {time_limit:g} s limit")
        if math.isinf(h0):
            return PredictionReport(True, 1.0, refused=True, h_before=h0,
                                    behaviour=_refusal(replacement, parsed.clarification),
                                    message="refused: no chain completes the request from here")
        f = Fault("unjustified_refusal", None, f"the request can still be completed in "
                                               f"{h0:g}, but the model refused")
        return PredictionReport(False, stepwise_grade({"E2"}), (f,), h_before=h0, refused=True,
                                behaviour=_refusal(replacement, parsed.clarification), message=f.message)
    preds = infos[n:]
    faults = [f for i in preds for f in i.faults]
    faults += [Fault("format_violation", None, m) for _, m in parsed.issues]
    sim = simulate(ctx, preds, have=pre.have, called=pre.called, counts=pre.counts, goal=False)
    faults += list(sim.faults)
    # a call of a tool no required output depends on does not "align with the goal" nor
    # "progress the task" (Figure 33, line 683; E1, line 613); forbidden, broken and
    # distractor tools have classes of their own
    task_ = ctx.task
    own = set(task_.forbidden) | set(task_.broken) | set(task_.extraneous)
    # a tool serves the goal when it is relevant, or makes an optional input of a relevant
    # tool (a voucher for the booking)
    fed = {q.data_type for t in task_.tools if t.name in ctx.relevant for q in t.params
           if q.data_type is not None}
    for info in preds:
        if info.tool is not None and info.tool.name not in ctx.relevant \
                and info.tool.name not in own and not set(info.tool.produces) & fed:
            faults.append(Fault("off_goal", info.index, f"call {info.index}: "
                                f"{info.tool.name} serves no required output "
                                f"({', '.join(task_.goal)})", info.call.text()))
    # conclusions: a step with no call, judged in the state reached by the calls before it
    done_types = {ctx.pddl3.item_type[o] for o in pre.have}
    done_called = set(pre.called)
    cursor = 0
    for j, stp in enumerate(parsed.steps, start=1):
        if not stp.calls:
            lacking = [g for g in ctx.task.goal if g not in done_types]
            lacking += [f"a call of {c.tool}" for c in ctx.task.constraints
                        if c.kind == "must_call" and c.tool not in done_called]
            if lacking:
                faults.append(Fault("premature_conclusion", None, f"step {j} concludes without calling a tool, but "
                                    f"{', '.join(lacking)} is still missing"))
        for _ in stp.calls:
            info = preds[cursor]
            cursor += 1
            if info.tool is not None:
                done_called.add(info.tool.name)
                done_types.update(info.tool.produces)
    # reachability and cost along the fault-free actions
    flagged = {f.step for f in faults if f.step is not None}
    h1, cost, exact = h0, 0.0, True
    for st, info in zip(steps[n:], preds):
        if info.index in flagged or h1 is None:
            exact = False
            break
        try:
            a = task.action_by_name(str(st), state)
            state = task.progress(state, a)
            cost += a.cost
        except UnknownAtomError:
            cost += info.tool.cost
        h_next = split_h_star(task, state, time_limit=time_left(time_limit), cpu_budget=True)
        if h_next is not None and math.isinf(h_next) and h1 is not None and not math.isinf(h1):
            faults.append(Fault("dead_end", info.index, f"call {info.index}: after it no chain "
                                                        "completes the request", info.call.text()))
        h1 = h_next
    e1 = None
    if ctx.task.intent:
        from planning_core.validators.toolplans.check import intent_state
        e1 = False
        for info in preds:
            mine = [t for t in ctx.task.intent if info.tool is not None and t[0] == info.tool.name]
            states = [intent_state(ctx.task, (info,), t) for t in mine]
            if mine and True not in states and None in states:
                e1 = None if e1 is False else e1
            elif mine and True not in states:
                e1 = True
                faults.append(Fault("goal_misunderstood", info.index, f"call {info.index} "
                                    f"contradicts the request's {info.tool.name} values",
                                    info.call.text()))
    # classes by the step-wise rubric (a premature call is E4 here, E6 in a holistic chain)
    faults = [f.as_stepwise() for f in _unique(faults)]
    grade = stepwise_grade({f.code for f in faults if f.code}, trivial=trivial_e5(faults))
    unknown = h0 is None or (exact and h1 is None)
    optimal = None
    if exact and not faults and h0 is not None and h1 is not None and not math.isinf(h0):
        optimal = math.isclose(h0, cost + h1)
    correct = None if (unknown and not faults) else not faults
    # the first predicted *step* is classified: text only there is Other (Figure 36), even
    # when a later step calls the replacement
    first_step = preds[:len(parsed.steps[0].calls)] if parsed.steps else preds
    behaviour = _behaviour(ctx, first_step, faults, replacement) if replacement else None
    return PredictionReport(correct, grade, tuple(faults), optimal, h0, h1, len(parsed.steps),
                            False, e1, behaviour,
                            faults[0].message if faults else "every action is applicable and "
                            "keeps the request reachable")


BEHAVIOURS = ("replace", "alter", "retry", "refusal", "other")


def _other(replacement):
    return "other" if replacement else None


def _refusal(replacement, clarification: bool = False):
    # Figure 36 (line 709): a clarification request is Other, not Refusal
    return ("other" if clarification else "refusal") if replacement else None


def _behaviour(ctx: TaskContext, preds, faults, replacement: str) -> str:
    """Tool-broken behaviour of the first predicted action (paper lines 699-707, Figure 36):
    Replace: the designated replacement tool; Retry: the broken tool again (any arguments);
    Alter: another existing tool, relevant to the required outputs (Figure 36: "capable of
    solving the task (or a reasonable step towards it)"), whose call has no fault and keeps
    the request reachable; Other: anything else (no call, an unknown tool, a faulty call,
    an irrelevant tool)."""
    if not preds:
        return "other"
    first = preds[0]
    if first.tool is None:
        return "other"   # no tool of that exact name (paper: "must exactly match")
    if first.tool.name == replacement:
        return "replace"
    if first.tool.name in ctx.task.broken:
        return "retry"
    if any(f.step == first.index for f in faults) \
            or first.tool.name not in ctx.relevant:
        return "other"   # unknown, faulty, or of no use for the required outputs
    return "alter"
