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
``==`` and ``repr``), and the file the Python version whose ``dataclasses`` it copies. A
class edited since, a field option the generator does not write (``default_factory``,
``init=False``, a ``dataclasses.field``: use :func:`field`), an annotation dataclasses
reads specially (``ClassVar``, ``InitVar``, ``KW_ONLY``), a method the class defines itself
(``__post_init__`` included), or another Python, all fall back to the real ``dataclass(frozen=True,
slots=True)``: slower, never different. :mod:`dataclasses` itself (and the :mod:`inspect`
it imports) is imported only when something asks for a class's dataclass fields.
``tests/test_nodes.py`` checks the generated file is current and that every AST class
behaves as the real dataclass does. Regenerate after editing a node class::

    python -m planning_core.cli.nodes_gen --write
"""
from __future__ import annotations

import os
import sys
from _thread import RLock, get_ident

__all__ = ["field", "node", "replace"]

#: every class ``@node`` saw, by module and qualified name, with its field spec (or None
#: where the generator cannot write it): the generator's input
SPECS: dict[str, tuple] = {}
#: the classes made with written methods
_WRITTEN: set[type] = set()
#: False while the generator runs (``python -m planning_core.cli.nodes_gen``): the file it
#: rewrites may be stale or broken, and it needs only the specs and the real dataclasses
USE_WRITTEN = True
_OWN = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__",
        "__getstate__", "__setstate__", "__match_args__", "__slots__",
        # the generated __init__ does not call it: a class with one is the real dataclass
        "__post_init__")


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


_MISSING = _Missing()


class _Field:
    __slots__ = ("default", "compare", "repr")

    def __init__(self, default, compare: bool, repr: bool) -> None:  # noqa: A002
        self.default, self.compare, self.repr = default, compare, repr


def field(*, default=_MISSING, compare: bool = True, repr: bool = True):  # noqa: A002
    """``dataclasses.field`` for a ``@node`` class (the options it supports), without
    importing :mod:`dataclasses`: the real ``Field`` is made when someone asks for it."""
    return _Field(default, compare, repr)


def _dataclasses():
    """:mod:`dataclasses`, only when needed: it imports :mod:`inspect` (with ``ast``, ``dis``
    and ``tokenize``), several milliseconds of every ``validate`` call."""
    import dataclasses

    return dataclasses


def _spec(cls) -> tuple | None:
    """((name, annotation, has_default, compare, repr), ...) or None if not writable."""
    out = []
    annotations = cls.__dict__.get("__annotations__", {})
    for name, annotation in annotations.items():
        if name in ("self", "_object_setattr"):  # names the generated __init__ uses
            return None
        if not isinstance(annotation, str) or _pseudo_field(cls, annotation):
            return None
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, _Field):
            out.append((name, annotation, value.default is not _MISSING, value.compare,
                        value.repr))
        elif "dataclasses" in sys.modules and isinstance(value, sys.modules["dataclasses"].Field):
            return None  # a dataclasses.field(...): the real decorator reads it
        else:
            out.append((name, annotation, value is not _MISSING, True, True))
    return tuple(out)


#: what dataclasses reads in an annotation as "not a field" (or "keyword-only from here")
_PSEUDO_FIELDS = ("ClassVar", "InitVar", "KW_ONLY")


def _pseudo_field(cls, annotation: str) -> bool:
    """Whether ``annotation`` may be one dataclasses treats specially (``ClassVar``,
    ``InitVar``, ``KW_ONLY``, spelt plain, qualified by any module name, or under another
    name the class's module gave it), or any ``typing.``/``dataclasses.`` name: the real
    decorator decides those."""
    head = annotation.split("[", 1)[0].strip()
    if head.startswith(("typing.", "dataclasses.")) or head.rsplit(".", 1)[-1] in _PSEUDO_FIELDS:
        return True
    homes = [sys.modules[home] for home in ("typing", "dataclasses") if home in sys.modules]
    if not homes:   # neither is imported: no name can be one of theirs (a validate call)
        return False
    module = sys.modules.get(cls.__module__)
    if module is None or not head.isidentifier() or head not in vars(module):
        return False
    value = vars(module)[head]
    return any(value is getattr(sys.modules.get(home), name, _MISSING)
               for home in ("typing", "dataclasses") for name in _PSEUDO_FIELDS)


def node(cls):
    """``dataclass(frozen=True, slots=True)``, with the methods written ahead of time."""
    spec = _spec(cls)
    SPECS[f"{cls.__module__}.{cls.__qualname__}"] = spec
    made = _generated(cls, spec)
    return made if made is not None else _real_dataclass(cls)


def replace(obj, /, **changes):
    """``dataclasses.replace(obj, **changes)``; for a ``@node`` class with written methods
    (every field an ``__init__`` argument) without importing :mod:`dataclasses`."""
    cls = type(obj)
    if cls not in _WRITTEN:
        return _dataclasses().replace(obj, **changes)
    for name in cls.__match_args__:
        if name not in changes:
            changes[name] = getattr(obj, name)
    return cls(**changes)


def _real_dataclass(cls):
    dataclasses = _dataclasses()
    for name, value in list(cls.__dict__.items()):
        if isinstance(value, _Field):
            setattr(cls, name, dataclasses.field(
                default=dataclasses.MISSING if value.default is _MISSING else value.default,
                compare=value.compare, repr=value.repr))
    return dataclasses.dataclass(frozen=True, slots=True)(cls)


_LOADED: list = []   # [the generated module, or None when it cannot be loaded]


def _generated_module():
    """:mod:`planning_core._node_methods`, or None when it cannot be loaded for any reason:
    absent, empty or truncated (a ``nodes_gen --write`` interrupted before it wrote files
    atomically left a ``SyntaxError`` that broke every command), or without ``METHODS``.
    Then every class is the real dataclass. Tried once per process."""
    if not _LOADED:
        try:
            from planning_core import _node_methods as generated
            if not isinstance(generated.METHODS, dict):
                generated = None
        except Exception:  # noqa: BLE001 - SyntaxError, ImportError, AttributeError, ...
            sys.modules.pop("planning_core._node_methods", None)
            generated = None
        _LOADED.append(generated)
    return _LOADED[0]


def _generated(cls, spec):
    if spec is None or not USE_WRITTEN or any(name in cls.__dict__ for name in _OWN) \
            or cls.__bases__ != (object,):
        return None
    generated = _generated_module()
    if generated is None:
        return None
    try:
        entry = generated.METHODS.get(f"{cls.__module__}.{cls.__qualname__}")
        if entry is None or entry[0] != spec \
                or sys.version_info[:2] != getattr(generated, "PYTHON", None):
            return None  # written for another class, or for another Python's dataclasses
        _, doc, factory = entry
    except Exception:  # noqa: BLE001 - a damaged entry: the real dataclass, never a crash
        return None
    names = tuple(f[0] for f in spec)
    defaults = {}
    for name, _, has_default, _, _ in spec:
        if has_default:
            value = cls.__dict__[name]
            defaults[name] = value.default if isinstance(value, _Field) else value
    if any(type(v).__hash__ is None for v in defaults.values()):
        return None  # a mutable default: dataclass raises its own error
    namespace = dict(cls.__dict__)
    for name in names:
        namespace.pop(name, None)
    namespace.pop("__dict__", None)
    namespace.pop("__weakref__", None)
    namespace["__slots__"] = names
    namespace["__match_args__"] = names
    namespace["__dataclass_fields__"] = _DataclassAttribute("__dataclass_fields__", spec,
                                                            defaults)
    namespace["__dataclass_params__"] = _DataclassAttribute("__dataclass_params__", spec,
                                                            defaults)
    if not namespace.get("__doc__"):
        namespace["__doc__"] = doc
    # the methods live in the class's module, as exec'd ones do: their names resolve there
    # (typing.get_type_hints(cls.__init__), inspect.signature(cls, eval_str=True)) and
    # pickle finds them there by reference. The factory itself is re-made with the module's
    # globals, so the functions it makes are born there (with their __module__ and
    # annotations): one function re-made per class, not one per method (issue 28)
    module = sys.modules.get(cls.__module__)
    module_globals = vars(module) if module is not None else {"__name__": cls.__module__}
    # the frozen checks name the class before slots re-create it, as dataclasses' do
    try:
        factory = type(factory)(factory.__code__, module_globals, factory.__name__,
                                factory.__defaults__, factory.__closure__)
        methods = factory(cls, defaults, _frozen_instance_error, _fields_of)
        if not isinstance(methods, dict):
            return None
    except Exception:  # noqa: BLE001 - a damaged entry: the real dataclass
        return None
    for name, fn in methods.items():
        fn.__qualname__ = f"{cls.__qualname__}.{name}"
        if name == "__repr__":
            fn = _recursive_repr(fn)
        namespace[name] = fn
    made = type(cls)(cls.__name__, cls.__bases__, namespace)
    made.__qualname__ = cls.__qualname__
    _WRITTEN.add(made)
    return made


def _fields_of(owner: type) -> tuple | None:
    """The fields a written ``__getstate__``/``__setstate__`` carries for an instance of
    ``owner``: None for the class they were written for (its own fields, known), else
    ``dataclasses.fields``, as dataclasses' own do (a subclass may add fields)."""
    if owner in _WRITTEN:
        return None
    return tuple(f.name for f in _dataclasses().fields(owner))


def _frozen_instance_error(message: str) -> Exception:
    """The exception a frozen dataclass raises on assignment (the generated methods raise
    what this returns)."""
    return _dataclasses().FrozenInstanceError(message)


def _recursive_repr(user_function):
    """``repr`` that answers ``...`` for an object already being shown, as the
    ``__repr__`` of a dataclass does (dataclasses' own ``_recursive_repr``)."""
    running = set()

    def wrapper(self):
        key = id(self), get_ident()
        if key in running:
            return "..."
        running.add(key)
        try:
            return user_function(self)
        finally:
            running.discard(key)
    # what functools.wraps copies (functools is not imported: it brings collections, ~2 ms
    # of every validate call, issue 28)
    for name in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(wrapper, name, getattr(user_function, name))
    wrapper.__dict__.update(user_function.__dict__)
    wrapper.__wrapped__ = user_function
    return wrapper


_MAKING = RLock()


class _DataclassAttribute:
    """``__dataclass_fields__`` or ``__dataclass_params__`` of a ``@node`` class, made on
    first access and then stored on the class in place of this descriptor.

    Only :mod:`dataclasses` reads them (``fields``, ``replace``, ``asdict``, ``is_dataclass``),
    so making them can wait until a caller that imported it asks; a ``validate`` call never
    does. The values are what ``dataclass(frozen=True, slots=True)`` stores."""

    __slots__ = ("name", "spec", "defaults")

    def __init__(self, name: str, spec: tuple, defaults: dict) -> None:
        self.name, self.spec, self.defaults = name, spec, defaults

    def __get__(self, obj, owner):
        with _MAKING:   # one value per class, even when two threads ask first at once
            for cls in owner.__mro__:   # the class this descriptor is on (owner may subclass it)
                if cls.__dict__.get(self.name) is self:
                    value = self._make()
                    if cls.__dict__.get(self.name) is self:   # not made meanwhile
                        type.__setattr__(cls, self.name, value)
                    return cls.__dict__[self.name]
        return getattr(owner, self.name)   # made by another thread since the lookup

    def _make(self):
        dataclasses = _dataclasses()
        if self.name == "__dataclass_params__":
            return _params()
        fields = {}
        for name, annotation, has_default, compare, repr_ in self.spec:
            f = dataclasses.field(
                default=self.defaults[name] if has_default else dataclasses.MISSING,
                compare=compare, repr=repr_)
            f.name, f.type, f._field_type = name, annotation, dataclasses._FIELD
            f.kw_only = False
            fields[name] = f
        return fields


_PARAMS: list = []


def _params():
    """The ``__dataclass_params__`` of a frozen slotted dataclass (the same for every node)."""
    if not _PARAMS:
        dataclasses = _dataclasses()

        @dataclasses.dataclass(frozen=True, slots=True)
        class _Probe:
            pass
        _PARAMS.append(_Probe.__dataclass_params__)
    return _PARAMS[0]


#: the generated methods (written by :mod:`planning_core.cli.nodes_gen`)
GENERATED_PATH = os.path.join(os.path.dirname(__file__), "_node_methods.py")
