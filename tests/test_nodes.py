"""``@node`` (a frozen slotted dataclass with its methods written ahead of time) makes the
very class ``dataclass(frozen=True, slots=True)`` makes, and the generated file is current
(issue 24: the AST's 210 compiled methods were a third of a ``validate`` call)."""
from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import subprocess
import sys
import typing
from dataclasses import FrozenInstanceError
from types import SimpleNamespace

import pytest

from planning_core import _node_methods, nodes
from planning_core.cli import nodes_gen
from planning_core.pddl import ast

#: the generated methods are used on the Python whose dataclasses they copy (elsewhere
#: every @node class is the real dataclass, and these tests check that instead)
THIS_PYTHON = sys.version_info[:2] == _node_methods.PYTHON
written_here = pytest.mark.skipif(not THIS_PYTHON, reason=(
    f"_node_methods.py is written for Python {_node_methods.PYTHON}; on this one @node "
    "classes are the real dataclasses"))

NODE_CLASSES = [cls for module in nodes_gen.MODULES for key in list(nodes.SPECS)
                if (cls := nodes_gen._class_of(module, key)) is not None]


def _reference(cls):
    """The class as ``dataclass(frozen=True, slots=True)`` builds it from the same spec."""
    key = f"{cls.__module__}.{cls.__qualname__}"
    spec = nodes.SPECS[key]
    keep = {k: v for k, v in cls.__dict__.items()
            if k not in cls.__slots__ and k not in nodes._OWN and not k.startswith("__dataclass")
            and k not in ("__dict__", "__weakref__", "__doc__")}
    ns = dict(keep, __annotations__={n: a for n, a, *_ in spec})
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name, _, has_default, compare, repr_ in spec:
        if has_default and (not compare or not repr_):
            ns[name] = dataclasses.field(default=fields[name].default, compare=compare,
                                         repr=repr_)
        elif has_default:
            ns[name] = fields[name].default
    from planning_core._node_methods import METHODS

    if cls.__doc__ != METHODS[key][1]:
        ns["__doc__"] = cls.__doc__  # the class's own docstring
    ref = type(cls.__name__, (), ns)
    ref.__qualname__ = cls.__qualname__
    return dataclasses.dataclass(frozen=True, slots=True)(ref)


def _field_facts(cls):
    return [(f.name, f.type, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare,
             dict(f.metadata), f.kw_only, f._field_type) for f in dataclasses.fields(cls)]


def _values(cls, salt: str):
    """One argument per field: distinct hashable values (the classes do not check types)."""
    return [f"{f.name}-{salt}" for f in dataclasses.fields(cls)]


def test_the_generated_file_is_current():   # whichever Python runs the tests
    with open(nodes.GENERATED_PATH, encoding="utf-8") as fh:
        assert fh.read() == nodes_gen.generate(), \
            "run: python -m planning_core.cli.nodes_gen --write"


@written_here
@pytest.mark.parametrize("cls", NODE_CLASSES, ids=lambda c: c.__name__)
def test_every_listed_class_takes_the_written_methods(cls):
    assert cls.__init__.__code__.co_filename == nodes.GENERATED_PATH


