"""The installed wheel does not collide with the PyPI library ``validators`` (issue 9, item 15).

planning-core used to install a top-level package ``validators``: installing it overwrote
the popular PyPI library of that name (``validators.url`` gone), and uninstalling it removed
the library's files too. The folder now installs as ``planning_core.validators``. This test
builds our wheel, downloads the PyPI package's wheel, installs both with ``--no-deps`` into a
fresh plain venv (``--system-site-packages`` would let an outer ``validators`` hide the
collision), and checks both imports, then uninstalls planning-core and checks again. Our
runtime dependencies come from the test's own environment through a ``.pth`` line, which
puts them after the venv's own site-packages, so the venv's copies of ``validators`` and
``planning_core`` are the ones imported.
"""
from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


@pytest.mark.slow
def test_planning_core_and_pypi_validators_install_side_by_side(tmp_path):
    wheels = tmp_path / "wheels"
    # built from a copy: setuptools writes build/ and rewrites planning_core.egg-info in the
    # folder it builds, and the checkout's egg-info is the metadata that importlib.metadata
    # finds for the tests running alongside (the checkout is on sys.path)
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".hypothesis", ".pytest_cache",
        ".benchmarks", "found_plans"))
    built = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, source])
    assert built.returncode == 0, built.stderr[-2000:]
    got = _run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                "-q", "-d", wheels, "validators"])
    if got.returncode != 0:
        if os.environ.get("PLANNING_CORE_REQUIRE_SHARED") == "1":    # CI: must run
            pytest.fail(f"pip download validators failed: {got.stderr[-500:]}")
        pytest.skip(f"the package registry is not reachable: {got.stderr[-300:]}")
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True, clear=True)
    python = env_dir / "bin" / "python"
    ours = next(wheels.glob("planning_core-*.whl"))
    import zipfile
    names = set(zipfile.ZipFile(ours).namelist())
    # package data: the APB tool domains (toolplans generate from any folder)
    assert "planning_core/validators/toolplans/tool_domains/travel.json" in names
    assert sum(n.startswith("planning_core/validators/toolplans/tool_domains/")
               and n.endswith(".json") for n in names) == 11
    theirs = next(wheels.glob("validators-*.whl"))
    installed = _run([python, "-m", "pip", "install", "--no-deps", "-q", ours, theirs])
    assert installed.returncode == 0, installed.stderr[-2000:]
    purelib = _run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
    outer = [p for p in site.getsitepackages() if Path(p).is_dir()]
    (Path(purelib.stdout.strip()) / "zz_outer_dependencies.pth").write_text("\n".join(outer))

    check = ("import validators, planning_core, planning_core.validators.acp\n"
             "assert validators.url('https://example.org') is True\n"
             "assert 'venv' in planning_core.__file__, planning_core.__file__\n"
             "assert 'venv' in validators.__file__, validators.__file__\n")
    both = _run([python, "-c", check], cwd=tmp_path)
    assert both.returncode == 0, both.stderr[-2000:]
    _the_installed_validate_script_works(env_dir, tmp_path)
    removed = _run([python, "-m", "pip", "uninstall", "-y", "-q", "planning-core"])
    assert removed.returncode == 0, removed.stderr[-2000:]
    after = _run([python, "-c", "import validators; assert validators.url('https://example.org')"
                  " is True"], cwd=tmp_path)
    assert after.returncode == 0, after.stderr[-2000:]
    assert not (env_dir / "bin" / "validate").exists()   # uninstalled with the package


def _the_installed_validate_script_works(env_dir: Path, tmp_path: Path) -> None:
    """``validate`` is a plain script since issue 28 (pyproject's script-files, not an entry
    point): the wheel installs it with the venv's interpreter, and its exit codes are the
    process's (0 valid, 1 invalid, 2 bad input), cold and with a warm parse cache."""
    script = env_dir / "bin" / "validate"
    assert script.read_text().splitlines()[0] == f"#!{env_dir / 'bin' / 'python'}"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PLANNING_CORE_PARSE_CACHE="1", PLANNING_CORE_PARSE_CACHE_DIR=str(tmp_path / "pc"))
    folder = ROOT / "domains" / "blocksworld"
    domain, problem = folder / "domain.pddl", folder / "p01.pddl"
    version = _run([script, "--version"], env=env, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("validate (planning-core) ")
    assert _run([script, "--help"], env=env, cwd=tmp_path).returncode == 0
    for _ in range(2):   # cold, then from the parse cache
        valid = _run([script, folder / "p01.plan", domain, problem], env=env, cwd=tmp_path)
        assert valid.returncode == 0 and "Plan valid" in valid.stdout, valid.stderr[-2000:]
        invalid = _run([script, domain, problem, folder / "p01.bad.plan"], env=env, cwd=tmp_path)
        assert invalid.returncode == 1 and "Plan invalid" in invalid.stdout, invalid.stderr
    missing = _run([script, domain, problem, tmp_path / "none.plan"], env=env, cwd=tmp_path)
    assert missing.returncode == 2 and "Traceback" not in missing.stderr, missing.stderr
    manifest = tmp_path / "m.jsonl"
    manifest.write_text("".join(
        f'{{"id": {i}, "plan": "{folder / plan}", "domain": "{domain}", "problem": "{problem}"}}\n'
        for i, plan in enumerate(("p01.plan", "p01.bad.plan"))))
    batch = _run([script, "--batch", manifest, "--out", tmp_path / "rows.jsonl",
                  "--no-progress"], env=env, cwd=tmp_path)
    assert batch.returncode == 1, batch.stderr[-2000:]    # one plan invalid
    assert (tmp_path / "rows.jsonl").read_text().count("\n") == 2
