"""APB's Plan Grade on {0, 0.2, ..., 1}, decided from the faults found (no judge).

Line numbers refer to the paper's text, ``/work/shared/seeds/001_25509288ef9c2098.txt``.

**Step-wise** (lines 599-610, and the rubric of Figure 33, line 683): the grade is a
function of the set F of classes flagged on the prediction (the paper's judge returns one
boolean per class), with "very minor" E5 meaning every E5 fault is of trivial impact (an
argument the tool does not take, all required ones right):

===== =====================================================================
1.0   F empty                                                   (line 600)
0.8   F = {E5}, trivial                                         (line 602)
0.6   F = {E4} or {E5}                                          (line 604)
0.4   F = {E4, E5} ("2+ of E4/E5") or F = {E2}                  (line 606)
0.2   one of E1, E3, E6 ("major"), or E2 with E4 or E5          (line 608)
0.0   two or more of E1, E3, E6                                 (line 610)
===== =====================================================================

Figure 33 says 0.2 is "multiple E2/E4/E5 flags" while 0.4 is "two or more minor flags": we
read {E4, E5} as 0.4 and any set holding E2 with another class as 0.2. "Complete logical
breakdown" (0.0) is not decidable apart from its flags and is not used.

**Holistic** (lines 636-646) speaks of "90% correct", "one key component", "some correct
steps". Our reading, over the calls of the chain (each judged from the state the earlier
calls would have left), the required outputs still missing at the end, and the faults:

* a *component* is a call with a fault, a call the chain lacks for the required outputs it
  never makes (:func:`missing_calls`: a relaxed plan's size from what the chain holds), a
  chain-level fault (a must-call tool never called), or the answer's format: every format
  violation together (no ``plan``, entries without ``parameter_description``...) is one
  component;
* a *correct step* is a call without any fault but format ones (an entry whose format is
  off is still a right step of the plan: a logically sound chain whose entries all are is
  "very good", not "zero logical merit");
* 1.0: no fault (line 636);
* 0.8: one component, no required output missing, the component non-critical (a format
  violation, or an E5 of trivial impact), and at least 90% of the calls correct (line 638);
* 0.6: exactly one component ("misses or flaws one key component", line 640);
* 0.4: two or more components and at least two correct steps ("some correct steps", line
  642);
* 0.2: exactly one correct step ("might get one simple step right", line 644);
* 0.0: no correct step, or E1 decided ("complete hallucination or goal misunderstanding",
  line 646); a wrong refusal, a chain for an unsolvable request, or an unreadable answer.
"""
from __future__ import annotations

from planning_core.validators.toolplans.faults import MAJOR, MINOR, Fault

__all__ = ["holistic_grade", "missing_calls", "stepwise_grade"]

GRADES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)


def stepwise_grade(flags, *, trivial: bool = False) -> float:
    """The step-wise grade of a prediction whose flagged classes are ``flags``; ``trivial``:
    every E5 fault has trivial impact."""
    f = set(flags)
    major = f & MAJOR
    if not f:
        return 1.0
    if len(major) >= 2:
        return 0.0
    if major:
        return 0.2
    if "E2" in f:
        return 0.4 if f == {"E2"} else 0.2
    if f == {"E5"} and trivial:
        return 0.8
    if len(f) == 1 and f <= MINOR:
        return 0.6
    return 0.4   # {E4, E5}


def trivial_e5(faults) -> bool:
    e5 = [x for x in faults if x.code == "E5"]
    return bool(e5) and all(x.minor for x in e5)


def _noncritical(faults: list[Fault]) -> bool:
    return all(x.kind == "format_violation" or (x.code == "E5" and x.minor) for x in faults)


def holistic_grade(calls: int, faults, missing_outputs: int) -> float:
    """The holistic grade of a chain of ``calls`` calls with ``faults`` (all of them, per
    call or chain-level) and ``missing_outputs`` components missing at the end (the calls
    it lacks for the required outputs not made, :func:`missing_calls`)."""
    faults = list(faults)
    if not faults:
        return 1.0
    if any(x.code == "E1" for x in faults):
        return 0.0
    by_call: dict[int, list[Fault]] = {}
    chain_level = []
    fmt = [x for x in faults if x.kind == "format_violation"]
    for x in faults:
        if x.kind == "format_violation":
            continue
        if x.step is None:
            if x.kind != "incomplete":
                chain_level.append(x)
        else:
            by_call.setdefault(x.step, []).append(x)
    correct = calls - len(by_call)
    components = len(by_call) + missing_outputs + len(chain_level) + (1 if fmt else 0)
    if correct <= 0:
        return 0.0
    if components == 1:
        parts = chain_level or fmt or next(iter(by_call.values()), [])
        if missing_outputs == 0 and _noncritical(parts) and correct >= 0.9 * calls:
            return 0.8
        return 0.6
    if correct >= 2:
        return 0.4
    return 0.2


def missing_calls(task, held: set[str], called: set[str]) -> int:
    """The calls a chain still lacks for the required outputs it never makes: the size of a
    relaxed plan (delete-free, extracted FF-style from additive costs, Hoffmann & Nebel 2001)
    from the data types it holds and the tools it called, over tools neither broken nor
    forbidden; an output no such tool can make counts one. A chain that makes one simple
    step of three then lacks two components, not one (line 644: "might get one simple step
    right")."""
    inf = float("inf")
    usable = [t for t in task.tools if t.name not in task.broken and t.name not in task.forbidden]

    def needs(t):
        return [p.data_type for p in t.data_params] + list(t.requires)
    cost = {x: 0 for x in held}
    tcost: dict[str, float] = {}
    changed = True
    while changed:   # additive costs to a fixpoint (each pass lowers some cost or stops)
        changed = False
        for t in usable:
            c = 1 + sum(cost.get(x, inf) for x in needs(t)) + \
                sum(0 if a in called else tcost.get(a, inf) for a in t.after)
            if c < tcost.get(t.name, inf):
                tcost[t.name], changed = c, True
            for x in t.produces:
                if c < cost.get(x, inf):
                    cost[x], changed = c, True
    plan: set[str] = set()
    unmakeable = 0
    types = [g for g in task.goal if g not in held]
    tools: list[str] = []
    seen: set[str] = set()
    while types or tools:
        if tools:
            name = tools.pop()
            if name in plan or name in called or tcost.get(name, inf) == inf:
                continue
            plan.add(name)
            t = task.tool(name)
            types += [x for x in needs(t) if x not in held]
            tools += [a for a in t.after if a not in called]
            continue
        x = types.pop()
        if x in seen:
            continue
        seen.add(x)
        makers = [t for t in usable if x in t.produces and tcost.get(t.name, inf) < inf]
        if not makers:
            unmakeable += 1
            continue
        tools.append(min(makers, key=lambda t: (tcost[t.name], t.name)).name)
    return len(plan) + unmakeable
