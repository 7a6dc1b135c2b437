"""Conversion to and from unified-planning's ``Problem``, the ecosystem's common API.

Both directions go through PDDL text (our writer, unified-planning's reader and writer):
PDDL is the interchange format both sides already implement completely, so no second
mapping of every formula class has to be kept in sync. unified-planning is imported here
only (it takes seconds to import), never on the CLI's paths.
"""
from __future__ import annotations

from planning_core.errors import UnsupportedFeature
from planning_core.pddl import ast as pddl
from planning_core.pddl.checker import used_requirements
from planning_core.pddl.parser import parse_domain, parse_problem
from planning_core.pddl.writer import write_domain, write_problem

__all__ = ["to_unified_planning", "from_unified_planning"]


def _up():
    try:
        import unified_planning.shortcuts as shortcuts
        from unified_planning.io import PDDLReader, PDDLWriter
    except ImportError as err:  # pragma: no cover - exercised only without the extra
        raise UnsupportedFeature("unified-planning is not installed; "
                                 "pip install 'planning-core[oracles]'") from err
    shortcuts.get_environment().credits_stream = None
    return PDDLReader, PDDLWriter


def to_unified_planning(domain: pddl.Domain, problem: pddl.Problem):
    """A ``unified_planning.model.Problem`` for our lifted task.

    Requirements are written as the task really uses them, so files that use features they
    never declared (common in the CoPE ground truth) are still read correctly.
    """
    reader_cls, _ = _up()
    reqs = tuple(sorted(used_requirements(domain, problem) | set(domain.requirements)))
    return reader_cls().parse_problem_string(write_domain(domain, requirements=reqs),
                                             write_problem(problem))


def from_unified_planning(up_problem) -> tuple[pddl.Domain, pddl.Problem]:
    """Our (Domain, Problem) for a unified-planning problem (through its PDDL writer)."""
    _, writer_cls = _up()
    writer = writer_cls(up_problem)
    return parse_domain(writer.get_domain()), parse_problem(writer.get_problem())
