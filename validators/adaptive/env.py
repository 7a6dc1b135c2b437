"""The interactive environment: an agent proposes plans, hidden constraints are revealed.

The runtime protocol of AdaPlanBench (Liu et al. 2026; the paper's text is
``/work/shared/seeds/000_412af33225388945.txt``, cited below by line: L51-L63 the protocol,
L306-L314 the revelation rule, L426-L428 and L469-L471 the early stop), made exact. At turn ``t`` the
agent proposes a plan (plan-file text). The plan is checked against the *whole* hidden
profile on *every* step it writes (:mod:`.check`), giving the violated world and user
constraints ``V_t^w`` and ``V_t^u``, and, as a verdict of its own, validated against the
task (executable, reaches the goal). Then:

1. **Single-type revelation, world first** (L309-L313): the feedback set is
   ``F_t = V_t^w`` when ``V_t^w`` is not empty, else ``V_t^u``; every member of ``F_t`` is
   reported: those not disclosed before are *newly disclosed*, the others are repeated
   violations, reported with a reminder that they were disclosed already (L313; counted by
   AWRV/AURV). Violations of the other type are withheld without a word until they are of
   the selected type; ``hint_withheld=True`` (not the paper's) adds a line saying that more
   remain and their number to the JSON.
2. **Valid plan found** ends the episode (L57): the plan violates no constraint (the
   paper's ConPass) and can be read. It is a *success* (Acc) when it also passes the
   rubric: with ``judges`` (the judged mode, :mod:`.rubric`) every averaged dimension
   reaches gamma; without (the symbolic mode) the validator stands in for the judges: the
   plan executes and reaches the goal. Otherwise the outcome is ``unsolved`` (constraints
   met, rubric failed).
3. **Early stop** (L63, L426) after ``patience`` (tau = 2) consecutive turns that
   disclose no new constraint and do not end the episode (*stalled* turns).
4. **Max turns** (L60, L413) when the budget ``max_turns`` (T = 20) is used up.
5. **Refinement** (L126, L400-L403; off unless ``refine > 0``): an episode that ended
   ``unsolved`` or at ``max_turns`` (failed, not early-stopped) goes on for up to ``refine``
   extra turns. A plan that meets every constraint but fails the task check gets the
   validator's verdict and repair advice as feedback (the paper's rubric feedback); a plan
   that violates constraints gets the standard feedback (L403). No early stop applies; the
   episode ends at the first success or when the extra turns are used up
   (``refine_exhausted``). ``main_outcome`` keeps the outcome of the standard protocol.

The feedback is what the paper's user simulator is given: the selected violated
constraints (L308: "determined solely by these detected violations"). The validator's
verdict on the task is recorded in every turn (``executable``, ``solves_task``,
``failing_step``, ``info["verdict"]``) but is not told to the agent, except that an
unreadable answer is said to be unreadable and an answer without a step to hold no
steps (it is no plan: it stalls, it never ends the episode as a valid plan);
``validator_feedback=True`` (not the paper's)
adds the validator's message and advice to every turn.

``constraints`` selects the dual ablation (L128): ``"world"`` or ``"user"`` keeps only the
tier's constraints of that type, ``"both"`` (default) all. ``show_attributes=True`` lists
the objects' attributes in the observation; by default they are hidden and the agent must
infer them (as in the paper, where "generate high heat" is the user's word for an iron).

``condition="words"`` is the paper's view (:mod:`.words`): the observation is the
household request, the plan is in words and ``reader`` maps its steps onto the domain's
actions (the rules reader by default), and the mapped plan is checked as above; a step the
reader cannot map makes the plan unreadable. The feedback says the disclosed constraints as
the user would (:func:`.words.spoken`), or in the words of ``simulator`` (a model).

The API is gym-like: ``obs = env.reset()``; ``feedback, done, info = env.step(plan_text)``
with ``info["feedback"]`` the same feedback as JSON, ``info["verdict"]`` the validator's
verdict and ``info["turn"]`` the :class:`Turn`.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from planning_core.errors import PlanningError
from planning_core.pddl import ast as pddl
from planning_core.pddl.writer import write_domain, write_problem
from planning_core.validate import ValidationReport, Verdict
from planning_core.validators.adaptive.check import ConstraintChecker, PlanCheck
from planning_core.validators.adaptive.profile import Constraint, Profile

__all__ = ["Turn", "Episode", "AdaptiveEnv", "OUTCOMES", "CONSTRAINT_SETS", "CONDITIONS", "MAX_PLAN_CHARS", "MAX_PLAN_STEPS",
           "DEFAULT_MAX_TURNS", "DEFAULT_PATIENCE"]

OUTCOMES = ("success", "unsolved", "early_stop", "max_turns", "refine_exhausted", "failed")
CONSTRAINT_SETS = ("both", "world", "user")
CONDITIONS = ("pddl", "words")
DEFAULT_MAX_TURNS = 20     # the paper's T (Appendix D.2.1, L413)
DEFAULT_PATIENCE = 2       # the paper's tau (L63, L426; E.4 says three, L471)
#: Longest answer judged, in characters (a 10,000-step plan is about 200,000): a longer one
#: is an unreadable turn, and only its first KEPT_CHARS characters are recorded (the record
#: and a model's dialogue would otherwise grow by the whole answer every turn).
MAX_PLAN_CHARS = 1_000_000
#: Most plan lines judged (a line that is neither blank nor a comment): every constraint is
#: judged on every step, so the cost grows with steps x constraints (250,000 one-word steps
#: under a high tier took 6 s of CPU a turn); a longer answer is an unreadable turn.
MAX_PLAN_STEPS = 10_000
KEPT_CHARS = 2_000
#: Longest validator message quoted in the feedback (a parse error quotes the bad token).
MAX_MESSAGE_CHARS = 500


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn, as data. ``violated``: every constraint the plan breaks (hidden or not,
    ``V_t^w | V_t^u``); ``revealed_type``: the type of the feedback set ``F_t`` (None when
    nothing is violated); ``revealed``: the members of ``F_t`` disclosed now for the first
    time (``New_t``); ``repeated``: those disclosed at an earlier turn (``Rep_t``).
    ``readable``/``executable``/``solves_task``: the validator's verdict on the task.
    ``success``: nothing violated and the task solved; ``stall``: no new disclosure on a
    turn that did not end the episode with a valid plan; ``phase``: ``main`` or
    ``refine``."""

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
    readable: bool = True
    phase: str = "main"
    #: judged mode: every judge's scores (or failure), the means, gamma, the pass
    rubric: dict | None = None
    #: words condition: the reader's mapping of every step, and the PDDL plan it gives
    words: dict | None = None
    #: the user simulator's record (its model, or its failure and the template used)
    simulator: dict | None = None

    @property
    def constraints_met(self) -> bool:
        """The paper's ConPass: a readable plan that violates no world and no user
        constraint, judged on every step (it need not execute). An answer without a step
        is no plan (unless the empty plan solves the task): it proposes nothing to judge,
        so it neither ends the episode nor counts for VPR."""
        return self.readable and not self.violated and (plan_has_steps(self.plan)
                                                        or self.solves_task)

    def to_json(self) -> dict:
        return {"turn": self.index, "plan": self.plan, "verdict": self.verdict,
                "readable": self.readable, "executable": self.executable,
                "solves_task": self.solves_task, "failing_step": self.failing_step,
                "violated": list(self.violated), "revealed": list(self.revealed),
                "revealed_type": self.revealed_type, "repeated": list(self.repeated),
                "success": self.success, "stall": self.stall, "phase": self.phase,
                "feedback": self.feedback,
                **{k: v for k, v in (("rubric", self.rubric), ("words", self.words),
                                     ("simulator", self.simulator)) if v is not None}}

    @classmethod
    def from_json(cls, d: dict) -> "Turn":
        """A turn from its JSON; ``TypeError``/``ValueError`` naming the first ill-typed
        field (a results file is read back, and may have been edited or written by hand)."""
        if not isinstance(d, dict):
            raise TypeError("a turn must be a JSON object")
        _need(d, "turn", int)
        _need(d, "plan", str)
        _need(d, "verdict", str)
        for key in ("executable", "solves_task", "success", "stall"):
            _need(d, key, bool)
        for key in ("readable",):
            if key in d:
                _need(d, key, bool)
        if d["failing_step"] is not None:
            _need(d, "failing_step", int)
        for key in ("violated", "revealed", "repeated"):
            _need_strings(d, key)
        if d["revealed_type"] not in ("world", "user", None):
            raise ValueError(f"revealed_type {d['revealed_type']!r} is not world, user or null")
        if d.get("phase", "main") not in ("main", "refine"):
            raise ValueError(f"phase {d['phase']!r} is not main or refine")
        if "feedback" in d:
            _need(d, "feedback", str)
        for key in ("rubric", "words", "simulator"):
            if d.get(key) is not None and not isinstance(d[key], dict):
                raise TypeError(f"{key} must be a JSON object, not {d[key]!r:.40}")
        if d.get("rubric") is not None:
            _check_rubric(d["rubric"])
        return cls(d["turn"], d["plan"], d["verdict"], d["executable"], d["solves_task"],
                   d["failing_step"], tuple(d["violated"]), tuple(d["revealed"]),
                   d["revealed_type"], tuple(d["repeated"]), d["success"], d["stall"],
                   d.get("feedback", ""), d.get("readable", d["verdict"] !=
                                                 "plan_syntax_error"),
                   d.get("phase", "main"), d.get("rubric"), d.get("words"),
                   d.get("simulator"))


