"""Household tasks at AdaPlanBench's scale, and their profiles built as the paper builds them.

The paper (AdaPlanBench, Liu et al. 2026) starts from 307 MacGyver household queries, each
with a reference solution, and builds three tiers of constraints per query whose average
sizes are 9.76 / 19.61 / 37.73 world and 10.91 / 21.78 / 41.79 user constraints (Table 2,
L46-L48). That needs tasks where many tools and materials can do each job. Here:

* :func:`problem` writes household problem ``n`` (deterministic given ``n`` and the seed):
  two to four jobs (smooth the wrinkles of a shirt, clean a pan, fix a chair, unclog a
  sink, dry wet shoes, heat soup, ...), each doable by any of 10-17 tools with the job's
  capability (14 on average over the 307 problems) and any of 5-10 materials of the job's
  class (8.5 on average), drawn from a catalogue of
  household objects (:data:`TOOLS`, :data:`MATERIALS`), scattered over three to five rooms.
  Every object carries realistic attributes (an iron is ``high-heat``, ``electric``,
  ``heavy``; vinegar is ``acidic``, ``smelly``): the agent is not shown them and must infer
  them from the user's words, as in the paper. One tool and one material per job form the
  *reference solution* (MacGyver's, L25): the generator picks them (seeded) among the
  objects with the fewest attributes, as the paper's reference solutions are often the
  unusual, plain ones.
* :func:`build_household_profile` is the paper's three-round pipeline (L26-L45, Appendix
  B.1): each round samples plans separately for the world side (avoiding the world
  constraints kept so far) and the user side (avoiding the kept user constraints), as the
  paper's planners sample under per-type pools (L260, L283). A sample picks, for each item,
  a seeded random tool and material its side allows and constructs the plan from the room
  layout (:class:`Layout`): a domain-specific sampler, a thousand times faster than search.
  Every tool and material a world-side plan uses becomes a world candidate
  (``object_unavailable``); every attribute of an object a user-side plan uses becomes a
  user candidate (``avoid_attribute_use``, for the whole task or for the item the object
  is used on). What the reference solution uses is never forbidden (the paper's checker
  keeps only constraints compatible with the reference solution, L269-L276), and a round
  keeps candidates up to its quota (:data:`ROUND_QUOTAS`, Table 2's increments). The
  reference plan is validated under every tier: that is the proof of solvability, and it
  needs no search.

The domain (:data:`DOMAIN`, with the catalogue in :mod:`.household_catalog`): the robot walks between rooms, carries one tool at a time in
its hand and materials in a basket; ``apply`` puts a material on an item (``prepared``),
``treat`` uses a tool on a prepared item (``done``).
"""
from __future__ import annotations

import random
from dataclasses import replace

from planning_core.pddl import ast as pddl
from planning_core.validators.adaptive.household_catalog import DOMAIN, JOBS, MATERIALS, \
    ROOMS, TOOLS

__all__ = ["DOMAIN", "TOOLS", "MATERIALS", "JOBS", "ROUND_QUOTAS", "PAPER_TABLE2", "PAPER_N",
           "draw_quotas",
           "Layout", "problem", "build_household_profile", "generate"]

# Table 2 of the paper (L46-L48): average constraints per tier
PAPER_TABLE2 = {"world": (9.76, 19.61, 37.73), "user": (10.91, 21.78, 41.79)}
# constraints each round may add (world, user) when a caller fixes them: the increments of
# Table 2, rounded (generation draws them per problem: draw_quotas)
ROUND_QUOTAS = ((10, 11), (10, 11), (18, 20))
# the chance that a user candidate is a preference for the whole task ("nothing
# high-heat") rather than for the item the object is used on ("nothing high-heat on the
# shirt"), when the reference solution allows both. A task-wide preference takes an
# attribute away from every job at once, so a high share leaves too few candidates for the
# high tier's 41.79 user constraints (at 0.3 the high tier averaged 36.03)
GLOBAL_SHARE = 0.1
# the spread of a problem's constraint counts around the paper's means: one factor per
# problem and kind, uniform in [1 - SPREAD, 1 + SPREAD], times the problem's size
SPREAD = 0.2


