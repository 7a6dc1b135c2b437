"""Every malformed input in ``tests/malformed/MANIFEST.tsv`` through the ``validate`` CLI.

The promise (DESIGN, "Errors and exit codes"): no input makes planning_core crash, and
every bad input ends with exit 2 (1 when the plan is at fault) and a message that names the
file and the line. Each manifest row is run in-process through
:func:`planning_core.cli.validate.validate_main`, once for the text output and once with
``--json``, and checked for: the exit code, the file and ``line`` (and column) in the
message, the row's regex, no traceback, no "internal error", no raw control characters. A
handful run as real subprocesses to cover the ``validate`` console script.

Files that are too big or too deep to keep in git (``gen/``: 10,000 nested ``(and``, a 5 MB
problem) are written by :func:`generate` into a temporary copy of ``tests/malformed``.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from planning_core.cli.validate import validate_main
from planning_core.console import main

MALFORMED = Path(__file__).resolve().parents[1] / "malformed"
MANIFEST = MALFORMED / "MANIFEST.tsv"
BASE = ("base/plan.txt", "base/domain.pddl", "base/problem.pddl")
DEEP = 10_000
BIG_BYTES = 5_000_000
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    argv: tuple[str, ...]
    exit: int
    verdict: str | None
    file: str | None
    line: int | None
    column: int | None
    regex: str
    tags: tuple[str, ...]


def _opt(field: str) -> str | None:
    return None if field == "-" else field


def load_manifest(path: Path = MANIFEST) -> tuple[Case, ...]:
    rows: list[Case] = []
    header_seen = False
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        fields = raw.split("\t")
        assert len(fields) == 9, f"manifest row needs 9 tab-separated fields: {raw!r}"
        if not header_seen:
            assert fields[0] == "id", "the first non-comment line is the header"
            header_seen = True
            continue
        id_, argv, code, verdict, file, line, column, regex, tags = fields
        rows.append(Case(id_, tuple(argv.split()), int(code), _opt(verdict), _opt(file),
                         None if line == "-" else int(line),
                         None if column == "-" else int(column), regex,
                         () if tags == "-" else tuple(tags.split(","))))
    return tuple(rows)


CASES = load_manifest()


def _params(cases):
    return [pytest.param(c, id=c.id, marks=[pytest.mark.slow] if "slow" in c.tags else [])
            for c in cases]


# ------------------------------------------------------------------ generated files

def _deep_domain(base: str) -> str:
    """The base domain with ``put``'s precondition nested ``DEEP`` levels of ``(and``."""
    old = "(and (holding ?x) (clear ?y))"
    assert base.count(old) == 1
    return base.replace(old, "(and " * DEEP + "(holding ?x) (clear ?y)" + ")" * DEEP)


def _deep_problem(base: str) -> str:
    old = "(and (on b a))"
    assert base.count(old) == 1
    return base.replace(old, "(not " * DEEP + "(on b a)" + ")" * DEEP)


def _deep_plan() -> str:
    return "; a step with 10,000 nested parentheses\n(pick " + "(" * DEEP + "a" + ")" * DEEP + ")\n"


def _big_problem() -> str:
    """5 MB of valid atoms over 12,000 blocks; only the very last atom is wrong.

    Checks that a large file is read in reasonable time and that the line number of a
    fault near its end is exact.
    """
    n = 12_000
    lines = ["; 5 MB of valid atoms; only the last one names an undeclared object",
             "(define (problem big)", "  (:domain tinyblocks)",
             "  (:objects " + " ".join(f"b{i}" for i in range(n)) + " - block)",
             "  (:init (handempty) (clear table)"]
    size, i = sum(map(len, lines)), 0
    while size < BIG_BYTES:
        line = (f"         (on b{i % n} b{(7 * i + 1) % n}) (clear b{3 * i % n}) "
                f"(holding b{5 * i % n})")
        lines.append(line)
        size += len(line) + 1
        i += 1
    lines += ["         (on b0 nowhere))", "  (:goal (and (on b1 b0))))"]
    return "\n".join(lines) + "\n"


def generate(root: Path, *, big: bool) -> None:
    gen = root / "gen"
    gen.mkdir(exist_ok=True)
    (gen / "deep_and_10000.pddl").write_text(_deep_domain((root / BASE[1]).read_text()))
    (gen / "deep_not_goal.pddl").write_text(_deep_problem((root / BASE[2]).read_text()))
    (gen / "deep_plan.txt").write_text(_deep_plan())
    if big:
        (gen / "big_5mb.pddl").write_text(_big_problem())


@pytest.fixture(scope="module")
def malformed_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("malformed") / "malformed"
    shutil.copytree(MALFORMED, root)
    generate(root, big=False)
    return root


@pytest.fixture
def in_root(malformed_root, monkeypatch, request) -> Path:
    case = request.node.callspec.params["case"]
    if any("gen/big_5mb.pddl" in a for a in case.argv) and not (
            malformed_root / "gen/big_5mb.pddl").exists():
        (malformed_root / "gen/big_5mb.pddl").write_text(_big_problem())
    monkeypatch.chdir(malformed_root)
    return malformed_root


# ------------------------------------------------------------------------- checks

def _run(argv, capsys) -> tuple[int, str, str]:
    try:
        code = validate_main(list(argv))
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def _no_crash(out: str, err: str) -> None:
    both = out + err
    assert "Traceback" not in both
    assert "internal error" not in both
    assert not CONTROL.search(both), f"raw control character in the output: {both!r}"


