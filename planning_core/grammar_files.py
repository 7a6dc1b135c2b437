"""Loading the project's lark grammars once per process.

The ``.lark`` files live in the top-level ``grammars/`` folder, installed as the package
``planning_core.grammars`` so that a wheel finds them; in a plain source tree they are read
from the folder. Every parser is built lazily (lark grammar analysis costs tens of
milliseconds even from its cache, which the ``validate`` command should not pay for grammars
it does not use) and exactly once, also when several threads ask at the same time.
"""
from __future__ import annotations

import os
from _thread import allocate_lock  # threading.Lock itself; importing threading costs more

#: typing.TYPE_CHECKING, without importing typing (~2 ms of every `validate` call)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    from lark import Lark

__all__ = ["built_once", "grammar_text", "lazy_parser"]

if TYPE_CHECKING:
    T = TypeVar("T")


def grammar_text(name: str) -> str:
    """The text of ``grammars/<name>``, from the installed package or the source tree."""
    from importlib import resources  # here: a call that reads no grammar does not pay it

    try:
        return resources.files("planning_core.grammars").joinpath(name).read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        top = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
        with open(os.path.join(top, "grammars", name), encoding="utf-8") as fh:
            return fh.read()


def built_once(build: Callable[[], T]) -> Callable[[], T]:
    """A function returning ``build()``, called on first use and exactly once, also when
    several threads ask at the same time."""
    lock = allocate_lock()
    built: list[T] = []

    def get() -> T:
        if not built:
            with lock:
                if not built:
                    built.append(build())
        return built[0]

    return get


def lazy_parser(name: str, *, setup: Callable[[Lark], None] | None = None,
                **options) -> Callable[[], Lark]:
    """A function returning the parser for ``grammars/<name>``, built on first call.

    ``options`` go to :class:`lark.Lark`; ``setup`` runs once on the new parser before any
    caller sees it (e.g. to read its terminal names for error messages).
    """
    def build() -> Lark:
        from lark import Lark  # here: a process that builds no parser never imports lark

        parser = Lark(grammar_text(name), **options)
        if setup is not None:
            setup(parser)
        return parser

    return built_once(build)
