"""``adaptive build`` over a folder shows progress (issue 32, item 10): how many tasks it
will build, then ``[k/N]`` in front of each task's line as it is done."""
from __future__ import annotations

import re

from planning_core.console import main
from tests.adaptive.conftest import HOUSEHOLD


def test_build_counts_tasks_as_it_goes(tmp_path, capsys):
    out = tmp_path / "profiles"
    assert main(["adaptive", "build", str(HOUSEHOLD), "--limit", "2", "--out", str(out),
                 "--diverse", "iterated"]) in (0, 1)
    printed = capsys.readouterr()
    assert f"building 2 profile(s) into {out}" in printed.err
    steps = re.findall(r"^\[(\d+)/(\d+)\] ", printed.out, re.M)
    assert steps == [("1", "2"), ("2", "2")]


def test_json_lines_stay_plain_json(tmp_path, capsys):
    import json

    main(["adaptive", "build", str(HOUSEHOLD), "--limit", "1", "--out", str(tmp_path / "p"),
          "--diverse", "iterated", "--json"])
    printed = capsys.readouterr()
    assert [json.loads(line) for line in printed.out.splitlines()]   # every line is JSON
    assert "building" not in printed.err
