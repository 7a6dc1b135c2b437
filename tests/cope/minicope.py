"""A tiny CoPE-shaped dataset written by the tests: one pair per kind of check verdict.

Three-block BlocksWorld, laid out like ``../shared/data/cope/<dataset>`` (descriptions,
action heads, ``constraints/<category>/pddl/pNN/pNN_constraintK_{df,pf}.pddl``,
``groundtruth_plan_info.jsonl``), so the check and the CLI can be tested without the
shared data and in well under a second per pair.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

DOMAIN = textwrap.dedent("""\
    (define (domain blocksworld)
      (:requirements :strips)
      (:predicates (clear ?x) (on-table ?x) (arm-empty) (holding ?x) (on ?x ?y))
      (:action pickup
        :parameters (?ob)
        :precondition (and (clear ?ob) (on-table ?ob) (arm-empty))
        :effect (and (holding ?ob) (not (clear ?ob)) (not (on-table ?ob)) (not (arm-empty))))
      (:action putdown
        :parameters (?ob)
        :precondition (holding ?ob)
        :effect (and (clear ?ob) (arm-empty) (on-table ?ob) (not (holding ?ob))))
      (:action stack
        :parameters (?ob ?underob)
        :precondition (and (clear ?underob) (holding ?ob))
        :effect (and (arm-empty) (clear ?ob) (on ?ob ?underob) (not (clear ?underob))
                     (not (holding ?ob))))
      (:action unstack
        :parameters (?ob ?underob)
        :precondition (and (on ?ob ?underob) (clear ?ob) (arm-empty))
        :effect (and (holding ?ob) (clear ?underob) (not (on ?ob ?underob)) (not (clear ?ob))
                     (not (arm-empty)))))
    """)

PROBLEM = textwrap.dedent("""\
    (define (problem p01)
      (:domain blocksworld)
      (:objects a b c)
      (:init (on-table a) (on-table b) (on c a) (clear c) (clear b) (arm-empty))
      (:goal (and (on a b) (on b c))))
    """)

# The goal also asks for a block that is nowhere: relaxed unreachable.
GOAL_D = PROBLEM.replace("(:objects a b c)", "(:objects a b c d)") \
    .replace("(on b c))", "(on b c) (on-table d))")

TYPO = DOMAIN.replace("(and (clear ?underob) (holding ?ob))",
                      "(and (clear ?underob) (holding ?ob) (not (stackd ?ob)))")
NO_HEADER = DOMAIN.replace("(:predicates (clear ?x)", "(clear ?x)")

# (category, problem, constraint, description, df, pf, plan_exists)
PAIRS = (
    ("baseline", "p01", "constraint1", "", DOMAIN, PROBLEM, True),
    ("goal", "p01", "constraint2", "Block d must end on the table.", DOMAIN, GOAL_D, False),
    ("action", "p01", "constraint3", "Use the arm.", DOMAIN, PROBLEM, False),
    ("state", "p01", "constraint4", "Block d must end on the table.", DOMAIN, GOAL_D, True),
    ("initial", "p01", "constraint5", "Never stack a block twice.", TYPO, PROBLEM, True),
    ("state", "p01", "constraint6", "Nothing changes.", NO_HEADER, PROBLEM, True),
)
HEADS = "(pickup block)\n(putdown block)\n(stack block1 block2)\n(unstack block1 block2)"


def write_minicope(root: Path, name: str = "Mini-1") -> Path:
    """Write the dataset under ``root/name`` and return that folder."""
    base = root / name
    (base / "pddl").mkdir(parents=True)
    (base / "pddl" / "domain.pddl").write_text(DOMAIN)
    (base / "pddl" / "p01.pddl").write_text(PROBLEM)
    (base / "descriptions").mkdir()
    (base / "descriptions" / "p01_domain.txt").write_text("Blocks on a table, one arm.")
    (base / "descriptions" / "p01_problem.txt").write_text(
        "Block c is on block a. Blocks a and b are on the table. Build a on b on c.")
    (base / "action_heads").mkdir()
    (base / "action_heads" / "action_heads.txt").write_text(HEADS)
    records: dict[str, list[dict]] = {}
    for category, problem, constraint, text, df, pf, exists in PAIRS:
        folder = base / "constraints" / category
        for sub in ("descriptions", "action_heads", f"pddl/{problem}"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        (folder / "descriptions" / f"{constraint}.txt").write_text(text)
        (folder / "action_heads" / f"{problem}_{constraint}.txt").write_text(HEADS)
        (folder / "pddl" / problem / f"{problem}_{constraint}_df.pddl").write_text(df)
        (folder / "pddl" / problem / f"{problem}_{constraint}_pf.pddl").write_text(pf)
        records.setdefault(category, []).append(
            {"problem": problem, "constraint": constraint, "constraint_description": text,
             "plan_exists": exists})
    for category, rows in records.items():
        path = base / "constraints" / category / "pddl" / "groundtruth_plan_info.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return base


def write_outputs(path: Path, rows) -> Path:
    """Model outputs as ``cope eval`` reads them: one JSON object per line."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path
