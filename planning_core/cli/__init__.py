"""The command-line layer: one argument parser, one set of exit codes, a command registry.

This package is the only part of the engine that prints or exits. Exit codes (documented in
the README), one :class:`ExitCode` for every command:

==== ==============================================================================
0    success: every plan valid / task solved / command done
1    the answer is no: a plan is invalid (validate), the task is proved unsolvable
     (solve), a finding (cope check), a gold answer that does not score 1 (acp check-gold)
2    bad input: missing or unreadable file, syntax or semantic error, bad arguments
3    unknown: a time or memory limit ran out before an answer (validate, solve, ground,
     reachable, landmarks)
4    internal error (a bug in planning_core: please report it; no traceback is shown
     unless PLANNING_CORE_DEBUG=1)
130  interrupted
==== ==============================================================================

Command groups plug in from outside: a group is a ``register(subparsers)`` function, and
:func:`build_parser` adds exactly the groups it is given, in order. The engine's own
groups are :func:`planning_core.cli.validate.register` and
:func:`planning_core.cli.engine.register`; :mod:`planning_core.console` (the console-script
entry point) assembles them with the validators' groups, so the engine never imports the
validators. Heavy modules (the grounder, search, unified-planning, the ACP and CoPE
validators) are imported inside the command that needs them, so ``validate`` starts in a
fraction of a second. The argparse layer is :mod:`planning_core.cli.parser` (its names are
importable from here too): a common ``validate`` line is read without it.
"""
from __future__ import annotations

import errno
import os
import sys

from planning_core.cli.base import ALL, ExitCode, LazyGroup, version
from planning_core.errors import PlanningError

#: typing.TYPE_CHECKING, without importing typing (~2 ms of every `validate` call)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence

    from planning_core.cli.parser import ArgumentParser, CommandGroup

#: the names :mod:`planning_core.cli.parser` defines (they need :mod:`argparse`), imported
#: from there on first use (:func:`__getattr__`): a ``validate`` call that never builds a
#: parser never imports argparse
_PARSER_NAMES = frozenset({"ArgumentParser", "CommandGroup", "HelpFormatter", "add_version",
                           "build_parser"})


