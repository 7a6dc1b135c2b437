"""AdaPlanBench's metrics over finished episodes, with Wald 95% intervals, per tier.

The definitions are the paper's (Liu et al. 2026, arXiv 2606.05622, L84 and Appendix C.4
"Metric Details", L328-L370), over ``N`` queries: every episode run, and every query that
failed to run (a profile that did not load counts as a failed query: it is in ``N`` for
Acc, VPR and the shares, never a success; the paper divides by all 307, L405). Episodes
``i`` have ``T_i`` turns, with ``F_{i,t}^x`` the constraints of
type ``x`` in the turn-``t`` feedback (:mod:`.env`), ``D_{i,t}^x`` those disclosed before
turn ``t`` and ``Rep_{i,t}^x = F_{i,t}^x & D_{i,t}^x``:

* **Acc** ``= 1/N sum_i [ConPass_{i,T_i} and RubPass_{i,T_i}]``: the terminal plan of the
  standard protocol violates no constraint and passes: in the judged mode the rubric
  judges' averaged scores all reach gamma (:mod:`.rubric`), in the symbolic mode the task
  check (it executes and reaches the goal); i.e. the standard protocol ends in ``success``.
  Every measure of Table 3 is over the standard protocol's turns; refinement turns are
  reported apart (:func:`per_refinement`).
* **VPR** ``= 1/N sum_i [ConPass_{i,T_i}]``: the terminal plan violates no constraint.
* **Avg Turns** ``= 1/N sum_i T_i``.
* **AWRV / AURV** ``= 1/N sum_i sum_t |Rep_{i,t}^w|`` (``^u``): repeated violations of
  disclosed world / user constraints.
* **ATWC / ATUC** ``= 1/N sum_i |U_t F_{i,t}^w| / T_i`` (``^u``): distinct world / user
  constraints disclosed in the episode, per turn.
* **ES / MT** (not in Table 3; the paper reports the early-stop share in the text, 17.91%
  on average, L99, and max-turn cases in D.2.1, L413): the share of queries whose standard
  protocol ended by early stop / by the turn budget.

The means (Avg Turns, AWRV, AURV, ATWC, ATUC) are over the episodes that ran; a failed
query has no turns to average.

Intervals: the paper gives Wald 95% intervals for Acc, ``p +- 1.96 sqrt(p (1 - p) / n)``
with ``n`` the episodes (Appendix "Confidence Intervals"); we use the same for VPR (also a
share of episodes) and, ours, ``m +- 1.96 s / sqrt(n)`` (``s`` the sample standard
deviation) for the means. Not clipped; ``None`` when ``n == 0``, or ``n < 2`` for a mean.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from pathlib import Path

from planning_core.validators.adaptive.env import Episode
from planning_core import safe_json

__all__ = ["METRICS", "Estimate", "metrics", "metrics_by_tier", "per_turn", "per_refinement",
           "render_markdown", "rubric_by_tier", "acc_by_gamma", "rubric_per_turn",
           "plot_rubric", "mode_of", "condition_of", "plot_degradation", "read_episodes"]

METRICS = ("Acc", "VPR", "Avg Turns", "AWRV", "AURV", "ATWC", "ATUC", "ES", "MT")
SHARES = ("Acc", "VPR", "ES", "MT")
RUBRIC_NOTE = (
    "The paper's rubric (three LLM judges scoring feasibility, physical plausibility, "
    "effectiveness and safety 1-5, passing at 4; L66-L78) has no symbolic counterpart. "
    "Symbolic Acc: the terminal plan meets every constraint of the tier (judged on every "
    "step) and the validator finds it executable and reaching the goal; VPR: the terminal "
    "plan meets every constraint. Acc can differ from the paper's where a plan is "
    "executable and reaches the goal but a judge would find it unsafe or implausible "
    "(higher here), or where a judge would accept a plan the PDDL model refuses (lower "
    "here).")
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
        """Table 3's precision (L85-L96, Table 9 L414-L424): shares in percent with two
        decimals (67.75 ± 5.23), means with three (4.493)."""
        scale, digits = (100.0, 2) if percent else (1.0, 3)
        value = f"{self.value * scale:.{digits}f}"
        if self.half_width is None:
            return value
        return f"{value} ± {self.half_width * scale:.{digits}f}"


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


def metrics(episodes: list[Episode], failed: int = 0) -> dict[str, Estimate]:
    """The metrics of the module docstring over ``episodes`` and ``failed`` queries that
    did not run, under the standard protocol (Table 3): refinement turns are left out
    (they are reported apart, :func:`per_refinement`)."""
    n = len(episodes) + failed
    return {
        "Acc": proportion(sum(e.main_success for e in episodes), n),
        "VPR": proportion(sum(e.main_valid for e in episodes), n),
        "Avg Turns": mean([len(e.main_turns) for e in episodes]),
        "AWRV": mean([e.repeated_of("world", main=True) for e in episodes]),
        "AURV": mean([e.repeated_of("user", main=True) for e in episodes]),
        "ATWC": mean([_per_turn(e.revealed_of("world", main=True), e) for e in episodes]),
        "ATUC": mean([_per_turn(e.revealed_of("user", main=True), e) for e in episodes]),
        "ES": proportion(sum(e.main_outcome == "early_stop" for e in episodes), n),
        "MT": proportion(sum(e.main_outcome == "max_turns" for e in episodes), n),
    }


def _per_turn(count: int, episode: Episode) -> float:
    main = episode.main_turns
    return count / len(main) if main else 0.0


def _row_key(group: str, tier: str) -> str:
    return f"{group} / {tier}" if group else tier


def metrics_by_tier(episodes: list[Episode], failures: list[dict] = (),
                    overall: bool = False) -> dict[str, dict[str, Estimate]]:
    """Metrics per tier (in order of first appearance), and ``"overall"`` (the tiers
    pooled) only when asked; ``failures`` are the failure rows (``{"tier": ..., "error":
    ...}``) counted as failed queries. Episodes of several groups (agents or protocol
    settings, :func:`read_results`) are never pooled: the rows are ``"GROUP / TIER"`` (and
    ``"GROUP / overall"``)."""
    groups = list(dict.fromkeys([e.group for e in episodes] +
                                [f.get("group", "") for f in failures]))
    out = {}
    for g in groups:
        eps = [e for e in episodes if e.group == g]
        fails = [f for f in failures if f.get("group", "") == g]
        tiers = list(dict.fromkeys([e.tier for e in eps] + [f.get("tier") for f in fails]))
        for t in tiers:
            out[_row_key(g, t)] = metrics([e for e in eps if e.tier == t],
                                          sum(1 for f in fails if f.get("tier") == t))
        if overall:
            out[_row_key(g, "overall")] = metrics(eps, len(fails))
    if not groups:
        out["overall"] = metrics([], 0)
    return out


def _rows(episodes: list[Episode]) -> dict[str, list[Episode]]:
    out: dict[str, list[Episode]] = {}
    for e in episodes:
        out.setdefault(_row_key(e.group, e.tier), []).append(e)
    return out


def mode_of(episodes: list[Episode]) -> str:
    """``judged (a, b, c; gamma 4.00)``, ``symbolic``, or ``mixed``: which Acc a row is."""
    kinds = {(e.judges, e.gamma) for e in episodes}
    if len(kinds) > 1:
        return "mixed"
    judges, gamma = next(iter(kinds), ((), None))
    return f"judged ({', '.join(judges)}; gamma {gamma:.2f})" if judges else "symbolic"


def condition_of(episodes: list[Episode]) -> str:
    kinds = {e.condition for e in episodes}
    return kinds.pop() if len(kinds) == 1 else ("mixed" if kinds else "pddl")


def _last_rubric(e: Episode) -> dict | None:
    main = e.main_turns
    return main[-1].rubric if main else None


def rubric_by_tier(episodes: list[Episode]) -> dict[str, dict[str, Estimate]]:
    """Tables 4 and 8 (L111-L122, L388-L399): per row, the mean over its queries of the
    aggregated score of each dimension on the last plan of the standard protocol (the plan
    the human annotators graded, L486); ``judge failures``: judge answers that could not
    be read, over every judged turn of the row, and ``unjudged``: last plans no judge
    could score (they fail RubPass). Judged episodes only."""
    from planning_core.validators.adaptive.rubric import KEYS

    out = {}
    for row, eps in _rows([e for e in episodes if e.judged]).items():
        means = [r["mean"] for r in map(_last_rubric, eps) if r and r.get("mean")]
        table = {k: mean([m[k] for m in means]) for k in KEYS}
        fails = sum(1 for e in eps for t in e.turns if t.rubric
                    for j in t.rubric["judges"] if "error" in j)
        calls = sum(len(t.rubric["judges"]) for e in eps for t in e.turns if t.rubric)
        out[row] = dict(table, **{"judge failures": Estimate(fails, None, calls),
                                  "unjudged": Estimate(len(eps) - len(means), None,
                                                       len(eps))})
    return out


def acc_by_gamma(episodes: list[Episode], failures: list[dict] = ()) \
        -> dict[str, dict[float, Estimate]]:
    """Table 10 (L430-L441): Acc per row at each threshold of :data:`.rubric.GAMMA_SWEEP`,
    recomputed from the last plan of the standard protocol (ConPass and every aggregated
    dimension at least gamma; the standard protocol ends on ConPass whatever gamma is, so
    the recomputation is exact). Judged episodes only."""
    from planning_core.validators.adaptive.rubric import GAMMA_SWEEP, passes

    out = {}
    for row, eps in _rows([e for e in episodes if e.judged]).items():
        failed = sum(1 for f in failures if _row_key(f.get("group", ""), f.get("tier")) == row)
        n = len(eps) + failed
        out[row] = {}
        for g in GAMMA_SWEEP:
            ok = sum(1 for e in eps if e.main_valid and (r := _last_rubric(e)) is not None
                     and passes(r.get("mean"), g))
            out[row][g] = proportion(ok, n)
    return out


def rubric_per_turn(episodes: list[Episode]) -> dict[int, dict[str, Estimate]]:
    """Figure 3 (L110): turn ``t`` -> the mean aggregated score of each dimension over the
    episodes still in the standard protocol at ``t`` whose turn-``t`` plan was scored."""
    from planning_core.validators.adaptive.rubric import KEYS

    last = max((len(e.main_turns) for e in episodes), default=0)
    out = {}
    for t in range(1, last + 1):
        scored = [e.main_turns[t - 1].rubric["mean"] for e in episodes
                  if len(e.main_turns) >= t and e.main_turns[t - 1].rubric
                  and e.main_turns[t - 1].rubric.get("mean")]
        out[t] = {k: mean([m[k] for m in scored]) for k in KEYS}
    return out


def plot_rubric(episodes: list[Episode], path: str | Path) -> None:
    """The per-turn rubric plot (the paper's Figure 3, L110): one panel per selected
    dimension (feasibility, physical plausibility, effectiveness, safety), the mean
    aggregated score by turn, a line per row (agent and tier)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from planning_core.validators.adaptive.rubric import NAMES, SELECTED

    fig, axes = plt.subplots(1, len(SELECTED), figsize=(14, 3.5))
    rows = _rows([e for e in episodes if e.judged])
    for row, eps in rows.items():
        curve = rubric_per_turn(eps)
        xs = [t for t in sorted(curve) if curve[t][SELECTED[0]].n]
        for ax, key in zip(axes, SELECTED):
            ax.plot(xs, [curve[t][key].value for t in xs], marker="o", label=row)
    for ax, key in zip(axes, SELECTED):
        ax.set(xlabel="turn", ylabel=f"{NAMES[key]} (1-5)", ylim=(1, 5))
    if rows:
        axes[0].legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def per_turn(episodes: list[Episode], max_turn: int | None = None) -> dict[int, dict]:
    """Turn ``t`` -> cumulative Acc (episodes solved by turn ``t``, over all episodes) and,
    over the episodes still running at ``t``, the share of turn-``t`` plans that pass the
    task check (``solves``; the paper plots its rubric scores by turn) and that violate no
    constraint (``valid``): the per-turn degradation curves."""
    last = max_turn or max((len(e.main_turns) for e in episodes), default=0)
    out = {}
    for t in range(1, last + 1):
        solved = sum(1 for e in episodes if e.main_success and len(e.main_turns) <= t)
        at_t = [e.main_turns[t - 1] for e in episodes if len(e.main_turns) >= t]
        out[t] = {"acc": proportion(solved, len(episodes)),
                  "solves": proportion(sum(x.solves_task for x in at_t), len(at_t)),
                  "valid": proportion(sum(x.constraints_met for x in at_t), len(at_t))}
    return out


def per_refinement(episodes: list[Episode], failed: int = 0) -> dict[int, dict]:
    """Acc and VPR after ``k`` refinement turns, ``k = 0..max refine`` (the paper's Figure 5,
    L126): a query counts as solved once it succeeded within ``k`` refinement turns, and as
    valid when its latest plan by then meets every constraint. Queries that were not
    refined (success or early stop in the standard protocol) keep their standard values."""
    most = max((e.refine for e in episodes), default=0)
    n = len(episodes) + failed
    out = {}
    for k in range(most + 1):
        solved = valid = 0
        for e in episodes:
            main = [t for t in e.turns if t.phase == "main"]
            upto = main + [t for t in e.turns if t.phase == "refine"][:k]
            solved += any(t.success for t in upto)
            valid += bool(upto) and upto[-1].constraints_met
        out[k] = {"acc": proportion(solved, n), "vpr": proportion(valid, n)}
    return out


JUDGED_NOTE = (
    "Judged mode: Acc is the paper's, ConPass and RubPass on the last plan (L84, L343): "
    "every constraint met (checked exactly, as in the symbolic mode) and every dimension's "
    "score, averaged over the judges, at least gamma (L78, L337). A judge whose answer "
    "could not be read is left out of the average; a plan no judge could score fails.")


def _mode_lines(episodes: list[Episode]) -> list[str]:
    judged = any(e.judged for e in episodes)
    symbolic = any(not e.judged for e in episodes)
    words = any(e.condition == "words" for e in episodes)
    out = []
    if symbolic:
        out.append("Symbolic mode (the default): " + RUBRIC_NOTE)
    if judged:
        out.append(JUDGED_NOTE)
    out.append("Condition: " + ("words (a household request in words, plans in words "
                                "mapped onto the domain's actions by the reader, then "
                                "checked exactly)" if words else "") +
               (" and " if words and any(e.condition == "pddl" for e in episodes) else "") +
               ("PDDL (the task as PDDL, plans as PDDL steps; the default)"
                if any(e.condition == "pddl" for e in episodes) else "") + ".")
    return out


def render_markdown(episodes: list[Episode], title: str = "Adaptive planning",
                    failures: list[dict] = (), heading: bool = True,
                    overall: bool = False) -> str:
    """Table 3's columns per row (plus ES and MT shares), each row labelled with its mode
    (symbolic or judged) and condition (pddl or words); in the judged mode Tables 4, 8 and
    10; the refinement turns apart. ``overall`` adds a pooled row per agent."""
    from planning_core.validators.adaptive.rubric import GAMMA_SWEEP, KEYS, NAMES, SELECTED

    table = metrics_by_tier(episodes, failures, overall=overall)
    rows = _rows(episodes)
    lines = [f"# {title}", ""] if heading else []
    lines += ["Wald 95% intervals; Acc, VPR, ES (early stop) and MT (turn budget reached) in "
              "percent of N, every query counted (failed: did not run). Definitions "
              "(AdaPlanBench's, L84, Appendix C.4): docs/adaptive.md. Table 3 is the "
              "standard protocol: refinement turns are not counted in it (see below)."]
    lines += ["", *_mode_lines(episodes), "",
              "| tier | mode | condition | N | failed | " + " | ".join(METRICS) + " |",
              "|---|---|---|---:|---:|" + "---:|" * len(METRICS)]
    for tier, row in table.items():
        n = row["Acc"].n
        failed = sum(1 for f in failures if _row_key(f.get("group", ""), "overall") == tier
                     or _row_key(f.get("group", ""), f.get("tier")) == tier)
        eps = rows.get(tier)
        if eps is None:      # an overall row: the group's episodes
            group = tier.rsplit(" / ", 1)[0] if " / " in tier else ""
            eps = [e for e in episodes if e.group == group]
        cells = [row[m].render(percent=m in SHARES) for m in METRICS]
        lines.append(f"| {tier} | {mode_of(eps)} | {condition_of(eps)} | {n} | {failed} | "
                     + " | ".join(cells) + " |")
    rubric = rubric_by_tier(episodes)
    if rubric:
        for caption, keys in (("Table 4's dimensions (L111-L122): mean aggregated score "
                               "of the last plan, 1-5", SELECTED),
                              ("All eight dimensions, as Table 8 (L388-L399)", KEYS)):
            lines += ["", caption + "; judge failures: unreadable judge answers over judge "
                      "calls; unjudged: last plans no judge scored.", "",
                      "| tier | " + " | ".join(NAMES[k] for k in keys) +
                      " | judge failures | unjudged |",
                      "|---|" + "---:|" * (len(keys) + 2)]
            for row, values in rubric.items():
                jf, un = values["judge failures"], values["unjudged"]
                lines.append(f"| {row} | " + " | ".join(values[k].render() for k in keys)
                             + f" | {int(jf.value)}/{jf.n} | {int(un.value)}/{un.n} |")
        lines += ["", "Acc at each rubric threshold gamma, as Table 10 (L430-L441; the "
                  "thresholds are the paper's):", "",
                  "| tier | " + " | ".join(f"gamma={g:.2f}" for g in GAMMA_SWEEP) + " |",
                  "|---|" + "---:|" * len(GAMMA_SWEEP)]
        for row, values in acc_by_gamma(episodes, failures).items():
            lines.append(f"| {row} | " + " | ".join(
                f"{values[g].value * 100:.2f}" for g in GAMMA_SWEEP) + " |")
    if any(e.refine for e in episodes):
        lines += ["", "Refinement (not part of Table 3): Acc and VPR after k refinement "
                  "turns (the paper's Figure 5, L126; queries that failed without an early "
                  "stop get them), per tier:", "",
                  "| tier | k | Acc | VPR |", "|---|---:|---:|---:|"]
        for tier in dict.fromkeys(_row_key(e.group, e.tier) for e in episodes):
            failed = sum(1 for f in failures
                         if _row_key(f.get("group", ""), f.get("tier")) == tier)
            curve = per_refinement([e for e in episodes
                                    if _row_key(e.group, e.tier) == tier], failed)
            lines += [f"| {tier} | {k} | {row['acc'].render(True)} | "
                      f"{row['vpr'].render(True)} |" for k, row in curve.items()]
    return "\n".join(lines) + "\n"


def plot_degradation(episodes: list[Episode], path: str | Path) -> None:
    """The per-turn degradation plot by tier: cumulative Acc, and the share of the turn's
    plans that solve the task and that violate no constraint (:func:`per_turn`)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(12, 3.5))
    for tier in dict.fromkeys(_row_key(e.group, e.tier) for e in episodes):
        curve = per_turn([e for e in episodes if _row_key(e.group, e.tier) == tier])
        xs = sorted(curve)
        ax1.plot(xs, [curve[t]["acc"].value * 100 for t in xs], marker="o", label=tier)
        ax2.plot(xs, [curve[t]["solves"].value * 100 for t in xs], marker="o", label=tier)
        ax3.plot(xs, [curve[t]["valid"].value * 100 for t in xs], marker="o", label=tier)
    ax1.set(xlabel="turn", ylabel="Acc by turn (%)", ylim=(0, 100))
    ax2.set(xlabel="turn", ylabel="plans solving the task (%)", ylim=(0, 100))
    ax3.set(xlabel="turn", ylabel="plans meeting all constraints (%)", ylim=(0, 100))
    if episodes:                  # an empty results file: empty axes, no legend warning
        ax1.legend(title="tier")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def read_episodes(path: str | Path) -> list[Episode]:
    """Episodes from a JSON Lines file written by ``adaptive run`` (failure rows left out;
    :func:`read_results` has them too)."""
    return read_results(path)[0]


#: The protocol settings a row's group does not name when they are these (the paper's).
_DEFAULT_PROTOCOL = {"max_turns": 20, "patience": 2, "refine": 0, "constraints": "both",
                     "hint_withheld": False, "validator_feedback": False,
                     "show_attributes": False}


def _group_of(row: dict) -> str:
    """The agent and the protocol settings that differ from the paper's, e.g.
    ``oracle constraints=world``."""
    protocol = row.get("protocol")
    protocol = dict(protocol) if isinstance(protocol, dict) else {}
    for key in ("constraints", "refine"):           # rows written before "protocol"
        if key in row and key not in protocol:
            protocol[key] = row[key]
    parts = [str(row.get("agent", "agent"))]
    parts += [f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"
              for k, v in sorted(protocol.items()) if _DEFAULT_PROTOCOL.get(k, object()) != v]
    return " ".join(parts)


def read_results(path: str | Path) -> tuple[list[Episode], list[dict]]:
    """Episodes and failure rows from a JSON Lines file written by ``adaptive run``. When
    the file holds rows of several agents or protocol settings, each episode and failure
    row gets its ``group`` (:func:`_group_of`) so that the report keeps them apart."""
    from planning_core.errors import InputError
    from planning_core.pddl.files import MAX_LINE_BYTES, read_lines

    found: dict[tuple, tuple[int, dict, Episode | None]] = {}
    # streamed by the shared bounded reader: a regular file only, one line in memory
    for raw in read_lines(path):
        n = raw.number
        if raw.data is None:
            raise InputError(f"a line longer than {MAX_LINE_BYTES >> 20} MB; not read (no "
                             "episode row is that long)", file=str(path), line=n)
        try:
            line = raw.data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InputError(f"not UTF-8 text (byte {raw.data[err.start]:#04x}); expected "
                             "JSON Lines", file=str(path), line=n, column=err.start + 1) from None
        if not line.strip():
            continue
        try:
            row = safe_json.loads(line)
            if not isinstance(row, dict):
                raise TypeError("a row must be a JSON object")
            if "error" in row:
                for key in ("task", "tier"):
                    if not isinstance(row.get(key), str):
                        raise TypeError(f"a failure row's {key} must be a string")
            episode = None if "error" in row else Episode.from_json(row)
            key = (row["task"], row["tier"], _group_of(row))
            if key in found:
                before, old, _ = found[key]
                # a query whose episode failed (a model error) is run again by a resumed
                # run: the later row supersedes it; any other repeat would weigh double
                if not (old.get("error") is not None and old.get("stage") == "episode"):
                    raise ValueError(f"the query {row['task']} (tier {row['tier']}, "
                                     f"{key[2]}) is already at line {before}")
            found[key] = (n, row, episode)
        except KeyError as err:
            raise InputError(f"not an episode row: no field {err}", file=str(path),
                             line=n) from None
        except (json.JSONDecodeError, TypeError, ValueError, AttributeError) as err:
            raise InputError(f"not an episode row: {err}", file=str(path), line=n) from None
    mixed = len({key[2] for key in found}) > 1
    episodes, failures = [], []
    for (_, _, group), (_, row, episode) in found.items():
        if episode is None:
            failures.append(dict(row, group=group) if mixed else row)
        else:
            episodes.append(replace(episode, group=group) if mixed else episode)
    return episodes, failures
