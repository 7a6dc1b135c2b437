"""The import rule: the engine's layers point one way, and no module imports itself back.

``pddl <- ground <- heuristics <- {search, temporal} <- solve <- cli``; ``validate`` builds on
``pddl`` only; ``validators`` build on the engine, never the other way; ``console`` (the
``planning-core`` entry point) sits on top and is the one module that knows both. Inside
``validators`` the rooms point one way too: ``formalizations`` build on ``cope`` and
``models``, ``acp`` on ``models`` (``acp run`` asks a model), ``toolplans`` on ``acp`` (its
JSON Lines results I/O) and ``models`` (``toolplans run``), ``deepplanning`` on ``models``; ``cope`` and ``models`` import no other room, and ``acp.answers``
(text -> parsed answer) imports nothing else of ``acp``. ``docs/architecture.md`` draws the
same picture.

Every ``import`` counts, also one inside a function (a deferred import is still an arrow)
or under ``TYPE_CHECKING``. The rule is checked on the source text, so it costs no
imports; the second half of the file shows that it catches each arrow it forbids.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# module prefix -> layer; the longest matching prefix wins
LAYER_OF = {
    "planning_core.errors": "base",
    "planning_core.nodes": "base",
    "planning_core.light_enum": "base",
    "planning_core._node_methods": "base",
    "planning_core._version": "base",
    "planning_core.grammar_files": "base",
    "planning_core.grammars": "base",
    "planning_core.result": "base",
    "planning_core.limits": "base",
    "planning_core.safe_json": "base",
    "planning_core.lazy_exports": "base",
    "planning_core.executor": "base",
    "planning_core.results_file": "cli",
    "planning_core.pddl": "pddl",
    "planning_core.validate": "validate",
    "planning_core.ground": "ground",
    "planning_core.heuristics": "heuristics",
    "planning_core.search": "search",
    "planning_core.temporal": "temporal",
    "planning_core.solve": "solve",
    "planning_core.cli": "cli",
    "planning_core.validators": "validators",
    "planning_core.console": "console",
    "planning_core.up_engine": "cli",
}
ENGINE = {"base", "pddl", "validate", "ground", "heuristics", "search", "temporal", "solve",
          "cli"}
# layer -> the layers its modules may import (its own included)
MAY_IMPORT = {
    "base": {"base"},
    "pddl": {"base", "pddl"},
    "validate": {"base", "pddl", "validate"},
    "ground": {"base", "pddl", "ground"},
    "heuristics": {"base", "pddl", "ground", "heuristics"},
    "search": {"base", "pddl", "ground", "heuristics", "search"},
    "temporal": {"base", "pddl", "ground", "heuristics", "temporal"},
    "solve": {"base", "pddl", "validate", "ground", "heuristics", "search", "temporal",
              "solve"},
    "cli": ENGINE,
    "validators": ENGINE | {"validators"},
    "console": ENGINE | {"validators", "console"},
}
# rooms inside the validators: room -> the rooms it may import (its own included)
ROOM_OF = {
    "planning_core.validators.acp.answers": "acp.answers",
    "planning_core.validators.acp": "acp",
    "planning_core.validators.cope": "cope",
    "planning_core.validators.formalizations": "formalizations",
    "planning_core.validators.models": "models",
    "planning_core.validators.adaptive": "adaptive",
    "planning_core.validators.toolplans": "toolplans",
    "planning_core.validators.deepplanning": "deepplanning",
}
ROOM_MAY_IMPORT = {
    "acp.answers": {"acp.answers"},
    "acp": {"acp", "acp.answers", "models"},
    "cope": {"cope"},
    "formalizations": {"formalizations", "cope", "models"},
    "models": {"models"},
    "adaptive": {"adaptive", "models"},
    # the batch command reuses acp's JSON Lines I/O; toolplans run asks a model
    "toolplans": {"toolplans", "acp", "models"},
    "deepplanning": {"deepplanning", "models"},
}


def _prefix_lookup(table: dict[str, str], module: str) -> str | None:
    best = None
    for prefix, value in table.items():
        if (module == prefix or module.startswith(prefix + ".")) and \
                (best is None or len(prefix) > len(best[0])):
            best = (prefix, value)
    return None if best is None else best[1]


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[0] == "validators":
        parts = ["planning_core"] + parts
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_sources() -> dict[str, tuple[str, bool]]:
    """Module name -> (source text, is a package) for every module of the installed tree."""
    out = {}
    for top in ("planning_core", "validators"):
        for path in sorted((ROOT / top).rglob("*.py")):
            out[module_name(path)] = (path.read_text(encoding="utf-8"),
                                      path.name == "__init__.py")
    return out


def imports_of(module: str, source: str, is_package: bool, known: set[str]
               ) -> list[tuple[str, int]]:
    """``(imported module, line)`` for every project import anywhere in ``source``."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:  # `from pkg import module` imports the module
                sub = f"{base}.{alias.name}"
                found.append((sub if sub in known else base, node.lineno))
    return [(name, line) for name, line in found if name.startswith("planning_core")]


