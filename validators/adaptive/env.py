"""The interactive environment: an agent proposes plans, hidden constraints are revealed.

The runtime protocol of AdaPlanBench (Liu et al. 2026, arXiv 2606.05622, Section 2.2 and
Appendix "Runtime Interaction Details"), made exact. At turn ``t`` the agent proposes a plan
(plan-file text). The plan is validated against the task and checked against the *whole*
hidden profile (:mod:`.check`), giving the violated world and user constraints ``V_t^w`` and
``V_t^u``. Then:

1. **Single-type revelation, world first** (the paper's rule, verbatim): the feedback set is
   ``F_t = V_t^w`` when ``V_t^w`` is not empty, else ``V_t^u``. All of ``F_t`` is reported;
   its members not disclosed before are *newly disclosed*, the others are *repeated*
   violations (``Rep_t = F_t & D_t``, counted by AWRV/AURV). Violations of the other type
   are withheld, even those disclosed earlier, until they are of the selected type.
2. **Valid plan found** ends the episode: the plan violates no constraint
   (``V_t^w = V_t^u = {}``, the paper's ConPass), established on every step, so the plan
   must execute (a plan that does not is only checked on its executed prefix). It is a
   *success* (Acc) when the plan also passes the task check, the validator standing in for
   the paper's rubric judges: it reaches the goal. Otherwise the outcome is ``unsolved``
   (the paper: constraints met, rubric failed). With ``protocol="refine"`` (the paper's
   rubric-refinement analysis, Appendix "Rubric Refinement Analysis") such a plan instead
   gets the validator's message and advice as feedback and the episode goes on.
3. **Early stop** ends it after ``patience`` (the paper's tau = 2) consecutive turns that
   disclose no new constraint without ending the episode (*stalled* turns), a plan that
   does not execute included. Under ``refine``, only turns that break a constraint can
   stall: a turn that breaks none is a refinement turn.
4. **Max turns** ends it when the budget (the paper's T = 20) is used up.

A plan that does not execute gets the validator's failing step, message and VAL-style repair
advice; a malformed plan, an unknown action or object and an empty answer are turns like any
other (the validator's error is the feedback), never an exception. Its constraints are
checked on the steps that did execute (none for an unreadable plan).

The API is gym-like: ``obs = env.reset()``; ``feedback, done, info = env.step(plan_text)``
with ``info["feedback"]`` the same feedback as JSON and ``info["turn"]`` the :class:`Turn`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from planning_core.errors import PlanningError
from planning_core.pddl import ast as pddl
from planning_core.pddl.writer import write_domain, write_problem
from planning_core.validate import Verdict
from planning_core.validators.adaptive.check import ConstraintChecker, PlanCheck
from planning_core.validators.adaptive.profile import Constraint, Profile

__all__ = ["Turn", "Episode", "AdaptiveEnv", "OUTCOMES", "PROTOCOLS", "DEFAULT_MAX_TURNS",
           "DEFAULT_PATIENCE"]

OUTCOMES = ("success", "unsolved", "early_stop", "max_turns")
PROTOCOLS = ("paper", "refine")
DEFAULT_MAX_TURNS = 20     # the paper's T (Appendix "Max Turns Threshold")
DEFAULT_PATIENCE = 2       # the paper's tau (Appendix "Early Stop Threshold")


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn, as data. ``violated``: every constraint the plan breaks (hidden or not,
    ``V_t^w | V_t^u``); ``revealed_type``: the type of the feedback set ``F_t`` (None when
    nothing is violated); ``revealed``: the members of ``F_t`` disclosed now for the first
    time (``New_t``); ``repeated``: those disclosed at an earlier turn (``Rep_t``).
    ``success``: nothing violated and the task solved; ``stall``: no new disclosure on a
    turn that did not end the episode with a valid plan."""

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
    def constraints_met(self) -> bool:
        """The paper's ConPass: no world and no user constraint violated, established on
        every step (the plan executes; a plan that does not is checked on a prefix only)."""
        return self.executable and not self.violated

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
    protocol: str = "paper"

    @property
    def success(self) -> bool:
        return self.outcome == "success"

    @property
    def ends_valid(self) -> bool:
        """ConPass at the terminal turn (what VPR counts)."""
        return bool(self.turns) and self.turns[-1].constraints_met

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
                "world_ids": list(self.world_ids), "protocol": self.protocol,
                "turns": [t.to_json() for t in self.turns]}

    @classmethod
    def from_json(cls, d: dict) -> "Episode":
        return cls(d["task"], d["tier"], tuple(Turn.from_json(t) for t in d["turns"]),
                   d["outcome"], d["world_total"], d["user_total"], tuple(d["world_ids"]),
                   d.get("protocol", "paper"))


class AdaptiveEnv:
    """One task under one tier of its profile (module docstring)."""

    def __init__(self, domain: pddl.Domain, problem: pddl.Problem, profile: Profile, tier: str, *,
                 max_turns: int = DEFAULT_MAX_TURNS, patience: int = DEFAULT_PATIENCE,
                 protocol: str = "paper", task_id: str | None = None) -> None:
        if max_turns < 1 or patience < 1:
            raise ValueError("max_turns and patience must be at least 1")
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}")
        self.protocol = protocol
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
        world = [c for c in violated if self._by_id[c].type == "world"]
        user = [c for c in violated if self._by_id[c].type == "user"]
        revealed_type = "world" if world else "user" if user else None
        selected = world or user                      # F_t: the paper's rule
        repeated = tuple(c for c in selected if c in known)
        revealed = tuple(c for c in selected if c not in known)
        self.revealed.extend(self._by_id[c] for c in revealed)
        valid = result.executable and not violated   # ConPass, checked on every step
        success = valid and result.solves_task
        ends = valid and (success or self.protocol == "paper")
        stall = not revealed and not ends and (self.protocol == "paper" or bool(violated))
        streak = 0
        for t in reversed(self.turns):
            if not t.stall:
                break
            streak += 1
        if ends:
            self.done, self.outcome = True, "success" if success else "unsolved"
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
                       len(self.constraints) - len(world), world, self.protocol)

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
            lines.append("The plan also breaks constraint(s) of the other type, "
                         "reported once those above are respected.")
        if self.outcome == "unsolved":
            lines.append("Stopping: the plan meets every constraint, but does not solve "
                         "the task.")
        elif self.outcome == "early_stop":
            lines.append(f"Stopping: {self.patience} consecutive turns disclosed no new "
                         "constraint.")
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
