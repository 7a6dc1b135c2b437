"""The long run's engine works: atheris (a dev dependency, installed by CI) runs one target
of the harness for a few hundred coverage-guided inputs, seeded and in a child process, as
``benchmarks/fuzz_bench.py`` does for >= 100,000 inputs per target."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import atheris  # noqa: F401 - required: CI installs the dev extra, which has it

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_atheris_runs_a_target_to_its_count_without_a_contract_break(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "seed").write_bytes(b"(pick-up a)\n(stack a b)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "fuzz_bench.py"), "--child", "plan", "--",
         "-runs=300", "-seed=1", "-max_len=512", f"-artifact_prefix={tmp_path}/", str(corpus)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Done 300 runs" in proc.stderr
    assert not list(tmp_path.glob("crash-*"))
