"""ground_faults: the one well-formedness check of ground atoms and actions."""
from planning_core.pddl.wellformed import Fault, GroundFault, ground_faults

TYPES_OF = {"c0": frozenset({"car", "vehicle", "object"}), "l0": frozenset({"place", "object"})}
AT = (frozenset({"vehicle"}), frozenset({"place"}))


def test_well_formed_has_no_fault():
    assert ground_faults(("c0", "l0"), AT, TYPES_OF) == ()


def test_name_and_arity_faults_come_alone():
    assert ground_faults(("zz",), None, TYPES_OF) == (GroundFault(Fault.UNKNOWN_NAME),)
    assert ground_faults(("zz",), AT, TYPES_OF) == (GroundFault(Fault.WRONG_ARITY),)


def test_argument_faults_in_order():
    assert ground_faults(("l0", "zz"), AT, TYPES_OF) == (
        GroundFault(Fault.TYPE_ERROR, 0), GroundFault(Fault.UNKNOWN_OBJECT, 1))
    either = (frozenset({"car", "place"}), frozenset({"place"}))
    assert ground_faults(("l0", "l0"), either, TYPES_OF) == ()
