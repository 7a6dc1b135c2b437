"""A small hand-written task for the scorer tests, with every kind of verdict in it.

Three rooms: r0 -> r1 <-> ... r1 -> r2, and no door out of r2 (a trap). The key k is in r1,
the gem g in r2, a coin c in r0; the robot is in r0 with a free hand; r0 is lit, and
moving from a lit room lights the next one (a conditional effect). Goal: the key in r2.

* optimal plan (4): (move r0 r1) (pick k r1) (move r1 r2) (drop k r2);
* unreachable by search only: (in g r0), (drop g r0) (whoever reaches r2 stays there);
* static: (door ?a ?b); (door r2 r0) is false, so (move r2 r0) never applies;
* landmarks of the initial state: (at r1), (holding k), (at r2), (lit r1), (lit r2);
  (holding c) and (in c r1) are not.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

DOMAIN = textwrap.dedent("""\
    (define (domain trap)
      (:requirements :strips :typing :conditional-effects)
      (:types room item)
      (:predicates (at ?r - room) (door ?a ?b - room) (in ?i - item ?r - room)
                   (holding ?i - item) (handfree) (lit ?r - room))
      (:action move
        :parameters (?a ?b - room)
        :precondition (and (at ?a) (door ?a ?b))
        :effect (and (at ?b) (not (at ?a)) (when (lit ?a) (lit ?b))))
      (:action pick
        :parameters (?i - item ?r - room)
        :precondition (and (at ?r) (in ?i ?r) (handfree))
        :effect (and (holding ?i) (not (in ?i ?r)) (not (handfree))))
      (:action drop
        :parameters (?i - item ?r - room)
        :precondition (and (at ?r) (holding ?i))
        :effect (and (in ?i ?r) (handfree) (not (holding ?i)))))
    """)

PROBLEM = textwrap.dedent("""\
    (define (problem trap-1)
      (:domain trap)
      (:objects r0 r1 r2 - room k g c - item)
      (:init (at r0) (handfree) (lit r0) (in k r1) (in g r2) (in c r0)
             (door r0 r1) (door r1 r0) (door r1 r2))
      (:goal (in k r2)))
    """)

PLAN = "(move r0 r1) (move r1 r0) (move r0 r1) (pick k r1) (move r1 r2) (drop k r2)"

QUESTIONS = {
    "app": "Generate the list of all ground actions that are applicable in this state.",
    "prog": 'Break down the outcomes of performing the action "move from room r0 to room '
            'r1" into two lists, positive effects and negative effects.',
    "reach": "What proposition can never hold in any potentially reachable state?",
    "areach": "What action can never become applicable, in any state reachable from the "
              "current state?",
    "val": 'What is the first inapplicable action in the next sequence of actions: '
           '"(move r0 r1) (move r1 r0) (pick k r0) (move r0 r1)"?',
    "just": f'Simplify the plan "{PLAN}" by removing either a single action or a pair of '
            'consecutive actions, while still maintaining a valid plan.',
    "land": "Generate a non-trivial fact landmark, one that does not hold in the initial "
            "state or goal.",
    "nexta": "What is the next action that takes us towards the goal?",
}

GROUPS = {"app": "applicable_actions_gen", "prog": "progression_gen",
          "reach": "reachable_atom_gen", "areach": "reachable_action_gen",
          "val": "validation_gen", "just": "action_justification_gen",
          "land": "landmarks_gen", "nexta": "goal_closer_gen"}

STORED = {
    "app": ["(move r0 r1)", "(pick c r0)"],
    "prog": {"pos": ["(at r1)", "(lit r1)"], "neg": ["(at r0)"]},
    "reach": ["door r2 r0"],
    "areach": ["(move r2 r0)"],
    "val": 2,
    "just": [["(move r1 r0)", "(move r0 r1)", "-1"]],
    "land": {"yes": ["(at r1)"], "no": ["(in c r1)"]},
    "nexta": {"yes": ["(move r0 r1)"], "no": [], "maybe": ["(pick c r0)"], "opt": "4"},
}


def record(task: str, answer=None, *, problem: str = PROBLEM, question: str | None = None,
           qid: str = "1") -> dict:
    """A dataset row for ``task`` on the trap task (stored answer overridable)."""
    return {"id": qid, "group": GROUPS[task], "context": "A robot in three rooms.",
            "question": question or QUESTIONS[task],
            "answer": STORED[task] if answer is None else answer,
            "PDDL_domain": DOMAIN, "PDDL_problem": problem}


def write_score_files(folder: Path) -> tuple[Path, Path]:
    """Four questions of four kinds (``q.json``) and one answer each (``a.jsonl``) in
    ``folder``: the inputs of the ``acp score`` command tests."""
    questions = [record("app", qid="1"), record("val", qid="1"), record("reach", qid="2"),
                 record("land", qid="3")]
    q = folder / "q.json"
    q.write_text(json.dumps(questions))
    a = folder / "a.jsonl"
    answers = [{"id": "1", "task": "app", "response": "(move r0 r1) (pick c r0)"},
               {"id": "1", "task": "val", "response": "The answer is 3."},
               {"id": "2", "response": "(in g r0)"},
               {"id": "3", "response": "(holding k)"}]
    a.write_text("\n".join(json.dumps(x) for x in answers) + "\n")
    return q, a