@pytest.mark.parametrize("cls", NODE_CLASSES, ids=lambda c: c.__name__)
def test_a_node_class_is_the_dataclass_it_replaces(cls):
    ref = _reference(cls)
    assert dataclasses.is_dataclass(cls)
    assert _field_facts(cls) == _field_facts(ref)
    assert repr(cls.__dataclass_params__) == repr(ref.__dataclass_params__)
    assert (cls.__match_args__, cls.__slots__) == (ref.__match_args__, ref.__slots__)
    assert cls.__doc__ == ref.__doc__
    assert str(inspect.signature(cls)) == str(inspect.signature(ref))
    assert cls.__init__.__annotations__ == ref.__init__.__annotations__
    assert set(dir(cls)) == set(dir(ref))

    # the methods live in the class's module, as the exec'd ones do: their annotations
    # resolve there and pickle finds them there
    assert typing.get_type_hints(cls.__init__) == typing.get_type_hints(ref.__init__)
    assert str(inspect.signature(cls, eval_str=True)) == str(inspect.signature(ref,
                                                                              eval_str=True))
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
        method = getattr(cls, name)
        assert method.__module__ == getattr(ref, name).__module__ == cls.__module__
        assert pickle.loads(pickle.dumps(method)) is method

    a, b = cls(*_values(cls, "a")), ref(*_values(ref, "a"))
    assert repr(a) == repr(b)
    assert not hasattr(a, "__dict__") and not hasattr(b, "__dict__")
    assert hash(a) == hash(b)
    assert dataclasses.astuple(a) == dataclasses.astuple(b)
    assert dataclasses.asdict(a) == dataclasses.asdict(b)
    for i, f in enumerate(dataclasses.fields(cls)):   # equality ignores exactly what ref's does
        changed = _values(cls, "a")
        changed[i] = "other"
        assert (a == cls(*changed)) == (b == ref(*changed)) == (not f.compare)
        assert (hash(a) == hash(cls(*changed))) == (not f.compare)
    assert a != b and (a == object()) is False
    assert a.__eq__(b) is NotImplemented and b.__eq__(a) is NotImplemented

    name = dataclasses.fields(cls)[0].name
    for obj in (a, b):
        with pytest.raises(FrozenInstanceError, match=f"cannot assign to field '{name}'"):
            setattr(obj, name, "x")
        with pytest.raises(FrozenInstanceError, match=f"cannot delete field '{name}'"):
            delattr(obj, name)
    failures = []
    for obj in (a, b):
        try:
            obj.not_a_field = 1
        except Exception as e:  # noqa: BLE001 - whatever it is, the same for both
            failures.append((type(e), str(e)))
    assert len(failures) == 2 and failures[0] == failures[1]

    for clone in (pickle.loads(pickle.dumps(a, protocol)) for protocol in range(2, 6)):
        assert type(clone) is cls and clone == a and repr(clone) == repr(a)
        assert [getattr(clone, f) for f in cls.__slots__] == [getattr(a, f) for f in cls.__slots__]
    assert copy.copy(a) == a and copy.deepcopy(a) == a
    other = dataclasses.replace(a, **{name: "replaced"})
    assert nodes.replace(a, **{name: "replaced"}) == other and nodes.replace(a) == a
    assert repr(nodes.replace(a, **{name: "replaced"})) == repr(other)
    with pytest.raises(TypeError):
        nodes.replace(a, not_a_field=1)
    assert type(other) is cls and getattr(other, name) == "replaced"
    assert dataclasses.replace(b, **{name: "replaced"}) == ref(*[getattr(other, f)
                                                                 for f in ref.__slots__])
    outcomes = []
    for c in (cls, ref):   # too few arguments (or none needed), and too many
        for args in ((), _values(c, "z") + ["extra"]):
            try:
                outcomes.append(repr(c(*args)))
            except TypeError as e:
                outcomes.append(str(e))
    assert outcomes[:2] == outcomes[2:]


def test_match_statements_see_the_fields():
    match ast.Atom("on", ("a", "b")):
        case ast.Atom(predicate, args):
            assert (predicate, args) == ("on", ("a", "b"))
        case _:
            pytest.fail("no match")


def test_classes_the_generator_does_not_cover_are_real_dataclasses():
    from dataclasses import field

    @nodes.node
    class Unknown:  # not in the generated file
        x: int
        y: int = 3

    @nodes.node
    class WithFactory:
        x: list = field(default_factory=list)

    for cls in (Unknown, WithFactory):
        assert cls.__init__.__code__.co_filename != nodes.GENERATED_PATH
        assert dataclasses.is_dataclass(cls) and cls.__slots__
    assert Unknown(1) == Unknown(1, 3) and WithFactory().x == []
    with pytest.raises(FrozenInstanceError):
        Unknown(1).x = 2


@written_here
def test_a_class_changed_since_generation_is_a_real_dataclass(monkeypatch):
    from planning_core import _node_methods

    key = f"{__name__}.Pos"
    spec, doc, factory = _node_methods.METHODS["planning_core.pddl.ast.Pos"]
    monkeypatch.setitem(_node_methods.METHODS, key, (spec, doc, factory))

    class Pos:
        line: int
        column: int
    Pos.__qualname__ = "Pos"
    assert nodes.node(Pos).__init__.__code__.co_filename == nodes.GENERATED_PATH

    class Pos:  # noqa: F811 - the same class with a field more: the entry no longer fits
        line: int
        column: int
        offset: int = 0
    Pos.__qualname__ = "Pos"
    made = nodes.node(Pos)
    assert made.__init__.__code__.co_filename != nodes.GENERATED_PATH
    assert made(1, 2) == made(1, 2, 0) != made(1, 2, 5)


