"""Scorer verdicts on answers outside the stored sets agree with brute-force search.

For dev questions whose reachable state space is small, every well-formed atom (reach,
land), every well-formed ground action (areach) and every applicable action (nexta) is
scored with the stored sets hidden, and compared with answers read off the explicit state
graph: reachable atoms and actions are those of some reachable state; a landmark is an
atom without which no goal state is reachable; h* is the breadth-first distance to the
nearest goal state. The scorers use relaxation proofs, greedy and breadth-first search
and A*; the brute force uses none of them. Applicability in a state is also checked by the
lifted validator (which does not ground) for every action the grounder left out.
"""
from __future__ import annotations

import dataclasses
from collections import deque

import pytest

from planning_core.validate.simulator import validate_plan

from planning_core.validators.acp.scorers.witness import candidate_actions, candidate_atoms
from planning_core.validators.acp.scoring import AnswerScorer

from tests.acp.test_scorers_dev import dev_questions

MAX_STATES = 900


def state_graph(task):
    """Reachable states, edges (state -> [(action, successor)]) and a path to each state."""
    start = task.init
    path = {start: ()}
    edges = {}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        edges[s] = []
        for a in task.applicable(s):
            t = task.progress(s, a)
            edges[s].append((a, t))
            if t not in path:
                if len(path) >= MAX_STATES:
                    return None
                path[t] = path[s] + (str(a),)
                queue.append(t)
    return edges, path


def goal_distances(task, edges):
    back = {s: [] for s in edges}
    for s, out in edges.items():
        for _, t in out:
            back[t].append(s)
    dist = {s: 0 for s in edges if task.is_goal(s)}
    queue = deque(dist)
    while queue:
        t = queue.popleft()
        for s in back[t]:
            if s not in dist:
                dist[s] = dist[t] + 1
                queue.append(s)
    return dist


def avoids(task, edges, i) -> bool:
    """Whether a goal state is reachable through states where fact ``i`` is false."""
    start = task.init
    seen, queue = {start}, deque([start])
    while queue:
        s = queue.popleft()
        if task.is_goal(s):
            return True
        for _, t in edges[s]:
            if not t >> i & 1 and t not in seen:
                seen.add(t)
                queue.append(t)
    return False


def small_questions(shared_data, task):
    scorer = AnswerScorer(time_limit=10)
    out = []
    for q in dev_questions(shared_data, task):
        ctx = scorer.context(q)
        graph = state_graph(ctx.info.task)
        if graph is not None:
            out.append((q, ctx, graph))
    return scorer, out


@pytest.mark.slow
def test_reach_agrees_with_brute_force(shared_data):
    scorer, questions = small_questions(shared_data, "reach")
    assert len(questions) >= 8
    for q, ctx, (edges, _) in questions:
        task = ctx.info.task
        seen = 0
        for s in edges:
            seen |= s
        hidden = dataclasses.replace(q, answer=[])
        for atom in candidate_atoms(ctx.info):
            fact = (atom.name, *atom.args)
            i = task.facts.get(fact)
            reachable = task.holds_statically(fact) or (i is not None and bool(seen >> i & 1))
            s = scorer(hidden, str(atom))
            assert s.value == (0 if reachable else 1), (q.id, atom, s)


@pytest.mark.slow
def test_areach_agrees_with_brute_force_and_the_lifted_validator(shared_data):
    scorer, questions = small_questions(shared_data, "areach")
    assert len(questions) >= 8
    for q, ctx, (edges, path) in questions:
        info = ctx.info
        applicable_somewhere = {str(a) for out in edges.values() for a, _ in out}
        hidden = dataclasses.replace(q, answer=[])
        lifted_checks = 0
        for action in candidate_actions(info):
            s = scorer(hidden, str(action))
            expected = 0 if str(action) in applicable_somewhere else 1
            assert s.value == expected, (q.id, action, s)
            if expected == 1 and len(path) <= 100 and lifted_checks < 6:
                lifted_checks += 1
                # independent of grounding: the lifted simulator rejects the action after
                # the path to every reachable state
                for steps in path.values():
                    plan = "\n".join(steps + (str(action),))
                    report = validate_plan(info.domain, info.problem, plan)
                    assert report.step == len(steps) + 1, (q.id, action, steps)


@pytest.mark.slow
def test_land_agrees_with_brute_force(shared_data):
    scorer, questions = small_questions(shared_data, "land")
    assert len(questions) >= 5
    for q, ctx, (edges, _) in questions:
        info, task = ctx.info, ctx.info.task
        hidden = dataclasses.replace(q, answer={"yes": [], "no": []})
        for atom in candidate_atoms(info):
            fact = (atom.name, *atom.args)
            i = task.facts.get(fact)
            trivial = fact in info.init_atoms or fact in (info.goal_atoms or ())
            if trivial:
                expected = 0
            elif i is None:
                expected = 0  # never true; these tasks are solvable
            else:
                expected = 0 if avoids(task, edges, i) else 1
            s = scorer(hidden, str(atom))
            assert s.value == expected, (q.id, atom, s)


@pytest.mark.slow
def test_nexta_agrees_with_brute_force(shared_data):
    scorer, questions = small_questions(shared_data, "nexta")
    assert len(questions) >= 5
    for q, ctx, (edges, _) in questions:
        task = ctx.info.task
        dist = goal_distances(task, edges)
        assert dist[task.init] == int(q.answer["opt"]), q.id
        hidden = dataclasses.replace(q, answer={"yes": [], "no": [], "maybe": []})
        for a, t in edges[task.init]:
            expected = 1 if dist.get(t, -99) == dist[task.init] - 1 else 0
            s = scorer(hidden, str(a))
            assert s.value == expected, (q.id, str(a), s)
            if str(a) in q.answer["yes"]:
                assert expected == 1
            if str(a) in q.answer["no"]:
                assert expected == 0
