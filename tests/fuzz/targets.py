"""The fuzzing targets: every reader of untrusted text, each with the contract it must keep.

A target takes the bytes a fuzzer made and hands them, as text (or as a file, for the readers
that open one), to one reader of the project. The contract (:func:`check`) is the same for
every target:

* the reader returns a verdict of its own kind (a report, a row, a parsed value), or raises
  one of the errors the target names (the project's own: a ``PlanningError`` subclass, which
  for PDDL must be *located*, i.e. carry a line), or stops at its limit (``LimitReached``);
* anything else, any other exception class, is a broken contract (:class:`ContractBroken`,
  carrying the reader's traceback), and so is a reader still running after
  :data:`HANG_CPU_S` CPU-seconds: the reader runs under a budget of :data:`CPU_S`
  (``limits.Budget``, made active by ``limits.metering``, as the commands do), so a hang
  means a loop the budget does not see.

Targets are built lazily (their fixtures parse domains or generate DeepPlanning tasks) and
cached per process; seeds come from the project's own ``domains/`` and ``tests/`` fixtures
(string literals of the test modules that exercise the reader), never from ../shared/data.

Used by the short run in the test suite (``tests/fuzz/test_fuzz_short.py``, Hypothesis,
derandomized) and by the long run (``benchmarks/fuzz_bench.py``, atheris, coverage-guided).

Timed plans (PDDL 2.1 ``time: (action) [duration]``) are the ``timed-plan`` target: read by the
plan reader and simulated as happenings against the project's durative kitchen task
(``domains/pddl21/kitchen``), or the numeric tanker task when the plan fills a tanker.
"""
from __future__ import annotations

import ast
import contextlib
import functools
import io
import json
import os
import signal
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]
DOMAINS = ROOT / "domains"
TESTS = ROOT / "tests"
REGRESSIONS = Path(__file__).resolve().parent / "regressions"

#: the CPU budget of one input (what the reader's limits mechanism is given)
CPU_S = 1.0
#: a reader still running after this much CPU is hung: its budget did not stop it
HANG_CPU_S = 10.0
#: the memory budget of one input (MB)
MEMORY_MB = 1024.0
#: seeds longer than this are cut (a fuzzer mutates small inputs faster)
MAX_SEED_BYTES = 8192



@contextlib.contextmanager
def _contract_env():
    """The environment one input runs in, restored after it (set for the whole process, it
    leaked into every later test of the same pytest worker): internal errors raise instead
    of printing "internal error" (the CLI's catch-all would otherwise turn a bug into exit 4,
    which the targets would have to recognise by text), and no parse cache unless the
    caller chose one."""
    saved = {k: os.environ.get(k) for k in ("PLANNING_CORE_DEBUG", "PLANNING_CORE_PARSE_CACHE")}
    os.environ["PLANNING_CORE_DEBUG"] = "1"
    os.environ.setdefault("PLANNING_CORE_PARSE_CACHE", "0")
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


class ContractBroken(AssertionError):
    """A reader broke the contract: a traceback, an unlocated error, a hang, a bad verdict."""


class _Hung(BaseException):
    """Raised by the CPU guard in the reader's frame (a BaseException: no reader's
    ``except Exception`` may swallow it)."""


@dataclass(frozen=True)
class Target:
    name: str
    #: what it reads, for the results table
    reader: str
    #: the reader, called with the input (text or bytes, see ``raw``) and the budget
    run: Callable[[object, object], object]
    #: the project's errors the reader may raise (anything else is a broken contract)
    errors: tuple[type[BaseException], ...]
    #: the seed inputs
    seeds: Callable[[], list[bytes]]
    #: hand the reader the raw bytes (readers of files), not decoded text
    raw: bool = False
    #: errors must carry a line (PDDL, plans, LTL: the user is shown file:line:col)
    located: bool = False
    #: why the target does not run yet (a slot), else None
    pending: str | None = None


# ----------------------------------------------------------------------- the contract

