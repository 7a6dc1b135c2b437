"""``cope check`` names the file of each error, also when another dataset holds a
byte-identical broken file (issue 19 item 16: the shared parse cache returned the error of
whichever copy was parsed first, so the path named changed from run to run)."""
from __future__ import annotations

import json

from cope.minicope import write_minicope
from planning_core.console import main


def test_byte_identical_broken_files_in_two_datasets_name_their_own_paths(tmp_path, capsys):
    for name in ("Mini-1", "Mini-2"):
        write_minicope(tmp_path, name)
    # serially, one cache for the whole run: the second copy is a cache hit
    assert main(["cope", "check", "--dataset", str(tmp_path), "--json",
                 "--no-progress"]) == 1
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    errors = [r for r in rows if r["status"] == "error"]
    assert len(errors) == 4 and {r["dataset"] for r in errors} == {"Mini-1", "Mini-2"}
    for row in errors:
        folder = tmp_path / row["dataset"] / "constraints" / row["category"]
        assert row["error"].startswith(str(folder) + "/"), row
        assert all(i["file"].startswith(str(folder) + "/") for i in row["issues"]), row
