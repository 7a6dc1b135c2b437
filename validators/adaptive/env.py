"""The interactive environment: an agent proposes plans, hidden constraints are revealed.

The protocol of AdaPlanBench (Liu et al. 2026), made exact. At turn ``t`` the agent proposes
a plan (plan-file text). The plan is validated against the task and checked against the
*whole* hidden profile (:mod:`.check`). Then:

1. **Single-type revelation, world first.** Let ``N`` be the violated constraints not yet
   revealed. If ``N`` holds a world constraint, every violated unrevealed *world* constraint
   is revealed; otherwise every violated unrevealed *user* constraint is. The other type
   stays hidden until a later turn.
2. **Repeated violations** of constraints revealed in an earlier turn are flagged as such
   in the feedback (and counted by the AWRV/AURV metrics).
3. **Success** ends the episode: the plan executes, reaches the goal and violates nothing.
4. **Early stop** ends it after ``patience`` (2) consecutive *stalled* turns: turns whose
   plan violates a revealed constraint without triggering a new one.
5. **Max turns** ends it when the budget is used up.

A plan that does not execute gets the validator's failing step, message and VAL-style repair
advice; a malformed plan, an unknown action or object and an empty answer are turns like any
other (the validator's error is the feedback), never an exception.

The API is gym-like: ``obs = env.reset()``; ``feedback, done, info = env.step(plan_text)``
with ``info["feedback"]`` the same feedback as JSON and ``info["turn"]`` the :class:`Turn`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from planning_core.errors import PlanningError
from planning_core.pddl import ast as A
from planning_core.pddl.writer import write_domain, write_problem
from planning_core.validate import Verdict
from planning_core.validators.adaptive.check import ConstraintChecker, PlanCheck
from planning_core.validators.adaptive.profile import Constraint, Profile

__all__ = ["Turn", "Episode", "AdaptiveEnv", "OUTCOMES", "DEFAULT_MAX_TURNS"]

OUTCOMES = ("success", "early_stop", "max_turns")
DEFAULT_MAX_TURNS = 10


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn, as data. ``violated``: every constraint the plan breaks (hidden or not);
    ``revealed``: those revealed now (all of type ``revealed_type``); ``repeated``: those
    revealed in an earlier turn. ``respects_revealed``: the plan solves the task and breaks
    no constraint revealed before this turn (what the agent could have known)."""

    index: int
    plan: str
    verdict: str
    executable: bool
    solves_task: bool
    failing_step: int | None
    violated: tuple[str, ...]
    revealed: tuple[str, ...]
    revealed_type: str | None
    repeated: tuple[str, ...]
    success: bool
    stall: bool
    feedback: str = field(default="", compare=False)

    @property
    def respects_revealed(self) -> bool:
        return self.solves_task and not self.repeated

    def to_json(self) -> dict:
        return {"turn": self.index, "plan": self.plan, "verdict": self.verdict,
                "executable": self.executable, "solves_task": self.solves_task,
                "failing_step": self.failing_step, "violated": list(self.violated),
                "revealed": list(self.revealed), "revealed_type": self.revealed_type,
                "repeated": list(self.repeated), "success": self.success,
                "stall": self.stall, "feedback": self.feedback}

    @classmethod
    def from_json(cls, d: dict) -> "Turn":
        return cls(d["turn"], d["plan"], d["verdict"], d["executable"], d["solves_task"],
                   d["failing_step"], tuple(d["violated"]), tuple(d["revealed"]),
                   d["revealed_type"], tuple(d["repeated"]), d["success"], d["stall"],
                   d.get("feedback", ""))


