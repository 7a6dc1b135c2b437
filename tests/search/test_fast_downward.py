"""Fast Downward as a subprocess: answers, limits, errors and the heuristic choice.

Every task here is small and inline, except the IPC tasks read from the shared data, whose
optimal costs come from MANIFEST.tsv.
"""
from __future__ import annotations

import csv
import textwrap
from pathlib import Path

import pytest

from planning_core.errors import EngineError, InputError
from planning_core.result import SolveResult, Status
from planning_core.search import fast_downward as fd
from planning_core.search.fast_downward import (
    SEARCHES, choose_search, locate_fast_downward, read_plan, run_fast_downward, sas_features,
    translator_only,
)
from planning_core.search.features import TaskFeatures

# ---------------------------------------------------------------------------- tasks

CHAIN_DOMAIN = textwrap.dedent("""
    (define (domain chain)
      (:requirements :strips)
      (:predicates (at ?x) (road ?x ?y) (visited ?x))
      (:action Move
        :parameters (?x ?y)
        :precondition (and (at ?x) (road ?x ?y))
        :effect (and (at ?y) (visited ?y) (not (at ?x)))))
""")


def chain_problem(goal: str) -> str:
    return textwrap.dedent(f"""
        (define (problem chain-1) (:domain chain)
          (:objects A b c)
          (:init (at a) (road a b) (road b c))
          (:goal {goal}))
    """)


COSTS_DOMAIN = textwrap.dedent("""
    (define (domain costs)
      (:requirements :strips :action-costs)
      (:predicates (at ?x) (road ?x ?y) (flight ?x ?y))
      (:functions (total-cost) - number (distance ?x ?y) - number)
      (:action drive :parameters (?x ?y)
        :precondition (and (at ?x) (road ?x ?y))
        :effect (and (at ?y) (not (at ?x)) (increase (total-cost) (distance ?x ?y))))
      (:action fly :parameters (?x ?y)
        :precondition (and (at ?x) (flight ?x ?y))
        :effect (and (at ?y) (not (at ?x)) (increase (total-cost) 10))))
""")

COSTS_PROBLEM = textwrap.dedent("""
    (define (problem costs-1) (:domain costs)
      (:objects a b c d)
      (:init (at a) (road a b) (road b c) (road c d) (flight a d)
             (= (distance a b) 2) (= (distance b c) 3) (= (distance c d) 4)
             (= (total-cost) 0))
      (:goal (at d))
      (:metric minimize (total-cost)))
""")

# Moving the briefcase moves what is in it: a conditional effect that survives translation.
BRIEFCASE_DOMAIN = textwrap.dedent("""
    (define (domain briefcase)
      (:requirements :strips :typing :conditional-effects :negative-preconditions)
      (:types loc obj)
      (:predicates (at-b ?l - loc) (at ?o - obj ?l - loc) (in ?o - obj))
      (:action move :parameters (?from ?to - loc)
        :precondition (at-b ?from)
        :effect (and (at-b ?to) (not (at-b ?from))
                     (forall (?o - obj) (when (in ?o) (and (at ?o ?to) (not (at ?o ?from)))))))
      (:action put-in :parameters (?o - obj ?l - loc)
        :precondition (and (at ?o ?l) (at-b ?l) (not (in ?o)))
        :effect (in ?o))
      (:action take-out :parameters (?o - obj)
        :precondition (in ?o)
        :effect (not (in ?o))))
""")

BRIEFCASE_PROBLEM = textwrap.dedent("""
    (define (problem briefcase-1) (:domain briefcase)
      (:objects home office park - loc p1 p2 - obj)
      (:init (at-b home) (at p1 home) (at p2 park))
      (:goal (and (at p1 office) (at p2 office) (not (in p1)) (not (in p2)) (at-b home))))
""")

# Plain STRIPS, yet `leave` deletes (at ?x) without requiring it: the translator turns that
# delete into a conditional effect on a multi-valued variable, which LM-cut rejects.
LEAVE_DOMAIN = textwrap.dedent("""
    (define (domain leave)
      (:requirements :strips)
      (:predicates (at ?x) (road ?x ?y) (gone))
      (:action move :parameters (?x ?y)
        :precondition (and (at ?x) (road ?x ?y))
        :effect (and (at ?y) (not (at ?x))))
      (:action leave :parameters (?x)
        :precondition (road ?x ?x)
        :effect (and (gone) (not (at ?x)))))
""")