def draw_quotas(name: str, n_items: int, seed: int = 0) -> tuple[tuple[int, int], ...]:
    """The per-round quotas (world, user) of one problem, drawn (seeded) around Table 2's
    means (L46-L48): the paper's counts are averages over queries of varied size, so a
    problem's tier totals are the paper's mean times its size (its jobs over the average of
    three) times a factor drawn uniformly in ``1 +- SPREAD``, one factor per kind, so the
    three tiers of a problem move together; each tier holds at least one more than the
    one below. A problem whose sampled plans run out of candidates holds fewer."""
    rng = random.Random(f"quotas:{seed}:{name}")
    totals = {}
    for side in ("world", "user"):
        factor = (n_items / 3) * rng.uniform(1 - SPREAD, 1 + SPREAD)
        t = [max(1, round(m * factor)) for m in PAPER_TABLE2[side]]
        for i in (1, 2):
            t[i] = max(t[i], t[i - 1] + 1)
        totals[side] = t
    return tuple((totals["world"][r] - (totals["world"][r - 1] if r else 0),
                  totals["user"][r] - (totals["user"][r - 1] if r else 0)) for r in range(3))


def _attrs(text: str) -> tuple[str, ...]:
    return tuple(text.split())


def _capable(cap: str) -> list[str]:
    return sorted(t for t, (caps, _) in TOOLS.items() if cap in caps.split())


def _fitting(cls: str) -> list[str]:
    return sorted(m for m, (classes, _) in MATERIALS.items() if cls in classes.split())


