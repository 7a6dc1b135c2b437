"""planning_core.light_enum behaves as enum does for what the project's enumerations use.

ExitCode (an IntEnum before issue 28), Verdict and Fault (Enums) are compared, member by
member, with real enum classes of the same bodies: a user's code written against the old
classes must see no difference but ``isinstance(member, enum.Enum)``.
"""
from __future__ import annotations

import copy
import enum
import json
import pickle

import pytest

from planning_core.cli import ExitCode
from planning_core.light_enum import LightEnum
from planning_core.pddl.wellformed import Fault
from planning_core.validate.report import Verdict


def _twin(light: type, base: type) -> type:
    """A real enum class with ``light``'s members (aliases included), in the same order."""
    return base(light.__name__, {name: member.value
                                 for name, member in light.__members__.items()})


PAIRS = [(ExitCode, _twin(ExitCode, enum.IntEnum)), (Verdict, _twin(Verdict, enum.Enum)),
         (Fault, _twin(Fault, enum.Enum))]


@pytest.mark.parametrize("light, real", PAIRS, ids=lambda c: c.__name__)
def test_members_look_and_behave_as_enums_do(light, real):
    assert [m.name for m in light] == [m.name for m in real]
    assert [m.value for m in light] == [m.value for m in real]
    assert list(light.__members__) == list(real.__members__)
    assert len(light) == len(real) and repr(light) == repr(real)
    assert list(reversed(light)) == [light[m.name] for m in reversed(real)]
    for name, member in light.__members__.items():
        twin = real.__members__[name]
        assert member is light[name] is getattr(light, name) is light(twin.value)
        assert member.name == twin.name and member.value == twin.value
        assert (repr(member), str(member), f"{member}", f"{member:>40}") == \
            (repr(twin), str(twin), f"{twin}", f"{twin:>40}")
        assert hash(member) == hash(twin)
        assert (member == member.value) == (twin == twin.value)
        assert member in light and member.value in light
        # a member of another class is in it when it equals a member's value (3.12's rule)
        assert (twin in light) == (twin == twin.value)
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            assert pickle.loads(pickle.dumps(member, protocol)) is member
        assert copy.copy(member) is member and copy.deepcopy(member) is member
        assert bool(member) == bool(twin)


@pytest.mark.parametrize("light, real", PAIRS, ids=lambda c: c.__name__)
def test_other_values_are_refused_as_enum_refuses_them(light, real):
    for value in ("no such value", 10**6, None, ["unhashable"], 2.5):
        with pytest.raises(ValueError) as mine:
            light(value)
        with pytest.raises(ValueError) as theirs:
            real(value)
        assert str(mine.value) == str(theirs.value)
    with pytest.raises(KeyError):
        light["NO_SUCH_NAME"]


def test_members_cannot_be_changed_added_or_deleted():
    with pytest.raises(AttributeError):
        Verdict.VALID = "other"
    with pytest.raises(AttributeError):
        del Verdict.VALID
    with pytest.raises(AttributeError):
        Verdict.VALID.value = "other"
    with pytest.raises(AttributeError):
        ExitCode.OK.name = "x"
    with pytest.raises(AttributeError):
        del Fault.TYPE_ERROR.value
    assert Verdict.VALID.value == "valid" and ExitCode.OK.name == "OK"


def test_exit_codes_are_ints_with_intenums_aliases():
    assert ExitCode.INVALID is ExitCode.NEGATIVE is ExitCode(1)
    assert ExitCode.INVALID.name == "NEGATIVE"
    assert isinstance(ExitCode.OK, int) and ExitCode.BAD_INPUT + 1 == 3
    assert sorted([ExitCode.UNKNOWN, ExitCode.OK]) == [0, 3]
    assert json.dumps({"exit": ExitCode.INTERRUPTED}) == '{"exit": 130}'
    assert {ExitCode.OK: "a"}[0] == "a" and int(ExitCode.INTERNAL) == 4
    assert ExitCode(ExitCode.UNKNOWN) is ExitCode.UNKNOWN


def test_plain_members_are_not_their_values():
    assert Verdict.VALID != "valid" and Verdict("valid") is Verdict.VALID
    assert Verdict.VALID != Fault.TYPE_ERROR and Verdict.VALID == Verdict.VALID
    assert {Verdict.VALID: 1, Verdict.UNKNOWN: 2}[Verdict("unknown")] == 2


