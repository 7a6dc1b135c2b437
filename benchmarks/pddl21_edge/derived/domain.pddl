; Derived predicates (PDDL 2.2) read by durative actions' conditions and invariants, and a
; forall around timed numeric effects.
(define (domain edge-derived)
  (:requirements :strips :typing :durative-actions :numeric-fluents :derived-predicates
                 :timed-initial-literals :universal-preconditions)
  (:types room)
  (:predicates (lit ?r - room) (dark ?r - room) (all-lit) (cleaned ?r - room))
  (:functions (dust ?r - room))
  (:derived (dark ?r - room) (not (lit ?r)))
  (:derived (all-lit) (forall (?r - room) (lit ?r)))
  (:durative-action clean
    :parameters (?r - room)
    :duration (= ?duration 2)
    :condition (and (at start (not (dark ?r))) (over all (all-lit)))
    :effect (at end (cleaned ?r)))
  (:durative-action dust-all
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (forall (?r - room) (at end (decrease (dust ?r) 1))))
  (:durative-action switch-off
    :parameters (?r - room)
    :duration (= ?duration 1)
    :condition (at start (lit ?r))
    :effect (at start (not (lit ?r))))
)