def test_classes_made_on_another_python_or_with_node_fields_fall_back_exactly(monkeypatch):
    from planning_core import _node_methods

    monkeypatch.setattr(_node_methods, "PYTHON", (2, 7))

    class Pos:
        line: int
        column: int = nodes.field(default=0, compare=False, repr=False)
    Pos.__qualname__ = "Pos"
    key = f"{__name__}.Pos"
    monkeypatch.setitem(_node_methods.METHODS, key,
                        _node_methods.METHODS["planning_core.pddl.ast.Pos"])
    made = nodes.node(Pos)
    assert made.__init__.__code__.co_filename != nodes.GENERATED_PATH
    assert made(1, 2) == made(1, 3) and repr(made(1, 2)) == "Pos(line=1)"
    assert [f.name for f in dataclasses.fields(made) if f.compare] == ["line"]
    assert nodes.replace(made(1, 2), line=5) == made(5)


def test_dataclass_fields_are_made_on_first_access_and_kept():
    @nodes.node
    class Late:
        a: int
    from planning_core import nodes as n

    # not in the generated file: a real dataclass; the written classes keep a descriptor
    # until asked, then the dict itself
    cls = ast.Equals
    first = dataclasses.fields(cls)
    assert isinstance(cls.__dict__["__dataclass_fields__"], dict)
    assert dataclasses.fields(cls) == first and cls.__dataclass_fields__ is \
        cls.__dict__["__dataclass_fields__"]
    assert dataclasses.is_dataclass(Late) and n.replace(Late(1), a=2) == Late(2)


@written_here
def test_a_validate_call_imports_neither_dataclasses_nor_inspect(tmp_path):
    import json
    import os
    import subprocess
    import sys

    from conftest import DOMAINS

    bw = DOMAINS / "blocksworld"
    # the console script ends its process after the exit handlers, without Python's
    # teardown (cli.exit_process): an exit handler reports the modules
    probe = ("import atexit, json, sys\nfrom planning_core.cli.validate import validate_main\n"
             "atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
             "sys.exit(validate_main())\n")
    env = dict(os.environ, PLANNING_CORE_PARSE_CACHE="1",
               PLANNING_CORE_PARSE_CACHE_DIR=str(tmp_path))  # the second call reads it
    for plan in ("p01.plan", "p01.bad.plan"):   # a valid and an invalid plan (a report
        for _ in range(2):                       # replaced with its trace)
            done = subprocess.run(
                [sys.executable, "-c", probe, str(bw / plan), str(bw / "domain.pddl"),
                 str(bw / "p01.pddl")], capture_output=True, text=True, timeout=120, env=env)
        code, modules = done.returncode, json.loads(done.stderr.strip().splitlines()[-1])
        assert code == (0 if plan == "p01.plan" else 1)
        assert not {"dataclasses", "inspect"} & set(modules)


def test_a_plain_subclass_of_a_node_class_still_reads_as_a_dataclass():
    class Tagged(ast.Number):   # no @dataclass: inherits the fields, the methods, the slots
        __slots__ = ("tag",)

    item = Tagged(3.0)
    assert [f.name for f in dataclasses.fields(Tagged)] == ["value", "pos"]
    assert dataclasses.fields(ast.Number) == dataclasses.fields(Tagged)
    assert dataclasses.replace(item, value=4.0) == Tagged(4.0)
    assert nodes.replace(item, value=4.0) == Tagged(4.0)   # not written for Tagged: delegated
    with pytest.raises(FrozenInstanceError):
        item.value = 5.0


@written_here
def test_a_class_with_a_post_init_runs_it(monkeypatch):
    """The written __init__ does not call __post_init__: such a class is the real dataclass
    (it was silently skipped while the fields matched the written entry)."""
    monkeypatch.setitem(_node_methods.METHODS, f"{__name__}.Pos",
                        _node_methods.METHODS["planning_core.pddl.ast.Pos"])
    calls = []

    class Pos:
        line: int
        column: int

        def __post_init__(self):
            calls.append((self.line, self.column))
    Pos.__qualname__ = "Pos"
    made = nodes.node(Pos)
    made(1, 2)
    assert calls == [(1, 2)]


class CV:   # a name of this module: the check must not read it as typing.ClassVar
    pass


def test_annotations_dataclasses_reads_specially_are_left_to_it(monkeypatch):
    from dataclasses import KW_ONLY, InitVar  # noqa: F401 - read by name from the annotations
    from typing import ClassVar

    def spec_of(annotations, module=__name__):
        cls = type("C", (), {"__annotations__": annotations, "__module__": module})
        return nodes._spec(cls)

    for annotation in ("KW_ONLY", "dataclasses.KW_ONLY", "ClassVar[int]", "t.ClassVar[int]",
                       "typing.ClassVar", "InitVar[int]", "dc.InitVar[int]"):
        assert spec_of({"x": "int", "_": annotation}) is None, annotation
    # a module's own alias of ClassVar / KW_ONLY
    alias = type(sys)("rnode_alias_module")
    alias.Shared, alias.Kw, alias.Plain = ClassVar, KW_ONLY, int
    monkeypatch.setitem(sys.modules, "rnode_alias_module", alias)
    assert spec_of({"x": "Shared[int]"}, "rnode_alias_module") is None
    assert spec_of({"_": "Kw", "x": "int"}, "rnode_alias_module") is None
    assert spec_of({"x": "Plain"}, "rnode_alias_module") is not None
    assert spec_of({"x": "CV", "y": "tuple[int, ...]"}) is not None