def violations(sources: dict[str, tuple[str, bool]]) -> list[str]:
    """Every import against the layers or the rooms, and every loop of imports."""
    known = set(sources)
    problems = []
    graph: dict[str, set[str]] = {}
    for module, (source, is_package) in sorted(sources.items()):
        layer = _prefix_lookup(LAYER_OF, module)
        room = _prefix_lookup(ROOM_OF, module)
        for target, line in imports_of(module, source, is_package, known):
            target_layer = _prefix_lookup(LAYER_OF, target)
            if layer is None or target_layer is None:
                problems.append(f"{module}:{line}: {target}: a module outside the layers; "
                                "add it to LAYER_OF")
                continue
            if target_layer not in MAY_IMPORT[layer]:
                problems.append(f"{module}:{line}: imports {target} ({layer} -> "
                                f"{target_layer}, against the layers)")
            target_room = _prefix_lookup(ROOM_OF, target)
            if room is not None and target_room is not None and \
                    target_room not in ROOM_MAY_IMPORT[room]:
                problems.append(f"{module}:{line}: imports {target} (validators room {room} "
                                f"-> {target_room}, against the rooms)")
            if target != module and target in known:
                graph.setdefault(module, set()).add(target)
    problems += [f"modules importing one another (a loop): {', '.join(group)}"
                 for group in loops(graph)]
    return list(dict.fromkeys(problems))


def loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The modules of every strongly connected component larger than one (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_tree_keeps_the_layers():
    sources = project_sources()
    assert len(sources) > 100  # the walk found the tree
    assert violations(sources) == []


# ------------------------------------------------------- the rule catches each arrow

def _tree(**modules: str) -> dict[str, tuple[str, bool]]:
    """A synthetic tree: dotted module name (``__`` for ``.``) -> source."""
    return {name.replace("__", "."): (source, False) for name, source in modules.items()}


BAD = {
    "cli imports the validators": _tree(
        planning_core__cli__main="from planning_core.validators.acp.cli import register\n",
        planning_core__validators__acp__cli="x = 1\n"),
    "landmarks import search inside a function": _tree(
        planning_core__heuristics__landmarks=(
            "def landmark_check():\n    from planning_core.search.astar import greedy\n"),
        planning_core__search__astar="x = 1\n"),
    "temporal imports search": _tree(
        planning_core__temporal__product="from planning_core.search.result import Status\n",
        planning_core__search__result="x = 1\n"),
    "search imports temporal": _tree(
        planning_core__search__solve=(
            "def solve():\n    from planning_core.temporal.pddl3 import solve_constrained\n"),
        planning_core__temporal__pddl3="x = 1\n"),
    "validate imports ground": _tree(
        planning_core__validate__simulator="from planning_core.ground.task import Task\n",
        planning_core__ground__task="x = 1\n"),
    "a module outside the layers": _tree(
        planning_core__ground__task="import planning_core.somewhere_new\n"),
    "ground task <-> axioms": _tree(
        planning_core__ground__task=(
            "def f():\n    from planning_core.ground.axioms import AxiomEvaluator\n"),
        planning_core__ground__axioms="from planning_core.ground.task import Axiom\n"),
    "acp witness search <-> scorers": _tree(
        planning_core__validators__acp__none_answers=(
            "def f():\n    from planning_core.validators.acp.scorers_reach import r\n"),
        planning_core__validators__acp__scorers_reach=(
            "from planning_core.validators.acp.none_answers import none_verdict\n")),
    "cope imports the formalizations": _tree(
        planning_core__validators__cope__methods=(
            "def load():\n    from planning_core.validators.formalizations import pddl\n"),
        planning_core__validators__formalizations__pddl="x = 1\n"),
    "answers import the scorers": _tree(
        planning_core__validators__acp__answers__parsers=(
            "from planning_core.validators.acp.problem import ProblemInfo\n"),
        planning_core__validators__acp__problem="x = 1\n"),
    "a relative import back up": _tree(
        planning_core__pddl__parser="from ..solve import solve\n",
        planning_core__solve="x = 1\n"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_the_rule_catches(name):
    assert violations(BAD[name]), name


def test_the_rule_allows_what_the_layers_allow():
    tree = _tree(
        planning_core__solve=("from planning_core.search.astar import astar\n"
                              "def f():\n    from planning_core.temporal.pddl3 import s\n"),
        planning_core__search__astar="from planning_core.heuristics.lmcut import lmcut_for\n",
        planning_core__temporal__pddl3="from planning_core.result import SolveResult\n",
        planning_core__validators__formalizations__ltl=(
            "from planning_core.validators.cope.dataset import Pair\n"),
        planning_core__console="from planning_core.validators.acp import cli\n")
    assert violations(tree) == []