LEAVE_PROBLEM = textwrap.dedent("""
    (define (problem leave-1) (:domain leave)
      (:objects a b c)
      (:init (at a) (road a b) (road b c) (road c c))
      (:goal (and (gone) (at c))))
""")

# Derived predicates: a door chain is passable once every door on it is open.
DOORS_DOMAIN = textwrap.dedent("""
    (define (domain doors)
      (:requirements :strips :derived-predicates :negative-preconditions)
      (:predicates (edge ?x ?y) (open ?x) (reach ?x) (start ?x))
      (:derived (reach ?x) (start ?x))
      (:derived (reach ?y) (exists (?x) (and (reach ?x) (edge ?x ?y) (open ?y))))
      (:action open-door :parameters (?x)
        :precondition (not (open ?x))
        :effect (open ?x)))
""")

DOORS_PROBLEM = textwrap.dedent("""
    (define (problem doors-1) (:domain doors)
      (:objects a b c d)
      (:init (start a) (edge a b) (edge b c) (edge c d))
      (:goal (reach d)))
""")

# With axioms, and unsolvable only because moves are one-way (relaxed reachable).
ONEWAY_AXIOM_DOMAIN = textwrap.dedent("""
    (define (domain oneway-axiom)
      (:requirements :strips :derived-predicates)
      (:constants a b c)
      (:predicates (at ?x) (road ?x ?y) (visited ?x) (done))
      (:derived (done) (and (visited c) (at b)))
      (:action move :parameters (?x ?y)
        :precondition (and (at ?x) (road ?x ?y))
        :effect (and (at ?y) (visited ?y) (not (at ?x)))))
""")

ONEWAY_AXIOM_PROBLEM = textwrap.dedent("""
    (define (problem oneway-axiom-1) (:domain oneway-axiom)
      (:init (at a) (road a b) (road b c))
      (:goal (done)))
""")

BLOCKS_DOMAIN = textwrap.dedent("""
    (define (domain blocks)
      (:requirements :strips)
      (:predicates (on ?x ?y) (ontable ?x) (clear ?x) (handempty) (holding ?x))
      (:action pick-up :parameters (?x)
        :precondition (and (clear ?x) (ontable ?x) (handempty))
        :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
      (:action put-down :parameters (?x)
        :precondition (holding ?x)
        :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))
      (:action stack :parameters (?x ?y)
        :precondition (and (holding ?x) (clear ?y))
        :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
      (:action unstack :parameters (?x ?y)
        :precondition (and (on ?x ?y) (clear ?x) (handempty))
        :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty))
                     (not (on ?x ?y)))))
""")


def reverse_tower(n: int) -> str:
    """Turn a tower of n blocks upside down: 2^n-ish states, hopeless for blind search."""
    blocks = [f"b{i}" for i in range(n)]
    init = ([f"(ontable {blocks[0]})"] + [f"(on {blocks[i]} {blocks[i - 1]})" for i in range(1, n)]
            + [f"(clear {blocks[-1]})", "(handempty)"])
    goal = [f"(ontable {blocks[-1]})"] + [f"(on {blocks[i - 1]} {blocks[i]})" for i in range(1, n)]
    return (f"(define (problem tower-{n}) (:domain blocks) (:objects {' '.join(blocks)})"
            f" (:init {' '.join(init)}) (:goal (and {' '.join(goal)})))")


# ---------------------------------------------------------------------------- answers

def test_solvable_strips_task_gives_lower_case_plan_and_cost():
    result = run_fast_downward(CHAIN_DOMAIN, chain_problem("(and (visited c))"))
    assert result.status is Status.SOLVED
    assert result.plan == ("(move a b)", "(move b c)")
    assert result.cost == 2.0
    assert result.engine == "fast-downward"
    assert result.stat("search") == SEARCHES["lmcut"]
    assert result.stat("expanded") >= 1 and result.stat("sas_operators") == 2


def test_action_costs_are_minimised():
    result = run_fast_downward(COSTS_DOMAIN, COSTS_PROBLEM)
    assert result.status is Status.SOLVED
    assert result.plan == ("(drive a b)", "(drive b c)", "(drive c d)")
    assert result.cost == 9.0  # 2 + 3 + 4 beats the flight's 10


def test_goal_true_initially_gives_the_empty_plan():
    result = run_fast_downward(CHAIN_DOMAIN, chain_problem("(at a)"))
    assert result.status is Status.SOLVED and result.plan == () and result.cost == 0.0


