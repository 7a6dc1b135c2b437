"""What one ``validate plan domain problem`` call imports (issue 24: a call in ~60 ms).

Users call the validator once per plan in loops, so every module the single-plan path
imports is paid per plan. The executor machinery (``concurrent.futures.process``,
``multiprocessing``, the local and Dask executors) and the ``--batch`` code are for ``--batch`` only, and lark's optional ``regex`` backend is not used by any of
our grammars. A fresh interpreter runs the real console-script entry point and reports
``sys.modules``; no timing is asserted (the machine is shared).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import DOMAINS

# the console script ends its process without Python's teardown (cli.exit_process), after
# the exit handlers: the modules are reported by one, the exit code is the process's
_PROBE = """
import atexit, sys
atexit.register(lambda: print("MODULES " + " ".join(sorted(sys.modules)), file=sys.stderr))
from planning_core.cli.validate import validate_main
sys.exit(validate_main())
"""


def _reported(done: subprocess.CompletedProcess) -> dict:
    """The probe's exit code and the modules its process had imported at the end."""
    last = [line for line in done.stderr.splitlines() if line.startswith("MODULES ")]
    assert last, done.stderr
    return {"code": done.returncode, "modules": last[-1].split()[1:]}

BATCH_ONLY = ("concurrent.futures.process", "multiprocessing", "planning_core.executor",
              "planning_core.executor.base", "planning_core.executor.local",
              "planning_core.executor.dask", "planning_core.cli.validate_batch",
              "dask", "distributed")


def _modules_of(*argv: str, prelude: str = "", env: dict | None = None
                ) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", prelude + _PROBE, *argv],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **(env or {})))
    found = _reported(done)
    return found["code"], set(found["modules"])


def _blocksworld() -> list[str]:
    bw = DOMAINS / "blocksworld"
    return [str(bw / "p01.plan"), str(bw / "domain.pddl"), str(bw / "p01.pddl")]


def test_a_single_plan_call_imports_no_batch_machinery():
    code, modules = _modules_of(*_blocksworld())
    assert code == 0  # the plan is valid: the path under test really ran
    assert "planning_core.validate.simulator" in modules
    assert not modules & set(BATCH_ONLY), sorted(modules & set(BATCH_ONLY))


def test_a_call_with_a_cached_domain_and_problem_imports_no_parser(tmp_path):
    env = {"PLANNING_CORE_PARSE_CACHE": "1", "PLANNING_CORE_PARSE_CACHE_DIR": str(tmp_path / "cache")}
    code, first = _modules_of(*_blocksworld(), env=env)
    assert code == 0 and "lark" in first  # the first call parses, and fills the cache
    code, modules = _modules_of(*_blocksworld(), env=env)
    assert code == 0 and "planning_core.validate.simulator" in modules
    assert not {m for m in modules if m.split(".")[0] in ("lark", "regex")}
    assert "planning_core.pddl.parser" not in modules
    assert "planning_core.pddl.checker" not in modules   # its results are cached too
    assert not modules & set(BATCH_ONLY)


def test_a_cached_call_reports_what_a_parsing_call_reports(tmp_path):
    bw = DOMAINS / "blocksworld"
    argv = [str(bw / "p01.bad.plan"), str(bw / "domain.pddl"), str(bw / "p01.pddl"), "-v"]
    cached = dict(os.environ, PLANNING_CORE_PARSE_CACHE="1",
                  PLANNING_CORE_PARSE_CACHE_DIR=str(tmp_path / "cache"))
    off = dict(os.environ, PLANNING_CORE_PARSE_CACHE="0")
    probe = "from planning_core.cli.validate import validate_main; raise SystemExit(validate_main())"
    runs = [subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True,
                           env=env, timeout=120) for env in (off, cached, cached)]
    assert runs[0].returncode == 1 and runs[0].stdout
    # the domain, the problem, and the checker's diagnostics for the pair
    assert len(list((tmp_path / "cache").glob("*.entry"))) == 3
    for run in runs[1:]:
        assert (run.returncode, run.stdout, run.stderr) == \
            (runs[0].returncode, runs[0].stdout, runs[0].stderr)


