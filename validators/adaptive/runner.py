"""Batch runs: every profile x tier with one agent, one JSON line per episode.

Rows already in the output (same task, tier, agent and protocol settings: every row records
its ``protocol``, the :class:`AdaptiveEnv` options it ran under) are skipped, so an
interrupted run resumes, and a run under other settings (``--constraints world`` beside
``both``, another patience) into the same file adds its rows instead of skipping them. The output is opened through :func:`planning_core.results_file.open_results`, like
every batch command's: locked for the run (a second run on the same file stops at once) and
cut after its last whole line (a run killed while writing leaves no torn row behind). A
profile that cannot be loaded becomes one failure row per requested tier, a tier the profile
lacks one failure row (``{"task", "tier", "agent", "error"}``), and the batch goes on: the
report counts every failure row as a failed query (the paper divides by all its N queries,
L405), so a broken profile cannot raise Acc by dropping out. A failure row's ``stage`` says
where it failed: ``load`` (the profile or its tier) is final; ``episode`` (the agent failed,
e.g. a model that could not be reached) is run again by a resumed run, whose row then
supersedes it in the report.
"""
from __future__ import annotations

import json
from pathlib import Path

from planning_core.errors import PlanningError
from planning_core.results_file import append_row, open_results
from planning_core.validators.adaptive.agents import run_episode
from planning_core.validators.adaptive.env import AdaptiveEnv
from planning_core.validators.adaptive.tasks import load_task
from planning_core import safe_json

__all__ = ["run_profiles"]


def _protocol_key(protocol) -> str:
    return json.dumps(protocol, sort_keys=True)


def _done(out: Path) -> set:
    if not out.exists():
        return set()
    from planning_core.pddl.files import read_lines

    keys = set()
    # streamed by the shared bounded reader: a regular file only (a FIFO is refused), one
    # line in memory; a line past its cap or not UTF-8 is no row of ours: run again
    for found in read_lines(out):
        line = found.text("replace")
        if line is None:
            continue
        try:
            row = safe_json.loads(line)
            if not isinstance(row, dict):   # "[1]" or "3": no row of ours (was AttributeError)
                continue
            if row.get("error") is not None and row.get("stage") == "episode":
                continue        # the episode failed (a model error): run it again
            keys.add((row["task"], row["tier"], row.get("agent"),
                      _protocol_key(row.get("protocol"))))
        except (json.JSONDecodeError, KeyError, TypeError):
            continue
    return keys


def run_profiles(profiles: list[Path], make_agent, tiers: list[str], out: Path, *,
                 agent_name: str = "agent", protocol_extra: dict | None = None,
                 env_extra=None, **env_options) -> dict:
    """Run every profile x tier; ``env_options`` go to :class:`AdaptiveEnv` (max_turns,
    patience, refine, constraints, hint_withheld, validator_feedback, show_attributes).
    ``env_extra(domain, problem)`` gives the further options built per task (the judges,
    the reader, the simulator of the judged mode and the words condition), and
    ``protocol_extra`` names them in every row's ``protocol`` (only what differs from the
    default: rows of the default PDDL condition in the symbolic mode look as before)."""
    f, _ = open_results(out)
    protocol = dict(sorted({**env_options, **(protocol_extra or {})}.items()))
    setting = _protocol_key(protocol)
    counts = {"run": 0, "skipped": 0, "failed": 0}
    with f:
        done = _done(out)
        for path in profiles:
            task_id = str(path)
            try:
                profile, domain, problem = load_task(path)
            except PlanningError as err:
                for tier in tiers:
                    if (task_id, tier, agent_name, setting) in done:
                        counts["skipped"] += 1
                        continue
                    append_row(f, {"task": task_id, "tier": tier, "agent": agent_name,
                                   "protocol": protocol, "stage": "load",
                                   "error": str(err)})
                    done.add((task_id, tier, agent_name, setting))
                    counts["failed"] += 1
                continue
            for tier in tiers:
                if (task_id, tier, agent_name, setting) in done:
                    counts["skipped"] += 1
                    continue
                stage = "load"                  # the profile lacks the tier: final
                try:
                    extra = env_extra(domain, problem) if env_extra else {}
                    env = AdaptiveEnv(domain, problem, profile, tier, task_id=task_id,
                                      **env_options, **extra)
                    stage = "episode"
                    row = dict(run_episode(env, make_agent()).to_json(), agent=agent_name,
                               protocol=protocol)
                    counts["run"] += 1
                except PlanningError as err:
                    row = {"task": task_id, "tier": tier, "agent": agent_name,
                           "protocol": protocol, "stage": stage, "error": str(err)}
                    counts["failed"] += 1
                append_row(f, row)
                done.add((task_id, tier, agent_name, setting))   # a tier named twice
    return counts