@dataclass(frozen=True, slots=True)
class Episode:
    """A finished (or running) episode: the turns, why it ended, the profile's size."""

    task: str
    tier: str
    turns: tuple[Turn, ...]
    outcome: str | None
    world_total: int
    user_total: int
    world_ids: tuple[str, ...] = ()

    @property
    def success(self) -> bool:
        return self.outcome == "success"

    def revealed_of(self, kind: str) -> int:
        ids = set(self.world_ids)
        return sum(1 for t in self.turns for c in t.revealed
                   if (c in ids) == (kind == "world"))

    def repeated_of(self, kind: str) -> int:
        ids = set(self.world_ids)
        return sum(1 for t in self.turns for c in t.repeated
                   if (c in ids) == (kind == "world"))

    def to_json(self) -> dict:
        return {"task": self.task, "tier": self.tier, "outcome": self.outcome,
                "world_total": self.world_total, "user_total": self.user_total,
                "world_ids": list(self.world_ids),
                "turns": [t.to_json() for t in self.turns]}

    @classmethod
    def from_json(cls, d: dict) -> "Episode":
        return cls(d["task"], d["tier"], tuple(Turn.from_json(t) for t in d["turns"]),
                   d["outcome"], d["world_total"], d["user_total"], tuple(d["world_ids"]))


