"""The console's lazy registry (issue 32, item 1): a command imports only its own room.

``planning-core acp score --help`` used to import every room (lark, the PDDL parser, CoPE's
evaluator, the formalizations' live loop). Now each group is a ``LazyGroup`` whose names
and one-line helps are written in ``planning_core.console``; these tests check that those
words are what each group's ``register`` really adds, and, in a fresh interpreter per
command, which modules a ``--help`` imports. No timing is asserted (the machine is shared;
``benchmarks/results/cli_start.md`` has the CPU times).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from planning_core import cli
from planning_core.console import COMMAND_GROUPS

# the rooms (planning_core.validators.<room>) a command group may import
ROOMS = ("acp", "cope", "formalizations", "models", "adaptive", "toolplans", "deepplanning")
MAY_IMPORT = {
    "validate": set(), "ground": set(), "reachable": set(), "landmarks": set(),
    "solve": set(),
    "acp": {"acp", "models"},
    "cope": {"cope", "formalizations", "models"},
    "adaptive": {"adaptive", "models"},
    "toolplans": {"toolplans", "models"},   # toolplans run drives a model (issue 29)
    "deepplanning": {"deepplanning", "models"},
}
# what no --help needs: the parser generator, the grounder, the scorers, the model client
NEVER_FOR_HELP = ("lark", "planning_core.pddl.parser", "planning_core.ground",
                  "planning_core.validators.acp.scorers", "planning_core.validators.cope.evaluate",
                  "planning_core.validators.formalizations.live",
                  "planning_core.validators.models.client", "openai", "unified_planning")

_PROBE = """
import json, sys
from planning_core.console import main
try:
    code = main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def _modules_of(*argv: str) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True,
                          text=True, timeout=120, env=dict(os.environ))
    found = json.loads(done.stderr.strip().splitlines()[-1])
    return found["code"], set(found["modules"])


def _registered(group) -> list[tuple[str, str]]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    group.load()(sub)
    helps = {action.dest: action.help for action in sub._choices_actions}
    return [(name, helps[name]) for name in sub.choices]


def test_every_command_is_declared_exactly_as_its_group_registers_it():
    for group in COMMAND_GROUPS:
        assert list(group.commands) == _registered(group)


def test_placeholders_list_every_command_in_order_with_its_help():
    lazy = cli.build_parser(COMMAND_GROUPS, command=None).format_help()
    full = cli.build_parser(COMMAND_GROUPS).format_help()
    assert lazy == full
    assert "deepplanning" in lazy and "validate plans (VAL-style)" in lazy


def test_chosen_command_skips_the_top_level_options():
    assert cli.chosen_command(["--version"]) is None
    assert cli.chosen_command(["-h", "acp"]) == "acp"
    assert cli.chosen_command(["acp", "score", "--help"]) == "acp"
    assert cli.chosen_command(["--", "acp"]) is None
    assert cli.chosen_command([]) is None


def test_a_group_is_imported_only_when_its_command_runs():
    loaded = []
    group = cli.LazyGroup([("thing", "a thing")], lambda: loaded.append(1) or (lambda s: None))
    cli.build_parser([group], command="other")
    assert loaded == []
    with pytest.raises(SystemExit):   # the placeholder parses but has no handler to pick
        cli.build_parser([group], command="other").parse_args(["nothing"])


def _rooms_in(modules: set[str]) -> set[str]:
    prefix = "planning_core.validators."
    return {m[len(prefix):].split(".")[0] for m in modules if m.startswith(prefix)}


@pytest.mark.parametrize("argv", [
    ("validate",), ("ground",), ("reachable",), ("landmarks",), ("solve",),
    ("acp",), ("acp", "score"), ("acp", "run"), ("acp", "report"),
    ("cope",), ("cope", "check"), ("cope", "run"), ("cope", "eval"),
    ("adaptive",), ("toolplans",), ("deepplanning",),
])
def test_help_imports_only_its_own_room(argv):
    code, modules = _modules_of(*argv, "--help")
    assert code == 0
    rooms = _rooms_in(modules)
    assert rooms <= MAY_IMPORT[argv[0]], f"{' '.join(argv)} --help imported {rooms}"
    heavy = sorted(m for m in modules for never in NEVER_FOR_HELP
                   if m == never or m.startswith(never + "."))
    assert heavy == [], f"{' '.join(argv)} --help imported {heavy}"


@pytest.mark.parametrize("argv", [("--help",), ("--version",)])
def test_top_level_help_and_version_import_no_room(argv):
    code, modules = _modules_of(*argv)
    assert code == 0
    assert _rooms_in(modules) == set()
    # no command's module: only the parser layer (cli.base, and cli.parser with argparse's
    # classes, apart so that a plain `validate` call does not import argparse)
    assert not any(m.startswith("planning_core.cli.") for m in modules
                   if m not in ("planning_core.cli.args", "planning_core.cli.base",
                                "planning_core.cli.parser"))


def test_version_is_the_one_pyproject_reads_and_needs_no_distribution_metadata():
    import tomllib

    from planning_core._version import __version__

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert "version" in project["project"]["dynamic"] and "version" not in project["project"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {
        "attr": "planning_core._version.__version__"}
    assert cli.version() == __version__
    # --version reads it without importlib.metadata (~0.15 s of CPU, issue 32)
    code, modules = _modules_of("--version")
    assert code == 0 and "importlib.metadata" not in modules
