"""solve(): optimal costs of the shared IPC tasks, validated plans, CLI output and exit codes."""
import json
import textwrap

import pytest

from shared_files import MISSING, ipc_rows, resolve
from planning_core.cli.engine import cmd_ground, cmd_landmarks, cmd_reachable, cmd_solve
from planning_core.pddl.parser import parse_domain, parse_domain_file, parse_problem, \
    parse_problem_file
from planning_core.result import Status
from planning_core.solve import solve
from planning_core.validate import validate_plan
from planning_core.validate.report import Verdict

# Measured at over 1.4 s each (in-process budget spent, then Fast Downward).
SLOW = {("parking-opt11-strips", "pfile03-011.pddl"), ("openstacks-strips", "p01.pddl"),
        ("floortile-opt11-strips", "opt-p01-001.pddl"), ("elevators-opt08-strips", "p01.pddl"),
        ("elevators-opt08-strips", "p02.pddl"), ("grid", "prob01.pddl"),
        ("blocks", "probBLOCKS-8-0.pddl"), ("logistics00", "probLOGISTICS-5-0.pddl")}


def _optimal_rows():
    rows = [r for r in ipc_rows() if r["optimal_cost"]]
    params = []
    for r in rows:
        marks = [pytest.mark.slow] if (r["domain_dir"], r["problem"]) in SLOW else []
        params.append(pytest.param(r["domain_dir"], r["domain_file"], r["problem"],
                                   float(r["optimal_cost"]), marks=marks,
                                   id=f"{r['domain_dir']}/{r['problem']}"))
    return params or [pytest.param(MISSING, "", "", 0.0, id="missing")]


@pytest.mark.parametrize("domain_dir,domain_file,problem,cost", _optimal_rows())
def test_optimal_cost_matches_manifest_and_plan_validates(domain_dir, domain_file, problem, cost):
    base = resolve(domain_dir if domain_dir == MISSING else f"ipc/{domain_dir}")
    domain = parse_domain_file(base / domain_file)
    task = parse_problem_file(base / problem)
    result = solve(domain, task, optimal=True, time_limit=120)
    assert result.status is Status.SOLVED, result.reason
    assert result.cost == cost
    report = validate_plan(domain, task, "\n".join(result.plan))
    assert report.verdict is Verdict.VALID, report.message


DOMAIN = textwrap.dedent("""
    (define (domain move) (:requirements :strips)
      (:predicates (at ?x) (link ?x ?y) (open ?x))
      (:action go :parameters (?x ?y)
        :precondition (and (at ?x) (link ?x ?y) (open ?y))
        :effect (and (at ?y) (not (at ?x))))
      (:action unlock :parameters (?x) :precondition (and) :effect (open ?x)))
""")
PROBLEM = textwrap.dedent("""
    (define (problem three) (:domain move) (:objects a b c)
      (:init (at a) (link a b) (link b c))
      (:goal (at c)))
""")
UNSOLVABLE = PROBLEM.replace("(link b c)", "(link c b)")


@pytest.mark.parametrize("engine", ["internal", "auto"])
def test_solve_engines_agree(engine):
    result = solve(parse_domain(DOMAIN), parse_problem(PROBLEM), engine=engine)
    assert result.status is Status.SOLVED and result.cost == 4
    assert result.plan == ("(unlock b)", "(go a b)", "(unlock c)", "(go b c)")


@pytest.mark.slow
def test_solve_with_fast_downward():
    result = solve(parse_domain(DOMAIN), parse_problem(PROBLEM), engine="fd")
    assert result.status is Status.SOLVED and result.cost == 4
    assert validate_plan(parse_domain(DOMAIN), parse_problem(PROBLEM),
                         "\n".join(result.plan)).verdict is Verdict.VALID


def test_unsolvable_needs_a_proof():
    result = solve(parse_domain(DOMAIN), parse_problem(UNSOLVABLE), engine="internal")
    assert result.status is Status.UNSOLVABLE and result.reason == "relaxed unreachable"
    assert result.plan is None