class AdaptiveEnv:
    """One task under one tier of its profile (module docstring)."""

    def __init__(self, domain: A.Domain, problem: A.Problem, profile: Profile, tier: str, *,
                 max_turns: int = DEFAULT_MAX_TURNS, patience: int = 2,
                 task_id: str | None = None) -> None:
        if max_turns < 1 or patience < 1:
            raise ValueError("max_turns and patience must be at least 1")
        self.domain, self.problem, self.profile, self.tier = domain, problem, profile, tier
        self.constraints: tuple[Constraint, ...] = profile.tier_constraints(tier)
        self.checker = ConstraintChecker(domain, problem, profile, self.constraints)
        self.max_turns, self.patience = max_turns, patience
        self.task_id = task_id or problem.name
        self._by_id = {c.id: c for c in self.constraints}
        self.reset()

    # ----------------------------------------------------------------------- protocol

    def reset(self) -> str:
        """Start an episode; the observation is the task (PDDL) and how to answer."""
        self.turns: list[Turn] = []
        self.revealed: list[Constraint] = []
        self.done = False
        self.outcome: str | None = None
        return self.observation()

    def observation(self) -> str:
        attrs = "".join(f"\n  ({name} {obj})" for name, objs in self.profile.attributes
                        for obj in objs)
        return ("Propose a plan for this task: one action per line, written (action arg ...).\n"
                "Some constraints of this world and of the user are hidden; a plan that "
                "breaks one is refused, and the constraint is then revealed.\n\n"
                f"Domain:\n{write_domain(self.domain)}\nProblem:\n{write_problem(self.problem)}"
                + (f"\nFacts about the objects:{attrs}\n" if attrs else ""))

    def step(self, plan_text: str) -> tuple[str, bool, dict]:
        if self.done:
            raise PlanningError("the episode is over; call reset() to start another")
        if not isinstance(plan_text, str):
            plan_text = "" if plan_text is None else str(plan_text)
        result = self.checker.check(plan_text)
        turn = self._judge(plan_text, result)
        self.turns.append(turn)
        info = {"turn": turn, "feedback": self._feedback_json(turn, result),
                "revealed": [c.id for c in self.revealed], "outcome": self.outcome}
        return turn.feedback, self.done, info

    def _judge(self, plan_text: str, result: PlanCheck) -> Turn:
        index = len(self.turns) + 1
        known = {c.id for c in self.revealed}
        violated = result.violated
        repeated = tuple(c for c in violated if c in known)
        new = [c for c in violated if c not in known]
        revealed_type = None
        if any(self._by_id[c].type == "world" for c in new):
            revealed_type = "world"
        elif new:
            revealed_type = "user"
        revealed = tuple(c for c in new if self._by_id[c].type == revealed_type)
        self.revealed.extend(self._by_id[c] for c in revealed)
        success = result.solves_task and not violated
        stall = bool(repeated) and not revealed
        streak = 0
        for t in reversed(self.turns):
            if not t.stall:
                break
            streak += 1
        if success:
            self.done, self.outcome = True, "success"
        elif stall and streak + 1 >= self.patience:
            self.done, self.outcome = True, "early_stop"
        elif index >= self.max_turns:
            self.done, self.outcome = True, "max_turns"
        turn = Turn(index, plan_text, result.report.verdict.value, result.executable,
                    result.solves_task, None if result.executable else result.report.step,
                    violated, revealed, revealed_type, repeated, success, stall)
        return replace(turn, feedback=self._feedback_text(turn, result))

    def episode(self) -> Episode:
        world = tuple(c.id for c in self.constraints if c.type == "world")
        return Episode(self.task_id, self.tier, tuple(self.turns), self.outcome, len(world),
                       len(self.constraints) - len(world), world)

    # ----------------------------------------------------------------------- feedback

    def _detail(self, result: PlanCheck) -> dict:
        return {v.id: v for v in result.violations}

    def _feedback_text(self, turn: Turn, result: PlanCheck) -> str:
        lines = [f"Turn {turn.index}: " + ("the plan is accepted." if turn.success
                                          else "the plan is not accepted.")]
        report = result.report
        if not turn.solves_task:
            if not plan_has_steps(turn.plan) and report.verdict is not Verdict.PLAN_SYNTAX_ERROR:
                lines.append("The answer holds no plan steps.")
            lines.append(_task_failure(report))
            lines.extend("  " + a for a in report.advice)
        details = self._detail(result)
        if turn.revealed:
            lines.append(f"Newly revealed {turn.revealed_type} constraint(s):")
            lines.extend(f"  - [{c}] {self._by_id[c].text} ({details[c].detail})"
                         for c in turn.revealed)
        if turn.repeated:
            lines.append("Constraint(s) revealed earlier and violated again:")
            lines.extend(f"  - [{c}] {self._by_id[c].text} ({details[c].detail})"
                         for c in turn.repeated)
        hidden_left = [c for c in turn.violated if c not in turn.revealed
                       and c not in turn.repeated]
        if hidden_left:
            lines.append("The plan also breaks hidden constraint(s) of another type, "
                         "revealed once those above are respected.")
        if self.outcome == "early_stop":
            lines.append(f"Stopping: {self.patience} consecutive turns violated revealed "
                         "constraints without triggering a new one.")
        elif self.outcome == "max_turns":
            lines.append(f"Stopping: the budget of {self.max_turns} turns is used up.")
        return "\n".join(lines)

    def _feedback_json(self, turn: Turn, result: PlanCheck) -> dict:
        details = self._detail(result)

        def entry(cid: str) -> dict:
            c = self._by_id[cid]
            return {"id": cid, "type": c.type, "kind": c.kind, "text": c.text,
                    "formal": c.formal, "step": details[cid].step,
                    "detail": details[cid].detail}

        report = result.report
        return {"turn": turn.index, "accepted": turn.success, "verdict": turn.verdict,
                "executable": turn.executable, "solves_task": turn.solves_task,
                "failing_step": turn.failing_step,
                "message": report.message, "advice": list(report.advice),
                "revealed": [entry(c) for c in turn.revealed],
                "revealed_type": turn.revealed_type,
                "repeated": [entry(c) for c in turn.repeated],
                "hidden_violations": len(turn.violated) - len(turn.revealed)
                - len(turn.repeated),
                "done": self.done, "outcome": self.outcome}


def plan_has_steps(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith(";") for line in text.splitlines())


def _task_failure(report) -> str:
    if report.verdict is Verdict.GOAL_NOT_SATISFIED:
        return "The plan executes, but does not reach the goal: " + \
            " ".join(report.unsatisfied_goals)
    if report.verdict is Verdict.CONSTRAINT_VIOLATED:
        return "The plan breaks a constraint of the task itself: " + report.message
    if report.verdict is Verdict.PLAN_SYNTAX_ERROR:
        return "The plan cannot be read: " + report.message
    return f"The plan cannot be executed: {report.message}"
