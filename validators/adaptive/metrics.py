"""AdaPlanBench's metrics over finished episodes, with Wald 95% intervals, per tier.

The paper names Acc, VPR, Avg Turns, AWRV, AURV, ATWC and ATUC; the text we could consult
does not give their formulas, so the definitions below are ours, chosen to be exact and
documented in ``docs/adaptive.md`` ("Metrics"):

* **Acc**: share of episodes that end in success (a plan that executes, reaches the goal
  and violates no constraint of the hidden profile). Unit: episode.
* **VPR** (valid plan rate): share of all turns whose plan solves the task and violates no
  constraint revealed *before* that turn, i.e. valid with respect to what the agent had been
  told. Unit: turn, pooled over episodes.
* **Avg Turns**: mean number of turns per episode.
* **AWRV / AURV**: mean number per episode of violations of already revealed world / user
  constraints (each constraint counts once per turn that breaks it again).
* **ATWC / ATUC**: mean number per episode of world / user constraints triggered
  (revealed).

Wald intervals: ``p +- 1.96 sqrt(p (1 - p) / n)`` for shares (the plain Wald interval, not clipped) and
``m +- 1.96 s / sqrt(n)`` (``s`` the sample standard deviation) for means; ``None`` when
``n < 2`` for means or ``n == 0``.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from planning_core.validators.adaptive.env import Episode

__all__ = ["METRICS", "Estimate", "metrics", "metrics_by_tier", "per_turn", "render_markdown",
           "plot_degradation", "read_episodes"]

METRICS = ("Acc", "VPR", "Avg Turns", "AWRV", "AURV", "ATWC", "ATUC")
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Estimate:
    value: float
    half_width: float | None
    n: int

    @property
    def low(self) -> float | None:
        return None if self.half_width is None else self.value - self.half_width

    def to_json(self) -> dict:
        return {"value": self.value, "ci95": self.half_width, "n": self.n}

    def render(self, percent: bool = False) -> str:
        scale = 100.0 if percent else 1.0
        value = f"{self.value * scale:.1f}" if percent else f"{self.value:.2f}"
        if self.half_width is None:
            return value
        half = f"{self.half_width * scale:.1f}" if percent else f"{self.half_width:.2f}"
        return f"{value} ± {half}"


def proportion(successes: int, n: int) -> Estimate:
    if n == 0:
        return Estimate(0.0, None, 0)
    p = successes / n
    half = Z95 * math.sqrt(p * (1 - p) / n)
    return Estimate(p, half, n)


def mean(values: list[float]) -> Estimate:
    n = len(values)
    if n == 0:
        return Estimate(0.0, None, 0)
    m = sum(values) / n
    if n < 2:
        return Estimate(m, None, n)
    s = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    return Estimate(m, Z95 * s / math.sqrt(n), n)


def metrics(episodes: list[Episode]) -> dict[str, Estimate]:
    """The seven metrics of the module docstring over ``episodes``."""
    turns = [t for e in episodes for t in e.turns]
    return {
        "Acc": proportion(sum(e.success for e in episodes), len(episodes)),
        "VPR": proportion(sum(t.respects_revealed for t in turns), len(turns)),
        "Avg Turns": mean([len(e.turns) for e in episodes]),
        "AWRV": mean([e.repeated_of("world") for e in episodes]),
        "AURV": mean([e.repeated_of("user") for e in episodes]),
        "ATWC": mean([e.revealed_of("world") for e in episodes]),
        "ATUC": mean([e.revealed_of("user") for e in episodes]),
    }


def metrics_by_tier(episodes: list[Episode]) -> dict[str, dict[str, Estimate]]:
    """Metrics per tier (in order of first appearance) and ``"overall"``."""
    tiers = list(dict.fromkeys(e.tier for e in episodes))
    out = {t: metrics([e for e in episodes if e.tier == t]) for t in tiers}
    out["overall"] = metrics(episodes)
    return out


def per_turn(episodes: list[Episode], max_turn: int | None = None) -> dict[int, dict]:
    """Turn ``t`` -> cumulative Acc (episodes solved by turn t, over all episodes) and the
    VPR of the turn-t plans of the episodes still running at t (the degradation curve)."""
    last = max_turn or max((len(e.turns) for e in episodes), default=0)
    out = {}
    for t in range(1, last + 1):
        solved = sum(1 for e in episodes if e.success and len(e.turns) <= t)
        at_t = [e.turns[t - 1] for e in episodes if len(e.turns) >= t]
        out[t] = {"acc": proportion(solved, len(episodes)),
                  "vpr": proportion(sum(x.respects_revealed for x in at_t), len(at_t))}
    return out


def render_markdown(episodes: list[Episode], title: str = "Adaptive planning") -> str:
    table = metrics_by_tier(episodes)
    lines = [f"# {title}", "",
             "Wald 95% intervals; Acc and VPR in percent. Definitions: docs/adaptive.md.", "",
             "| tier | episodes | " + " | ".join(METRICS) + " |",
             "|---|---:|" + "---:|" * len(METRICS)]
    for tier, row in table.items():
        n = row["Acc"].n
        cells = [row[m].render(percent=m in ("Acc", "VPR")) for m in METRICS]
        lines.append(f"| {tier} | {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot_degradation(episodes: list[Episode], path: str | Path) -> None:
    """The per-turn degradation plot: cumulative Acc and per-turn VPR by tier."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.5))
    for tier in dict.fromkeys(e.tier for e in episodes):
        curve = per_turn([e for e in episodes if e.tier == tier])
        xs = sorted(curve)
        ax1.plot(xs, [curve[t]["acc"].value * 100 for t in xs], marker="o", label=tier)
        ax2.plot(xs, [curve[t]["vpr"].value * 100 for t in xs], marker="o", label=tier)
    ax1.set(xlabel="turn", ylabel="Acc by turn (%)", ylim=(0, 100))
    ax2.set(xlabel="turn", ylabel="valid plans at turn (%)", ylim=(0, 100))
    ax1.legend(title="tier")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def read_episodes(path: str | Path) -> list[Episode]:
    """Episodes from a JSON Lines file written by ``adaptive run`` (failure rows skipped)."""
    from planning_core.errors import InputError
    from planning_core.pddl.files import read_text

    episodes = []
    for n, line in enumerate(read_text(path, expected="JSON Lines").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if "error" in row:
                continue
            episodes.append(Episode.from_json(row))
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise InputError(f"not an episode row: {err}", file=str(path), line=n) from None
    return episodes