def problem(n: int, seed: int = 0) -> tuple[str, dict[str, tuple[str, ...]], tuple[str, ...]]:
    """Household problem ``n``: its PDDL text, the attributes of its objects
    (``{attribute: objects}``) and the reference objects (a tool and a material per job)."""
    rng = random.Random(f"household-jobs:{seed}:{n}")
    n_jobs = 2 + n % 3
    n_rooms = 3 + (n // 3) % 3
    rooms = list(ROOMS[:n_rooms])
    jobs = rng.sample(sorted(JOBS), n_jobs)
    tools: list[str] = []
    materials: list[str] = []
    items, init, goal, reference = [], [], [], []
    for job in jobs:
        cap, cls, item_names, _ = JOBS[job]
        item = rng.choice(item_names)
        items.append(item)
        able = [t for t in _capable(cap) if t not in tools]
        fit = [m for m in _fitting(cls) if m not in materials]
        chosen_t = sorted(rng.sample(able, min(len(able), rng.randint(13, 18))))
        chosen_m = sorted(rng.sample(fit, min(len(fit), rng.randint(7, 10))))
        # the reference solution: among the plainest objects (fewest attributes)
        plain_t = sorted(chosen_t, key=lambda t: (len(_attrs(TOOLS[t][1])), t))[:4]
        plain_m = sorted(chosen_m, key=lambda m: (len(_attrs(MATERIALS[m][1])), m))[:3]
        reference += [rng.choice(plain_t), rng.choice(plain_m)]
        tools += chosen_t
        materials += chosen_m
        init += [f"(suits {t} {item})" for t in chosen_t]
        init += [f"(fits {m} {item})" for m in chosen_m]
        init.append(f"(at {item} {rng.choice(rooms)})")
        goal.append(f"(done {item})")
    for x in tools + materials:
        init.append(f"(at {x} {rng.choice(rooms)})")
    for a, b in zip(rooms, rooms[1:]):
        init += [f"(connected {a} {b})", f"(connected {b} {a})"]
    init += [f"(robot-at {rooms[0]})", "(hand-free)"]
    attributes: dict[str, set] = {}
    for x in tools:
        for a in _attrs(TOOLS[x][1]):
            attributes.setdefault(a, set()).add(x)
    for x in materials:
        for a in _attrs(MATERIALS[x][1]):
            attributes.setdefault(a, set()).add(x)
    words = "; ".join(f"{JOBS[j][3]} the {i}" for j, i in zip(jobs, items))
    text = (f";; generated by planning_core.validators.adaptive.household (problem {n}, "
            f"seed {seed}): {words}\n"
            f"(define (problem household-jobs-{n:03d})\n  (:domain household-jobs)\n"
            f"  (:objects\n    {' '.join(rooms)} - room\n    {' '.join(sorted(tools))} - tool\n"
            f"    {' '.join(sorted(materials))} - material\n    {' '.join(items)} - item)\n"
            f"  (:init\n    " + "\n    ".join(sorted(init)) + ")\n"
            f"  (:goal (and {' '.join(goal)})))\n")
    return text, {a: tuple(sorted(o)) for a, o in sorted(attributes.items())}, \
        tuple(reference)


# ------------------------------------------------------------------------- sampling


class Layout:
    """What plan construction needs from a household-jobs problem: where everything is,
    the room graph, and which tools and materials can do each item's job."""

    def __init__(self, prob: pddl.Problem) -> None:
        self.kind = {o.name: o.type for o in prob.objects}
        self.where: dict[str, str] = {}
        self.edges: dict[str, list[str]] = {}
        self.suits: dict[str, list[str]] = {}
        self.fits: dict[str, list[str]] = {}
        self.start = ""
        for a in prob.init:
            if a.predicate == "at":
                self.where[a.args[0]] = a.args[1]
            elif a.predicate == "connected":
                self.edges.setdefault(a.args[0], []).append(a.args[1])
            elif a.predicate == "robot-at":
                self.start = a.args[0]
            elif a.predicate == "suits":
                self.suits.setdefault(a.args[1], []).append(a.args[0])
            elif a.predicate == "fits":
                self.fits.setdefault(a.args[1], []).append(a.args[0])
        self.items = [x.args[0] for x in _goal_atoms(prob.goal)]
        for table in (self.suits, self.fits, self.edges):
            for v in table.values():
                v.sort()

    def path(self, a: str, b: str) -> list[str]:
        """Rooms from ``a`` to ``b`` (breadth first; both ends included)."""
        parent = {a: None}
        frontier = [a]
        while frontier and b not in parent:
            nxt = []
            for r in frontier:
                for s in self.edges.get(r, ()):
                    if s not in parent:
                        parent[s] = r
                        nxt.append(s)
            frontier = nxt
        if b not in parent:
            return []
        out = [b]
        while parent[out[-1]] is not None:
            out.append(parent[out[-1]])
        return out[::-1]

    def construct(self, choice: dict[str, tuple[str, str]]) -> tuple[str, ...]:
        """The plan doing each item's job with its chosen (tool, material), in item order:
        fetch the material, swap the tool in the hand, go to the item, apply, treat."""
        plan: list[str] = []
        here, hand = self.start, None

        def go(to: str) -> None:
            nonlocal here
            route = self.path(here, to)
            plan.extend(f"(move {a} {b})" for a, b in zip(route, route[1:]))
            here = to

        for item in self.items:
            tool, material = choice[item]
            go(self.where[material])
            plan.append(f"(take {material} {here})")
            go(self.where[tool])
            if hand is not None:
                plan.append(f"(put-down {hand} {here})")
            plan.append(f"(pick-up {tool} {here})")
            hand = tool
            go(self.where[item])
            plan.append(f"(apply {material} {item} {here})")
            plan.append(f"(treat {tool} {item} {here})")
        return tuple(plan)

    def sample(self, rng: random.Random, allowed) -> tuple[str, ...] | None:
        """A plan using, for each item, a tool and a material drawn (seeded) among those
        ``allowed(obj, item)`` admits; None when some item has none left."""
        choice = {}
        for item in self.items:
            tools = [t for t in self.suits.get(item, ()) if allowed(t, item)]
            mats = [m for m in self.fits.get(item, ()) if allowed(m, item)]
            if not tools or not mats:
                return None
            choice[item] = (rng.choice(tools), rng.choice(mats))
        return self.construct(choice)


def _goal_atoms(goal) -> list[pddl.Atom]:
    if isinstance(goal, pddl.Atom):
        return [goal]
    return [a for part in getattr(goal, "parts", ()) for a in _goal_atoms(part)]


def build_household_profile(domain: pddl.Domain, prob: pddl.Problem,
                            attributes: dict[str, tuple[str, ...]],
                            reference: tuple[str, ...], *, domain_path: str,
                            problem_path: str, seed: int = 0, quotas=None,
                            max_samples: int = 60):
    """The paper's three-round construction (module docstring) for one household problem.
    Plans are sampled separately for the world side (avoiding the kept world constraints)
    and the user side (avoiding the kept user constraints), as the paper's planners sample
    under per-type pools (Appendix B.1, L260, L283). Raises
    :class:`.profile.ProfileUnsolvable` when the reference plan does not solve the task or
    breaks the profile (then nothing is proved)."""
    from planning_core.validators.adaptive.check import ConstraintChecker
    from planning_core.validators.adaptive.profile import Constraint, Profile, \
        ProfileUnsolvable, Tier, render_text, world_formal

    rng = random.Random(f"{seed}:{prob.name}")
    lay = Layout(prob)
    if quotas is None:
        quotas = draw_quotas(prob.name, len(lay.items), seed)
    ref_set = frozenset(reference)
    ref_choice = {}
    for item in lay.items:
        tool = next((t for t in lay.suits.get(item, ()) if t in ref_set), None)
        mat = next((m for m in lay.fits.get(item, ()) if m in ref_set), None)
        if tool is None or mat is None:
            raise ProfileUnsolvable(f"the reference solution has no tool or material for "
                                    f"{item}", proof={"status": "unknown"},
                                    file=prob.filename)
        ref_choice[item] = (tool, mat)
    ref_plan = lay.construct(ref_choice)
    holders = {a: frozenset(objs) for a, objs in attributes.items()}
    attrs_of: dict[str, set] = {}
    for a, objs in attributes.items():
        for o in objs:
            attrs_of.setdefault(o, set()).add(a)
    # what the reference uses on each item: a preference may not forbid it (L269-L276)
    ref_on = {item: {a for o in ref_choice[item] for a in attrs_of.get(o, ())}
              for item in lay.items}
    ref_any = set().union(*ref_on.values()) if ref_on else set()
    base = Profile(domain_path, problem_path, (), (), tuple(sorted(attributes.items())),
                   seed=seed)
    kept: list[Constraint] = []
    gone: set[str] = set()                  # world side: unavailable objects
    avoid: set[str] = set()                 # user side: attributes avoided everywhere
    avoid_on: set[tuple[str, str]] = set()  # user side: (attribute, item)

    def world_ok(o: str, item: str) -> bool:
        return o not in gone

    def user_ok(o: str, item: str) -> bool:
        return not any(a in avoid or (a, item) in avoid_on for a in attrs_of.get(o, ()))

    tiers = []
    for r, (want_w, want_u) in enumerate(quotas):
        got = {"world": 0, "user": 0}
        plans = {"world": 0, "user": 0}
        for side, want in (("world", want_w), ("user", want_u)):
            ok = world_ok if side == "world" else user_ok
            for _ in range(max_samples):
                if got[side] >= want:
                    break
                plan = lay.sample(rng, ok)
                if plan is None:
                    break
                plans[side] += 1
                for step in plan:
                    words = step.strip("()").split()
                    if words[0] not in ("apply", "treat"):
                        continue
                    obj, item = words[1], words[2]
                    if obj in ref_set or got[side] >= want:
                        continue
                    if side == "world" and obj not in gone:
                        gone.add(obj)
                        kept.append(Constraint(f"w{len(kept) + 1}", "object_unavailable",
                                               object=obj))
                        got[side] += 1
                    elif side == "user":
                        order = sorted(attrs_of.get(obj, ()))
                        rng.shuffle(order)       # seeded: the set's order is not
                        for a in order:
                            if got[side] >= want or a in avoid or (a, item) in avoid_on:
                                continue
                            if a not in ref_any and rng.random() < GLOBAL_SHARE:
                                avoid.add(a)
                                kept.append(Constraint(f"u{len(kept) + 1}",
                                                       "avoid_attribute_use", attribute=a))
                            elif a not in ref_on[item]:
                                avoid_on.add((a, item))
                                kept.append(Constraint(f"u{len(kept) + 1}",
                                                       "avoid_attribute_use", attribute=a,
                                                       target=item))
                            else:
                                continue
                            got[side] += 1
        kept = [replace(c, formal=world_formal(c)) for c in kept]
        kept = [c if c.text else replace(c, text=render_text(c)) for c in kept]
        note = (f"round {r + 1} added {got['world']} world and {got['user']} user "
                f"constraint(s) from {plans['world']} + {plans['user']} sampled plan(s) "
                f"(quota {want_w} + {want_u})")
        tiers.append(Tier(("low", "mid", "high")[r] if r < 3 else f"round{r + 1}",
                          tuple(c.id for c in kept), ref_plan,
                          (("status", "solved"), ("witness", "reference solution")), note))
    base_plan = lay.sample(random.Random(f"base:{seed}:{prob.name}"), lambda o, i: True)
    profile = replace(base, constraints=tuple(kept), tiers=tuple(tiers),
                      base_plan=base_plan or ())
    # the proof: the reference plan solves the task and violates no constraint
    checker = ConstraintChecker(domain, prob, profile, profile.constraints)
    found = checker.check("\n".join(ref_plan))
    if not found.solves_task or found.violations:
        raise ProfileUnsolvable("the reference plan does not solve the task under the "
                                "profile", proof={"status": "unknown",
                                                  "verdict": found.report.verdict.value,
                                                  "violated": list(found.violated)},
                                file=prob.filename)
    return profile


PAPER_N = 307        # the paper's household queries (L19)


def generate(out, count: int = PAPER_N, seed: int = 0, on_done=None,
             on_removed=None) -> list[dict]:
    """Write ``count`` household problems and their profiles under ``out``:
    ``household-jobs/domain.pddl``, ``household-jobs/pNNN.pddl`` and
    ``profiles/household-jobs/pNNN.json`` (paths relative to the profile). One summary row
    per problem (tier sizes, or ``error``); deterministic given ``count`` and ``seed``.

    The folder then holds exactly this run's problems: generated files (``p<digits>.pddl``
    in ``household-jobs/``, ``p<digits>.json`` in ``profiles/household-jobs/``) this run
    does not write, left by an earlier, larger run, are removed first, and so is the old
    profile of a problem whose profile fails to build. Other files are left alone.
    ``on_removed(path)`` is called per removed file."""
    import os
    import re
    from pathlib import Path

    from planning_core.errors import PlanningError
    from planning_core.pddl.parser import parse_domain, parse_problem
    from planning_core.validators.adaptive.profile import dump_profile

    out = Path(out)
    tasks, profiles = out / "household-jobs", out / "profiles" / "household-jobs"
    tasks.mkdir(parents=True, exist_ok=True)
    profiles.mkdir(parents=True, exist_ok=True)
    wanted = {f"p{n:03d}" for n in range(1, count + 1)}
    for folder, suffix in ((tasks, ".pddl"), (profiles, ".json")):
        for old in sorted(folder.iterdir()):
            if (old.suffix == suffix and re.fullmatch(r"p\d+", old.stem)
                    and old.stem not in wanted and old.is_file()):
                old.unlink()
                if on_removed:
                    on_removed(old)
    (tasks / "domain.pddl").write_text(DOMAIN, encoding="utf-8")
    domain = parse_domain(DOMAIN, "domain.pddl")
    rows = []
    for n in range(1, count + 1):
        text, attributes, reference = problem(n, seed)
        ppath = tasks / f"p{n:03d}.pddl"
        ppath.write_text(text, encoding="utf-8")
        target = profiles / f"p{n:03d}.json"
        row = {"task": f"household-jobs/p{n:03d}", "profile": str(target)}
        try:
            prob = parse_problem(text, str(ppath))
            rel = os.path.relpath(tasks.resolve(), profiles.resolve())
            profile = build_household_profile(
                domain, prob, attributes, reference, seed=seed,
                domain_path=f"{rel}/domain.pddl", problem_path=f"{rel}/{ppath.name}")
            target.write_text(dump_profile(profile), encoding="utf-8")
            row["tiers"] = {t.name: len(t.constraints) for t in profile.tiers}
            row["world"] = {t.name: sum(profile.constraint(c).type == "world"
                                        for c in t.constraints) for t in profile.tiers}
        except PlanningError as err:
            row["error"] = str(err)
            if target.is_file():    # an earlier run's profile would pass for this one's
                target.unlink()
                if on_removed:
                    on_removed(target)
        rows.append(row)
        if on_done:
            on_done(row)
    return rows