def test_the_generator_writes_for_the_python_it_copies_whatever_runs_it(monkeypatch):
    monkeypatch.setattr(nodes_gen, "sys", SimpleNamespace(version_info=(3, 13, 0, "final", 0)))
    text = nodes_gen.generate()
    assert "\nPYTHON = (3, 11)\n" in text and _node_methods.PYTHON == (3, 11)


def test_regenerating_does_not_run_the_file_it_replaces():
    """--write must work while the file is stale or broken (a generator change)."""
    probe = (
        "import runpy, sys\n"
        "import planning_core._node_methods as m\n"
        "def stale(*args):\n"
        "    raise NameError('a method of the old file')\n"
        "m.METHODS = {k: (spec, doc, stale) for k, (spec, doc, _) in m.METHODS.items()}\n"
        "m.PYTHON = sys.version_info[:2]\n"
        "sys.argv = ['nodes_gen']\n"
        "runpy.run_module('planning_core.cli.nodes_gen', run_name='__main__')\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    with open(nodes.GENERATED_PATH, encoding="utf-8") as fh:
        assert done.stdout == fh.read()


@dataclasses.dataclass(frozen=True)
class _UserAtom(ast.Atom):   # a user's dataclass extending an AST class
    extra: int = 0


@dataclasses.dataclass(frozen=True, slots=True)
class _UserSlottedAtom(ast.Atom):
    extra: int = 0


@pytest.mark.parametrize("sub", [_UserAtom, _UserSlottedAtom], ids=lambda c: c.__name__)
def test_a_dataclass_extending_a_node_class_pickles_and_copies_its_own_fields(sub):
    """The inherited __getstate__/__setstate__ read the instance's fields, as dataclasses'
    do (the written ones had kept the base's three, and dropped ``extra``)."""
    item = sub("on", ("a", "b"), None, 7)
    clones = [pickle.loads(pickle.dumps(item, p)) for p in range(2, 6)]
    for clone in [*clones, copy.copy(item), copy.deepcopy(item)]:
        assert type(clone) is sub and clone == item and clone.extra == 7
    assert ast.Atom.__getstate__(ast.Atom("p", ("x",))) == ["p", ("x",), None]


@written_here
def test_dataclass_fields_made_twice_at_once_are_one_dict(monkeypatch):
    """Two first accesses at once (threads of a worker; here one inside the other) answer
    the same dict, the one the class keeps: Field objects compare by identity."""
    monkeypatch.setitem(_node_methods.METHODS, f"{__name__}.Pos",
                        _node_methods.METHODS["planning_core.pddl.ast.Pos"])

    class Pos:
        line: int
        column: int
    Pos.__qualname__ = "Pos"
    made = nodes.node(Pos)
    descriptor = made.__dict__["__dataclass_fields__"]
    inner, asked = [], []
    make = nodes._DataclassAttribute._make

    def make_while_another_asks(self):
        if not asked:
            asked.append(True)
            inner.append(made.__dataclass_fields__)
        return make(self)

    monkeypatch.setattr(nodes._DataclassAttribute, "_make", make_while_another_asks)
    outer = descriptor.__get__(None, made)
    assert outer is inner[0] is made.__dict__["__dataclass_fields__"]
    assert dataclasses.fields(made) == dataclasses.fields(made)


def test_every_module_using_node_is_one_the_generator_writes():
    """A @node class in a module missing from nodes_gen.MODULES would silently stay the
    slow real dataclass, with no staleness test to say so."""
    import pathlib
    import re

    root = pathlib.Path(nodes.__file__).parent
    decorated = set()
    for path in root.rglob("*.py"):
        if path.name in ("nodes.py", "_node_methods.py"):
            continue
        if re.search(r"^\s*@(nodes\.)?node\s*$", path.read_text(encoding="utf-8"), re.M):
            parts = path.relative_to(root.parent).with_suffix("").parts
            decorated.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert decorated, "no @node class found: the pattern is wrong"
    assert decorated <= {m.__name__ for m in nodes_gen.MODULES}, \
        "add these modules to planning_core.cli.nodes_gen.MODULES, then --write"