@dataclass(frozen=True, slots=True)
class Episode:
    """A finished (or running) episode: the turns, why it ended, the profile's size.
    ``main_outcome`` is how the standard protocol ended (differs from ``outcome`` only
    after refinement turns). ``group``: the agent and protocol settings it ran under, set
    by the report when a results file mixes several (not part of the JSON)."""

    task: str
    tier: str
    turns: tuple[Turn, ...]
    outcome: str | None
    world_total: int
    user_total: int
    world_ids: tuple[str, ...] = ()
    constraints: str = "both"
    refine: int = 0
    main_outcome: str | None = None
    group: str = field(default="", compare=False)
    #: ``pddl`` (the task as PDDL, plans in PDDL) or ``words`` (a request and plans in words)
    condition: str = "pddl"
    #: judged mode: the rubric judges' names and the threshold (symbolic mode: empty, None)
    judges: tuple[str, ...] = ()
    gamma: float | None = None

    def __post_init__(self) -> None:
        if self.main_outcome is None:
            object.__setattr__(self, "main_outcome", self.outcome)

    @property
    def success(self) -> bool:
        return self.outcome == "success"

    @property
    def ends_valid(self) -> bool:
        """ConPass at the terminal turn (refinement turns included)."""
        return bool(self.turns) and self.turns[-1].constraints_met

    @property
    def judged(self) -> bool:
        return bool(self.judges)

    @property
    def main_turns(self) -> tuple[Turn, ...]:
        """The turns of the standard protocol (Table 3), refinement turns left out."""
        return tuple(t for t in self.turns if t.phase == "main")

    @property
    def main_success(self) -> bool:
        """Acc's event under the standard protocol: its last plan meets every constraint
        and passes (the rubric in judged mode, the task check in symbolic mode)."""
        return self.main_outcome == "success"

    @property
    def main_valid(self) -> bool:
        """ConPass at the last turn of the standard protocol (what VPR counts)."""
        main = self.main_turns
        return bool(main) and main[-1].constraints_met

    def revealed_of(self, kind: str, main: bool = False) -> int:
        ids = set(self.world_ids)
        turns = self.main_turns if main else self.turns
        return sum(1 for t in turns for c in t.revealed
                   if (c in ids) == (kind == "world"))

    def repeated_of(self, kind: str, main: bool = False) -> int:
        ids = set(self.world_ids)
        turns = self.main_turns if main else self.turns
        return sum(1 for t in turns for c in t.repeated
                   if (c in ids) == (kind == "world"))

    def to_json(self) -> dict:
        return {"task": self.task, "tier": self.tier, "outcome": self.outcome,
                "main_outcome": self.main_outcome,
                "world_total": self.world_total, "user_total": self.user_total,
                "world_ids": list(self.world_ids), "constraints": self.constraints,
                "refine": self.refine,
                **({"condition": self.condition} if self.condition != "pddl" else {}),
                **({"judges": list(self.judges), "gamma": self.gamma}
                   if self.judges else {}),
                "turns": [t.to_json() for t in self.turns]}

    @classmethod
    def from_json(cls, d: dict) -> "Episode":
        """An episode from its JSON (as :meth:`Turn.from_json`, ill-typed fields raise)."""
        _need(d, "task", str)
        _need(d, "tier", str)
        for key in ("outcome", "main_outcome"):
            if d.get(key) is not None and d[key] not in OUTCOMES:
                raise ValueError(f"{key} {d[key]!r} is not one of {', '.join(OUTCOMES)}")
        _need(d, "world_total", int)
        _need(d, "user_total", int)
        _need_strings(d, "world_ids")
        if d.get("constraints", "both") not in CONSTRAINT_SETS:
            raise ValueError(f"constraints {d['constraints']!r} is not one of "
                             f"{', '.join(CONSTRAINT_SETS)}")
        if "refine" in d:
            _need(d, "refine", int)
        if not isinstance(d["turns"], list) or not d["turns"]:
            raise ValueError("turns must be a non-empty list")
        if (d["outcome"] == "success") != bool(d["turns"][-1].get("success")
                                               if isinstance(d["turns"][-1], dict) else False):
            raise ValueError("the outcome is success exactly when the last turn succeeds")
        if d.get("condition", "pddl") not in CONDITIONS:
            raise ValueError(f"condition {d['condition']!r} is not one of "
                             f"{', '.join(CONDITIONS)}")
        if "judges" in d:
            _need_strings(d, "judges")
            if not isinstance(d.get("gamma"), (int, float)) or isinstance(d["gamma"], bool):
                raise TypeError("gamma must be a number in a judged episode")
        return cls(d["task"], d["tier"], tuple(Turn.from_json(t) for t in d["turns"]),
                   d["outcome"], d["world_total"], d["user_total"], tuple(d["world_ids"]),
                   d.get("constraints", "both"), d.get("refine", 0),
                   d.get("main_outcome"), condition=d.get("condition", "pddl"),
                   judges=tuple(d.get("judges", ())),
                   gamma=float(d["gamma"]) if d.get("judges") else None)


