"""A tool-use task as a PDDL domain and problem: tools are actions, data items are objects.

The compilation (issue 15):

* every data type is a PDDL type below ``item``; the user's data items are objects of the
  problem with ``(have ?d)`` in the initial state;
* each output type ``X`` of tool ``T`` is one constant ``X-of-T`` of type ``X``: the item
  that exists once ``T`` has run. One item per (tool, type) abstracts from *which* value a
  call returns (flights to Rome or to Oslo); that is semantic and left to a judge;
* tool ``T`` is the action ``T`` whose parameters are its required data parameters
  (free literals and optional arguments are checked on the JSON side), with precondition
  ``(have ?p)`` for each of them, ``(exists (?r - R) (have ?r))`` for each extra required
  type, ``(called-U)`` for each tool it must come after, and ``(working-T)`` when the tool
  is broken (never true, so calling it fails); its effect is ``(called-T)`` and
  ``(have X-of-T)`` for each output, plus ``(increase (total-cost) c)`` when costs differ;
* the goal is ``(exists (?g - X) (have ?g))`` for each required output type.

Constraints come in two equivalent forms. ``mode="pddl3"`` writes them as PDDL3 trajectory
constraints, read by the core validator: a forbidden tool is ``(always (not (called-T)))``,
"do not call X before Y" is ``(sometime-before (called-X) (called-Y))``, "call T" is
``(sometime (called-T))``. ``mode="folded"`` compiles them into the domain, which Fast
Downward and the relaxed analyses need: a forbidden tool's action is dropped, X gets the
precondition ``(called-Y)``, ``(called-T)`` joins the goal. The folded form also states "some
item of type X is held" as a plain fact ``(some-X)`` (in the initial state when the user
holds one, added by every maker of X) for the required outputs and required types, in
place of ``(exists (?g - X) (have ?g))``: grounding turns that existential into an axiom,
and with axioms the optimal search falls back from LM-cut to h_max, which took seconds to
minutes on chains of 15 calls and more (it expanded ~10^5 states where LM-cut expands one
per call). Both forms have the same plans
because ``called-`` facts are never deleted: ``sometime-before`` then asks exactly that
``called-Y`` holds when X is applied. "At most N calls" is counted use and is compiled into
the domain in both forms: N = 1 is ``(not (called-T))`` (at most once), larger N a chain
of facts ``count-of-T-0 .. count-of-T-N`` advanced by conditional effects, with
``(not (count-of-T-N))`` as precondition (``count-calls-k`` for all tools together).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from planning_core.pddl import ast as pddl
from planning_core.pddl.checker import used_requirements
from planning_core.pddl.writer import write_domain, write_problem
from planning_core.validators.toolplans.spec import Tool, ToolSpecError, ToolTask

__all__ = ["Compiled", "MODES", "compile_task", "output_object"]

MODES = ("pddl3", "folded")
ROOT = "item"
COST = pddl.FunctionTerm("total-cost")


def output_object(tool: str, data_type: str) -> str:
    return f"{data_type}-of-{tool}"


def _have(term: str) -> pddl.Atom:
    return pddl.Atom("have", (term,))


def _called(tool: str) -> pddl.Atom:
    return pddl.Atom(f"called-{tool}")


def _exists_have(data_type: str, var: str) -> pddl.Formula:
    return pddl.Exists((pddl.TypedName(var, (data_type,)),), _have(var))


@dataclass(frozen=True, slots=True)
class Compiled:
    """The PDDL of a task, with the names that map it back to tools and items.

    ``producers[o]`` is the tool whose call makes output object ``o`` available;
    ``item_type[o]`` the data type of every object (user items and outputs).
    """

    task: ToolTask
    mode: str
    domain: pddl.Domain
    problem: pddl.Problem
    item_type: dict = field(compare=False)
    producers: dict = field(compare=False)

    def texts(self) -> tuple[str, str]:
        return write_domain(self.domain), write_problem(self.problem)


def _counter(prefix: str, n: int) -> tuple[list[pddl.PredicateDef], pddl.Formula, list[pddl.Effect], pddl.Atom]:
    """Predicates, precondition, conditional effects and initial fact of an N-counter."""
    preds = [pddl.PredicateDef(f"{prefix}-{k}") for k in range(n + 1)]
    effects: list[pddl.Effect] = [
        pddl.When(pddl.Atom(f"{prefix}-{k}"),
               (pddl.Delete(pddl.Atom(f"{prefix}-{k}")), pddl.Add(pddl.Atom(f"{prefix}-{k + 1}"))))
        for k in range(n)]
    return preds, pddl.Not(pddl.Atom(f"{prefix}-{n}")), effects, pddl.Atom(f"{prefix}-0")


def _variables(tool: Tool) -> tuple[str, ...]:
    out, seen = [], set()
    for k, p in enumerate(tool.data_params):
        name = p.name.lower()
        var = f"?{name}" if name.replace("_", "a").replace("-", "a").isalnum() and name[0].isalpha() \
            else f"?arg{k + 1}"
        if var in seen:
            var = f"?arg{k + 1}"
        seen.add(var)
        out.append(var)
    return tuple(out)


def compile_task(task: ToolTask, mode: str = "pddl3") -> Compiled:
    """The PDDL domain and problem of ``task``; see the module docstring."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    folded = mode == "folded"
    item_type: dict[str, str] = {i.name: i.type for i in task.items}
    producers: dict[str, str] = {}
    for t in task.tools:
        for x in t.produces:
            o = output_object(t.name, x)
            if o in producers:
                raise ToolSpecError(f"the output {x!r} of tool {t.name!r} and an output of "
                                    f"tool {producers[o]!r} are both named {o!r}; rename a "
                                    "tool or a type")
            if o in item_type:
                raise ToolSpecError(f"the data item {o!r} has the name of the output {x!r} of "
                                    f"tool {t.name!r}; rename the item", pointer="/items")
            item_type[o] = x
            producers[o] = t.name
    costs = any(t.cost != 1 for t in task.tools)
    # counted use and orderings, per tool
    extra_pre: dict[str, list[pddl.Formula]] = {t.name: [] for t in task.tools}
    extra_eff: dict[str, list[pddl.Effect]] = {t.name: [] for t in task.tools}
    predicates = [pddl.PredicateDef("have", (pddl.TypedName("?d", (ROOT,)),))]
    predicates += [pddl.PredicateDef(f"called-{t.name}") for t in task.tools]
    predicates += [pddl.PredicateDef(f"working-{t}") for t in task.broken]
    init: list[pddl.Atom] = []
    constraints: list[pddl.Constraint] = []
    # folded: "some item of type X is held" as a fact (see the module docstring)
    some = sorted(set(task.goal) | {r for t in task.tools for r in t.requires}) if folded else []
    predicates += [pddl.PredicateDef(f"some-{x}") for x in some]
    if folded:
        goal: list[pddl.Formula] = [pddl.Atom(f"some-{x}") for x in task.goal]
    else:
        goal = [_exists_have(x, f"?g{k + 1}") for k, x in enumerate(task.goal)]
    for t in task.broken:
        extra_pre[t].append(pddl.Atom(f"working-{t}"))
    dropped = set(task.forbidden) if folded else set()
    if not folded:
        constraints += [pddl.Always(pddl.Not(_called(t))) for t in task.forbidden]
    for c in task.constraints:
        if c.kind == "not_before":
            if folded:
                extra_pre[c.tool].append(_called(c.until))
            else:
                constraints.append(pddl.SometimeBefore(_called(c.tool), _called(c.until)))
        elif c.kind == "must_call":
            if folded:
                goal.append(_called(c.tool))
            else:
                constraints.append(pddl.Sometime(_called(c.tool)))
        else:
            targets = [c.tool] if c.tool else [t.name for t in task.tools]
            if c.n == 1 and c.tool:
                extra_pre[c.tool].append(pddl.Not(_called(c.tool)))
                continue
            prefix = f"count-of-{c.tool}" if c.tool else "count-calls"
            if any(p.name == f"{prefix}-0" for p in predicates):
                prefix = f"{prefix}-{len(predicates)}"   # a second limit on the same tool
            preds, pre, effs, start = _counter(prefix, c.n)
            predicates += preds
            init.append(start)
            for t in targets:
                extra_pre[t].append(pre)
                extra_eff[t] += effs
    actions = []
    for t in task.tools:
        if t.name in dropped:
            continue
        variables = _variables(t)
        params = tuple(pddl.TypedName(v, (p.data_type,)) for v, p in zip(variables, t.data_params))
        pre: list[pddl.Formula] = [_have(v) for v in variables]
        if folded:
            pre += [pddl.Atom(f"some-{r}") for r in t.requires]
        else:
            pre += [_exists_have(r, f"?r{k + 1}") for k, r in enumerate(t.requires)]
        pre += [_called(u) for u in t.after]
        pre += extra_pre[t.name]
        effects: list[pddl.Effect] = [pddl.Add(_called(t.name))]
        effects += [pddl.Add(_have(output_object(t.name, x))) for x in t.produces]
        effects += [pddl.Add(pddl.Atom(f"some-{x}")) for x in t.produces if x in some]
        effects += extra_eff[t.name]
        if costs:
            effects.append(pddl.Increase(COST, pddl.Number(float(t.cost))))
        actions.append(pddl.Action(t.name, params, pddl.And(tuple(pre)), tuple(effects)))
    types = tuple(pddl.TypedName(x, (ROOT,)) for x in task.types)
    constants = tuple(pddl.TypedName(o, (item_type[o],)) for o in sorted(producers))
    domain = pddl.Domain(f"tools-{task.id}".lower().replace(".", "-").replace(" ", "-"), (),
                      (pddl.TypedName(ROOT, ("object",)),) + types, constants,
                      tuple(predicates), (pddl.FunctionDef("total-cost"),) if costs else (),
                      tuple(actions))
    problem = pddl.Problem(
        f"request-{task.id}".lower().replace(".", "-").replace(" ", "-"), domain.name,
        objects=tuple(pddl.TypedName(i.name, (i.type,)) for i in task.items),
        init=tuple(_have(i.name) for i in task.items if i.accessible) + tuple(init)
        + tuple(pddl.Atom(f"some-{x}") for x in some
                if any(i.accessible and i.type == x for i in task.items)),
        numeric_init=(pddl.NumericInit(COST, 0.0),) if costs else (),
        goal=pddl.And(tuple(goal)),
        metric=pddl.Metric("minimize", COST) if costs else None,
        constraints=pddl.ConstraintAnd(tuple(constraints)) if constraints else None)
    reqs = tuple(sorted(used_requirements(domain, problem)))
    domain = pddl.Domain(domain.name, reqs, domain.types, domain.constants, domain.predicates,
                      domain.functions, domain.actions)
    return Compiled(task, mode, domain, problem, item_type, producers)
