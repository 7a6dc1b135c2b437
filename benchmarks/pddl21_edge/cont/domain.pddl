; Continuous effects (PDDL 2.1 level 4), linear: a rate of constants and fluents that change
; only at happenings. Invariants over a changing fluent, concurrent rates, conditions read
; while a fluent changes.
(define (domain edge-cont)
  (:requirements :strips :durative-actions :numeric-fluents :continuous-effects
                 :duration-inequalities)
  (:predicates (idle) (checked))
  (:functions (fill) (flow) (cap))
  (:durative-action pump
    :parameters ()
    :duration (<= ?duration 10)
    :condition (at start (idle))
    :effect (and (at start (not (idle))) (at end (idle))
                 (increase (fill) (* #t 2))))
  (:durative-action pump-capped
    :parameters ()
    :duration (<= ?duration 10)
    :condition (over all (<= (fill) (cap)))
    :effect (increase (fill) (* (flow) #t)))
  (:durative-action drain
    :parameters ()
    :duration (<= ?duration 10)
    :condition (over all (> (fill) 0))
    :effect (decrease (fill) (* #t 1)))
  (:action check
    :parameters ()
    :precondition (>= (fill) 3)
    :effect (checked))
  (:action set-flow
    :parameters ()
    :precondition (and)
    :effect (and (assign (flow) 4)))
  (:action top
    :parameters ()
    :precondition (and)
    :effect (and (increase (fill) 1)))
  (:action reset
    :parameters ()
    :precondition (and)
    :effect (and (assign (fill) 0)))
)
