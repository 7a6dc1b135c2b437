"""Mapping a plan over a model's own PDDL onto the ground truth's action signatures.

A formalizer's plan is found by solving the *model's* domain and problem, so its steps use
the model's names: ``(Pick-Up b1)`` or ``(move ?to ?from ?dir)`` ordered differently from
the ground truth's ``(move ?room1 ?room2 ?direction)``. Before the plan can be validated
against the ground truth, each step is rewritten onto the ground truth's signatures by the
rule below, and every decision is recorded (:class:`ActionMapping`, :class:`ObjectMapping`)
so that a reader can see what was assumed. The rule never looks at states or at the ground
truth's preconditions, so it cannot turn a wrong plan into a right one by search.

Mapping rule
------------
1. **Action names.** A model action maps to the ground-truth action whose name is equal
   after lower-casing and removing ``-``, ``_`` and spaces (``Pick-Up`` -> ``pickup``). No
   match (or two) leaves the step as written; the validator then reports an unknown action.
2. **Arity.** A different number of parameters leaves the arguments as written (the
   validator reports the wrong arity).
3. **Argument order**, decided once per action from the two signatures:

   a. *Parameter names*: if the model's parameter names (without ``?``) are a
      permutation of the names of the pair's action head for that action (the
      ``(move room1 room2 direction)`` line the prompt showed), or of the ground truth's
      parameter names, and that permutation respects types (c), it is used.
   b. *Identity*: otherwise, the written order is kept when it respects types.
   c. *Types*: otherwise, arguments are assigned to ground-truth parameters by type, in
      written order within a type (stable), exact type matches before untyped ones. A
      model type corresponds to the ground-truth type with the same squashed name;
      untyped parameters, ``object`` and types the ground truth does not know are
      compatible with anything.
   d. If no assignment respects types, the written order is kept and a note says why.
4. **Objects.** An argument that is not an object (or constant) of the ground-truth
   problem maps to the one object with the same squashed name (``living-room`` ->
   ``living_room``), if exactly one exists.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from planning_core.pddl import ast as pddl

from planning_core.validators.cope.dataset import ActionHead
from planning_core.validators.cope.naming import squash

__all__ = ["ActionMapping", "ObjectMapping", "PlanMapping", "map_plan", "action_mapping"]


@dataclass(frozen=True, slots=True)
class ActionMapping:
    """How the model's action ``source`` maps: ground-truth parameter ``i`` takes the
    model's argument ``order[i]``. ``target`` is None when no action corresponds."""

    source: str
    target: str | None
    order: tuple[int, ...]
    rule: str
    note: str = ""

    def to_json(self) -> dict:
        return {"source": self.source, "target": self.target, "order": list(self.order),
                "rule": self.rule, "note": self.note}


@dataclass(frozen=True, slots=True)
class ObjectMapping:
    source: str
    target: str
    rule: str

    def to_json(self) -> dict:
        return {"source": self.source, "target": self.target, "rule": self.rule}


@dataclass(frozen=True, slots=True)
class PlanMapping:
    """The plan in ground-truth terms plus every mapping decision it rests on."""

    steps: tuple[str, ...]
    actions: tuple[ActionMapping, ...]
    objects: tuple[ObjectMapping, ...]

    @property
    def changed(self) -> bool:
        return bool(self.objects) or any(a.rule != "identical" for a in self.actions)

    def to_json(self) -> dict:
        return {"steps": list(self.steps), "actions": [a.to_json() for a in self.actions],
                "objects": [o.to_json() for o in self.objects]}


def _type_key(types: tuple[str, ...]) -> str:
    return squash(types[0]) if types else "object"


def _compatible(source: str, target: str, known: frozenset[str]) -> int:
    """2: same type; 1: compatible because one side says nothing; 0: clash."""
    if source == target:
        return 2
    if source == "object" or target == "object" or source not in known:
        return 1
    return 0


def _respects(order: tuple[int, ...], source: list[str], target: list[str],
              known: frozenset[str]) -> bool:
    return all(_compatible(source[i], target[j], known) for j, i in enumerate(order))


def _by_type(source: list[str], target: list[str], known: frozenset[str]
             ) -> tuple[int, ...] | None:
    used: set[int] = set()
    order = []
    for want in target:
        choice = None
        for level in (2, 1):
            choice = next((i for i in range(len(source)) if i not in used
                           and _compatible(source[i], want, known) == level), None)
            if choice is not None:
                break
        if choice is None:
            return None
        used.add(choice)
        order.append(choice)
    return tuple(order)