class AdaptiveEnv:
    """One task under one tier of its profile (module docstring)."""

    def __init__(self, domain: pddl.Domain, problem: pddl.Problem, profile: Profile, tier: str, *,
                 max_turns: int = DEFAULT_MAX_TURNS, patience: int = DEFAULT_PATIENCE,
                 refine: int = 0, constraints: str = "both", hint_withheld: bool = False,
                 validator_feedback: bool = False, show_attributes: bool = False,
                 task_id: str | None = None, max_plan_chars: int = MAX_PLAN_CHARS,
                 max_plan_steps: int = MAX_PLAN_STEPS, condition: str = "pddl",
                 reader=None, judges=None, simulator=None,
                 simulator_name: str | None = None) -> None:
        if max_turns < 1 or patience < 1:
            raise ValueError("max_turns and patience must be at least 1")
        if condition not in CONDITIONS:
            raise ValueError(f"condition must be one of {', '.join(CONDITIONS)}")
        if refine < 0:
            raise ValueError("refine must be at least 0")
        if constraints not in CONSTRAINT_SETS:
            raise ValueError(f"constraints must be one of {', '.join(CONSTRAINT_SETS)}")
        self.domain, self.problem, self.profile, self.tier = domain, problem, profile, tier
        self.constraint_set = constraints
        self.constraints: tuple[Constraint, ...] = tuple(
            c for c in profile.tier_constraints(tier)
            if constraints == "both" or c.type == constraints)
        self.checker = ConstraintChecker(domain, problem, profile, self.constraints)
        self.max_turns, self.patience, self.refine = max_turns, patience, refine
        self.hint_withheld, self.validator_feedback = hint_withheld, validator_feedback
        self.show_attributes = show_attributes
        self.max_plan_chars, self.max_plan_steps = max_plan_chars, max_plan_steps
        self.task_id = task_id or problem.name
        self._by_id = {c.id: c for c in self.constraints}
        from planning_core.validators.adaptive.words import RulesReader, request_in_words

        self.condition = condition
        self.request = request_in_words(problem)
        self.reader = reader if reader is not None or condition == "pddl" else \
            RulesReader(domain, problem)
        self.judges = judges                 # rubric.RubricJudges: the judged mode
        self.simulator, self.simulator_name = simulator, simulator_name
        self.reset()

    # ----------------------------------------------------------------------- protocol

    def reset(self) -> str:
        """Start an episode; the observation is the task (PDDL) and how to answer."""
        self.turns: list[Turn] = []
        self.revealed: list[Constraint] = []
        self.done = False
        self.outcome: str | None = None
        self.main_outcome: str | None = None
        self.phase = "main"
        return self.observation()

    def observation(self) -> str:
        attrs = "".join(f"\n  ({name} {obj})" for name, objs in self.profile.attributes
                        for obj in objs) if self.show_attributes else ""
        if self.condition == "words":
            return (self.request + "\nSome limits of this home and some wishes of mine are "
                    "not said here; I will tell you when a plan runs into one."
                    + (f"\nFacts about the objects:{attrs}\n" if attrs else ""))
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
        size = len(plan_text)
        lines = 0 if size > self.max_plan_chars else _step_lines(plan_text)
        if size > self.max_plan_chars or lines > self.max_plan_steps:
            why = (f"{size} characters, limit {self.max_plan_chars}"
                   if size > self.max_plan_chars else
                   f"{lines} steps, limit {self.max_plan_steps}")
            if size > KEPT_CHARS:
                plan_text = plan_text[:KEPT_CHARS] + \
                    f"\n... [{size - KEPT_CHARS} characters cut]"
            result = PlanCheck(ValidationReport(
                Verdict.PLAN_SYNTAX_ERROR, message=f"the answer is too long ({why})"), 0, ())
        elif self.condition == "words":
            return self._step_words(plan_text)
        else:
            result = self.checker.check(plan_text)
        return self._finish(plan_text, result)

    def _step_words(self, plan_text: str) -> tuple[str, bool, dict]:
        """The words condition: the reader maps the steps onto actions, and the actions are
        checked as a PDDL plan. An unreadable step makes the plan unreadable (the
        constraints are still judged on what was mapped)."""
        from planning_core.validators.adaptive.words import MAX_WORD_STEPS, split_steps

        steps = split_steps(plan_text)
        if len(steps) > MAX_WORD_STEPS:
            result = PlanCheck(ValidationReport(
                Verdict.PLAN_SYNTAX_ERROR, message=f"the answer is too long ({len(steps)} "
                f"steps, limit {MAX_WORD_STEPS})"), 0, ())
            return self._finish(plan_text, result, words={"steps": [], "pddl": "",
                                                          "error": result.report.message})
        mapping = self.reader(steps) if steps else {"steps": []}
        actions = [a for m in mapping["steps"] for a in m.get("actions", ())]
        if len(actions) > self.max_plan_steps:      # a reader that maps to too much
            result = PlanCheck(ValidationReport(
                Verdict.PLAN_SYNTAX_ERROR, message=f"the reader mapped the plan to "
                f"{len(actions)} actions, limit {self.max_plan_steps}"), 0, ())
            return self._finish(plan_text, result, words={
                "reader": mapping.get("reader"), "steps": [], "pddl": "",
                "error": result.report.message})
        pddl_text = "\n".join(actions)
        words = dict(mapping, pddl=pddl_text)
        result = self.checker.check(pddl_text)
        unreadable = [i for i, m in enumerate(mapping["steps"], start=1) if "unreadable" in m]
        return self._finish(plan_text, result, words=words,
                            readable=result.readable and not unreadable
                            and "error" not in mapping)

    def _finish(self, plan_text: str, result: PlanCheck, words: dict | None = None,
                readable: bool | None = None) -> tuple[str, bool, dict]:
        rubric = self.judges(self.request, plan_text) if self.judges is not None else None
        turn = self._judge(plan_text, result, rubric=rubric, words=words,
                           readable=result.readable if readable is None else readable)
        self.turns.append(turn)
        info = {"turn": turn, "feedback": self._feedback_json(turn, result),
                "verdict": _verdict_json(turn, result),
                "revealed": [c.id for c in self.revealed], "outcome": self.outcome}
        return turn.feedback, self.done, info

    def _judge(self, plan_text: str, result: PlanCheck, *, rubric: dict | None = None,
               words: dict | None = None, readable: bool = True) -> Turn:
        index = len(self.turns) + 1
        phase = self.phase
        known = {c.id for c in self.revealed}
        violated = result.violated
        world = [c for c in violated if self._by_id[c].type == "world"]
        user = [c for c in violated if self._by_id[c].type == "user"]
        revealed_type = "world" if world else "user" if user else None
        selected = world or user                      # F_t: the paper's rule (L309-L312)
        repeated = tuple(c for c in selected if c in known)
        revealed = tuple(c for c in selected if c not in known)
        self.revealed.extend(self._by_id[c] for c in revealed)
        # ConPass, judged on every step; an answer without a step proposes no plan
        valid = readable and not violated and (result.steps > 0 or result.solves_task)
        # Acc's second half: RubPass in the judged mode, the task check in the symbolic one
        success = valid and (rubric["pass"] if rubric is not None else result.solves_task)
        stall = phase == "main" and not revealed and not valid
        if phase == "main":
            streak = 0
            for t in reversed(self.turns):
                if not t.stall:
                    break
                streak += 1
            if valid:
                self._end("success" if success else "unsolved")
            elif stall and streak + 1 >= self.patience:
                self._end("early_stop")
            elif index >= self.max_turns:
                self._end("max_turns")
        elif success:
            self.done, self.outcome = True, "success"
        elif index >= self._refine_until:
            self.done, self.outcome = True, "refine_exhausted"
        turn = Turn(index, plan_text, result.report.verdict.value, result.executable,
                    result.solves_task, None if result.executable else result.report.step,
                    violated, revealed, revealed_type, repeated, success, stall,
                    readable=readable, phase=phase, rubric=rubric, words=words)
        text, simulated = self._feedback_text(turn, result)
        return replace(turn, feedback=text, simulator=simulated)

    def _end(self, outcome: str) -> None:
        """End the standard protocol; a failed, not early-stopped episode goes on to
        ``refine`` refinement turns (L126, L400-L403)."""
        self.main_outcome = outcome
        if self.refine and outcome in ("unsolved", "max_turns"):
            self.phase = "refine"
            self._refine_until = len(self.turns) + 1 + self.refine
            return
        self.done, self.outcome = True, outcome

    def episode(self) -> Episode:
        world = tuple(c.id for c in self.constraints if c.type == "world")
        judges = self.judges
        return Episode(self.task_id, self.tier, tuple(self.turns), self.outcome, len(world),
                       len(self.constraints) - len(world), world, self.constraint_set,
                       self.refine, self.main_outcome if self.done else None,
                       condition=self.condition,
                       judges=tuple(judges.names) if judges is not None else (),
                       gamma=judges.gamma if judges is not None else None)

    # ----------------------------------------------------------------------- feedback

    def _detail(self, result: PlanCheck) -> dict:
        return {v.id: v for v in result.violations}

    def _feedback_text(self, turn: Turn, result: PlanCheck) -> tuple[str, dict | None]:
        """The feedback the agent reads, and the simulator's record. The constraints are
        said as the user would say them (:func:`.words.spoken`: no id, no step, no object's
        attribute), or, with a simulator, in the simulator's words."""
        from planning_core.validators.adaptive.words import parse_simulated, \
            simulator_prompt, spoken

        lines = [f"Turn {turn.index}: " + ("the plan is accepted." if turn.success
                                          else "the plan is not accepted.")]
        report = result.report
        new = [spoken(self._by_id[c]) for c in turn.revealed]
        again = [spoken(self._by_id[c]) for c in turn.repeated]
        said = new + [f"As I told you before: {s[0].lower() + s[1:]}" for s in again]
        simulated = None
        if said and self.simulator is not None:
            answer = self.simulator(simulator_prompt(new, again))
            try:
                said = [parse_simulated(answer)]
                simulated = {"simulator": self.simulator_name or "model"}
            except ValueError as err:       # the template's words stand in
                kept = answer if isinstance(answer, str) else repr(answer)
                simulated = {"simulator": self.simulator_name or "model",
                             "error": str(err), "answer": kept[:KEPT_CHARS // 4]}
        lines.extend(said)
        withheld = _withheld(turn)
        if self.hint_withheld and withheld:
            lines.append("The plan also breaks constraint(s) of the other type, "
                         "reported once those above are respected.")
        refining = self.phase == "refine" and turn.constraints_met  # rubric feedback
        over = self.done and self.outcome in ("unsolved", "refine_exhausted")
        empty = turn.readable and not plan_has_steps(turn.plan) and not turn.solves_task
        if empty:
            lines.append("The answer holds no plan steps.")
        unfollowed = [(i, m) for i, m in enumerate((turn.words or {}).get("steps", ()),
                                                   start=1) if "unreadable" in m]
        for i, m in unfollowed[:10]:
            lines.append(f"I could not follow step {i} (\"{_short(m['step'])}\"): "
                         f"{m['unreadable']}")
        if turn.words is not None and "error" in turn.words:
            lines.append("I could not follow the plan.")
        judged = turn.rubric is not None
        if turn.words is None and not turn.readable:
            lines.append(_task_failure(report))
        elif judged and refining and not turn.success:
            lines.append(_rubric_failure(turn.rubric))
        elif ((self.validator_feedback or (not judged and (refining or over)))
              and not turn.solves_task and not empty and turn.readable):
            lines.append(_task_failure(report))
            if self.validator_feedback or refining:
                lines.extend("  " + a for a in report.advice)
        if self.phase == "refine" and turn.phase == "main":
            lines.append(f"The plan meets every constraint you were told of so far, but it "
                         f"is not yet judged good enough: {self.refine} refinement turn(s) "
                         "follow." if turn.constraints_met else
                         f"The turn budget is used up: {self.refine} refinement turn(s) "
                         "follow.")
        if self.done:
            lines.append({"success": "The episode is over: success.",
                          "unsolved": "The episode is over: the plan meets every constraint.",
                          "early_stop": f"Stopping: {self.patience} consecutive turns "
                                        "disclosed no new constraint.",
                          "max_turns": f"Stopping: the budget of {self.max_turns} turns is "
                                       "used up.",
                          "refine_exhausted": "Stopping: the refinement turns are used up."
                          }[self.outcome])
        return "\n".join(lines), simulated

    def _feedback_json(self, turn: Turn, result: PlanCheck) -> dict:
        details = self._detail(result)

        def entry(cid: str) -> dict:
            c = self._by_id[cid]
            return {"id": cid, "type": c.type, "kind": c.kind, "text": c.text,
                    "formal": c.formal, "step": details[cid].step,
                    "detail": details[cid].detail}

        out = {"turn": turn.index, "phase": turn.phase, "accepted": turn.success,
               "revealed": [entry(c) for c in turn.revealed],
               "revealed_type": turn.revealed_type,
               "repeated": [entry(c) for c in turn.repeated],
               "done": self.done, "outcome": self.outcome}
        if not turn.readable or self.validator_feedback or (
                self.phase == "refine" and turn.constraints_met):
            out["message"] = _short(result.report.message)
            out["advice"] = list(result.report.advice)
        if self.hint_withheld:
            out["hidden_violations"] = len(_withheld(turn))
        return out


def _check_rubric(r: dict) -> None:
    """A turn's rubric record read back: judges a list of objects, mean null or eight
    numbers, gamma a number, pass a boolean."""
    from planning_core.validators.adaptive.rubric import KEYS

    if not isinstance(r.get("judges"), list) or not all(isinstance(j, dict)
                                                        for j in r["judges"]):
        raise TypeError("rubric.judges must be a list of objects")
    mean = r.get("mean")
    if mean is not None and not (isinstance(mean, dict) and all(
            isinstance(mean.get(k), (int, float)) and not isinstance(mean.get(k), bool)
            for k in KEYS)):
        raise TypeError("rubric.mean must be null or a number for each of the eight "
                        "dimensions")
    if not isinstance(r.get("gamma"), (int, float)) or isinstance(r.get("gamma"), bool):
        raise TypeError("rubric.gamma must be a number")
    if not isinstance(r.get("pass"), bool):
        raise TypeError("rubric.pass must be a boolean")


def _need(d: dict, key: str, kind: type) -> None:
    value = d[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"{key} must be {'an' if kind is int else 'a'} "
                        f"{ {int: 'integer', str: 'string', bool: 'boolean'}[kind] }, "
                        f"not {value!r:.40}")


def _need_strings(d: dict, key: str) -> None:
    value = d[key]
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise TypeError(f"{key} must be a list of strings, not {value!r:.40}")


def _withheld(turn: Turn) -> list[str]:
    return [c for c in turn.violated if c not in turn.revealed and c not in turn.repeated]


def _verdict_json(turn: Turn, result: PlanCheck) -> dict:
    """The validator's verdict and every violation: the record, not the feedback."""
    return {"readable": turn.readable, "executable": turn.executable,
            "solves_task": turn.solves_task, "verdict": turn.verdict,
            "failing_step": turn.failing_step, "message": _short(result.report.message),
            "violated": list(turn.violated), "withheld": _withheld(turn),
            "skipped_steps": list(result.skipped)}


def _step_lines(text: str) -> int:
    return sum(1 for line in text.splitlines()
               if line.strip() and not line.lstrip().startswith(";"))


def plan_has_steps(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith(";") for line in text.splitlines())


def _rubric_failure(rubric: dict) -> str:
    """The judged mode's refinement feedback (L402): the dimensions below gamma and the
    judges' reasons for them."""
    from planning_core.validators.adaptive.rubric import KEYS, NAMES

    mean, gamma = rubric.get("mean"), rubric.get("gamma")
    if mean is None:
        return "The plan could not be judged."
    low = [k for k in KEYS if mean[k] < gamma - 1e-9]
    parts = []
    for k in low:
        reasons = [j["reasons"][k] for j in rubric["judges"]
                   if isinstance(j.get("reasons"), dict) and k in j["reasons"]]
        parts.append(f"{NAMES[k].lower()} ({mean[k]:.2f})"
                     + (f": {_short(reasons[0])}" if reasons else ""))
    return "The plan is judged below the bar on " + "; ".join(parts) + "."


def _task_failure(report) -> str:
    if report.verdict is Verdict.VALID:
        return "The plan executes and reaches the goal."
    if report.verdict is Verdict.GOAL_NOT_SATISFIED:
        return "The plan executes, but does not reach the goal: " + \
            " ".join(report.unsatisfied_goals)
    if report.verdict is Verdict.CONSTRAINT_VIOLATED:
        return "The plan breaks a constraint of the task itself: " + report.message
    if report.verdict is Verdict.PLAN_SYNTAX_ERROR:
        return "The plan cannot be read: " + _short(report.message)
    return f"The plan cannot be executed: {_short(report.message)}"


def _short(message: str) -> str:
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return message[:MAX_MESSAGE_CHARS] + f"... [{len(message) - MAX_MESSAGE_CHARS} characters cut]"