def test_disjunctive_action_prints_lifted_name():
    domain = parse_domain(textwrap.dedent("""
        (define (domain d) (:requirements :strips :disjunctive-preconditions)
          (:predicates (p) (q) (g))
          (:action finish :parameters () :precondition (or (p) (q)) :effect (g)))
    """))
    problem = parse_problem("(define (problem x) (:domain d) (:init (q)) (:goal (g)))")
    result = solve(domain, problem, engine="internal")
    assert result.plan == ("(finish)",)


class Args:
    def __init__(self, domain, problem, **kw):
        self.domain, self.problem = str(domain), str(problem)
        self.json = kw.get("json", False)
        self.dump = kw.get("dump", False)
        self.optimal = kw.get("optimal", True)
        self.time_limit = kw.get("time_limit", 30.0)
        self.engine = kw.get("engine", "internal")


@pytest.fixture
def files(tmp_path):
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(PROBLEM)
    (tmp_path / "u.pddl").write_text(UNSOLVABLE)
    (tmp_path / "bad.pddl").write_text(PROBLEM.replace("(at a)", "(at a"))
    (tmp_path / "undeclared.pddl").write_text(PROBLEM.replace("(at a)", "(att a)"))
    return tmp_path


def test_cli_solve_text_and_json(files, capsys):
    assert cmd_solve(Args(files / "d.pddl", files / "p.pddl")) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == ["(unlock b)", "(go a b)", "(unlock c)", "(go b c)",
                                "; cost = 4", "; status = solved"]
    assert cmd_solve(Args(files / "d.pddl", files / "p.pddl", json=True)) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"status", "plan", "cost", "engine", "time_s"}
    assert data["status"] == "solved" and data["cost"] == 4 and data["engine"] == "internal"
    assert data["plan"][0] == "(unlock b)"


def test_cli_exit_codes(files, capsys):
    assert cmd_solve(Args(files / "d.pddl", files / "u.pddl")) == 1
    assert "; status = unsolvable" in capsys.readouterr().out
    assert cmd_solve(Args(files / "d.pddl", files / "bad.pddl")) == 2
    err = capsys.readouterr().err
    assert "bad.pddl:" in err and "Traceback" not in err
    assert cmd_solve(Args(files / "d.pddl", files / "undeclared.pddl")) == 2
    assert "undeclared.pddl:3:11:" in capsys.readouterr().err
    assert cmd_solve(Args(files / "d.pddl", files / "missing.pddl")) == 2
    assert cmd_reachable(Args(files / "d.pddl", files / "u.pddl")) == 1


def test_cli_unknown_on_limit(capsys):
    # a limit of zero seconds cannot prove anything: unknown, exit 3
    import planning_core.cli.engine as ce
    args = Args(resolve("ipc/gripper") / "domain.pddl", resolve("ipc/gripper") / "prob02.pddl",
                time_limit=0.0)
    assert ce.cmd_solve(args) == 3
    assert "; status = unknown" in capsys.readouterr().out


def test_cli_ground_reachable_landmarks(files, capsys):
    assert cmd_ground(Args(files / "d.pddl", files / "p.pddl")) == 0
    out = capsys.readouterr().out
    assert "facts: " in out and "actions: " in out and "axioms: 0" in out
    assert cmd_ground(Args(files / "d.pddl", files / "p.pddl", dump=True, json=True)) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["task"]["goal"] == ["(at c)"]
    assert cmd_reachable(Args(files / "d.pddl", files / "p.pddl")) == 0
    out = capsys.readouterr().out
    assert "(at c)" in out and "(go b c)" in out
    assert cmd_landmarks(Args(files / "d.pddl", files / "p.pddl")) == 0
    out = capsys.readouterr().out
    assert "(at b)" in out and "(open c)" in out and "-gn->" in out


def test_solving_twice_gives_identical_output(files, capsys):
    outputs = []
    for _ in range(2):
        cmd_solve(Args(files / "d.pddl", files / "p.pddl"))
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1]
    first = solve(parse_domain(DOMAIN), parse_problem(PROBLEM), engine="internal")
    second = solve(parse_domain(DOMAIN), parse_problem(PROBLEM), engine="internal")
    assert (first.plan, first.cost, first.status) == (second.plan, second.cost, second.status)
