; A continuous effect (PDDL 2.1 level 4), which our docs say we refuse with its position.
(define (domain edge-cont)
  (:requirements :strips :durative-actions :numeric-fluents :continuous-effects)
  (:predicates (idle))
  (:functions (fill))
  (:durative-action pump
    :parameters ()
    :duration (<= ?duration 10)
    :condition (at start (idle))
    :effect (and (at start (not (idle))) (at end (idle))
                 (increase (fill) (* #t 2))))
)
