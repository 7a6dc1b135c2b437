"""The parts of :mod:`planning_core.cli` that the argparse layer (:mod:`planning_core.cli.parser`)
and the package both use: exit codes, the lazy command group, the version. Re-exported by
:mod:`planning_core.cli`; import them from there."""
from __future__ import annotations

from planning_core.light_enum import LightEnum

#: typing.TYPE_CHECKING, without importing typing
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = ["ALL", "ExitCode", "LazyGroup", "version"]


class ExitCode(int, LightEnum):
    """The process exit code of every ``planning-core`` and ``validate`` command (an
    :class:`enum.IntEnum` in behaviour, made without :mod:`enum`: :mod:`planning_core.light_enum`)."""

    OK = 0
    NEGATIVE = 1        # the command's answer is no; the aliases below name it per command
    BAD_INPUT = 2
    UNKNOWN = 3
    INTERNAL = 4
    INTERRUPTED = 130
    INVALID = 1         # validate: a plan is invalid
    UNSOLVABLE = 1      # solve: proved unsolvable; reachable/landmarks: goal unreachable
    FINDINGS = 1        # cope check: a defect or a label disagreement
    FAILED = 1          # acp check-gold: a gold answer did not score 1


#: ``CommandGroup`` (:mod:`planning_core.cli.parser`): a ``register(subparsers)`` function that
#: adds its commands to ``planning-core``'s subparsers, each setting ``func=handler(args)``


class LazyGroup:
    """A command group whose module is imported only when one of its commands runs.

    ``commands`` lists the ``(name, help)`` pairs the group's ``register`` adds, in order:
    ``planning-core --help`` shows them without importing the group, and a command of
    another group never imports it (issue 32: every command used to import every room,
    0.25-0.30 s of CPU against 0.04 s for a bare interpreter). ``load()`` imports the group
    and returns its ``register``. A test checks that ``commands`` says what ``register`` adds.
    """

    __slots__ = ("commands", "load")

    def __init__(self, commands: Sequence[tuple[str, str]],
                 load: Callable[[], Callable]) -> None:
        self.commands = tuple(commands)
        self.load = load

    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.commands)


#: ``build_parser(groups, command=ALL)``: register every group (the whole parser, as tests
#: and documentation tools want it)
ALL = object()


def version() -> str:
    """planning-core's version (``planning-core --version``): the running code's own
    (:mod:`planning_core._version`, which ``pyproject.toml`` reads), without reading the
    installed distribution's metadata (:mod:`importlib.metadata`: ~0.15 s of CPU)."""
    from planning_core._version import __version__

    return __version__