@contextlib.contextmanager
def _cpu_guard(seconds: float):
    """Raise :class:`_Hung` in the running code after ``seconds`` of process CPU time
    (ITIMER_PROF counts CPU, not wall time: a loaded machine does not trigger it)."""
    if seconds is None or not hasattr(signal, "setitimer") or \
            signal.getsignal(signal.SIGPROF) not in (signal.SIG_DFL, signal.SIG_IGN, None):
        yield
        return

    def fire(signum, frame):
        raise _Hung()

    old = signal.signal(signal.SIGPROF, fire)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def check(target: Target, data: bytes, *, hang_cpu_s: float | None = HANG_CPU_S) -> str:
    """Run ``target`` on ``data`` under the contract; return what happened (``"verdict"``,
    ``"error"``, ``"limit"``) or raise :class:`ContractBroken`."""
    from planning_core.errors import PlanningError
    from planning_core.limits import Budget, LimitReached, Limits, metering

    value = data if target.raw else data.decode("utf-8", "replace")
    budget = Budget(Limits(time_s=CPU_S, memory_mb=MEMORY_MB))
    try:
        with _contract_env(), _cpu_guard(hang_cpu_s), metering(budget):
            target.run(value, budget)
    except LimitReached:
        return "limit"
    except _Hung:
        raise ContractBroken(f"{target.name}: still running after {hang_cpu_s} CPU-s "
                             f"(budget {CPU_S} s)") from None
    except target.errors as err:
        if target.located and isinstance(err, PlanningError) and err.line is None:
            raise ContractBroken(f"{target.name}: unlocated {type(err).__name__}: {err}") \
                from err
        return "error"
    except ContractBroken:
        raise
    except (Exception, RecursionError) as err:   # noqa: BLE001 - the contract itself
        raise ContractBroken(f"{target.name}: {type(err).__name__}: {err}\n"
                             + "".join(traceback.format_exception(err))) from err
    return "verdict"


# ----------------------------------------------------------------------------- seeds

def _files(*patterns: str, under: Path = ROOT) -> list[bytes]:
    out = []
    for pattern in patterns:
        for path in sorted(under.glob(pattern)):
            if path.is_file():
                out.append(path.read_bytes()[:MAX_SEED_BYTES])
    return out