def test_a_class_body_keeps_its_methods_and_private_names():
    class Colour(LightEnum):
        RED = "r"
        GREEN = "g"
        _hidden = 3
        lower_case = 4

        def shout(self):
            return self.name + "!"

        @property
        def first(self):
            return self.value[0]

    assert list(Colour) == [Colour.RED, Colour.GREEN]
    assert Colour.RED.shout() == "RED!" and Colour.GREEN.first == "g"
    assert Colour._hidden == 3 and Colour.lower_case == 4
    assert Colour.RED not in Fault and Fault.TYPE_ERROR not in Colour


#: values probed with ``in``: members' values, members of other classes, other values,
#: unhashable ones
PROBES = [0, 1, 130, 5, -1, True, 1.0, "valid", "VALID", "type error", "unknown", None,
          ["valid"], {"k": 0}, b"valid", Verdict.VALID, Fault.TYPE_ERROR, ExitCode.OK]


@pytest.mark.parametrize("light", [ExitCode, Verdict, Fault], ids=lambda c: c.__name__)
def test_in_follows_python_312s_rule_on_every_version(light):
    """``x in Kind``: a member, or a member's value (3.12 and 3.13; 3.11's enum raised
    TypeError for anything but a member, so no working code depends on 3.11's answer).
    Before this, ``0 in ExitCode`` and ``"valid" in Verdict`` were False where 3.12's enums
    say True: code written for 3.12 behaved differently with these classes."""
    import sys

    values = {m.value for m in light.__members__.values()}
    for probe in PROBES:
        try:
            want = probe in values or type(probe) is light
        except TypeError:     # unhashable
            want = False
        assert (probe in light) is want, probe
    if sys.version_info >= (3, 12):   # and the same answers as real enums of the same body
        (real,) = [r for lt, r in PAIRS if lt is light]
        for probe in PROBES:
            if isinstance(probe, (ExitCode, Verdict, Fault, list, dict)):
                continue    # a member of the light class is not a member of its twin;
                # 3.12.1's enum raises TypeError for an unhashable value (3.13: False)
            assert (probe in light) == (probe in real), probe


def test_a_class_with_members_cannot_be_extended_as_enum_refuses():
    for light, real in PAIRS:
        with pytest.raises(TypeError) as mine:
            class MoreLight(light):
                EXTRA = 99
        with pytest.raises(TypeError) as theirs:
            class MoreReal(real):
                EXTRA = 99
        assert str(mine.value).replace("MoreLight", "MoreReal") == str(theirs.value)

    class Base(LightEnum):     # without members it can be a base, as enum's can
        def describe(self):
            return self.name.lower()

    class Kind(Base):
        ONE = 1

    assert Kind.ONE.describe() == "one" and list(Kind) == [Kind.ONE]


@pytest.mark.parametrize("hook", ["__init__", "__new__", "_missing_", "_generate_next_value_",
                                  "_ignore_", "_order_"])
def test_an_enum_hook_it_would_ignore_is_refused_not_silently_skipped(hook):
    # enum calls these (an __init__ per member with its value, _missing_ for an unknown
    # value...): a body written for enum must not quietly make different members
    body = {"A": 1, hook: (lambda *args: None) if hook.startswith("__") else "A"}
    with pytest.raises(TypeError, match=hook):
        type(LightEnum)("Hooked", (LightEnum,), body)


@pytest.mark.parametrize("light, real", PAIRS, ids=lambda c: c.__name__)
def test_pydantic_models_take_the_light_classes_as_real_enums(light, real):
    # pydantic builds schemas for enum.Enum subclasses only: a model with a Verdict field
    # raised PydanticSchemaGenerationError. Same validation, dumps and JSON schema as enum's.
    pydantic = pytest.importorskip("pydantic", minversion="2")

    mine = pydantic.create_model("Row", v=(light, ...))
    theirs = pydantic.create_model("Row", v=(real, ...))
    for member in light:
        twin = real[member.name]
        row = mine(v=member.value)
        assert row.v is member and mine(v=member).v is member
        assert row.model_dump_json() == theirs(v=twin.value).model_dump_json()
        assert mine.model_validate_json(row.model_dump_json()).v is member
    with pytest.raises(pydantic.ValidationError) as refused:
        mine(v="no such value")
    with pytest.raises(pydantic.ValidationError) as refused_too:
        theirs(v="no such value")
    assert refused.value.errors()[0]["msg"] == refused_too.value.errors()[0]["msg"]
    schema, real_schema = mine.model_json_schema(), theirs.model_json_schema()
    for s in (schema, real_schema):
        s["$defs"][light.__name__].pop("description", None)   # the docstrings differ
    assert schema == real_schema