def test_the_probe_sees_batch_machinery_when_it_is_imported():
    # the same probe after an import of the batch module reports it: the test above can fail
    code, modules = _modules_of(*_blocksworld(),
                                prelude="import planning_core.cli.validate_batch, multiprocessing\n")
    assert code == 0
    assert "planning_core.cli.validate_batch" in modules
    assert "multiprocessing" in modules


def test_lark_is_imported_without_regex_and_regex_still_imports_afterwards():
    probe = ("import sys\n"
             "from planning_core.cli import import_lark_without_regex\n"
             "import_lark_without_regex()\n"
             "assert 'regex' not in sys.modules and 'lark' in sys.modules\n"
             "import lark.utils\n"
             "assert not lark.utils._has_regex\n"
             "from planning_core.pddl.parser import parse_domain\n"
             "assert parse_domain(open(sys.argv[1]).read()).name == 'blocksworld'\n"
             "try:\n    import regex\nexcept ImportError as err:\n"
             "    assert 'None in sys.modules' not in str(err), err\n"
             "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", probe, str(DOMAINS / "blocksworld" /
                                                            "domain.pddl")],
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr


def test_the_console_registers_its_commands_without_the_validators_machinery():
    # registering every command group (the whole parser; a single command registers only
    # its own group, tests/cli/test_console_lazy.py) imports each group's cli module; the
    # adaptive environment and the toolplans checker are for their own commands only
    probe = ("import json, sys\nfrom planning_core import cli, console\n"
             "cli.build_parser(console.COMMAND_GROUPS)\n"
             "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120, check=True)
    modules = set(json.loads(done.stdout))
    assert "planning_core.validators.adaptive.cli" in modules
    assert "planning_core.validators.toolplans.cli" in modules
    heavy = {"planning_core.validators.adaptive.env", "planning_core.validators.adaptive.compile",
             "planning_core.validators.toolplans.check", "planning_core.validators.toolplans.compile",
             "concurrent.futures.process", "multiprocessing"}
    assert not modules & heavy, sorted(modules & heavy)


def test_the_executor_choices_spelled_out_for_the_options_are_the_factorys():
    from planning_core.cli import executor_args
    from planning_core.executor.factory import EXECUTORS

    assert executor_args.EXECUTORS == EXECUTORS


def test_a_lost_executor_still_exits_interrupted_and_other_errors_bad_input(capsys):
    from planning_core.cli import ExitCode, run
    from planning_core.errors import InputError
    from planning_core.executor.base import ExecutorLost

    def lost(_args):
        raise ExecutorLost("the scheduler went away")

    def bad(_args):
        raise InputError("no such file", file="x.pddl", line=1, column=1)

    assert run(lost, None) == ExitCode.INTERRUPTED
    assert run(bad, None) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert "error: the scheduler went away" in err and "x.pddl:1:1: error: no such file" in err


@pytest.mark.parametrize("columns", [None, "50", "200", "0", "-3", "wide"])
def test_the_help_formatter_is_as_wide_as_argparses(monkeypatch, columns):
    import argparse

    from planning_core.cli import HelpFormatter

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    for lines in (None, "30"):
        if lines is None:
            monkeypatch.delenv("LINES", raising=False)
        else:
            monkeypatch.setenv("LINES", lines)
        mine, theirs = HelpFormatter("validate"), argparse.HelpFormatter("validate")
        assert (mine._width, mine._max_help_position) == \
            (theirs._width, theirs._max_help_position)


def test_a_cached_call_without_site_imports_none_of_the_modules_it_does_not_need(tmp_path):
    # -S: without this venv's start-up hooks (an editable install's finder imports pathlib,
    # the sandbox's certifi hook importlib.resources), as a wheel install starts; the tree
    # and lark's folder on the path instead
    import lark

    path = os.pathsep.join([str(DOMAINS.parent), os.path.dirname(os.path.dirname(lark.__file__))])
    env = dict(os.environ, PYTHONPATH=path, PLANNING_CORE_PARSE_CACHE="1",
               PLANNING_CORE_PARSE_CACHE_DIR=str(tmp_path / "cache"))
    probe = "import sys; sys.path.remove(''); " + _PROBE
    for plan in ("p01.plan", "p01.bad.plan"):
        argv = [str(DOMAINS / "blocksworld" / plan), str(DOMAINS / "blocksworld" / "domain.pddl"),
                str(DOMAINS / "blocksworld" / "p01.pddl")]
        for _ in range(2):   # the first call fills the cache
            done = subprocess.run([sys.executable, "-S", "-c", probe, *argv],
                                  capture_output=True, text=True, timeout=120, env=env)
        found = _reported(done)
        assert found["code"] == (0 if plan == "p01.plan" else 1)
        unneeded = {"pathlib", "shutil", "dataclasses", "inspect", "hashlib", "pickle",
                    "threading", "importlib.resources", "lark", "planning_core.pddl.parser",
                    "planning_core.results_file", "planning_core.validate.advice", "typing",
                    "copy", "encodings.utf_8_sig", "importlib.util"}
        if plan == "p01.bad.plan":
            unneeded.discard("planning_core.validate.advice")  # the failure's repair advice
        from planning_core import _node_methods

        if sys.version_info[:2] != _node_methods.PYTHON:   # @node classes are the real
            unneeded -= {"dataclasses", "inspect", "copy"}  # dataclasses on another Python
        assert not unneeded & set(found["modules"]), sorted(unneeded & set(found["modules"]))


def test_python_dash_m_runs_the_validator_and_reports_its_exit_code():
    # without a __main__ block, `python -m planning_core.cli.validate` imported the module,
    # validated nothing and exited 0, even for a bad plan
    bw = DOMAINS / "blocksworld"
    codes = []
    for plan in ("p01.plan", "p01.bad.plan"):
        done = subprocess.run([sys.executable, "-m", "planning_core.cli.validate",
                               str(bw / plan), str(bw / "domain.pddl"), str(bw / "p01.pddl")],
                              capture_output=True, text=True, timeout=120)
        codes.append(done.returncode)
        assert "Traceback" not in done.stdout + done.stderr
        assert ("Plan valid" in done.stdout) == (plan == "p01.plan")
    assert codes == [0, 1]


#: what a single-plan call never needs (issue 28: each was ms of a call VAL makes in ~5):
#: argparse (with gettext, locale, warnings) for a common argument line, json without
#: --json, the parser and lark with a warm parse cache, the dataclasses machinery
NOT_FOR_A_COMMON_CALL = ("argparse", "gettext", "locale", "json", "lark", "dataclasses",
                         "inspect", "typing", "pathlib", "pickle", "threading", "shutil",
                         "tempfile", "importlib.metadata", "planning_core.cli.parser",
                         "planning_core.pddl.parser", "planning_core.cli.validate_batch",
                         "planning_core.pddl.checker", "planning_core.grammar_files")


#: ... and what the `validate` command itself never imports for one (issue 28): re (with
#: enum, functools and collections: ~10 ms of CPU, twice VAL's whole call; the enumerations
#: are planning_core.light_enum's), and pickle's C module (the parse cache's entries are
#: marshal data)
NOT_FOR_A_VALIDATE_CALL = ("re", "enum", "functools", "collections", "_pickle", "copyreg",
                           "operator", "types")


@pytest.mark.parametrize("console", ["validate", "planning-core validate"])
@pytest.mark.parametrize("task, plan, flags, code", [
    ("tanker", "p01.plan", (), 0), ("tanker", "p01.nofuel.bad.plan", ("-v",), 1),
    ("kitchen", "p01.plan", ("-t", "0.01"), 0), ("kitchen", "p01.mutex.bad.plan", ("-S",), 1),
])
def test_a_common_pddl21_call_imports_only_the_validation_path(tmp_path, console, task, plan,
                                                               flags, code):
    folder = DOMAINS / "pddl21" / task
    argv = [*flags, str(folder / plan), str(folder / "domain.pddl"), str(folder / "p01.pddl")]
    # -S, the tree and lark's folder on the path: as a wheel install starts (this venv's
    # start-up hooks import pathlib, typing, threading...; see the test above)
    import lark

    path = os.pathsep.join([str(DOMAINS.parent), os.path.dirname(os.path.dirname(lark.__file__))])
    env = dict(os.environ, PYTHONPATH=path, PLANNING_CORE_PARSE_CACHE="1",
               PLANNING_CORE_PARSE_CACHE_DIR=str(tmp_path / "cache"))
    probe = "import sys; sys.path.remove('')\n" + _PROBE
    if console != "validate":
        probe = probe.replace("from planning_core.cli.validate import validate_main",
                              "from planning_core.console import main as validate_main")
        argv.insert(0, "validate")
    for _ in range(2):   # the first call parses and fills the cache
        done = subprocess.run([sys.executable, "-S", "-c", probe, *argv], capture_output=True,
                              text=True, timeout=120, env=env)
    found = _reported(done)
    assert found["code"] == code, done.stderr
    modules = set(found["modules"])
    assert "planning_core.validate.simulator" in modules   # the path under test ran
    assert not modules & set(NOT_FOR_A_COMMON_CALL), sorted(modules & set(NOT_FOR_A_COMMON_CALL))
    if console == "validate":   # (planning-core's argument parser needs re and enum)
        assert not modules & set(NOT_FOR_A_VALIDATE_CALL), \
            sorted(modules & set(NOT_FOR_A_VALIDATE_CALL))
    # a line the small reader leaves to argparse still imports it (the assertion can fail)
    done = subprocess.run([sys.executable, "-S", "-c", probe, *argv[:-3], "--time-limit=30",
                           *argv[-3:]], capture_output=True, text=True, timeout=120, env=env)
    assert _reported(done)["code"] == code and "argparse" in _reported(done)["modules"]


@pytest.mark.parametrize("plan", ["p01.plan", "p01.nofuel.bad.plan", "p01.undefined.plan"])
def test_the_console_script_prints_and_exits_as_a_call_in_process(capsys, plan):
    # the process ends without Python's teardown (cli.exit_process): same bytes on stdout
    # and stderr, same exit code as validate_main([...]) called here (which returns)
    from planning_core.cli.validate import validate_main

    folder = DOMAINS / "pddl21" / "tanker"
    problem = "p01.undefined.pddl" if "undefined" in plan else "p01.pddl"
    argv = [str(folder / plan), str(folder / "domain.pddl"), str(folder / problem), "-v"]
    code = validate_main(argv)
    out, err = capsys.readouterr()
    done = subprocess.run([sys.executable, "-c", "import sys\nfrom planning_core.cli.validate "
                           "import validate_main\nsys.exit(validate_main())", *argv],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PLANNING_CORE_PARSE_CACHE="0"))
    assert (done.returncode, done.stdout, done.stderr) == (code, out, err)
    assert out.strip()