def test_goal_no_action_adds_is_proved_unsolvable_by_the_translator():
    result = run_fast_downward(CHAIN_DOMAIN, chain_problem("(visited a)"))
    assert result.status is Status.UNSOLVABLE
    assert result.reason == "relaxed unreachable"
    assert result.plan is None and result.cost is None
    assert result.stat("search") is None  # the search never ran


@pytest.mark.parametrize("optimal", [True, False])
def test_unsolvable_task_the_translator_misses_is_proved_by_search(optimal):
    # Both goal atoms are relaxed reachable, but the roads are one-way.
    result = run_fast_downward(CHAIN_DOMAIN, chain_problem("(and (visited c) (at b))"),
                               optimal=optimal)
    assert result.status is Status.UNSOLVABLE
    assert result.reason == "search exhausted"
    assert result.stat("search") is not None


def test_exhaustion_with_axioms_is_a_proof_only_for_blind_search():
    blind = run_fast_downward(ONEWAY_AXIOM_DOMAIN, ONEWAY_AXIOM_PROBLEM)
    assert blind.stat("search") == SEARCHES["blind"]
    assert blind.status is Status.UNSOLVABLE
    greedy = run_fast_downward(ONEWAY_AXIOM_DOMAIN, ONEWAY_AXIOM_PROBLEM, search="lazy-ff")
    assert greedy.status is Status.UNKNOWN
    assert "not safe with axioms" in greedy.reason


def test_conditional_effects_are_solved_optimally_with_hmax():
    result = run_fast_downward(BRIEFCASE_DOMAIN, BRIEFCASE_PROBLEM)
    assert result.status is Status.SOLVED
    assert result.stat("search") == SEARCHES["hmax"]
    assert result.cost == 7.0 and len(result.plan) == 7
    assert result.plan[-1] == "(move office home)"


def test_conditional_effect_made_by_the_translator_steers_away_from_lmcut():
    result = run_fast_downward(LEAVE_DOMAIN, LEAVE_PROBLEM)
    assert result.stat("search") == SEARCHES["hmax"]
    # Leaving c before arriving there deletes nothing; leaving after would undo the goal.
    assert result.plan == ("(move a b)", "(leave c)", "(move b c)")
    with pytest.raises(EngineError, match=r"SEARCH_UNSUPPORTED[\s\S]*conditional effects"):
        run_fast_downward(LEAVE_DOMAIN, LEAVE_PROBLEM, search="lmcut")


def test_derived_predicates_use_blind_search():
    result = run_fast_downward(DOORS_DOMAIN, DOORS_PROBLEM)
    assert result.status is Status.SOLVED
    assert result.stat("search") == SEARCHES["blind"]
    assert result.cost == 3.0
    assert sorted(result.plan) == ["(open-door b)", "(open-door c)", "(open-door d)"]


def test_satisficing_search_finds_a_plan():
    result = run_fast_downward(BRIEFCASE_DOMAIN, BRIEFCASE_PROBLEM, optimal=False)
    assert result.status is Status.SOLVED
    assert result.stat("search") == SEARCHES["lazy-ff"]
    assert result.cost is not None and result.cost >= 7.0


def test_caller_features_can_force_a_more_general_configuration():
    forced = TaskFeatures(has_derived_predicates=True)
    result = run_fast_downward(CHAIN_DOMAIN, chain_problem("(visited c)"), features=forced)
    assert result.stat("search") == SEARCHES["blind"] and result.cost == 2.0


def test_files_are_accepted_as_paths_and_strings(tmp_path):
    (tmp_path / "d.pddl").write_text(CHAIN_DOMAIN)
    (tmp_path / "p.pddl").write_text(chain_problem("(visited c)"))
    by_path = run_fast_downward(tmp_path / "d.pddl", tmp_path / "p.pddl", workdir=tmp_path)
    by_name = run_fast_downward(str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"))
    assert by_path.plan == by_name.plan == ("(move a b)", "(move b c)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.pddl", "p.pddl"]  # cleaned up


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="not found"):
        run_fast_downward(tmp_path / "nope.pddl", chain_problem("(visited c)"))


def test_same_task_twice_gives_the_same_answer():
    first = run_fast_downward(BRIEFCASE_DOMAIN, BRIEFCASE_PROBLEM)
    second = run_fast_downward(BRIEFCASE_DOMAIN, BRIEFCASE_PROBLEM)
    assert (first.status, first.plan, first.cost) == (second.status, second.plan, second.cost)


# ---------------------------------------------------------------------------- limits, errors

