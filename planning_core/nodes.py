"""``@node``: a frozen, slotted dataclass whose methods were written ahead of time.

Every ``validate`` call imports :mod:`planning_core.pddl.ast`, and ``@dataclass`` compiles
each generated method with its own ``exec`` (six per frozen class, 210 for the AST): about
20 ms per process, a third of a call's budget (issue 24). ``@node`` makes the same class
``dataclass(frozen=True, slots=True)`` makes (same fields, ``__init__`` signature, ``repr``,
``==``, ``hash``, frozen errors, ``__match_args__``, ``__slots__``, pickling,
``dataclasses.fields``/``replace``), but takes the methods from
:mod:`planning_core._node_methods`, plain Python source written by
:mod:`planning_core.cli.nodes_gen` and byte-compiled like any other module, so nothing is
compiled at import.

The generated methods are used only while they match the class: each entry records the
fields it was written for (names, annotations, which have defaults, which take part in
``==`` and ``repr``). A class edited since, a field option the generator does not write
(``default_factory``, ``init=False``, ...), a method the class defines itself, or a Python
whose ``dataclasses`` lacks what is filled in here, all fall back to the real
``dataclass(frozen=True, slots=True)``: slower, never different.
``tests/pddl/test_nodes.py`` checks the generated file is current and that every AST class
behaves as the real dataclass does. Regenerate after editing a node class::

    python -m planning_core.cli.nodes_gen --write
"""
from __future__ import annotations

import dataclasses
import os

__all__ = ["node"]

#: every class ``@node`` saw, by module and qualified name, with its field spec (or None
#: where the generator cannot write it): the generator's input
SPECS: dict[str, tuple] = {}
_OWN = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__",
        "__getstate__", "__setstate__", "__match_args__", "__slots__")
_MISSING = dataclasses.MISSING


def _spec(cls) -> tuple | None:
    """((name, annotation, has_default, compare, repr), ...) or None if not writable."""
    out = []
    annotations = cls.__dict__.get("__annotations__", {})
    for name, annotation in annotations.items():
        if name in ("self", "_object_setattr"):  # names the generated __init__ uses
            return None
        if not isinstance(annotation, str) or annotation.startswith(("ClassVar", "InitVar",
                                                                     "typing.", "dataclasses.")):
            return None
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, dataclasses.Field):
            f = value
            if (f.default_factory is not _MISSING or not f.init or f.hash is not None
                    or f.metadata or f.kw_only is not _MISSING):
                return None
            out.append((name, annotation, f.default is not _MISSING, f.compare, f.repr))
        else:
            out.append((name, annotation, value is not _MISSING, True, True))
    return tuple(out)


def _default(cls, name):
    value = cls.__dict__[name]
    return value.default if isinstance(value, dataclasses.Field) else value


_PARAMS: list = []


def _params():
    """The ``__dataclass_params__`` of a frozen slotted dataclass (the same for every node)."""
    if not _PARAMS:
        @dataclasses.dataclass(frozen=True, slots=True)
        class _Probe:
            pass
        _PARAMS.append(_Probe.__dataclass_params__)
    return _PARAMS[0]


def node(cls):
    """``dataclass(frozen=True, slots=True)``, with the methods written ahead of time."""
    spec = _spec(cls)
    SPECS[f"{cls.__module__}.{cls.__qualname__}"] = spec
    made = _generated(cls, spec)
    return made if made is not None else dataclasses.dataclass(frozen=True, slots=True)(cls)


def _generated(cls, spec):
    if spec is None or any(name in cls.__dict__ for name in _OWN) or cls.__bases__ != (object,) \
            or not hasattr(dataclasses, "_FIELD") \
            or not hasattr(dataclasses, "_recursive_repr"):
        return None
    try:
        from planning_core import _node_methods as generated
    except ImportError:
        return None
    entry = generated.METHODS.get(f"{cls.__module__}.{cls.__qualname__}")
    if entry is None or entry[0] != spec:
        return None
    _, doc, factory = entry
    names = tuple(f[0] for f in spec)
    defaults = {f[0]: _default(cls, f[0]) for f in spec if f[2]}
    if any(type(v).__hash__ is None for v in defaults.values()):
        return None  # a mutable default: dataclass raises its own error
    fields = {}
    for name, annotation, has_default, compare, repr_ in spec:
        f = dataclasses.field(default=defaults[name] if has_default else _MISSING,
                              compare=compare, repr=repr_)
        f.name, f.type, f._field_type = name, annotation, dataclasses._FIELD
        f.kw_only = False
        fields[name] = f
    namespace = dict(cls.__dict__)
    for name in names:
        namespace.pop(name, None)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    namespace["__slots__"] = names
    namespace["__match_args__"] = names
    namespace["__dataclass_fields__"] = fields
    namespace["__dataclass_params__"] = _params()
    if not namespace.get("__doc__"):
        namespace["__doc__"] = doc
    # the frozen checks name the class before slots re-create it, as dataclasses' do
    methods = factory(cls, defaults, dataclasses.FrozenInstanceError)
    methods["__repr__"] = dataclasses._recursive_repr(methods["__repr__"])
    for name, fn in methods.items():
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
        namespace[name] = fn
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    return made


#: the generated methods (written by :mod:`planning_core.cli.nodes_gen`)
GENERATED_PATH = os.path.join(os.path.dirname(__file__), "_node_methods.py")