def __getattr__(name: str):
    if name in _PARSER_NAMES:
        from planning_core.cli import parser

        return getattr(parser, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["ALL", "ArgumentParser", "CommandGroup", "ExitCode", "LazyGroup", "add_version",
           "build_parser", "chosen_command", "exit_process", "import_lark_without_regex", "main",
           "run", "short_process", "version"]


#: Set by :func:`main` when it reads ``sys.argv`` (the console script): only a process of
#: our own may get a process-wide RLIMIT_AS (``engine.budget_of``), not one that calls
#: ``main([...])`` from inside (tests, notebooks).
CAP_ADDRESS_SPACE = False


def chosen_command(argv: Sequence[str]) -> str | None:
    """The command word of ``argv``: its first argument that is not an option (the top-level
    parser's options, ``-h`` and ``--version``, take no value), or None."""
    for arg in argv:
        if arg == "--":
            return None
        if not arg.startswith("-"):
            return arg
    return None


def error_line(err: PlanningError) -> str:
    """``file:line:col: error: message``: the one error-line format of every command (the
    format compilers print, which editors and CI logs turn into links)."""
    return f"{err.location()}: error: {err.message}" if err.file else f"error: {err.message}"


def _executor_lost(err: PlanningError) -> bool:
    """The cluster went away (``ExecutorLost``): what was written stays, and rerunning
    resumes. Looked up, not imported: a command that never imported the executors (one
    ``validate`` call, paid per plan) cannot have lost one."""
    base = sys.modules.get("planning_core.executor.base")
    return base is not None and isinstance(err, base.ExecutorLost)


def run(func: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``func(args)`` with every failure turned into a message and an exit code."""
    try:
        return func(args)
    except PlanningError as err:
        print(error_line(err), file=sys.stderr)
        return ExitCode.INTERRUPTED if _executor_lost(err) else ExitCode.BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:
        return ExitCode.OK
    except MemoryError:   # ulimit -v (or RLIMIT_AS) ran out: a limit, not a bug
        print("unknown: memory limit: out of memory (an input too large for this machine's "
              "or the shell's memory limit; rows written so far stay, a rerun resumes)",
              file=sys.stderr)
        return ExitCode.UNKNOWN
    except OSError as err:
        if err.errno not in _WRITE_ERRNOS:
            if os.environ.get("PLANNING_CORE_DEBUG") == "1":
                raise
            return _internal(err)
        # a full disk (or quota, or a read-only file system) is the machine's state, not a
        # bug: say what could not be written, exit 2 (what was written stays; resumable)
        where = f"{err.filename}: " if err.filename else ""
        print(f"{where}error: cannot write: {err.strerror or err}", file=sys.stderr)
        return ExitCode.BAD_INPUT
    except Exception as err:  # noqa: BLE001 - the promise is: no traceback for any input
        if os.environ.get("PLANNING_CORE_DEBUG") == "1":
            raise
        return _internal(err)


#: errno values that mean "the disk refused the write", not "planning_core has a bug"
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS})


def _internal(err: BaseException) -> int:
    print(f"internal error: {type(err).__name__}: {err}\n"
          "This is a bug in planning_core; rerun with PLANNING_CORE_DEBUG=1 for details.",
          file=sys.stderr)
    return ExitCode.INTERNAL


#: the cyclic collector's young-generation threshold of a console-script ``validate`` call
#: (Python's default is 700)
YOUNG_GC_THRESHOLD = 50_000


def short_process() -> None:
    """Tune this process (a console script of our own) for a short single call.

    Importing the validation path and loading a cached task make tens of thousands of
    objects, none of them garbage: at Python's default threshold (700) the cyclic collector
    ran 14 young and one middle collection over them, ~2.5 ms of a ~50 ms call (issue 28).
    A higher young threshold lets such a call finish without a collection, while a large
    task or plan still gets collected, only in larger steps (reference counting frees
    everything that is not in a cycle either way). Only for ``argv is None``.
    """
    import gc

    gc.set_threshold(YOUNG_GC_THRESHOLD, *gc.get_threshold()[1:])


def exit_process(code: int) -> int:
    """End a console-script process now with ``code``, without the interpreter's teardown.

    Once a ``validate`` call has printed its reports, what is left of the process is
    Python's shutdown: clearing every module and freeing the task it read, ~5-7 ms of a
    ~50 ms call (issue 28; VAL's whole call is ~5 ms). Here the exit handlers run
    (:mod:`atexit`: coverage, logging, anything a library registered) and stdout and stderr
    are flushed, as at a normal exit, and then the process ends (``os._exit``). A normal
    exit is taken instead (``code`` is returned) when that cannot be the same: a flush
    fails (the normal exit reports it), another thread is running (it would be joined),
    or ``PLANNING_CORE_DEBUG=1``. Only for a process of our own (the console scripts,
    ``argv is None``), never for a caller of ``main([...])``.
    """
    if os.environ.get("PLANNING_CORE_DEBUG") == "1":
        return code
    threading = sys.modules.get("threading")
    if threading is not None and threading.active_count() > 1:
        return code
    import atexit

    atexit._run_exitfuncs()
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BaseException:  # noqa: BLE001 - the normal exit flushes again and says why
        return code
    os._exit(code)


def import_lark_without_regex() -> None:
    """Import lark without the third-party ``regex`` module (for console scripts only).

    ``lark.utils`` imports ``regex``, when it is installed, only to know whether
    ``Lark(regex=True)`` could work; no grammar of ours asks for it, and the import costs
    10-20 ms of every command's start (a third of what ``validate`` may take). Hiding it
    while lark is first imported makes lark fall back to ``re``; afterwards ``regex``
    imports normally again for any other library. Called by the console scripts only, so
    a program that imports planning_core keeps its lark as it was. (``validate`` does not
    call it: with its parse cache warm it never imports lark.)
    """
    if "lark" in sys.modules or "regex" in sys.modules:
        return
    sys.modules["regex"] = None  # type: ignore[assignment]  # import regex -> ImportError
    try:
        import lark  # noqa: F401
    except ImportError:
        pass  # lark itself missing: the command that needs it says so
    finally:
        del sys.modules["regex"]


def main(argv: Sequence[str] | None, groups: Sequence[CommandGroup | LazyGroup]) -> int:
    """Parse ``argv`` against the commands of ``groups`` and run the chosen one (only the
    chosen command's group is imported)."""
    from planning_core.cli.parser import build_parser

    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(groups, command=chosen_command(words))
    args = parser.parse_args(argv)
    # the console script: lark without regex, except for validate, whose calls with a
    # cached domain and problem and a plain plan never import lark at all
    if argv is None and getattr(args, "command", None) != "validate":
        import_lark_without_regex()
    if argv is None:  # the console script, a process of our own: RLIMIT_AS as a last resort
        global CAP_ADDRESS_SPACE
        CAP_ADDRESS_SPACE = True
    code = run(args.func, args)
    sys.stdout.flush()
    return int(code)