def test_tiny_time_limit_gives_unknown():
    result = run_fast_downward(BLOCKS_DOMAIN, reverse_tower(14), search="blind", time_limit=1)
    assert result.status is Status.UNKNOWN
    assert result.reason == "time limit"
    assert result.plan is None
    assert result.time_s < 10  # killed, not run to the end (a bound, not a timing claim)


@pytest.mark.slow
def test_tiny_memory_limit_gives_unknown():
    result = run_fast_downward(BLOCKS_DOMAIN, reverse_tower(14), search="blind",
                               time_limit=60, memory_limit_mb=48)
    assert result.status is Status.UNKNOWN
    assert result.reason == "memory limit"


def test_syntax_error_is_an_engine_error_with_fd_message():
    broken = CHAIN_DOMAIN.rstrip().removesuffix(")")
    with pytest.raises(EngineError, match=r"TRANSLATE_INPUT_ERROR[\s\S]*Missing '\)'"):
        run_fast_downward(broken, chain_problem("(visited c)"))


def test_undeclared_predicate_error_names_the_culprit():
    bad = CHAIN_DOMAIN.replace("(and (at ?x) (road ?x ?y))", "(and (at ?x) (rode ?x ?y))")
    assert bad != CHAIN_DOMAIN
    with pytest.raises(EngineError, match=r"(?i)rode"):
        run_fast_downward(bad, chain_problem("(visited c)"))


def test_unknown_search_option_is_an_engine_error():
    with pytest.raises(EngineError, match="SEARCH_INPUT_ERROR"):
        run_fast_downward(CHAIN_DOMAIN, chain_problem("(visited c)"), search="astar(nosuch())")


# ---------------------------------------------------------------------------- pieces

def test_locate_fast_downward_finds_the_wheel_files():
    paths = locate_fast_downward()
    assert paths.search.is_file() and paths.driver.is_file()
    assert (paths.translator / "__main__.py").is_file()
    assert (paths.translator_pythonpath / "fast_downward" / "translate").is_dir()


def test_locate_fast_downward_without_the_wheel_is_an_engine_error(monkeypatch):
    monkeypatch.setattr(fd.importlib.util, "find_spec", lambda name: None)
    fd.locate_fast_downward.cache_clear()
    try:
        with pytest.raises(EngineError, match="up-fast-downward"):
            fd.locate_fast_downward()
    finally:
        monkeypatch.undo()
        fd.locate_fast_downward.cache_clear()


@pytest.mark.parametrize("features, optimal, expected", [
    (TaskFeatures(), True, "astar(lmcut())"),
    (TaskFeatures(has_action_costs=True, has_negative_preconditions=True), True, "astar(lmcut())"),
    (TaskFeatures(has_conditional_effects=True), True, "astar(hmax())"),
    (TaskFeatures(has_derived_predicates=True), True, "astar(blind())"),
    (TaskFeatures(has_conditional_effects=True, has_derived_predicates=True), True,
     "astar(blind())"),
    (TaskFeatures(has_derived_predicates=True), False, SEARCHES["lazy-ff"]),
])
def test_choose_search(features, optimal, expected):
    assert choose_search(features, optimal) == expected


def test_sas_features_read_the_translated_task():
    strips = translator_only(CHAIN_DOMAIN, chain_problem("(visited c)"))
    assert strips.returncode == 0 and strips.sas_text.startswith("begin_version")
    assert strips.peak_rss_kb > 0 and strips.time_s > 0
    assert sas_features(strips.sas_text) == TaskFeatures()
    assert sas_features(translator_only(BRIEFCASE_DOMAIN, BRIEFCASE_PROBLEM).sas_text) == \
        TaskFeatures(has_conditional_effects=True)
    assert sas_features(translator_only(DOORS_DOMAIN, DOORS_PROBLEM).sas_text) == \
        TaskFeatures(has_derived_predicates=True)
    assert sas_features(translator_only(COSTS_DOMAIN, COSTS_PROBLEM).sas_text) == \
        TaskFeatures(has_action_costs=True)


def test_translator_only_reports_failure_without_raising():
    run = translator_only("(define (domain", chain_problem("(visited c)"))
    assert run.returncode == 31 and run.sas_text is None


def test_translator_output_is_deterministic():
    first = translator_only(BRIEFCASE_DOMAIN, BRIEFCASE_PROBLEM).sas_text
    assert first == translator_only(BRIEFCASE_DOMAIN, BRIEFCASE_PROBLEM).sas_text


def test_read_plan_normalises_steps_and_reads_cost():
    steps, cost = read_plan("(Move A  B)\n(go )\n\n; cost = 12 (general cost)\n")
    assert steps == ("(move a b)", "(go)") and cost == 12.0
    assert read_plan("; cost = 0 (unit cost)\n") == ((), 0.0)


