"""Agents that drive the environment, and the loop that runs one episode.

Scripted agents are the yardsticks the tests order the metrics by:

* ``same``: proposes the same plan every turn (the profile's base plan, made without any
  constraint): it triggers what that plan breaks and then stalls into the early stop;
* ``oracle``: plans with the solver under every constraint revealed so far (the revealed
  constraints are exactly what the feedback told it), so it never repeats a violation and
  succeeds within ``#constraints + 1`` turns. On the generated household-jobs tasks
  (:mod:`.household`), whose profiles hold only the paper's two kinds, it plans by
  construction instead of search (for each item the first tool and material, in name
  order, that no revealed constraint forbids): the same guarantee, a thousand times
  faster;
* ``oracle-no-user``: the same, but ignores revealed user constraints (an agent that takes
  the world seriously and the user not).

:class:`ModelAgent` puts a language model (the :class:`Model` protocol: prompt text in,
response text out) in the loop. As in AdaPlanBench's standard protocol the prompt is the task
and the whole dialogue so far (each earlier plan and its feedback); with ``memory=True`` it
also carries the paper's constraint-tracking block (Appendix "Constraint Tracking Analysis"):
every constraint disclosed before this turn, listed once. The plan is the response's last
fenced code block, or the whole response.
"""
from __future__ import annotations

import re
from typing import Callable

from planning_core.result import Status
from planning_core.validators.adaptive.compile import DEFAULT_NODE_LIMIT, solve_under
from planning_core.validators.adaptive.env import AdaptiveEnv, Episode

__all__ = ["AGENTS", "SamePlanAgent", "OracleAgent", "ModelAgent", "WordsAgent", "run_episode",
           "extract_plan"]


class SamePlanAgent:
    def __init__(self, plan: tuple[str, ...] | None = None) -> None:
        self.plan = plan

    def __call__(self, env: AdaptiveEnv, observation: str, feedback: str | None) -> str:
        return "\n".join(self.plan if self.plan is not None else env.profile.base_plan)


class OracleAgent:
    def __init__(self, ignore_user: bool = False, node_limit: int = DEFAULT_NODE_LIMIT) -> None:
        self.ignore_user = ignore_user
        self.node_limit = node_limit

    def __call__(self, env: AdaptiveEnv, observation: str, feedback: str | None) -> str:
        known = tuple(c for c in env.revealed if not (self.ignore_user and c.type == "user"))
        if env.domain.name == "household-jobs" and all(
                c.kind in ("object_unavailable", "avoid_attribute_use") for c in known):
            return _construct(env, known)
        result = solve_under(env.domain, env.problem, env.profile, known,
                             node_limit=self.node_limit)
        if result.status is not Status.SOLVED:
            return ""  # nothing known to work: an empty answer is a recorded turn
        return "\n".join(result.plan)


def _construct(env: AdaptiveEnv, known) -> str:
    from planning_core.validators.adaptive.household import Layout

    layout = getattr(env, "_layout", None)
    if layout is None:
        layout = Layout(env.problem)
        env._layout = layout
    holders = dict(env.profile.attributes)
    gone = {c.object for c in known if c.kind == "object_unavailable"}
    avoid = [(set(holders.get(c.attribute, ())), c.target) for c in known
             if c.kind == "avoid_attribute_use"]

    def allowed(obj: str, item: str) -> bool:
        return obj not in gone and not any(obj in h and t in (None, item) for h, t in avoid)

    choice = {}
    for item in layout.items:
        tools = [t for t in layout.suits.get(item, ()) if allowed(t, item)]
        mats = [m for m in layout.fits.get(item, ()) if allowed(m, item)]
        if not tools or not mats:
            return ""       # nothing known to work: an empty answer is a recorded turn
        choice[item] = (tools[0], mats[0])
    return "\n".join(layout.construct(choice))


_FENCE = re.compile(r"```[a-zA-Z]*\n(.*?)```", re.S)


def extract_plan(response: str) -> str:
    """The last fenced code block of a model's response, else the whole response (a
    leading byte-order mark, which some programs write before UTF-8 output, removed: the
    plan reader would take it for a bad character of the first step)."""
    response = (response or "").lstrip("\ufeff")
    blocks = _FENCE.findall(response)
    return blocks[-1] if blocks else response


class ModelAgent:
    """A :class:`Model` (``prompt -> response``) as an agent (module docstring)."""

    def __init__(self, model: Callable[[str], str], memory: bool = False) -> None:
        self.model = model
        self.memory = memory

    def __call__(self, env: AdaptiveEnv, observation: str, feedback: str | None) -> str:
        parts = [observation]
        for turn in env.turns:
            parts.append(f"Your plan at turn {turn.index}:\n{turn.plan.strip() or '(empty)'}"
                         f"\n\nFeedback:\n{turn.feedback}")
        if self.memory and env.revealed:
            from planning_core.validators.adaptive.words import spoken

            parts.append("Constraints disclosed so far:\n" + "\n".join(
                f"- {spoken(c)}" for c in env.revealed))
        parts.append("Answer with the plan in a ``` code block, one step per line."
                     if env.condition == "words" else
                     "Answer with the plan in a ``` code block, one action per line.")
        return extract_plan(self.model("\n\n".join(parts)))


class WordsAgent:
    """A scripted agent in the words condition: its PDDL plan written as numbered steps in
    words (:func:`.words.words_plan`, ``1. pick up: iron, hall``), which the rules reader
    maps back."""

    def __init__(self, inner) -> None:
        self.inner = inner

    def __call__(self, env: AdaptiveEnv, observation: str, feedback: str | None) -> str:
        from planning_core.validators.adaptive.words import words_plan

        return words_plan(self.inner(env, observation, feedback))


AGENTS = {
    "same": lambda: SamePlanAgent(),
    "oracle": lambda: OracleAgent(),
    "oracle-no-user": lambda: OracleAgent(ignore_user=True),
}


def run_episode(env: AdaptiveEnv, agent) -> Episode:
    """Reset ``env`` and let ``agent`` propose plans until the episode ends."""
    observation = env.reset()
    feedback = None
    done = False
    while not done:
        plan = agent(env, observation, feedback)
        feedback, done, _ = env.step(plan)
    return env.episode()
