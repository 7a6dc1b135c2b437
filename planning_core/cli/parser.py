"""``planning-core``'s argparse layer: the parser classes, ``--version`` and the parser of
every command group.

Apart from :mod:`planning_core.cli` so that a ``validate`` call whose arguments the small
reader of :mod:`planning_core.cli.validate` understands never imports :mod:`argparse`
(with :mod:`gettext` and :mod:`locale`, and the translation look-ups of building a parser:
~10 ms of a ~60 ms call, issue 28). ``planning_core.cli.ArgumentParser`` and the other names
here are still importable from :mod:`planning_core.cli` (loaded on first use).
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from planning_core.cli.base import ALL, ExitCode, LazyGroup

#: typing.TYPE_CHECKING, without importing typing
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ArgumentParser", "CommandGroup", "HelpFormatter", "add_version", "build_parser"]


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``: ``$COLUMNS``, else the terminal's, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, the same width, without importing :mod:`shutil` (with zlib,
    bz2 and lzma) to find it: argparse makes a formatter for every ``add_argument``, so
    ``validate`` paid that import (~2 ms) on every call."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
        super().__init__(prog, indent_increment, max_help_position,
                         _terminal_columns() - 2 if width is None else width)


class ArgumentParser(argparse.ArgumentParser):
    """argparse that exits with :attr:`ExitCode.BAD_INPUT` (2 is also argparse's own)."""

    def __init__(self, *args, **kwargs) -> None:
        if not args[4:]:   # formatter_class is the fifth positional argument
            kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(ExitCode.BAD_INPUT, f"{self.prog}: error: {message}\n")


CommandGroup = Callable[[argparse._SubParsersAction], None]
"""Adds its commands to ``planning-core``'s subparsers; each sets ``func=handler(args) -> int``."""


def build_parser(groups: Sequence[CommandGroup | LazyGroup], command=ALL) -> ArgumentParser:
    """``planning-core``'s parser with the commands of ``groups``, in order.

    A :class:`LazyGroup` is imported and registered only if ``command`` is one of its
    commands (or ``command`` is :data:`ALL`); otherwise its commands are listed by name and
    help only, enough for ``planning-core --help`` and for argparse to name the choices.
    """
    parser = ArgumentParser(prog="planning-core",
                            description="A symbolic planning engine with a PDDL toolchain.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)
    sub.required = True
    for group in groups:
        if not isinstance(group, LazyGroup):
            group(sub)
        elif command is ALL or command in group.names():
            group.load()(sub)
        else:
            for name, help_line in group.commands:
                sub.add_parser(name, help=help_line)
    add_version(parser)
    for parser_of_command in sub.choices.values():
        add_version(parser_of_command)
    return parser


class _VersionAction(argparse.Action):
    """``--version`` that looks the version up only when asked: reading the installed
    distribution's metadata costs tens of milliseconds on every ``validate`` call otherwise."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show the version and exit"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from planning_core.cli.base import version

        print(f"{parser.prog} (planning-core) {version()}")   # stdout, as argparse's own
        parser.exit()


def add_version(parser: argparse.ArgumentParser) -> None:
    """``--version`` on ``parser`` (every command has one, as VAL's users expect)."""
    if "--version" not in parser._option_string_actions:
        parser.add_argument("--version", action=_VersionAction)
