;; Swap: agents each hold exactly one item and trade them in pairs. Who may trade with whom
;; is a static relation (can-swap), so an item can only travel along that relation's
;; connected parts: some assignments are unreachable. The goal assigns items to agents.
;; Written for planning_core (issue 12) from that description: the ACPBench Hard benchmark
;; has a swap domain of this kind, and our scorers had never seen one.
(define (domain swap)
  (:requirements :strips :typing)
  (:types agent item)
  (:predicates (assigned ?a - agent ?i - item)
               (can-swap ?a ?b - agent))

  (:action swap
    :parameters (?a1 ?a2 - agent ?i1 ?i2 - item)
    :precondition (and (can-swap ?a1 ?a2) (assigned ?a1 ?i1) (assigned ?a2 ?i2))
    :effect (and (assigned ?a1 ?i2) (assigned ?a2 ?i1)
                 (not (assigned ?a1 ?i1)) (not (assigned ?a2 ?i2)))))
