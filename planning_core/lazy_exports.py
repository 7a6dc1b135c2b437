"""Package exports loaded on first use (PEP 562).

The ``planning-core`` console imports every command group's CLI module at start to register
its commands; a package whose ``__init__`` re-exports its API eagerly would make every start
pay for modules the command never runs (issue 24: the console's start went from 0.27 to
0.17 s of CPU when the adaptive and toolplans packages stopped doing so). A package lists
``name -> submodule`` and installs the two hooks this returns.
"""
from __future__ import annotations

import importlib
from typing import Any, Callable, Iterable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, str], public: Iterable[str],
                 namespace: dict[str, Any]) -> tuple[Callable[[str], Any], Callable[[], list]]:
    """``(__getattr__, __dir__)`` for ``package``: ``exports`` maps each exported name to the
    submodule (relative to ``package``) that defines it; a name is imported once, then kept
    in the package's ``namespace`` (its ``globals()``)."""
    names = tuple(public)

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