def _literals(*modules: str, keep: Callable[[str], bool] = lambda s: True,
              limit: int = 400) -> list[bytes]:
    """String literals of test modules (the answers, outputs and itineraries their tests
    feed the reader), kept when ``keep`` says they fit the reader."""
    out: list[bytes] = []
    seen: set[str] = set()
    for module in modules:
        tree = ast.parse((TESTS / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                if 0 < len(text) <= MAX_SEED_BYTES and text not in seen and keep(text):
                    seen.add(text)
                    out.append(text.encode("utf-8", "surrogatepass"))
    return out[:limit]


def _regressions(name: str) -> list[bytes]:
    folder = REGRESSIONS / name
    return [p.read_bytes() for p in sorted(folder.glob("*"))] if folder.is_dir() else []


# --------------------------------------------------------------------------- targets

@functools.lru_cache(maxsize=None)
def _domains() -> dict:
    """Every domain of domains/ by its name (problems name theirs)."""
    from planning_core.pddl.parser import parse_domain

    out = {}
    for path in sorted(DOMAINS.glob("*/domain*.pddl")):
        try:
            domain = parse_domain(path.read_text(), str(path))
        except Exception:   # noqa: BLE001 - a fixture that does not parse is not a seed
            continue
        out.setdefault(domain.name, domain)
    return out


def _pddl_domain(text: str, budget) -> object:
    from planning_core.pddl.checker import check_domain
    from planning_core.pddl.parser import parse_domain

    return check_domain(parse_domain(text, "domain.pddl"))


def _pddl_problem(text: str, budget) -> object:
    from planning_core.pddl.checker import check_problem
    from planning_core.pddl.parser import parse_problem

    problem = parse_problem(text, "problem.pddl")
    domain = _domains().get(problem.domain_name) or _domains()["blocksworld"]
    diagnostics = check_problem(domain, problem)
    if not any(d.severity == "error" for d in diagnostics):   # then a plan of its folder
        _validate_a_plan(domain, problem, budget)
    return diagnostics


@functools.lru_cache(maxsize=None)
def _plans_by_domain() -> dict:
    from planning_core.pddl.plans import parse_plan

    out = {}
    for name in _domains():
        for path in sorted(DOMAINS.glob("*/domain*.pddl")):
            if name in path.read_text().lower():
                plans = sorted((p for p in path.parent.glob("*.plan") if ".bad" not in p.name),
                               key=lambda p: (p.name.count("."), p.name))   # p01.plan first
                if plans:
                    out[name] = parse_plan(plans[0].read_text(), plans[0].name)
                break
    return out


def _validate_a_plan(domain, problem, budget) -> None:
    """A fuzzed problem that checks clean is validated against a plan of its domain's
    folder: the simulator reads its numbers (costs), and the report must be strict JSON."""
    from planning_core.validate.simulator import validate_plan

    plan = _plans_by_domain().get(domain.name)
    if plan is not None:
        strict_json(validate_plan(domain, problem, plan, budget=budget).to_json(
            "plan", (), ()), "pddl-problem")


@functools.lru_cache(maxsize=None)
def _blocks_task():
    from planning_core.pddl.parser import parse_domain, parse_problem

    folder = DOMAINS / "blocksworld"
    return (parse_domain((folder / "domain.pddl").read_text(), "domain.pddl"),
            parse_problem((folder / "p01.pddl").read_text(), "p01.pddl"))


@functools.lru_cache(maxsize=None)
def _costs_task():
    from planning_core.pddl.parser import parse_domain, parse_problem

    folder = DOMAINS / "costs"
    return (parse_domain((folder / "domain.pddl").read_text(), "domain.pddl"),
            parse_problem((folder / "p01.pddl").read_text(), "p01.pddl"))


def _task_for_plan(text: str):
    """The task a plan is checked against: blocksworld p01, or the :action-costs task when
    the plan drives a van (its seeds do), so that costs are summed and printed too."""
    return _costs_task() if "drive" in text or "van" in text else _blocks_task()


def strict_json(value, name: str) -> str:
    """``value`` as JSON that strict readers accept (no NaN, no Infinity), else a broken
    contract: rows and ``--json`` reports are read by other programs."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError as err:
        raise ContractBroken(f"{name}: a verdict that is not strict JSON: {err}: "
                             f"{json.dumps(value)[:500]}") from None


def _plan(text: str, budget) -> object:
    from planning_core.pddl.plans import parse_plan
    from planning_core.validate.report import ValidationReport
    from planning_core.validate.simulator import validate_plan

    domain, problem = _task_for_plan(text)
    report = validate_plan(domain, problem, parse_plan(text, "plan.txt"), budget=budget)
    if not isinstance(report, ValidationReport):
        raise ContractBroken(f"plan: validate_plan returned {type(report).__name__}")
    strict_json(report.to_json("plan.txt", (), ()), "plan")
    return report


@functools.lru_cache(maxsize=None)
def _validate_files() -> tuple[str, str, str]:
    folder = Path(tempfile.mkdtemp(prefix="fuzz-validate-"))
    for name in ("domain.pddl", "p01.pddl", "p01.plan"):
        (folder / name).write_bytes((DOMAINS / "blocksworld" / name).read_bytes())
    return str(folder / "domain.pddl"), str(folder / "p01.pddl"), str(folder / "p01.plan")


def _validate_flags(text: str, budget) -> object:
    """``validate`` with VAL-style flags made by the fuzzer, then the three files: the exit
    code must be one the command documents (0-3); argparse's refusal (SystemExit 2) is a
    located error of the command line."""
    from planning_core.cli.validate import validate_main

    args = [a for a in text.split("\n") if a][:8]
    argv = [a for a in args if not a.startswith("--batch") and not a.startswith("--out")]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = validate_main(argv + list(_validate_files()))
        except SystemExit as stop:
            code = stop.code
    if code not in (0, 1, 2, 3):
        raise ContractBroken(f"validate-flags: exit {code} for {argv!r}\n{err.getvalue()}")
    if "--json" in argv:
        for line in out.getvalue().splitlines():
            strict_json(json.loads(line), "validate-flags")
    return code


def _flag_seeds() -> list[bytes]:
    flags = ["-v", "--json", "--no-warnings", "-t\n0.01", "-s", "-S", "-c",
             "--time-limit\n0.5", "--memory-limit\n200", "-t\n1e400", "--time-limit\n-1",
             "-v\n-S", "--json\n-c", "--version", "-h"]
    return [f.encode() for f in flags] + [b""]


def _acp(text: str, budget) -> object:
    from planning_core.validators.acp.answers.parsers import ANSWER_PARSERS

    kinds = sorted(ANSWER_PARSERS)
    kind = kinds[ord(text[0]) % len(kinds)] if text else "app"
    return ANSWER_PARSERS[kind](text[1:])


def _acp_seeds() -> list[bytes]:
    texts = _literals("acp/test_answers.py", "acp/test_answer_text.py")
    out = []
    for i, t in enumerate(texts):   # the first character picks the parser: spread them
        out.append(bytes([i % 8 + 65]) + t)
    return out


@functools.lru_cache(maxsize=None)
def _pair():
    """A CoPE-shaped pair (the three-block task of tests/cope/minicope.py), built in a
    temporary folder: the readers of CoPE outputs normalise onto its heads and objects."""
    from planning_core.validators.cope.dataset import ActionHead, Pair
    from tests.cope.minicope import DOMAIN, PROBLEM

    folder = Path(tempfile.mkdtemp(prefix="fuzz-cope-"))
    (folder / "df.pddl").write_text(DOMAIN)
    (folder / "pf.pddl").write_text(PROBLEM)
    heads = (ActionHead("pickup", ("ob",)), ActionHead("putdown", ("ob",)),
             ActionHead("stack", ("ob", "underob")), ActionHead("unstack", ("ob", "underob")))
    return Pair("Fuzz", "baseline", "p01", "constraint1", "", folder / "df.pddl",
                folder / "pf.pddl", None, "Blocks a, b and c.", None, heads, True, ())


def _cope(text: str, budget) -> object:
    from planning_core.validators.cope.plans import NormalizedPlan, normalize_plan

    plan = normalize_plan(text, _pair())
    if not isinstance(plan, NormalizedPlan):
        raise ContractBroken(f"cope-plans: normalize_plan returned {type(plan).__name__}")
    return plan


def _smt(text: str, budget) -> object:
    from planning_core.validators.formalizations.smt import extract_program, plan_from_output

    extract_program(text)
    return plan_from_output(text, _pair())


def _ltl(text: str, budget) -> object:
    from planning_core.temporal.parser import Vocabulary, parse_ltl
    from planning_core.validators.formalizations.ltl import extract_ltl

    answer = extract_ltl(text)
    if answer.formula is None:
        return answer
    domain, problem = _blocks_task()
    return parse_ltl(answer.formula, Vocabulary.of(domain, problem), filename="formula.ltl")


@functools.lru_cache(maxsize=None)
def _toolplans_ctx():
    from tests.toolplans.toolplans_fixtures import mini
    return mini()


def _toolplans(text: str, budget) -> object:
    from planning_core.validators.toolplans.calls import parse_prediction
    from planning_core.validators.toolplans.check import check_output

    report = check_output(_toolplans_ctx(), text, grade=False, time_limit=CPU_S)
    if report.correct not in (True, False, None):
        raise ContractBroken(f"toolplans: correct is {report.correct!r}")
    strict_json(report.to_dict(), "toolplans")
    parse_prediction(text, 1 + len(text) % 3)
    return report


@functools.lru_cache(maxsize=None)
def _travel_task():
    from tests.deepplanning.fixtures import travel
    return travel(0, 3, 2)


def _travel(text: str, budget) -> object:
    from planning_core.validators.deepplanning.travel_score import score_travel

    t = _travel_task()
    verdict = score_travel(text, t["entry"]["meta_info"], t["db"])
    strict_json(verdict.to_json(), "deepplanning-travel")
    return verdict


def _travel_seeds() -> list[bytes]:
    t = _travel_task()
    plan = json.dumps(t["plan"], ensure_ascii=False)
    return [plan.encode(), f"```json\n{plan}\n```".encode(),
            f"Here is the plan: {plan} enjoy".encode()] + \
        _literals("deepplanning/test_hostile.py", "deepplanning/test_travel_scoring.py",
                  keep=lambda s: "{" in s or "[" in s)


@functools.lru_cache(maxsize=None)
def _shopping_case():
    from tests.deepplanning.fixtures import shopping
    return shopping(0, 3, 0)


def _cart(text: str, budget) -> object:
    from planning_core.validators.deepplanning.shopping_score import score_cart

    t = _shopping_case()
    case = t["case"]
    verdict = score_cart(text, case.truth, set(case.by_id), case=case,
                         stock={p["product_id"]: p.get("stock_quantity")
                                for p in case.products})
    strict_json(verdict.to_json(), "deepplanning-cart")
    return verdict


def _cart_seeds() -> list[bytes]:
    cart = json.dumps(_shopping_case()["oracle_cart"], ensure_ascii=False)
    return [cart.encode(), b'{"items": [], "used_coupons": []}'] + \
        _literals("deepplanning/test_shopping.py", "deepplanning/test_review_hostile.py",
                  keep=lambda s: "{" in s)


@functools.lru_cache(maxsize=None)
def _adaptive_setup():
    from planning_core.pddl.parser import parse_domain_file, parse_problem_file
    from planning_core.validators.adaptive.profile import loads_profile
    from tests.adaptive.conftest import HOUSEHOLD, profile_json

    task = (parse_domain_file(HOUSEHOLD / "domain.pddl"),
            parse_problem_file(HOUSEHOLD / "p01.pddl"))
    return task, loads_profile(json.dumps(profile_json()), "hand.json")


@functools.lru_cache(maxsize=None)
def _adaptive_env():
    from planning_core.validators.adaptive.env import AdaptiveEnv

    (domain, problem), profile = _adaptive_setup()
    return AdaptiveEnv(domain, problem, profile, "main", max_turns=3)


def _adaptive(text: str, budget) -> object:
    """Two turns of an episode: the fuzzed answer, then its lines reversed (a revealed
    constraint changes what the second turn is checked against); one environment, reset
    before each input as a runner resets it before each episode."""
    env = _adaptive_env()
    env.reset()
    observation, done, info = env.step(text)
    if not isinstance(observation, str) or not isinstance(info, dict):
        raise ContractBroken("adaptive: step returned no observation")
    if not done:
        env.step("\n".join(reversed(text.split("\n"))))
    for turn in env.turns:
        strict_json(turn.to_json(), "adaptive-turn")
    return env.outcome


def _adaptive_seeds() -> list[bytes]:
    from tests.adaptive.conftest import PLAN_CLOTH, PLAN_SPONGE, PLAN_VACUUM
    return [p.encode() for p in (PLAN_CLOTH, PLAN_SPONGE, PLAN_VACUUM)] + \
        _literals("adaptive/test_env.py", keep=lambda s: "(" in s)


@functools.lru_cache(maxsize=None)
def _scratch() -> Path:
    return Path(tempfile.mkdtemp(prefix="fuzz-files-"))


@functools.lru_cache(maxsize=None)
def _batch_folder() -> Path:
    """A folder with a manifest's usual neighbours: a domain, a problem and a plan file."""
    folder = _scratch() / "batch"
    folder.mkdir(exist_ok=True)
    for name, to in (("domain.pddl", "d.pddl"), ("p01.pddl", "p.pddl"),
                     ("p01.plan", "plan.txt")):
        (folder / to).write_bytes((DOMAINS / "blocksworld" / name).read_bytes())
    return folder


def _manifest(data: bytes, budget) -> object:
    """A ``validate --batch`` manifest: read, then each of its first rows validated as a
    worker does (its files named relative to the manifest, resolved there)."""
    from planning_core.cli.validate_batch import BatchSettings, Manifest, _validate_one, \
        read_manifest

    path = _batch_folder() / "manifest.jsonl"
    path.write_bytes(data)
    manifest = read_manifest(path, max_plan_bytes=4096)
    if not isinstance(manifest, Manifest):
        raise ContractBroken("manifest: read_manifest returned no Manifest")
    for bad in manifest.bad:
        if not bad.source.startswith(str(path) + ":"):
            raise ContractBroken(f"manifest: unlocated bad line {bad!r}")
        bad.to_row()
    settings = BatchSettings(CPU_S, 4096, "fuzz", MEMORY_MB)
    for item in manifest.items[:3]:
        row = _validate_one(settings, item)
        if not isinstance(row, dict) or "verdict" not in row:
            raise ContractBroken(f"manifest: no row for {item!r}")
        if "internal" in str(row.get("message")):
            raise ContractBroken(f"manifest: {row['message']}")
        strict_json(row, "manifest")
    return manifest


def _manifest_seeds() -> list[bytes]:
    rows = [{"id": 1, "domain": "d.pddl", "problem": "p.pddl", "plan": "plan.txt"},
            {"id": "b", "domain": "d.pddl", "problem": "p.pddl", "plan_text": "(pick-up a)\n"},
            {"id": 3, "domain": "p.pddl", "problem": "d.pddl", "plan_text": ""}]
    lines = "\n".join(json.dumps(r) for r in rows)
    return [lines.encode(), (lines + "\n{\"id\": 1}\nnot json\n[1]\n").encode()] + \
        _literals("limits/test_untrusted_json.py", keep=lambda s: "{" in s)


def _results(data: bytes, budget) -> object:
    """A results file (``OUT``) and its journal (``OUT.pending``), split at the first
    ``\\x1e``, read the way a resumed run reads them: by ``validate --batch M --out OUT``
    itself (its manifest: two plans and a bad line); exit 0-3, strict JSON rows, and the
    results file still one JSON object per line."""
    from planning_core.cli.validate import validate_main

    out_text, _, journal_text = data.partition(b"\x1e")
    folder = _batch_folder()
    manifest = folder / "resume.jsonl"
    if not manifest.exists():
        manifest.write_text(
            '{"id": 1, "domain": "d.pddl", "problem": "p.pddl", "plan": "plan.txt"}\n'
            '{"id": "b", "domain": "d.pddl", "problem": "p.pddl", "plan_text": "(pick-up a)"}\n'
            'not json\n')
    out = folder / "results.jsonl"
    out.write_bytes(out_text)
    journal = folder / "results.jsonl.pending"
    if journal_text:
        journal.write_bytes(journal_text)
    elif journal.exists():
        journal.unlink()
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = validate_main(["--batch", str(manifest), "--out", str(out), "--no-progress",
                              "--time-limit", str(CPU_S)])
    if code not in (0, 1, 2, 3):
        raise ContractBroken(f"results-file: exit {code}\n{stderr.getvalue()}")
    # the run keeps every whole line it found (only a torn last line, with no newline after
    # it, is cut), in order, except the rows of a manifest id it computes again (a bad_input
    # row or one marked retry: the results file holds one row per id, issue 27 item 5), and
    # appends rows, each one strict JSON object on its own line, one for every id it dropped
    found = out_text[:out_text.rfind(b"\n") + 1].split(b"\n")[:-1]
    after = out.read_bytes().split(b"\n")
    if after and after[-1] == b"":
        after.pop()
    at, dropped = 0, []
    for line in found:
        if at < len(after) and after[at] == line:
            at += 1
            continue
        row = _json_row(line)
        if row is None or "source" in row or not _retried(row):
            raise ContractBroken(f"results-file: the run changed or lost a line it found in "
                                 f"OUT: {line[:200]!r}")
        dropped.append(json.dumps(row.get("id")))
    appended = []
    for line in after[at:]:
        row = json.loads(line.decode("utf-8"))
        if not isinstance(row, dict):
            raise ContractBroken(f"results-file: appended {line[:200]!r}")
        strict_json(row, "results-file")
        appended.append(json.dumps(row.get("id")))
    for key in dropped:
        if key not in appended:
            raise ContractBroken(f"results-file: the row of id {key} was dropped and not "
                                 f"written again")
    return code


def _json_row(line: bytes) -> dict | None:
    try:
        row = json.loads(line.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        return None
    return row if isinstance(row, dict) else None


def _retried(row: dict) -> bool:
    """A row a rerun computes again: the manifest's ids (1 and "b") with a bad_input verdict
    or marked retry."""
    return json.dumps(row.get("id")) in ('1', '"b"') and \
        (row.get("verdict") == "bad_input" or bool(row.get("retry")))


def _results_seeds() -> list[bytes]:
    rows = [{"id": 1, "verdict": "valid"}, {"id": 2, "verdict": "bad_input", "retry": True},
            {"source": "m.jsonl:3", "verdict": "bad_input"}]
    text = "\n".join(json.dumps(r) for r in rows) + "\n"
    return [text.encode(), (text + "\x1e" + json.dumps({"id": "b", "verdict": "invalid"})
                            + "\n").encode(), b'{"id": 1, "verd', b"\x1e{\"id\": 2"]


@functools.lru_cache(maxsize=None)
def _pddl21_task(name: str):
    from planning_core.pddl.parser import parse_domain, parse_problem

    folder = DOMAINS / "pddl21" / name
    return (parse_domain((folder / "domain.pddl").read_text(), "domain.pddl"),
            parse_problem((folder / "p01.pddl").read_text(), "p01.pddl"))


def _timed_plan(text: str, budget) -> object:
    """A timed (or numeric) plan: read, then simulated with VAL's semantics (happenings,
    tolerance, mutex, invariants, durations, fluents); the report must be strict JSON."""
    from planning_core.pddl.plans import parse_plan
    from planning_core.validate.report import ValidationReport
    from planning_core.validate.simulator import validate_plan

    domain, problem = _pddl21_task("tanker" if "tanker" in text or "fill" in text
                                   else "kitchen")
    report = validate_plan(domain, problem, parse_plan(text, "plan.txt"), budget=budget)
    if not isinstance(report, ValidationReport):
        raise ContractBroken(f"timed-plan: validate_plan returned {type(report).__name__}")
    strict_json(report.to_json("plan.txt", (), ()), "timed-plan")
    return report


def _timed_plan_seeds() -> list[bytes]:
    return _files("pddl21/*/*.plan", under=DOMAINS)


def _pddl_seeds(kind: str) -> Callable[[], list[bytes]]:
    def seeds() -> list[bytes]:
        if kind == "domain":
            return _files("*/domain*.pddl", under=DOMAINS) + \
                _files("malformed/domain/*.pddl", "malformed/misc/*.pddl",
                       "malformed/base/domain.pddl", under=TESTS)
        if kind == "problem":
            return _files("*/p*.pddl", under=DOMAINS) + \
                _files("malformed/problem/*.pddl", "malformed/base/problem.pddl", under=TESTS)
        return _files("*/*.plan", under=DOMAINS) + \
            _files("malformed/plan/*", "malformed/base/plan.txt", under=TESTS)
    return seeds


# ------------------------------------------------ parse-cache entries (issue 28's codec)

#: a marshal container, long or string declaring more items than this is not given to the
#: reader: marshal allocates what a size says before it reads the items (a 40-byte payload
#: declaring 400 million tuple items allocates 3.2 GB), which the entry's digest keeps
#: damaged entries from; an entry the user writes on purpose is trusted that far
#: (parse_cache's module doc). Sizes up to this in all still reach marshal (128 MB at most).
MARSHAL_MAX_DECLARED = 1 << 24


def marshal_sizes_fit(data: bytes, limit: int = MARSHAL_MAX_DECLARED) -> bool:
    """Whether marshal, reading ``data``, meets sizes of ``limit`` at most in all (each
    container allocates its size before reading its items) before it stops
    (the end of the value, the end of the data, or a code it refuses). Read as marshal
    reads (version 4), without recursion; a code object is refused (it is never needed)."""
    import struct

    i, end, declared = 0, len(data), 0
    dict_keys = -1
    stack = [1]                 # objects left at each level; dict_keys: a dict's next key
    while stack:
        top = stack[-1]
        if top == 0:
            stack.pop()
            continue
        if i >= end:
            return True         # marshal stops here: data too short
        code = data[i] & 0x7F
        i += 1
        if top == dict_keys:
            if code == 0x30:    # '0': the end of the dict
                stack.pop()
                continue
            stack.append(1)     # the value, after the key (read now)
        elif top > 0:
            stack[-1] -= 1
        c = chr(code)
        if c in "0NFTS.":
            continue
        if c in "ir":
            i += 4
        elif c in "Ig":
            i += 8
        elif c == "y":
            i += 16
        elif c == "f":
            i += 1 + (data[i] if i < end else 0)
        elif c == "x":
            for _ in range(2):
                i += 1 + (data[i] if i < end else 0)
        elif c in "zZ":
            i += 1 + (data[i] if i < end else 0)
        elif c in "stuaA":
            if i + 4 > end:
                return True
            i += 4 + struct.unpack_from("<i", data, i)[0] % (1 << 32)
        elif c in "l([<>)":
            if c == ")":
                if i >= end:
                    return True
                n = data[i]
                i += 1
            else:
                if i + 4 > end:
                    return True
                n = struct.unpack_from("<i", data, i)[0]
                i += 4
                declared += abs(n)
                if declared > limit:
                    return False
            if c == "l":
                i += 2 * abs(n)
            elif n > 0:
                stack.append(n)
        elif c == "{":
            stack.append(dict_keys)
        elif c == "c":
            return False
        else:
            return True         # marshal refuses the code here
    return True


@functools.lru_cache(maxsize=None)
def _entry_file() -> Path:
    return Path(tempfile.mkdtemp(prefix="fuzz-entry-")) / "fuzzed.entry"


def _cache_entry(data: bytes, budget) -> object:
    """The bytes as the marshal data of a parse-cache entry, sealed with its digest (the
    decoder, not the digest, is what is fuzzed: a damaged unsealed entry is refused at its
    digest), or, after a ``RAW`` prefix, as the whole file. Read by ``parse_cache._read``
    for a domain, a problem or a check's diagnostics (by the input's length): the result
    is of that type or None; the only errors are the budget's; no module outside
    planning_core is imported; nothing hangs (the harness's CPU guard)."""
    from planning_core.pddl import ast, parse_cache

    for module in parse_cache._ENTRY_MODULES:   # what a valid entry may import
        __import__(module)
    raw = data.startswith(b"RAW")
    body = data[3:] if raw else data
    if not marshal_sizes_fit(body):
        return "skipped"
    file = _entry_file()
    file.write_bytes(body if raw else parse_cache._seal(body))
    expected = (ast.Domain, ast.Problem, tuple)[len(data) % 3]
    before = set(sys.modules)
    value = parse_cache._read(str(file), expected)
    imported = sorted(m for m in set(sys.modules) - before
                      if m.split(".")[0] != "planning_core")
    if imported:
        raise ContractBroken(f"cache-entry: reading an entry imported {imported}")
    if value is not None and type(value) is not expected:
        raise ContractBroken(f"cache-entry: a {type(value).__name__} for a "
                             f"{expected.__name__}")
    return value


def _cache_entry_seeds() -> list[bytes]:
    """Valid entries' marshal data: the domains, problems and check results of the fixture
    tasks (those that fit in a seed), and a value of every container and enumeration."""
    from planning_core.cli import ExitCode
    from planning_core.pddl import parse_cache
    from planning_core.pddl.checker import check_domain, check_problem
    from planning_core.pddl.parser import parse_domain, parse_problem
    from planning_core.pddl.wellformed import Fault, GroundFault
    from planning_core.validate.report import Verdict

    start = len(parse_cache._MAGIC) + parse_cache._DIGEST
    values: list = [([1, (2, [3])], {"a": (Fault.TYPE_ERROR,)}, frozenset({"x", 1.5}),
                     {None, True}, (GroundFault(Fault.WRONG_ARITY, 2), Verdict.MUTEX_VIOLATED,
                                    ExitCode.UNKNOWN), float("inf"), 10**40, b"raw", ())]
    for folder in sorted(p.parent for p in DOMAINS.glob("*/domain.pddl")):
        try:
            domain = parse_domain((folder / "domain.pddl").read_text())
            problem = parse_problem(min(folder.glob("p*.pddl")).read_text())
        except Exception:   # noqa: BLE001 - a fixture of bad input, or no problem
            continue
        values += [domain, problem, check_domain(domain) + check_problem(domain, problem)]
    out = []
    for value in values:
        payload = parse_cache._encode(value)[start:]
        if len(payload) <= MAX_SEED_BYTES:
            out.append(payload)
    return out


def _build() -> dict[str, Target]:
    from planning_core.errors import PlanningError
    from planning_core.validators.acp.answers.values import UnparseableAnswer

    planning = (PlanningError,)
    targets = [
        Target("pddl-domain", "PDDL domain: parse + check", _pddl_domain, planning,
               _pddl_seeds("domain"), located=True),
        Target("pddl-problem", "PDDL problem: parse + check against its domain",
               _pddl_problem, planning, _pddl_seeds("problem"), located=True),
        Target("plan", "sequential plan: parse + validate (blocksworld p01; the :action-costs task for plans that drive)", _plan,
               planning, _pddl_seeds("plan"), located=True),
        Target("timed-plan", "PDDL 2.1 timed and numeric plans (time: (action) [duration]): "
               "parse + validate (domains/pddl21 kitchen, tanker)", _timed_plan, planning,
               _timed_plan_seeds, located=True),
        Target("validate-flags", "`validate` command line: VAL-style flags + files",
               _validate_flags, (), _flag_seeds),
        Target("acp-answers", "ACPBench Hard answers (the 8 answer parsers)", _acp,
               (UnparseableAnswer,), _acp_seeds),
        Target("cope-plans", "CoPE planner outputs: plan normalisation", _cope, planning,
               lambda: _literals("cope/test_plans.py", "cope/styles.py")),
        Target("smt-output", "SMT formalization: program extraction + printed plan",
               _smt, planning,
               lambda: _literals("formalizations/smt_responses.py",
                                 "formalizations/test_smt.py")),
        Target("ltl", "LTL formalization: formula extraction + parse + resolve", _ltl,
               planning, lambda: _literals("formalizations/ltl_cope_formulas.py",
                                           "formalizations/test_ltl.py"), located=False),
        Target("toolplans", "APB outputs: holistic chain check + step-wise prediction",
               _toolplans, planning,
               lambda: _literals("toolplans/toolplans_fixtures.py", "toolplans/test_apb.py",
                                 "toolplans/test_review_apb.py")),
        Target("deepplanning-travel", "DeepPlanning itineraries: score_travel", _travel,
               (), _travel_seeds),
        Target("deepplanning-cart", "DeepPlanning carts: score_cart", _cart, (), _cart_seeds),
        Target("adaptive-turn", "AdaPlanBench turns: AdaptiveEnv.step", _adaptive, planning,
               _adaptive_seeds),
        Target("batch-manifest", "validate --batch manifest (JSON Lines) and its rows", _manifest,
               planning, _manifest_seeds, raw=True),
        Target("results-file", "results file + journal of a resumed batch (JSON Lines)",
               _results, planning, _results_seeds, raw=True),
        Target("cache-entry", "validate's parse-cache entry (marshal data, issue 28's codec): "
               "parse_cache._read", _cache_entry, (MemoryError,), _cache_entry_seeds,
               raw=True),
    ]
    return {t.name: t for t in targets}


class _Registry(dict):
    """:data:`TARGETS`, built on first use (importing every room costs a second)."""

    def _fill(self):
        if not dict.__len__(self):
            dict.update(self, _build())

    def __getitem__(self, key):
        self._fill()
        return dict.__getitem__(self, key)

    def __iter__(self):
        self._fill()
        return dict.__iter__(self)

    def __len__(self):
        self._fill()
        return dict.__len__(self)

    def items(self):
        self._fill()
        return dict.items(self)

    def keys(self):
        self._fill()
        return dict.keys(self)

    def values(self):
        self._fill()
        return dict.values(self)


#: every target by name
TARGETS: dict[str, Target] = _Registry()

#: the names, in the order of the results table (without building anything)
NAMES = ("pddl-domain", "pddl-problem", "plan", "timed-plan", "validate-flags", "acp-answers",
         "cope-plans", "smt-output", "ltl", "toolplans", "deepplanning-travel",
         "deepplanning-cart", "adaptive-turn", "batch-manifest", "results-file",
         "cache-entry")


def seeds(target: Target) -> list[bytes]:
    """The target's seeds and its kept regression inputs."""
    return list(target.seeds()) + _regressions(target.name)


if __name__ == "__main__":   # python tests/fuzz/targets.py NAME FILE...: replay inputs
    name, *files = sys.argv[1:]
    for file in files:
        print(file, check(TARGETS[name], Path(file).read_bytes()))
