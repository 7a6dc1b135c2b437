"""The project's tool-use tasks (``domains/toolplans/``): hand-written tasks and variants.

A domain file holds ``{"domain", "tools": <tool file, relative>, "tasks": [...]}``; each task
is a task in the format of :mod:`.spec` plus its reference chains: ``valid`` (a chain, or
``{"chain", "extraneous", "redundant", "cost"}``), ``invalid`` (``{"chain", "step",
"fault"}``: the first fault the checker must report), ``optimal_cost`` and, for variants,
``solvable`` and the infeasibility ``kind``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from planning_core.validators.toolplans.spec import (Tool, ToolSpecError, ToolTask, parse_task,
                                                     read_tools)
from planning_core.validators.toolplans.spec import read_task as read_task_file
from planning_core import safe_json

__all__ = ["ReferenceTask", "load_domain", "load_dataset", "read_task"]

DOMAINS = ("travel", "files", "data")


@dataclass(frozen=True, slots=True)
class ReferenceTask:
    domain: str
    task: ToolTask
    data: dict = field(compare=False)
    variant: bool = False

    @property
    def id(self) -> str:
        return self.task.id

    @property
    def solvable(self) -> bool:
        return self.data.get("solvable", True)


def load_domain(path: str | Path, *, variant: bool = False) -> list[ReferenceTask]:
    path = Path(path)
    from planning_core.errors import InputError
    from planning_core.pddl.files import read_bytes

    try:   # the shared bounded reader: a regular file only (a FIFO is refused)
        data = safe_json.loads(read_bytes(path).decode("utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as err:
        raise ToolSpecError(f"cannot read the task file: {err}", file=str(path)) from None
    except InputError as err:
        raise ToolSpecError(f"cannot read the task file: {err.message}",
                            file=str(path)) from None
    tools_path = path.parent / data["tools"]
    if not tools_path.exists():
        tools_path = path.parent.parent / data["tools"]
    tools = read_tools(tools_path)
    return [ReferenceTask(data["domain"], parse_task(t, tools, file=str(path)), t, variant)
            for t in data["tasks"]]


def read_task(path: str | Path, tools: tuple[Tool, ...] | None = None) -> ToolTask:
    """A task file (:func:`.spec.read_task`), or ``DATASET.json#ID`` -- the form the CLI
    takes, e.g. ``domains/toolplans/travel.json#travel-02`` -- for the task ``ID`` of a
    dataset file, with the dataset's tools (``tools`` must then be None). A path that names
    an existing file is that file, ``#`` or not."""
    text = str(path)
    file, _, task_id = text.rpartition("#")
    if not (file and task_id) or Path(text).is_file():
        return read_task_file(path, tools)
    if tools is not None:
        raise ToolSpecError("a task of a dataset file uses the dataset's tools: give no "
                            "tools with FILE.json#ID", file=file)
    found = [r.task for r in load_domain(file) if r.id == task_id]
    if not found:
        raise ToolSpecError(f"no task {task_id!r} in this file", file=file)
    return found[0]


def load_dataset(root: str | Path, *, variants: bool = True) -> list[ReferenceTask]:
    """Every task of ``root`` (``domains/toolplans``), hand-written first, then variants."""
    root = Path(root)
    out: list[ReferenceTask] = []
    for d in DOMAINS:
        out += load_domain(root / f"{d}.json")
    if variants:
        for d in DOMAINS:
            out += load_domain(root / "generated" / f"{d}.json", variant=True)
    return out
