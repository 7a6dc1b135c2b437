"""Enumerations for the ``validate`` start-up path, without :mod:`enum`.

``import enum`` brings ``types``, ``operator``, ``functools``, ``collections``, ``keyword``,
``reprlib`` and ``itertools`` with it: ~6 ms of CPU per process on this project's machines,
more than VAL's whole ``Validate`` call (~5-7 ms; issue 28 holds ``validate`` to 10x of it).
The three enumerations every ``validate`` call touches (:class:`~planning_core.cli.ExitCode`,
:class:`~planning_core.validate.Verdict`, :class:`~planning_core.pddl.wellformed.Fault`) are
made with :class:`LightEnum` instead: the parts of :class:`enum.Enum` and
:class:`enum.IntEnum` this project and its users rely on, and nothing else.

What a member keeps from :mod:`enum`: ``Kind.NAME`` is a member with ``.name`` and ``.value``;
``Kind(value)`` returns the member (``ValueError`` for any other value) and ``Kind["NAME"]``
too; ``x in Kind`` is true for a member and for a member's value (Python 3.12's rule; 3.11's
enum raised ``TypeError`` for a non-member); iterating and ``len`` see the members in
definition order, aliases (a second
name for a value) excluded from iteration and kept in ``__members__``; members are
singletons (``is`` compares them; ``copy``, ``deepcopy`` and ``pickle`` give the same
member); ``repr`` and ``str`` are :mod:`enum`'s (``<Verdict.VALID: 'valid'>``,
``Verdict.VALID``); a class with a base type (``class ExitCode(int, LightEnum)``) makes
members that are instances of that type, equal to their values and formatted as them, as
:class:`enum.IntEnum`'s are. Members cannot be added or reassigned, and a class with members cannot be subclassed.
pydantic (v2) models may have fields of these types, as of enum's
(``__get_pydantic_core_schema__``). What is left out: ``isinstance(member, enum.Enum)`` is
false (so are generic ``Enum`` checks: a JSON encoder's ``isinstance(o, Enum)``,
``singledispatch`` on ``Enum``; type checkers see ``Verdict.VALID`` as a ``str``), and ``auto()``, flags, ``_missing_`` and
functional creation do not exist (nothing here uses them; a body defining ``__init__``,
``__new__``, ``_missing_``, ``_generate_next_value_``, ``_ignore_`` or ``_order_``, which
enum would call, is refused with ``TypeError`` rather than silently made different). ``tests/test_light_enum.py`` holds
it to :mod:`enum`'s behaviour, member for member.
"""
from __future__ import annotations

__all__ = ["LightEnum"]


#: what enum lets a class body customise and this module does not do
_ENUM_HOOKS = frozenset({"__new__", "__init__", "_missing_", "_generate_next_value_",
                         "_ignore_", "_order_"})