def test_a_cached_check_reports_the_checkers_warnings_and_keys_on_both_files(tmp_path):
    # the checker's diagnostics are stored with the parse cache's entries (issue 28): a warm
    # call prints the same warnings, and another problem with the same domain is checked
    # again (an error in it is found, not a stored "no diagnostics")
    bw = DOMAINS / "blocksworld"
    domain = (bw / "domain.pddl").read_text().replace("(:requirements :strips)",
                                                      "(:requirements :strips :no-such-requirement)")
    (tmp_path / "domain.pddl").write_text(domain)   # an unknown requirement: a warning
    problem = (bw / "p01.pddl").read_text()
    (tmp_path / "p01.pddl").write_text(problem)
    (tmp_path / "p02.pddl").write_text(problem.replace("(:init", "(:init (unknown-pred)", 1))
    argv = [str(bw / "p01.plan"), str(tmp_path / "domain.pddl")]
    probe = "from planning_core.cli.validate import validate_main; raise SystemExit(validate_main())"
    cached = dict(os.environ, PLANNING_CORE_PARSE_CACHE="1",
                  PLANNING_CORE_PARSE_CACHE_DIR=str(tmp_path / "cache"))
    off = dict(os.environ, PLANNING_CORE_PARSE_CACHE="0")
    for problem_file in ("p01.pddl", "p02.pddl"):
        args = [*argv, str(tmp_path / problem_file)]
        runs = [subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                               text=True, env=env, timeout=120) for env in (off, cached, cached)]
        assert runs[0].stderr.strip()   # a warning (p01) or an error (p02) to report
        assert runs[0].returncode == (0 if problem_file == "p01.pddl" else 2)
        for run in runs[1:]:
            assert (run.returncode, run.stdout, run.stderr) == \
                (runs[0].returncode, runs[0].stdout, runs[0].stderr)


