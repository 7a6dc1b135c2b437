"""Constraint profiles as data: hidden world and user constraints of one PDDL task.

A profile is what the AdaPlanBench protocol (Liu et al. 2026, "AdaPlanBench: Evaluating
Adaptive Planning in Large Language Model Agents under World and User Constraints") keeps
hidden from the agent and reveals on violation. Here every constraint is exact:

* **world** constraints restrict which objects and actions exist in this kitchen:
  ``object_unavailable`` (no step may take the object as an argument; the paper's
  object-based world constraint, the default), and the extensions ``action_unusable`` (no
  step may use the action schema) and ``limited_use`` (at most ``limit`` steps may take the
  object);
* **user** constraints are preferences. The paper's attribute-based kind, the default, is
  ``avoid_attribute_use``: no step may take as an argument an object that has the
  attribute (static unary facts declared in the profile, such as ``(high-heat iron)``;
  hidden from the agent unless shown). The extensions are PDDL3 trajectory constraints
  (``formal``) over the task's predicates and the attributes: ``avoid_attribute`` and
  ``avoid_fact`` (``always``), ``order`` (``sometime-before``), ``at_most_once``
  (``at-most-once``).

*Step kinds* (the three world kinds and ``avoid_attribute_use``) are judged on the steps a
plan writes, whether they execute or not; *trajectory kinds* on the states the plan
describes (:mod:`.check`).

Every constraint has an ``id``, a ``kind``, a natural-language ``text`` written from a
template (:func:`render_text`) and its ``formal`` form. A profile file holds all of a task's
constraints once and its tiers (rounds of construction) as lists of ids; the JSON schema is
in ``docs/adaptive.md``. Loading checks the file against that schema and against the task
(names, arity and types of the formal forms, via the PDDL checker) and reports each fault
with the file, the JSON path of the value and, inside a formal form, the column.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from planning_core.errors import PlanningError
from planning_core import safe_json

__all__ = ["FORMAT", "WORLD_KINDS", "USER_KINDS", "KINDS", "PAPER_KINDS", "STEP_KINDS",
           "Constraint", "Tier", "Profile",
           "ProfileError", "ProfileUnsolvable", "render_text", "world_formal", "load_profile",
           "loads_profile", "dump_profile"]

FORMAT = "planning-core-adaptive-profile/1"
WORLD_KINDS = ("object_unavailable", "action_unusable", "limited_use")
USER_KINDS = ("avoid_attribute_use", "avoid_attribute", "avoid_fact", "order", "at_most_once")
KINDS = WORLD_KINDS + USER_KINDS
# the paper's two kinds: object-based world constraints, attribute-based user preferences
PAPER_KINDS = ("object_unavailable", "avoid_attribute_use")
# judged on the written steps (an argument, an action name), executable or not
STEP_KINDS = WORLD_KINDS + ("avoid_attribute_use",)
# the PDDL3 operator each user kind must use at the top of its formal form
USER_OPERATOR = {"avoid_attribute": "always", "avoid_fact": "always",
                 "order": "sometime-before", "at_most_once": "at-most-once"}


class ProfileError(PlanningError):
    """A profile file that does not fit the schema or names what the task does not have."""


class ProfileUnsolvable(PlanningError):
    """A profile whose constraints leave the task without a plan; ``proof`` says why
    (the solver's proof: relaxed unreachability or an exhausted complete search)."""

    def __init__(self, message: str, *, proof: dict, file: str | None = None) -> None:
        super().__init__(message, file=file)
        self.proof = proof


@dataclass(frozen=True, slots=True)
class Constraint:
    """One hidden constraint. World kinds use ``object``/``action``/``limit``; user kinds
    use ``formal`` (PDDL3 text) and, for the template, ``attribute``/``fact``/``first``/
    ``then``/``predicate``."""

    id: str
    kind: str
    text: str = ""
    formal: str = ""
    object: str | None = None
    action: str | None = None
    limit: int | None = None
    attribute: str | None = None
    predicate: str | None = None
    fact: str | None = None
    first: str | None = None
    then: str | None = None
    target: str | None = None

    @property
    def type(self) -> str:
        return "world" if self.kind in WORLD_KINDS else "user"

    @property
    def on_steps(self) -> bool:
        """Judged on the written steps (a step kind), not on the described states."""
        return self.kind in STEP_KINDS

    def to_json(self) -> dict:
        out = {"id": self.id, "type": self.type, "kind": self.kind}
        for name in ("object", "action", "limit", "attribute", "target", "predicate", "fact",
                     "first", "then"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        out["text"] = self.text
        out["formal"] = self.formal
        return out


@dataclass(frozen=True, slots=True)
class Tier:
    """One tier: the ids of its constraints, a reference plan the solver found for them
    (the proof of solvability), the solver's statistics, and construction's ``note``: what
    its round kept and why (how many candidates were proved unsolvable, left open, ...),
    the explanation when a round adds nothing."""

    name: str
    constraints: tuple[str, ...]
    reference_plan: tuple[str, ...] = ()
    proof: tuple[tuple[str, object], ...] = ()
    note: str = ""

    def to_json(self) -> dict:
        out = {"name": self.name, "constraints": list(self.constraints),
               "reference_plan": list(self.reference_plan), "proof": dict(self.proof)}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True, slots=True)
class Profile:
    """All hidden constraints of one task (``domain``/``problem`` paths are relative to the
    profile file, or absolute), the attribute facts the user constraints talk about, and
    the tiers. ``base_plan`` is the plan for the task without any constraint that
    construction started from."""

    domain: str
    problem: str
    constraints: tuple[Constraint, ...]
    tiers: tuple[Tier, ...]
    attributes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    seed: int = 0
    base_plan: tuple[str, ...] = ()
    filename: str | None = field(default=None, compare=False)

    def constraint(self, cid: str) -> Constraint:
        for c in self.constraints:
            if c.id == cid:
                return c
        raise KeyError(cid)

    def tier(self, name: str) -> Tier:
        for t in self.tiers:
            if t.name == name:
                return t
        raise ProfileError(f"the profile has no tier {name!r} (it has: "
                           f"{', '.join(t.name for t in self.tiers) or 'none'})",
                           file=self.filename)

    def tier_constraints(self, name: str) -> tuple[Constraint, ...]:
        return tuple(self.constraint(cid) for cid in self.tier(name).constraints)

    def to_json(self) -> dict:
        return {"format": FORMAT, "domain": self.domain, "problem": self.problem,
                "seed": self.seed,
                "attributes": {name: list(objs) for name, objs in self.attributes},
                "base_plan": list(self.base_plan),
                "constraints": [c.to_json() for c in self.constraints],
                "tiers": [t.to_json() for t in self.tiers]}

    def task_paths(self) -> tuple[Path, Path]:
        """The domain and problem files, resolved against the profile's folder."""
        base = Path(self.filename).parent if self.filename else Path(".")
        return base / self.domain, base / self.problem


# ------------------------------------------------------------------------- templates

def _words(name: str) -> str:
    return name.replace("-", " ").replace("_", " ")


def world_formal(c: Constraint) -> str:
    """The formal form of a step kind (its semantics are in ``docs/adaptive.md``)."""
    if c.kind == "avoid_attribute_use":
        return f"(avoid-use {c.attribute}" + (f" on {c.target})" if c.target else ")")
    if c.kind == "object_unavailable":
        return f"(unavailable {c.object})"
    if c.kind == "action_unusable":
        return f"(unusable {c.action})"
    if c.kind == "limited_use":
        return f"(at-most {c.limit} (uses {c.object}))"
    raise ValueError(f"not a world kind: {c.kind}")


def render_text(c: Constraint) -> str:
    """The natural-language sentence of a constraint, from its kind's template."""
    if c.kind == "object_unavailable":
        return f"The {_words(c.object)} is not available: no step may use {c.object}."
    if c.kind == "action_unusable":
        return f"Nobody can {_words(c.action)} here: the action '{c.action}' is unusable."
    if c.kind == "limited_use":
        times = "once" if c.limit == 1 else f"{c.limit} times"
        return f"The {_words(c.object)} can be used at most {times}: at most {c.limit} " \
               f"step(s) may use {c.object}."
    if c.kind == "avoid_attribute_use" and c.target:
        return f"I would rather not use anything {_words(c.attribute)} on the " \
               f"{_words(c.target)}: no step may use an object that is {c.attribute} " \
               f"together with {c.target}."
    if c.kind == "avoid_attribute_use":
        return f"I would rather not use anything {_words(c.attribute)}: no step may use an " \
               f"object that is {c.attribute}."
    if c.kind == "avoid_attribute":
        return f"I don't want anything {_words(c.attribute)} involved in " \
               f"'{c.predicate}': no state may have ({c.predicate} ...) hold of an object " \
               f"that is {c.attribute}."
    if c.kind == "avoid_fact":
        return f"Please never let {c.fact} become true."
    if c.kind == "order":
        return f"Please make sure {c.first} has been true before {c.then} becomes true."
    if c.kind == "at_most_once":
        return f"Please let {c.fact} become true at most once."
    raise ValueError(f"unknown kind {c.kind!r}")


# ----------------------------------------------------------------------------- JSON

_FIELDS = {
    "object_unavailable": {"object": str},
    "action_unusable": {"action": str},
    "limited_use": {"object": str, "limit": int},
    "avoid_attribute_use": {"attribute": str},
    "avoid_attribute": {"attribute": str, "predicate": str},
    "avoid_fact": {"fact": str},
    "order": {"first": str, "then": str},
    "at_most_once": {"fact": str},
}
_OPTIONAL = {"id", "type", "kind", "text", "formal"}
_OPTIONAL_FIELDS = {"avoid_attribute_use": {"target": str}}


def _err(msg: str, path: str, file: str | None, line: int | None = None,
         column: int | None = None) -> ProfileError:
    return ProfileError(f"{path}: {msg}" if path else msg, file=file, line=line, column=column)


def _need(obj: dict, key: str, kind, path: str, file: str | None):
    if key not in obj:
        raise _err(f"missing required field '{key}'", path, file)
    value = obj[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise _err(f"'{key}' must be an integer, not {value!r}", path, file)
    if kind is str and not isinstance(value, str):
        raise _err(f"'{key}' must be a string, not {value!r}", path, file)
    if kind is list and not isinstance(value, list):
        raise _err(f"'{key}' must be a list", path, file)
    if kind is dict and not isinstance(value, dict):
        raise _err(f"'{key}' must be an object", path, file)
    return value


def _constraint(obj, path: str, file: str | None) -> Constraint:
    if not isinstance(obj, dict):
        raise _err("a constraint must be a JSON object", path, file)
    cid = _need(obj, "id", str, path, file)
    kind = _need(obj, "kind", str, path, file)
    if kind not in KINDS:
        raise _err(f"unknown kind {kind!r} (expected one of: {', '.join(KINDS)})", path, file)
    fields = _FIELDS[kind]
    optional = _OPTIONAL_FIELDS.get(kind, {})
    unknown = sorted(set(obj) - set(fields) - set(optional) - _OPTIONAL)
    if unknown:
        raise _err(f"unexpected field(s) {', '.join(unknown)} for kind {kind}", path, file)
    values = {k: _need(obj, k, t, path, file) for k, t in fields.items()}
    values.update({k: _need(obj, k, t, path, file) for k, t in optional.items() if k in obj})
    if kind == "limited_use" and values["limit"] < 1:
        raise _err(f"'limit' must be at least 1, not {values['limit']}", path, file)
    c = Constraint(cid, kind, **{k: (v.lower() if isinstance(v, str) else v)
                                 for k, v in values.items()})
    declared_type = obj.get("type")
    if declared_type is not None and declared_type != c.type:
        raise _err(f"kind {kind} is a {c.type} constraint, but 'type' says {declared_type!r}",
                   path, file)
    formal = obj.get("formal")
    if c.on_steps:
        expected = world_formal(c)
        if formal is not None and " ".join(str(formal).lower().split()) != expected:
            raise _err(f"'formal' {formal!r} does not match the fields ({expected})", path, file)
        formal = expected
    elif not isinstance(formal, str) or not formal.strip():
        raise _err("a user constraint needs its PDDL3 'formal' form", path, file)
    text = obj.get("text")
    if text is not None and not isinstance(text, str):
        raise _err("'text' must be a string", path, file)
    c = replace(c, formal=formal)
    return replace(c, text=text or render_text(c))


def loads_profile(text: str, filename: str | None = None) -> Profile:
    """Parse profile JSON (schema in ``docs/adaptive.md``); raise :class:`ProfileError`."""
    try:
        data = safe_json.loads(text)
    except json.JSONDecodeError as err:
        raise ProfileError(f"not JSON: {err.msg}", file=filename, line=err.lineno,
                           column=err.colno) from None
    if not isinstance(data, dict):
        raise _err("a profile must be a JSON object", "", filename)
    fmt = data.get("format")
    if fmt != FORMAT:
        raise _err(f"'format' must be {FORMAT!r}, not {fmt!r}", "format", filename)
    domain = _need(data, "domain", str, "", filename)
    problem = _need(data, "problem", str, "", filename)
    raw = _need(data, "constraints", list, "", filename)
    constraints = tuple(_constraint(obj, f"constraints[{i}]", filename)
                        for i, obj in enumerate(raw))
    ids = [c.id for c in constraints]
    for i, cid in enumerate(ids):
        if cid in ids[:i]:
            raise _err(f"duplicate constraint id {cid!r}", f"constraints[{i}].id", filename)
    attrs = data.get("attributes", {})
    if not isinstance(attrs, dict):
        raise _err("'attributes' must be an object {name: [objects]}", "attributes", filename)
    attributes = []
    for name, objs in sorted(attrs.items()):
        if not isinstance(objs, list) or not all(isinstance(o, str) for o in objs):
            raise _err("must be a list of object names", f"attributes.{name}", filename)
        attributes.append((name.lower(), tuple(sorted(o.lower() for o in objs))))
    tiers = []
    for i, obj in enumerate(_need(data, "tiers", list, "", filename)):
        path = f"tiers[{i}]"
        if not isinstance(obj, dict):
            raise _err("a tier must be a JSON object", path, filename)
        name = _need(obj, "name", str, path, filename)
        members = _need(obj, "constraints", list, path, filename)
        for j, cid in enumerate(members):
            if cid not in ids:
                raise _err(f"unknown constraint id {cid!r}", f"{path}.constraints[{j}]",
                           filename)
        plan = _steps(obj.get("reference_plan", []), f"{path}.reference_plan", filename)
        proof = obj.get("proof", {})
        if not isinstance(proof, dict):
            raise _err("'proof' must be an object", path, filename)
        note = obj.get("note", "")
        if not isinstance(note, str):
            raise _err("'note' must be a string", f"{path}.note", filename)
        tiers.append(Tier(name, tuple(members), tuple(plan), tuple(sorted(proof.items())),
                          note))
    names = [t.name for t in tiers]
    if len(set(names)) != len(names):
        raise _err("tier names must be unique", "tiers", filename)
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise _err(f"'seed' must be an integer, not {seed!r}", "seed", filename)
    base_plan = _steps(data.get("base_plan", []), "base_plan", filename)
    return Profile(domain, problem, constraints, tuple(tiers), tuple(attributes),
                   seed, base_plan, filename)


def _steps(value, path: str, file: str | None) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise _err("must be a list of plan steps (strings)", path, file)
    return tuple(value)


def load_profile(path: str | Path) -> Profile:
    from planning_core.pddl.files import read_text
    return loads_profile(read_text(path), str(path))


def dump_profile(profile: Profile) -> str:
    return json.dumps(profile.to_json(), indent=1) + "\n"