class _LightEnumType(type):
    """The metaclass: turns the class body's upper-case names into members."""

    def __new__(mcls, name, bases, namespace):
        # enum hooks this class would silently ignore (its members would then differ from
        # enum's): refused, so that a body written for enum fails where it is defined
        hooks = sorted(_ENUM_HOOKS.intersection(namespace))
        if hooks:
            raise TypeError(f"{name}: {', '.join(hooks)} not supported by LightEnum "
                            "(use enum.Enum)")
        for base in bases:    # as enum: an enumeration with members is final
            if isinstance(base, _LightEnumType) and base.__dict__.get("_members_"):
                raise TypeError(f"<enum {name!r}> cannot extend {base!r}")
        names = [k for k, v in namespace.items()
                 if k[:1] != "_" and k.isupper() and not callable(v)
                 and not isinstance(v, (classmethod, staticmethod, property))]
        values = {k: namespace.pop(k) for k in names}
        data = next((b for base in bases for b in base.__mro__
                     if b is not object and b is not _Member   # (defined below; this
                     and not isinstance(b, _LightEnumType)), None)   # runs after it)
        if data is not None:
            # the data type's own methods come first in the MRO; these must be the enum's
            for key in ("__repr__", "__reduce_ex__", "__copy__", "__deepcopy__", "__dir__",
                        "__setattr__", "__delattr__"):
                namespace.setdefault(key, _MEMBER_METHODS[key])
            # ... and str(), format() and hash() the data type's, as enum.IntEnum's are
            namespace.setdefault("__str__", data.__repr__ if data.__str__ is object.__str__
                                 else data.__str__)
            namespace.setdefault("__format__", data.__format__)
            namespace.setdefault("__hash__", data.__hash__)
        cls = super().__new__(mcls, name, bases, namespace)
        by_value: dict = {}
        by_name: dict = {}
        canonical: list = []
        for key, value in values.items():
            member = by_value.get(value)
            if member is None:     # an alias (a second name for a value) names the first
                member = object.__new__(cls) if data is None else data.__new__(cls, value)
                object.__setattr__(member, "_name_", key)
                object.__setattr__(member, "_value_", value)
                by_value[value] = member
                canonical.append(member)
            by_name[key] = member
            type.__setattr__(cls, key, member)
        type.__setattr__(cls, "_value2member_map_", by_value)
        type.__setattr__(cls, "_member_map_", by_name)
        type.__setattr__(cls, "_member_names_", [m._name_ for m in canonical])
        type.__setattr__(cls, "_members_", tuple(canonical))
        return cls

    def __call__(cls, value):
        if type(value) is cls:
            return value
        try:
            return cls._value2member_map_[value]
        except (KeyError, TypeError):
            raise ValueError(f"{value!r} is not a valid {cls.__qualname__}") from None

    def __getitem__(cls, name):
        return cls._member_map_[name]

    def __iter__(cls):
        return iter(cls.__dict__.get("_members_", ()))

    def __reversed__(cls):
        return reversed(cls.__dict__.get("_members_", ()))

    def __len__(cls):
        return len(cls.__dict__.get("_members_", ()))

    def __contains__(cls, value):
        # Python 3.12's (and 3.13's) rule: a member, or the value of one ("valid" in Verdict,
        # 0 in ExitCode). 3.11's enum raised TypeError for a non-member, which no working
        # code relies on; code written for 3.12+ then runs the same on every version.
        if isinstance(value, cls):
            return True
        try:
            return value in cls.__dict__.get("_value2member_map_", {})
        except TypeError:     # an unhashable value: no member has it
            return False

    def __bool__(cls):
        return True

    @property
    def __members__(cls):
        return dict(cls.__dict__.get("_member_map_", {}))

    def __setattr__(cls, name, value):
        if name in cls.__dict__.get("_member_map_", {}):
            raise AttributeError(f"cannot reassign member {name!r}")
        super().__setattr__(name, value)

    def __delattr__(cls, name):
        if name in cls.__dict__.get("_member_map_", {}):
            raise AttributeError(f"cannot delete member {name!r}")
        super().__delattr__(name)

    def __repr__(cls):
        return f"<enum {cls.__name__!r}>"


class _Member:
    """The methods every member has (copied onto a class with a data type, whose own
    methods would otherwise come first)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self._name_}: {self._value_!r}>"

    def __reduce_ex__(self, protocol):
        return type(self), (self._value_,)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    def __dir__(self):
        return ["__class__", "__doc__", "__module__", "name", "value"]

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} members cannot be changed")

    def __delattr__(self, name):
        raise AttributeError(f"{type(self).__name__} members cannot be changed")


_MEMBER_METHODS = {k: v for k, v in vars(_Member).items() if k.startswith("__") and callable(v)}


class LightEnum(_Member, metaclass=_LightEnumType):
    """Base class of a light enumeration (see the module's docstring). Members are the
    class body's upper-case names; a data type before it (``class ExitCode(int, LightEnum)``)
    makes members of that type, equal to their values, as :class:`enum.IntEnum` does."""

    @property
    def name(self) -> str:
        return self._name_

    @property
    def value(self):
        return self._value_

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self._name_}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    def __hash__(self) -> int:
        return hash(self._name_)

    @classmethod
    def __get_pydantic_core_schema__(cls, source, handler):
        """The schema pydantic (v2) makes for an :class:`enum.Enum`, which it makes only for
        enum's subclasses (a model with a ``Verdict`` field raised
        ``PydanticSchemaGenerationError``): a member or its value validates to the member,
        JSON has the value, the JSON schema lists the values. Called by pydantic only, so
        pydantic is imported by then."""
        from pydantic_core import core_schema

        members = list(cls._member_map_.values())   # aliases too, as pydantic lists enum's
        values = [m._value_ for m in members]
        sub_type = "int" if issubclass(cls, int) else \
            "str" if all(type(v) is str for v in values) else None
        return core_schema.enum_schema(cls, members, sub_type=sub_type,
                                       ref=f"{cls.__module__}.{cls.__qualname__}:{id(cls)}")
