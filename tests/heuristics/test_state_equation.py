"""The state-equation unsolvability test against brute-force reachability: it must never
call a solvable task unsolvable, and it proves counting arguments that h^2 cannot."""
from __future__ import annotations

import random

import pytest

pytest.importorskip("scipy")

from planning_core.heuristics.hm import h2_unsolvable
from planning_core.heuristics.state_equation import state_equation_unsolvable
from tests.heuristics.hand_tasks import make_task
from tests.heuristics.test_hm import reachable_states


def random_strips(rng: random.Random, n_facts: int = 6, n_actions: int = 7):
    facts = [f"f{i}" for i in range(n_facts)]

    def some(k):
        return rng.sample(facts, rng.randint(0, k))

    actions = [(f"a{k}", some(2), some(2), some(2), 1, some(1)) for k in range(n_actions)]
    return make_task(actions, some(3), rng.sample(facts, rng.randint(1, 3)), facts=facts)


@pytest.mark.parametrize("seed", range(200))
def test_never_calls_a_solvable_task_unsolvable(seed):
    task = random_strips(random.Random(seed))
    proved = state_equation_unsolvable(task)
    assert proved in (True, False)
    if proved:
        assert not any(task.is_goal(s) for s in reachable_states(task)), seed


def test_random_tasks_include_proofs():
    proved = sum(bool(state_equation_unsolvable(random_strips(random.Random(seed))))
                 for seed in range(200))
    assert proved >= 5


def table_task(tokens: int, stacked: int):
    """CoPE's edited BlocksWorld in small: ``take`` moves a token from the table to the
    hand, needs the 'open' flag and lowers it; ``put`` moves it back, needs the flag down
    and raises it; ``stack`` and ``unstack`` move a token between the hand and a stack
    without touching the flag. All ``tokens`` start on the table with the flag up, and one
    more, ``s``, on the stack; the goal asks for ``s`` and the first ``stacked`` tokens on
    the stack and the rest on the table. The table only ever holds ``tokens`` or
    ``tokens - 1`` tokens (``s`` can pass through the table, which is what makes every
    pair of goal facts reachable together)."""
    names = [f"t{i}" for i in range(tokens)]
    actions = []
    for t in names + ["s"]:
        actions.append((f"take {t}", [f"table {t}", "open"], [f"held {t}"],
                        [f"table {t}", "open"]))
        actions.append((f"put {t}", [f"held {t}"], [f"table {t}", "open"], [f"held {t}"],
                        1, ["open"]))
        actions.append((f"stack {t}", [f"held {t}"], [f"stack {t}"], [f"held {t}"]))
        actions.append((f"unstack {t}", [f"stack {t}"], [f"held {t}"], [f"stack {t}"]))
    goal = [f"stack {t}" for t in names[:stacked] + ["s"]] + \
        [f"table {t}" for t in names[stacked:]]
    return make_task(actions, [f"table {t}" for t in names] + ["stack s", "open"], goal)


def test_counting_proof_where_h2_proves_nothing():
    task = table_task(4, 2)          # two tokens must leave the table: only one can
    assert not any(task.is_goal(s) for s in reachable_states(task))
    assert h2_unsolvable(task) is False
    assert state_equation_unsolvable(task) is True
    solvable = table_task(4, 1)      # one token leaves: solvable, not called unsolvable
    assert any(solvable.is_goal(s) for s in reachable_states(solvable))
    assert state_equation_unsolvable(solvable) is False


def test_conditional_effects_are_not_analysed():
    task = make_task([("go", [], [], [], 1, [], [(["s"], [], ["p"], [])])], [], ["p"])
    assert state_equation_unsolvable(task) is None
