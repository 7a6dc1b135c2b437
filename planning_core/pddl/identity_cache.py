"""One bounded, thread-safe cache of things derived from objects, keyed by their identity.

The validator compiles a domain once per ``Domain`` object and a ``Validator`` once per
(domain, problem) pair; the heuristics build their relaxed tables and LM-cut structures
once per ``Task``. Those objects are frozen but large, so hashing them by value would cost
more than the work saved: the key is their ``id``. An entry holds the key objects
themselves, so an id cannot be reused by a new object while its entry lives, and a hit is
confirmed by identity. The oldest entry goes first when the cache is full.

A hit takes no lock (one dictionary read); a miss builds the value under the cache's
lock, so concurrent callers build it once. It sits in ``pddl``, the bottom layer, because
``validate`` may import nothing but ``pddl`` (DESIGN.md).
"""
from __future__ import annotations

from _thread import allocate_lock  # threading.Lock itself, without importing threading

#: typing.TYPE_CHECKING, without importing typing (~2 ms of every `validate` call)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

__all__ = ["IdentityCache"]

if TYPE_CHECKING:
    V = TypeVar("V")


class IdentityCache:
    """``get(build, *objects)``: ``build(*objects)``, computed once per tuple of objects."""

    __slots__ = ("size", "_items", "_lock")
    #: ``IdentityCache[V]`` in annotations, as list[V] (not typing.Generic: importing typing
    #: costs each ``validate`` call ~2 ms)
    __class_getitem__ = classmethod(type(list[int]))   # types.GenericAlias, not importing types

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: dict[tuple[int, ...], tuple[tuple[object, ...], V]] = {}
        self._lock = allocate_lock()

    def get(self, build: Callable[..., V], *objects: object) -> V:
        key = tuple(map(id, objects))
        hit = self._items.get(key)
        if hit is not None and _same(hit[0], objects):
            return hit[1]
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and _same(hit[0], objects):
                return hit[1]
            value = build(*objects)
            self._items.pop(key, None)  # a stale entry of a dead object with the same id
            if len(self._items) >= self.size:
                self._items.pop(next(iter(self._items)))
            self._items[key] = (objects, value)
            return value

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def _same(held: tuple[object, ...], objects: tuple[object, ...]) -> bool:
    return all(a is b for a, b in zip(held, objects))