def _by_names(names: list[str], reference: list[str]) -> tuple[int, ...] | None:
    if sorted(names) != sorted(reference) or len(set(names)) != len(names):
        return None
    return tuple(names.index(name) for name in reference)


def action_mapping(source: pddl.Action, target_domain: pddl.Domain,
                   heads: tuple[ActionHead, ...] = ()) -> ActionMapping:
    """The mapping of one model action onto the ground truth (rules 1-3 of the module doc)."""
    candidates = [a for a in target_domain.actions if squash(a.name) == squash(source.name)]
    identity = tuple(range(source.arity))
    if len(candidates) != 1:
        why = "no ground-truth action" if not candidates else "several ground-truth actions"
        return ActionMapping(source.name, None, identity, "unmapped",
                             f"{why} named like '{source.name}'")
    target = candidates[0]
    naming = "identical" if target.name == source.name else "name-variant"
    if target.arity != source.arity:
        return ActionMapping(source.name, target.name, identity, naming,
                             f"arity differs: the model's '{source.name}' takes "
                             f"{source.arity}, the ground truth's takes {target.arity}")
    known = frozenset(squash(t.name) for t in target_domain.types) | {"object"}
    src_types = [_type_key(p.types) for p in source.parameters]
    tgt_types = [_type_key(p.types) for p in target.parameters]
    names = [squash(p.name.lstrip("?")) for p in source.parameters]
    references = [[squash(p) for p in h.params] for h in heads if squash(h.name)
                  == squash(target.name)]
    references.append([squash(p.name.lstrip("?")) for p in target.parameters])
    for reference in references:
        order = _by_names(names, reference)
        if order is not None and order != identity and _respects(order, src_types, tgt_types,
                                                                 known):
            return ActionMapping(source.name, target.name, order,
                                 f"{naming}+reorder-by-parameter-names")
    if _respects(identity, src_types, tgt_types, known):
        return ActionMapping(source.name, target.name, identity, naming)
    order = _by_type(src_types, tgt_types, known)
    if order is not None:
        return ActionMapping(source.name, target.name, order, f"{naming}+reorder-by-type")
    return ActionMapping(source.name, target.name, identity, naming,
                         "parameter types do not line up with the ground truth's; "
                         "the written order is kept")


_STEP = re.compile(r"^\s*\(\s*([^\s()]+)((?:\s+[^\s()]+)*)\s*\)\s*$")


def map_plan(plan: tuple[str, ...], source_domain: pddl.Domain, target_domain: pddl.Domain,
             target_problem: pddl.Problem, heads: tuple[ActionHead, ...] = ()) -> PlanMapping:
    """Rewrite ``plan`` (steps ``"(name arg ...)"`` over the model's task) onto the ground
    truth (rules 1-4 of the module doc)."""
    objects = {o.name for o in target_problem.objects} | {c.name for c in
                                                          target_domain.constants}
    by_squash: dict[str, list[str]] = {}
    for name in sorted(objects):
        by_squash.setdefault(squash(name), []).append(name)
    action_maps: dict[str, ActionMapping] = {}
    object_maps: dict[str, ObjectMapping] = {}
    steps: list[str] = []
    for step in plan:
        match = _STEP.match(step)
        if match is None:
            steps.append(step)
            continue
        name, args = match.group(1).lower(), match.group(2).split()
        if name not in action_maps:
            source = source_domain.action(name)
            action_maps[name] = (action_mapping(source, target_domain, heads)
                                 if source is not None else
                                 ActionMapping(name, None, tuple(range(len(args))), "unmapped",
                                               "not an action of the model's domain"))
        mapping = action_maps[name]
        if mapping.target is not None and len(mapping.order) == len(args):
            args = [args[i] for i in mapping.order]
        mapped_args = []
        for arg in args:
            if arg not in objects and len(by_squash.get(squash(arg), ())) == 1:
                target = by_squash[squash(arg)][0]
                object_maps.setdefault(arg, ObjectMapping(arg, target, "object-separator"))
                arg = target
            mapped_args.append(arg)
        steps.append("(" + " ".join([mapping.target or name] + mapped_args) + ")")
    return PlanMapping(tuple(steps), tuple(sorted(action_maps.values(), key=lambda m: m.source)),
                       tuple(sorted(object_maps.values(), key=lambda m: m.source)))
