"""A scheduler file that is not one (truncated, empty, hand-edited) is a located message and
exit 2, not "internal error ... a bug" (distributed raised AssertionError or TypeError)."""
from __future__ import annotations

import pytest

pytest.importorskip("distributed")


@pytest.mark.parametrize("content", ["{bad", "", "{}", "[1]", '{"address": 5}',
                                     b"\xff\xfe"], ids=("truncated", "empty", "no-address",
                                                        "list", "number", "not-utf8"))
def test_a_malformed_scheduler_file_is_executor_unavailable(tmp_path, content):
    from planning_core.executor import ExecutorUnavailable
    from planning_core.executor.dask import DaskExecutor

    path = tmp_path / "scheduler.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(ExecutorUnavailable) as caught:
        DaskExecutor(str(path), connect_timeout=2)
    assert caught.value.file == str(path) and "not a Dask scheduler file" in str(caught.value)


def test_the_cli_says_so_with_exit_2(tmp_path, capsys):
    from cope.minicope import write_minicope
    from planning_core.console import main

    (tmp_path / "scheduler.json").write_text("{}")
    (tmp_path / "outputs.jsonl").write_text('{"category": "baseline", "problem": "p01", '
                                            '"constraint": "constraint1", "output": "x"}\n')
    code = main(["cope", "eval", "--dataset", str(write_minicope(tmp_path)), "--method",
                 "planner", "--outputs", str(tmp_path / "outputs.jsonl"), "--out",
                 str(tmp_path / "out.jsonl"), "--no-progress", "--no-label-check",
                 "--executor", "dask", "--scheduler", str(tmp_path / "scheduler.json")])
    err = capsys.readouterr().err
    assert code == 2 and "not a Dask scheduler file" in err and "internal error" not in err
