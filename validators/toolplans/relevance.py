"""Relevance analysis: which tools can contribute to the required outputs.

A tool is *relevant* when, working backwards from the required outputs (and must-call
tools), it produces a relevant data type or must precede a relevant tool; its inputs then
become relevant (backchaining relevance as in Fast Downward's translator, Helmert 2009,
done on the tool graph, which is exact for this compilation because an output item depends
only on its tool). A call of an irrelevant tool is extraneous (APB's extraneous-tools
setting); broken and forbidden tools are never relevant.
"""
from __future__ import annotations

from planning_core.validators.toolplans.spec import ToolTask

__all__ = ["relevant_tools"]


def relevant_tools(task: ToolTask) -> frozenset[str]:
    """Working, permitted tools that can contribute to a required output; see above."""
    usable = [t for t in task.tools if t.name not in task.broken and t.name not in task.forbidden]
    types = set(task.goal)
    tools = {c.tool for c in task.constraints if c.kind == "must_call"}
    before = {}  # tool -> tools it must come after (annotation and not_before constraints)
    for t in task.tools:
        before[t.name] = set(t.after)
    for c in task.constraints:
        if c.kind == "not_before":
            before[c.tool].add(c.until)
    relevant: set[str] = set()
    changed = True
    while changed:
        changed = False
        for t in usable:
            if t.name in relevant:
                continue
            if t.name in tools or types.intersection(t.produces):
                relevant.add(t.name)
                types.update(p.data_type for p in t.data_params)
                types.update(t.requires)
                tools.update(before[t.name])
                changed = True
    return frozenset(relevant)