def test_the_validate_script_imports_nothing_but_the_call(tmp_path):
    # scripts/validate is what pip installs as `validate` (pyproject: script-files): it
    # must not import re as the wrapper pip writes for an entry point does (issue 28)
    script = DOMAINS.parent / "scripts" / "validate"
    text = script.read_text()
    assert text.startswith("#!python\n")   # pip and setuptools write the interpreter there
    code = compile(text, str(script), "exec")
    assert set(code.co_names) <= {"sys", "planning_core.cli.validate", "validate_main", "exit",
                                  "code", "KeyboardInterrupt", "stderr", "write"}, code.co_names
    folder = DOMAINS / "pddl21" / "tanker"
    argv = [str(folder / "p01.plan"), str(folder / "domain.pddl"), str(folder / "p01.pddl")]
    import lark

    path = os.pathsep.join([str(DOMAINS.parent), os.path.dirname(os.path.dirname(lark.__file__))])
    env = dict(os.environ, PYTHONPATH=path, PLANNING_CORE_PARSE_CACHE="1",
               PLANNING_CORE_PARSE_CACHE_DIR=str(tmp_path / "cache"))
    probe = ("import atexit, sys\nsys.path.remove('')\n"
             "atexit.register(lambda: print('MODULES ' + ' '.join(sorted(sys.modules)), "
             "file=sys.stderr))\n" + text.split("\n", 1)[1])
    for _ in range(2):
        done = subprocess.run([sys.executable, "-S", "-c", probe, *argv], capture_output=True,
                              text=True, timeout=120, env=env)
    found = _reported(done)
    assert found["code"] == 0 and "Plan valid" in done.stdout, done.stderr
    assert not set(found["modules"]) & set(NOT_FOR_A_VALIDATE_CALL + NOT_FOR_A_COMMON_CALL)