def test_solve_result_rejects_inconsistent_plans_and_serialises():
    with pytest.raises(ValueError):
        SolveResult(Status.SOLVED, None, None, "x", 0.0)
    with pytest.raises(ValueError):
        SolveResult(Status.UNKNOWN, ("(a)",), None, "x", 0.0)
    result = SolveResult(Status.SOLVED, ("(a)",), 1.0, "x", 0.5, (("expanded", 3),))
    assert result.to_json() == {"status": "solved", "plan": ["(a)"], "cost": 1.0, "engine": "x",
                                "time_s": 0.5, "reason": "", "stats": {"expanded": 3}}


# ---------------------------------------------------------------------------- IPC sample

IPC_TASKS = (
    ("blocks", "probBLOCKS-6-0.pddl"),             # STRIPS: LM-cut
    ("gripper", "prob01.pddl"),                    # untyped STRIPS
    ("elevators-opt08-strips", "p02.pddl"),        # action costs
    ("miconic-simpleadl", "s2-0.pddl"),            # conditional effects: h_max
    ("miconic-fulladl", "f1-0.pddl"),              # axioms: blind
)


@pytest.mark.parametrize("domain_dir, problem", IPC_TASKS)
def test_ipc_optimal_costs(shared_data: Path, domain_dir, problem):
    with (shared_data / "ipc" / "MANIFEST.tsv").open() as handle:
        rows = {(r["domain_dir"], r["problem"]): r for r in csv.DictReader(handle, delimiter="\t")}
    row = rows[(domain_dir, problem)]
    assert row["optimal_cost"], "the manifest should know this task's optimal cost"
    folder = shared_data / "ipc" / domain_dir
    result = run_fast_downward(folder / row["domain_file"], folder / problem, time_limit=60)
    assert result.status is Status.SOLVED
    assert result.cost == float(row["optimal_cost"])


# --------------------------------------------------- why a run stopped at a limit
def _run(returncode, cpu_s=0.1, peak_rss_kb=10_000, killed=False, stderr=""):
    from planning_core.search.limited_process import ProcessRun
    return ProcessRun(returncode=returncode, wall_s=cpu_s, cpu_s=cpu_s, peak_rss_kb=peak_rss_kb,
                      killed_at_wall_limit=killed, stdout="", stderr=stderr)


@pytest.mark.parametrize("run, memory_mb, reason", [
    (_run(20), 64, "memory limit"),                           # the translator said so
    (_run(23, peak_rss_kb=20_000), 64, "time limit"),         # far below its cap
    (_run(23, peak_rss_kb=62_000), 64, "time and memory limit"),
    (_run(-9, cpu_s=31.0, peak_rss_kb=78_548), 80, "time and memory limit"),  # measured spin
    (_run(-9, cpu_s=31.0, peak_rss_kb=78_548), None, "time limit"),
    (_run(-9, cpu_s=2.0, peak_rss_kb=78_548), 80, None),      # killed early: not a limit
    (_run(0, peak_rss_kb=79_000), 80, None),
    (_run(1, killed=True, peak_rss_kb=1_000), 80, "time limit"),
    # the translator out of address space while importing (measured at 28 MB: exit 1)
    (_run(1, stderr="MemoryError\n...\nNameError: name 'emergency_memory' is not defined"),
     28, "memory limit"),
    (_run(127, stderr="python: error while loading shared libraries: libc.so.6: failed to "
                      "map segment from shared object"), 8, "memory limit"),
    (_run(1, stderr="MemoryError"), None, None),               # no limit of ours: a crash
    (_run(1, stderr="KeyError: 'x'"), 28, None),
])
def test_a_run_spinning_at_its_memory_cap_names_the_memory_limit(run, memory_mb, reason):
    from planning_core.search.fast_downward import _limit_reason
    assert _limit_reason(run, 30, memory_mb) == reason


def test_a_memory_limit_too_small_to_start_the_translator_is_the_memory_limit():
    """Under 12 MB of address space Python fails to import the translator (MemoryError,
    exit 1) or the loader fails to map libpython (exit 127), depending on the machine's
    build: either is the memory limit, not an engine error (it was an EngineError)."""
    result = run_fast_downward(BLOCKS_DOMAIN, reverse_tower(3), time_limit=20,
                               memory_limit_mb=12)
    assert result.status is Status.UNKNOWN and result.reason == "memory limit"
