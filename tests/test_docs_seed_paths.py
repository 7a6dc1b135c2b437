"""Docs cite the papers as ``../shared/seeds/FILE`` (issue 32, item 9).

The papers sit in ``shared/seeds`` beside a clone (as ``shared/data`` does); an absolute
path such as ``/work/shared/seeds/...`` names one machine's folder and exists in no other
clone. Every Markdown file of the project is checked.
"""
from __future__ import annotations

import re

from conftest import ROOT


def absolute_seed_path(line: str) -> bool:
    """Whether ``line`` names ``shared/seeds/`` other than as ``../shared/seeds/`` (with
    nothing of a path before the ``..``)."""
    for m in re.finditer(r"shared/seeds/", line):
        before = line[:m.start()]
        if not before.endswith("../") or re.search(r"[\w~/.-]$", before[:-3]):
            return True
    return False


def _markdown_files():
    return sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md"),
                   *(ROOT / "benchmarks").rglob("*.md")])


def test_no_doc_cites_an_absolute_seeds_path():
    found = []
    for path in _markdown_files():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if absolute_seed_path(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []


def test_the_check_finds_an_absolute_path_and_passes_a_relative_one():
    assert absolute_seed_path("paper: `/work/shared/seeds/000_x.txt` line 3")
    assert absolute_seed_path("see /home/me/shared/seeds/000_x.txt")
    assert absolute_seed_path("see /work/../shared/seeds/000_x.txt")
    assert not absolute_seed_path("paper: `../shared/seeds/000_x.txt` line 3")
    assert not absolute_seed_path("../shared/seeds/000_x.txt")
