"""Is a ground atom or action well formed: a declared name, the declared arity, declared
objects of fitting types?

The validator asks it of every plan step before the precondition, the ACPBench Hard
scorers of every atom or action an answer names (an ill-typed atom such as ``(at l0 c1)``
is not a proposition of the task, so it is "ill-formed", not "unreachable"). Both need the
same facts and word them differently, so :func:`ground_faults` returns the faults as data,
in argument order, and each caller writes its own message.

Types: ``types_of`` maps every object (and constant) to the closed set of types it belongs
to (its declared types and all their ancestors); a parameter of types ``T`` (one type, or
the members of an ``either``) accepts an object when the two sets meet.
"""
from __future__ import annotations

#: typing.TYPE_CHECKING, without importing typing or collections (issue 28)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence, Set
from planning_core.light_enum import LightEnum

from planning_core.nodes import node

__all__ = ["Fault", "GroundFault", "ground_faults"]


class Fault(LightEnum):   # an enum.Enum in behaviour (planning_core.light_enum)
    UNKNOWN_NAME = "unknown name"        # no predicate or action of that name
    WRONG_ARITY = "wrong arity"
    UNKNOWN_OBJECT = "unknown object"    # neither an object of the problem nor a constant
    TYPE_ERROR = "type error"


@node
class GroundFault:
    """One fault; ``position`` is the 0-based argument for object and type faults."""

    kind: Fault
    position: int | None = None


def ground_faults(args: Sequence[str], param_types: Sequence[Set[str]] | None,
                  types_of: Mapping[str, Set[str]]) -> tuple[GroundFault, ...]:
    """Every fault of a ground atom or action with arguments ``args``.

    ``param_types`` holds the declared parameters' types, ``None`` when the name is not
    declared. A name or arity fault comes alone; otherwise every argument fault, in order.
    An empty result means well formed.
    """
    if param_types is None:
        return (GroundFault(Fault.UNKNOWN_NAME),)
    if len(args) != len(param_types):
        return (GroundFault(Fault.WRONG_ARITY),)
    faults = ()
    for k, arg in enumerate(args):
        own = types_of.get(arg)
        if own is None:
            faults += (GroundFault(Fault.UNKNOWN_OBJECT, k),)
        elif own.isdisjoint(param_types[k]):
            faults += (GroundFault(Fault.TYPE_ERROR, k),)
    return faults
