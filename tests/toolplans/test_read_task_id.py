"""The Python API's ``read_task`` takes the CLI's ``DATASET.json#ID`` form (issue 32, item 8)."""
from __future__ import annotations

import json

import pytest

from conftest import DOMAINS
from planning_core.validators.toolplans import TaskContext, read_task
from planning_core.validators.toolplans.dataset import load_domain
from planning_core.validators.toolplans.spec import ToolSpecError, read_tools

TRAVEL = DOMAINS / "toolplans" / "travel.json"


def test_dataset_hash_id_is_that_task_of_the_dataset():
    rows = load_domain(TRAVEL)
    wanted = rows[1]
    task = read_task(f"{TRAVEL}#{wanted.id}")
    assert task == wanted.task
    TaskContext(task)   # usable as the README shows


def test_unknown_id_is_a_located_error():
    with pytest.raises(ToolSpecError, match="no task 'nope' in this file") as err:
        read_task(f"{TRAVEL}#nope")
    assert err.value.file == str(TRAVEL)


def test_tools_with_a_dataset_task_are_refused():
    tools = read_tools(DOMAINS / "toolplans" / "tools" / "travel.json")
    with pytest.raises(ToolSpecError, match="dataset's tools"):
        read_task(f"{TRAVEL}#{load_domain(TRAVEL)[0].id}", tools)


def test_a_file_whose_name_has_a_hash_is_read_as_a_file(tmp_path):
    # a task file of its own (the task with its tools), named with a '#': read as that
    # file, not looked up as a dataset task
    data = json.loads(TRAVEL.read_text())
    task = dict(data["tasks"][0], tools=json.loads(
        (DOMAINS / "toolplans" / "tools" / "travel.json").read_text()))
    odd = tmp_path / "task#travel-02"
    odd.write_text(json.dumps(task))
    assert read_task(odd).request == load_domain(TRAVEL)[0].task.request
    assert read_task(str(odd)) == read_task(odd)
