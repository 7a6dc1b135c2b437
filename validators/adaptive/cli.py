"""``planning-core adaptive ...``: build profiles, play, run agents, report metrics.

* ``adaptive build TASKS... --out DIR``: a profile (three tiers) per task found under the
  given files or folders; a task that cannot be built is reported and skipped (exit 1).
  Each task has ``--time-limit`` CPU seconds (default 300) and ``--memory-limit`` MB for
  everything it does; a task past them is such a failure row, naming the limit.
* ``adaptive generate --out DIR [--count 307] [--seed 0]``: the household-jobs tasks at
  the paper's scale (``DIR/household-jobs/``) and their three-tier profiles
  (``DIR/profiles/household-jobs/``), built by the paper's pipeline with the paper's two
  constraint kinds. Generated files of an earlier run that this one does not write
  (``pNNN.pddl``/``pNNN.json`` beyond ``--count``) are removed; other files are kept.
* ``adaptive play PROFILE [--tier T]``: an interactive session (tier ``mid`` by default,
  the paper's headline tier); type a plan, end it with an empty line; the environment
  answers with the feedback. End of input ends the session.
* ``adaptive run PROFILES... --agent A --out R.jsonl``: episodes of a scripted agent
  (``same``, ``oracle``, ``oracle-no-user``) or of a model (``--agent model`` with the
  shared model options: ``--model NAME [--base-url URL]`` for an OpenAI-compatible endpoint,
  or ``--command CMD``), one JSON line per episode; episodes already in ``R.jsonl`` are
  skipped; tiers ``mid`` by default (``--tiers low,mid,high`` for all). From Python, any
  ``Model`` (prompt in, response out) drives ``agents.ModelAgent``.

``play`` and ``run`` share the protocol switches: ``--max-turns`` (20), ``--patience`` (2),
``--constraints world|user|both``, ``--refine N`` (refinement turns after a failed,
not early-stopped episode), ``--hint-withheld``, ``--validator-feedback``,
``--show-attributes`` (the last three are not the paper's).
* ``adaptive report R.jsonl [--out R.md] [--plot P.png]``: the metrics per tier.

Exit codes: 0 done; 1 some task could not be built; 2 bad input.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from planning_core.cli import ArgumentParser, ExitCode
from planning_core.cli.args import non_negative_int, number_between, positive_int, seconds
from planning_core.errors import InputError
from planning_core.validators.models.options import add_model_arguments

#: ``adaptive build``'s default per-task CPU limit (``tasks.BUILD_TIME_LIMIT_S``; not
#: imported from there: building the parser must not import the builder)
BUILD_TIME_LIMIT_S = 300.0

__all__ = ["register"]


def register(subparsers) -> None:
    """Add the ``adaptive`` command group to ``planning-core``'s subcommands."""
    from planning_core.cli.tables import add_format_only

    top = subparsers.add_parser("adaptive", help="adaptive planning under revealed constraints",
                                description="AdaPlanBench-style environment: hidden world and "
                                            "user constraints revealed on violation.")
    sub = top.add_subparsers(dest="adaptive_command", metavar="ADAPTIVE_COMMAND",
                             parser_class=ArgumentParser)
    sub.required = True

    p = sub.add_parser("build", help="build constraint profiles for tasks")
    p.add_argument("tasks", nargs="+", metavar="PATH", help="problem files or folders")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the profiles")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--rounds", type=positive_int, default=3, help="tiers (default 3)")
    p.add_argument("--limit", type=positive_int, metavar="N",
                   help="at most N problems per folder")
    p.add_argument("--diverse", choices=("auto", "kstar", "iterated"), default="auto",
                   help="diverse plans from K* (kstar-planner) or iterated solving")
    p.add_argument("--extended-kinds", action="store_true",
                   help="also the project's extension kinds (action_unusable, limited_use, "
                        "avoid_attribute, avoid_fact, order, at_most_once); by default only "
                        "the paper's two: object_unavailable and avoid_attribute_use")
    p.add_argument("--time-limit", type=seconds, default=BUILD_TIME_LIMIT_S, metavar="S",
                   help="CPU seconds per task (reading, grounding, every solve) before it is "
                        f"a failure row naming the limit (default {BUILD_TIME_LIMIT_S:g})")
    p.add_argument("--memory-limit", type=seconds, default=None, metavar="MB",
                   help="memory per task (default: half of the memory this process may use)")
    p.add_argument("--json", action="store_true", help="one JSON line per task")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("generate", help="household tasks and profiles at the paper's scale")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for tasks and profiles")
    p.add_argument("--count", type=positive_int, default=307,
                   help="problems (default 307, the paper's N)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--json", action="store_true", help="one JSON line per problem")
    p.set_defaults(func=cmd_generate)

    p = sub.add_parser("play", help="play a task in the terminal (you are the agent)")
    p.add_argument("profile", help="profile file")
    _episode_args(p)
    _role_args(p)
    add_model_arguments(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("run", help="run an agent on profiles")
    p.add_argument("profiles", nargs="+", metavar="PATH", help="profile files or folders")
    p.add_argument("--agent", choices=("same", "oracle", "oracle-no-user", "model"),
                   default="oracle", help="a scripted agent, or 'model' with the model options")
    p.add_argument("--tiers", default="mid",
                   help="comma-separated tier names (default mid, the paper's Table 3)")
    p.add_argument("--memory", action="store_true",
                   help="with --agent model: also list every constraint disclosed so far "
                        "(the paper's constraint-tracking module)")
    p.add_argument("--out", required=True, metavar="FILE", help="episodes, JSON Lines")
    _episode_args(p, tier=False)
    _role_args(p)
    add_model_arguments(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("report", help="metrics per tier from episodes")
    p.add_argument("results", help="episodes, JSON Lines (from adaptive run)")
    p.add_argument("--out", metavar="FILE", help="also write the tables (as --format)")
    p.add_argument("--plot", metavar="FILE", help="also write the per-turn plot (.png/.pdf/.svg)")
    p.add_argument("--rubric-plot", metavar="FILE",
                   help="also write the per-turn rubric plot of judged episodes (the "
                        "paper's Figure 3; .png/.pdf/.svg)")
    p.add_argument("--overall", action="store_true",
                   help="also a row pooling the tiers of each agent (not the paper's)")
    p.add_argument("--json", action="store_true", help="print JSON")
    add_format_only(p, "the tables (printed and --out)")
    p.set_defaults(func=cmd_report)


def _role_args(p) -> None:
    g = p.add_argument_group("the paper's judges, reader and user simulator (models at the "
                             "endpoint of the model options: --base-url, key, cache)")
    g.add_argument("--condition", choices=("pddl", "words"), default="pddl",
                   help="pddl (default): the task as PDDL, plans as PDDL steps; words: the "
                        "task as a household request, plans in words mapped onto the "
                        "domain's actions by --reader (the paper's condition)")
    g.add_argument("--reader", metavar="MODEL",
                   help="words condition: the model that maps a plan in words onto the "
                        "domain's actions; 'rules' (the default) reads only the step "
                        "sentences the scripted agents write ('pick up: iron, hall')")
    g.add_argument("--judge", action="append", default=[], metavar="MODEL",
                   help="judged mode: a rubric judge model (repeatable; the paper uses "
                        "three); Acc then needs every averaged dimension >= --gamma")
    g.add_argument("--gamma", type=number_between(1, 5), default=4.0, metavar="G",
                   help="judged mode: the rubric pass threshold (default 4, the paper's)")
    g.add_argument("--simulator", metavar="MODEL",
                   help="the paper's user simulator: this model says the disclosed "
                        "constraints in the user's words (default: the project's template)")


def _role_model(args: argparse.Namespace, name: str, what: str):
    """The client for a judge, reader or simulator: ``name`` at the endpoint the model
    options describe."""
    from planning_core.validators.models.options import model_from_args

    if args.command:
        raise InputError(f"{what} needs a model at an endpoint (--base-url), not --command")
    return model_from_args(argparse.Namespace(**{**vars(args), "model": name,
                                                 "command": None}))


def _roles(args: argparse.Namespace):
    """(protocol fields, env_extra(domain, problem)) for the judges, reader, simulator."""
    from planning_core.validators.adaptive.rubric import RubricJudges
    from planning_core.validators.adaptive.words import ModelReader

    protocol: dict = {}
    judges = None
    if args.judge:
        judges = RubricJudges([(name, _role_model(args, name, "--judge"))
                               for name in args.judge], gamma=args.gamma)
        protocol.update(judges=list(args.judge), gamma=args.gamma)
    reader_model = None
    if args.condition == "words":
        protocol["condition"] = "words"
        protocol["reader"] = args.reader or "rules"
        if args.reader and args.reader != "rules":
            reader_model = _role_model(args, args.reader, "--reader")
    elif args.reader:
        raise InputError("--reader reads plans in words: give it with --condition words")
    simulator = None
    if args.simulator:
        simulator = _role_model(args, args.simulator, "--simulator")
        protocol["simulator"] = args.simulator

    def env_extra(domain, problem) -> dict:
        extra = {"condition": args.condition, "judges": judges, "simulator": simulator,
                 "simulator_name": args.simulator}
        if reader_model is not None:
            extra["reader"] = ModelReader(reader_model, domain, problem, args.reader)
        return extra

    return protocol, env_extra


def _episode_args(p, tier: bool = True) -> None:
    if tier:
        p.add_argument("--tier", default="mid", help="tier name (default mid, the paper's "
                                                     "Table 3)")
    p.add_argument("--max-turns", type=positive_int, default=20, metavar="N",
                   help="turn budget (default 20, the paper's T)")
    p.add_argument("--patience", type=positive_int, default=2, metavar="N",
                   help="early stop after N consecutive turns without a new disclosure "
                        "(default 2, the paper's tau)")
    p.add_argument("--constraints", choices=("both", "world", "user"), default="both",
                   help="the paper's dual ablation: only the world or only the user "
                        "constraints of the tier (default both)")
    p.add_argument("--refine", type=non_negative_int, default=0, metavar="N",
                   help="refinement turns after a failed, not early-stopped episode: the "
                        "validator's verdict is fed back for a plan meeting every "
                        "constraint (the paper's rubric refinement; default 0)")
    p.add_argument("--hint-withheld", action="store_true",
                   help="say that the plan breaks withheld constraints of the other type "
                        "(not the paper's: it withholds them without a word)")
    p.add_argument("--validator-feedback", action="store_true",
                   help="add the validator's verdict and repair advice to every turn's "
                        "feedback (not the paper's: its feedback holds violations only)")
    p.add_argument("--show-attributes", action="store_true",
                   help="list the objects' attributes in the task (hidden by default: the "
                        "agent infers them, as in the paper)")


def _env_options(args: argparse.Namespace) -> dict:
    return {"max_turns": args.max_turns, "patience": args.patience, "refine": args.refine,
            "constraints": args.constraints, "hint_withheld": args.hint_withheld,
            "validator_feedback": args.validator_feedback,
            "show_attributes": args.show_attributes}


def cmd_build(args: argparse.Namespace) -> int:
    from planning_core.validators.adaptive.tasks import build_many, find_tasks

    tasks = find_tasks(args.tasks, limit=args.limit)
    if not tasks:
        raise InputError("no problem with a domain.pddl beside it", file=args.tasks[0])

    done = [0]
    if not args.json:   # progress: a folder can hold hundreds of tasks, seconds each
        print(f"building {len(tasks)} profile(s) into {args.out}", file=sys.stderr)

    def show(row: dict) -> None:
        done[0] += 1
        step = f"[{done[0]}/{len(tasks)}] "
        if args.json:
            print(json.dumps(row))
        elif "error" in row:
            print(f"{step}{row['task']}: FAILED: {row['error']}")
        else:
            sizes = " ".join(f"{k}={v}" for k, v in row["tiers"].items())
            print(f"{step}{row['task']}: {sizes} -> {row['profile']}"
                  + (f"\n  no constraint: {row['note']}" if row.get("note") else ""))
        sys.stdout.flush()

    from planning_core.validators.adaptive.profile import KINDS, PAPER_KINDS

    rows = build_many(tasks, Path(args.out), seed=args.seed, rounds=args.rounds,
                      method=args.diverse, on_done=show,
                      kinds=KINDS if args.extended_kinds else PAPER_KINDS,
                      time_limit=args.time_limit, memory_limit=args.memory_limit)
    failed = sum("error" in r for r in rows)
    if not args.json:
        print(f"{len(rows) - failed} profile(s) built, {failed} failed")
    return ExitCode.FAILED if failed else ExitCode.OK


def cmd_generate(args: argparse.Namespace) -> int:
    from planning_core.validators.adaptive.household import generate

    def show(row: dict) -> None:
        if args.json:
            print(json.dumps(row))
        elif "error" in row:
            print(f"{row['task']}: FAILED: {row['error']}")
        sys.stdout.flush()

    try:
        removed: list[Path] = []
        rows = generate(Path(args.out), count=args.count, seed=args.seed, on_done=show,
                        on_removed=removed.append)
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=args.out) from None
    failed = sum("error" in r for r in rows)
    if not args.json:
        sizes = {}
        for r in rows:
            for tier, n in r.get("tiers", {}).items():
                sizes.setdefault(tier, []).append((r["world"][tier], n - r["world"][tier]))
        for tier, pairs in sizes.items():
            w = sum(p[0] for p in pairs) / len(pairs)
            u = sum(p[1] for p in pairs) / len(pairs)
            print(f"tier {tier}: {w:.2f} world, {u:.2f} user constraints on average")
        print(f"{len(rows) - failed} profile(s) written under {args.out}, {failed} failed"
              + (f"; {len(removed)} stale generated file(s) of an earlier run removed"
                 if removed else ""))
    return ExitCode.FAILED if failed else ExitCode.OK


def cmd_play(args: argparse.Namespace) -> int:
    from planning_core.validators.adaptive.env import AdaptiveEnv
    from planning_core.validators.adaptive.tasks import load_task

    profile, domain, problem = load_task(args.profile)
    _, env_extra = _roles(args)
    options = _env_options(args)
    # a person keeps playing after a plan that meets every constraint but misses the goal
    # (or after the turn budget): extra turns with the verdict as feedback, the paper's
    # refinement turns, unless --refine says how many
    options["refine"] = args.refine or args.max_turns
    env = AdaptiveEnv(domain, problem, profile, args.tier, **options,
                      **env_extra(domain, problem))
    print(env.reset())
    print(("Type a plan, one step per line; an empty line submits it." +
           ("" if args.reader and args.reader != "rules" else
            " Write each step as 'action: argument, argument' (the rules reader; "
            "--reader MODEL reads free words).")) if args.condition == "words" else
          "Type a plan, one action per line; an empty line submits it.")
    done = False
    while not done:
        lines = []
        for line in sys.stdin:
            if not line.strip():
                break
            lines.append(line)
        else:
            if not lines:
                print("end of input: session over")
                return ExitCode.OK
        feedback, done, _ = env.step("".join(lines))
        print(feedback)
    if env.main_outcome != env.outcome:
        print(f"standard protocol: {env.main_outcome}")
    print(f"outcome: {env.outcome}")
    return ExitCode.OK


def cmd_run(args: argparse.Namespace) -> int:
    from planning_core.validators.adaptive.agents import AGENTS, ModelAgent
    from planning_core.validators.adaptive.runner import run_profiles
    from planning_core.validators.adaptive.tasks import find_profiles

    if args.agent == "model":
        from planning_core.validators.models.options import model_from_args

        model = model_from_args(args)
        make = lambda: ModelAgent(model, memory=args.memory)  # noqa: E731
        from planning_core.validators.models.run_setting import run_sample

        # rows of different models (or with the memory block, or another --sample of a
        # sampling model) are told apart on resume and in the report
        sample = run_sample(model)
        name = f"model {args.model or args.command}" + (" memory" if args.memory else "") \
            + (f" sample {sample}" if sample else "")
    else:
        make = AGENTS[args.agent]
        name = args.agent
    tiers = list(dict.fromkeys(t.strip() for t in args.tiers.split(",") if t.strip()))
    if not tiers:
        raise InputError("--tiers names no tier (e.g. --tiers mid or --tiers low,mid,high)")
    out = Path(args.out)
    if args.condition == "words" and args.agent == "model" and not args.reader:
        raise InputError("--condition words with --agent model needs --reader MODEL: the "
                         "default rules reader reads only the scripted agents' step "
                         "sentences ('pick up: iron, hall'); give --reader rules to use it")
    protocol, env_extra = _roles(args)
    if args.condition == "words" and args.agent != "model":
        from planning_core.validators.adaptive.agents import WordsAgent

        scripted = make
        make = lambda: WordsAgent(scripted())  # noqa: E731
    counts = run_profiles(find_profiles(args.profiles), make, tiers, out,
                          agent_name=name, protocol_extra=protocol, env_extra=env_extra,
                          **_env_options(args))
    print(f"{counts['run']} episode(s) run, {counts['skipped']} already in {out}, "
          f"{counts['failed']} failed (each counts as a failed query in the report)")
    return ExitCode.OK


def cmd_report(args: argparse.Namespace) -> int:
    from planning_core.validators.adaptive.metrics import metrics_by_tier, plot_degradation, \
        read_results, render_markdown

    from planning_core.validators.adaptive.metrics import acc_by_gamma, condition_of, \
        mode_of, plot_rubric, rubric_by_tier

    episodes, failures = read_results(args.results)
    from planning_core.cli.tables import markdown_as

    text = markdown_as(render_markdown(episodes, failures=failures, overall=args.overall),
                       args.format)
    if args.json:
        table = metrics_by_tier(episodes, failures, overall=args.overall)
        out = {t: {m: e.to_json() for m, e in row.items()} for t, row in table.items()}
        for row, eps in _by_row(episodes).items():
            if row in out:
                out[row]["mode"], out[row]["condition"] = mode_of(eps), condition_of(eps)
        for row, values in rubric_by_tier(episodes).items():
            out.setdefault(row, {})["rubric"] = {k: e.to_json() for k, e in values.items()}
        for row, values in acc_by_gamma(episodes, failures).items():
            out.setdefault(row, {})["acc_by_gamma"] = {f"{g:.2f}": e.to_json()
                                                      for g, e in values.items()}
        print(json.dumps(out))
    else:
        print(text, end="")
    if args.out:
        try:
            Path(args.out).write_text(text, encoding="utf-8")
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}", file=args.out) from None
    for path, draw in ((args.plot, plot_degradation), (args.rubric_plot, plot_rubric)):
        if not path:
            continue
        if Path(path).suffix.lower() not in (".png", ".pdf", ".svg"):
            raise InputError("the plot is written as .png, .pdf or .svg", file=path)
        try:
            draw(episodes, path)
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}", file=path) from None
    return ExitCode.OK


def _by_row(episodes) -> dict:
    out: dict = {}
    for e in episodes:
        out.setdefault(f"{e.group} / {e.tier}" if e.group else e.tier, []).append(e)
    return out