def test_pyproject_installs_the_validate_script_and_the_planning_core_entry_point():
    import tomllib

    project = tomllib.loads((DOMAINS.parent / "pyproject.toml").read_text())
    assert project["tool"]["setuptools"]["script-files"] == ["scripts/validate"]
    assert "validate" not in project["project"]["scripts"]      # pip's wrapper imports re
    assert project["project"]["scripts"]["planning-core"] == "planning_core.console:main"


@pytest.mark.parametrize("where", ["import", "flags"])
def test_ctrl_c_before_the_command_handles_it_exits_130_without_a_traceback(tmp_path, where):
    # Ctrl-C while `validate` imports its modules (or reads its flags, before run() handles
    # it) printed a KeyboardInterrupt traceback and exited 1, which says "a plan is invalid"
    # to the shell loop that called it. A stand-in planning_core raises it there.
    fake = tmp_path / "planning_core" / "cli"
    fake.mkdir(parents=True)
    (tmp_path / "planning_core" / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "validate.py").write_text(
        "raise KeyboardInterrupt\n" if where == "import" else
        "def validate_main():\n    raise KeyboardInterrupt\n")
    script = DOMAINS.parent / "scripts" / "validate"
    done = subprocess.run([sys.executable, "-S", str(script), "d.pddl", "p.pddl", "x.plan"],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert (done.returncode, done.stderr, done.stdout) == (130, "interrupted\n", "")