def _plan_section(out: str, plan: str) -> str:
    """The text printed for one plan: from its ``Checking plan:`` line to the next."""
    start = out.find(f"Checking plan: {plan}\n")
    assert start >= 0, f"no 'Checking plan: {plan}' in:\n{out}"
    end = out.find("Checking plan: ", start + 1)
    return out[start:] if end < 0 else out[start:end]


def _check_text_location(case: Case, out: str, err: str) -> None:
    if case.file is None:
        return
    plan_output = case.exit in (0, 1) and f"Checking plan: {case.file}\n" in out
    if plan_output:
        section = _plan_section(out, case.file)
        if case.line is not None:
            want = (f"line {case.line}, column {case.column}" if case.column is not None
                    else f"line {case.line}")
            assert re.search(rf"\b{re.escape(want)}\b", section), \
                f"{want!r} not in the output for {case.file}:\n{section}"
        return
    loc = re.escape(case.file) + ":"
    if case.line is not None:
        loc += f"{case.line}" + (f":{case.column}:" if case.column is not None else r"\b")
    else:
        loc += r" "
    assert re.search(rf"(^|error: ){loc}", err, re.M), \
        f"stderr does not locate {case.file}:{case.line}:{case.column}:\n{err}"


@pytest.mark.parametrize("case", _params(CASES))
def test_text(case: Case, in_root, capsys) -> None:
    code, out, err = _run(case.argv, capsys)
    _no_crash(out, err)
    assert code == case.exit, f"exit {code}, expected {case.exit}\nstdout:\n{out}\nstderr:\n{err}"
    assert re.search(case.regex, out + err), f"{case.regex!r} not found in:\n{out}{err}"
    _check_text_location(case, out, err)


def _json_objects(out: str) -> list[dict]:
    lines = [line for line in out.splitlines() if line.strip()]
    assert lines, "--json printed nothing"
    return [json.loads(line) for line in lines]


@pytest.mark.parametrize("case", _params(c for c in CASES
                                         if c.verdict is not None and "slow" not in c.tags))
def test_json(case: Case, in_root, capsys) -> None:
    code, out, err = _run(("--json", *case.argv), capsys)
    _no_crash(out, err)
    assert code == case.exit
    objects = _json_objects(out)
    obj = next((o for o in objects if o["plan"] == case.file), objects[0])
    assert obj["verdict"] == case.verdict
    assert obj["valid"] is (case.verdict == "valid")
    if case.verdict in ("bad_input", "plan_syntax_error"):
        errors = obj["errors"]
        assert errors and all(e["message"] for e in errors)
        assert re.search(case.regex, "\n".join(e["message"] for e in errors)), errors
        if case.file is not None:
            located = [e for e in errors if e["file"] == case.file and e["line"] == case.line
                       and (case.column is None or e["column"] == case.column)]
            assert located, f"no error at {case.file}:{case.line}:{case.column} in {errors}"
    elif case.exit == 1:
        # a semantic plan fault: the report names the plan and the failing step
        assert obj["plan"] == case.file
        if case.verdict != "goal_not_satisfied":
            assert obj["step"] is not None and obj["action"]


MAIN_CASES = ("dom_unknown_section", "prob_wrong_type_init", "plan_unknown_action",
              "cli_directory_as_domain", "dom_deep_nesting", "ctl_bom_domain")


@pytest.mark.parametrize("case", _params(c for c in CASES if c.id in MAIN_CASES))
def test_planning_core_validate_subcommand(case: Case, in_root, capsys) -> None:
    """``planning-core validate`` answers exactly as ``validate`` does."""
    try:
        code = main(["validate", *case.argv])
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    _no_crash(out, err)
    assert code == case.exit
    assert re.search(case.regex, out + err)
    _check_text_location(case, out, err)


SUBPROCESS_CASES = ("dom_missing_paren_in_precondition", "prob_undeclared_object_init",
                    "plan_garbage_line", "cli_missing_problem", "dom_binary_junk")


@pytest.mark.parametrize("case", _params(c for c in CASES if c.id in SUBPROCESS_CASES))
def test_console_script(case: Case, malformed_root) -> None:
    exe = shutil.which("validate")
    if exe is None:
        pytest.skip("the `validate` console script is not installed (pip install -e .)")
    proc = subprocess.run([exe, *case.argv], cwd=malformed_root, capture_output=True,
                          text=True, timeout=120)
    _no_crash(proc.stdout, proc.stderr)
    assert proc.returncode == case.exit, proc.stderr
    assert re.search(case.regex, proc.stdout + proc.stderr)
    _check_text_location(case, proc.stdout, proc.stderr)


# ------------------------------------------------------------------- the manifest

def test_manifest_is_complete() -> None:
    """Enough rows, unique ids, every fault file used, every named file present."""
    assert len(CASES) >= 70
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    used = {a for c in CASES for a in c.argv}
    written = {str(p.relative_to(MALFORMED)) for p in MALFORMED.rglob("*")
               if p.is_file() and p.parent.name in ("domain", "problem", "plan", "misc")}
    assert written - used == set(), "fault files that no manifest row uses"
    for c in CASES:
        for a in c.argv:
            if a.startswith("-") or a.startswith(("gen/", "missing/")):
                continue
            assert (MALFORMED / a).exists(), f"{c.id}: {a} does not exist"
        assert c.exit in (0, 1, 2)
        re.compile(c.regex)


def test_base_files_are_valid(malformed_root, monkeypatch, capsys) -> None:
    """The faults mean something only if the files they were cut from are fine, in
    either order of arguments (ours and VAL's)."""
    monkeypatch.chdir(malformed_root)
    for argv in (BASE, (BASE[1], BASE[2], BASE[0])):
        code, out, err = _run(argv, capsys)
        assert code == 0, out + err
        assert "Plan valid" in out and err == ""
