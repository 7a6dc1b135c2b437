"""Stratified evaluation of ground axioms (derived predicates).

PDDL 2.2 derived predicates (Edelkamp & Hoffmann 2004) have a least-fixpoint semantics per
stratum: negation only looks at basic facts or at derived facts of strictly lower strata, so
each layer is a monotone Horn program once the lower layers are fixed. A layer is evaluated
with the counter algorithm for Horn satisfiability (Dowling & Gallier 1984): an axiom fires
when its count of missing same-layer body facts drops to zero, which is linear in the size of
the ground program, as in Fast Downward's axiom evaluator (Helmert 2006).
"""
from __future__ import annotations

from typing import Sequence

from planning_core.ground.facts import Axiom, bits


class AxiomEvaluator:
    """Precompiled layers; ``evaluate(state)`` clears derived facts and recomputes them."""

    __slots__ = ("_derived", "_layers")

    def __init__(self, axioms: Sequence[Axiom], derived_mask: int) -> None:
        self._derived = derived_mask
        by_layer: dict[int, list[Axiom]] = {}
        for ax in axioms:
            by_layer.setdefault(ax.layer, []).append(ax)
        layers = []
        for layer in sorted(by_layer):
            axs = by_layer[layer]
            heads = 0
            for ax in axs:
                heads |= 1 << ax.head
            entries = []            # (head, outer_pos, neg, n_inner)
            triggers: dict[int, list[int]] = {}
            for k, ax in enumerate(axs):
                inner = ax.body_pos & heads
                outer = ax.body_pos & ~heads
                inner_ids = bits(inner)
                for f in inner_ids:
                    triggers.setdefault(f, []).append(k)
                entries.append((ax.head, outer, ax.body_neg, len(inner_ids)))
            layers.append((tuple(entries), {f: tuple(v) for f, v in triggers.items()}))
        self._layers = tuple(layers)

    def evaluate(self, state: int) -> int:
        s = state & ~self._derived
        for entries, triggers in self._layers:
            missing = [0] * len(entries)
            queue = []
            for k, (head, outer, neg, n_inner) in enumerate(entries):
                if (outer & ~s) or (neg & s):
                    missing[k] = -1          # can never fire in this state
                elif n_inner == 0:
                    if not s >> head & 1:
                        s |= 1 << head
                        queue.append(head)
                else:
                    missing[k] = n_inner
            while queue:
                f = queue.pop()
                for k in triggers.get(f, ()):
                    m = missing[k]
                    if m > 0:
                        m -= 1
                        missing[k] = m
                        if m == 0:
                            head = entries[k][0]
                            if not s >> head & 1:
                                s |= 1 << head
                                queue.append(head)
            # facts true before this layer ran cannot be heads (derived were cleared), so
            # the queue saw every newly derived fact exactly once
        return s
