; Duration inequalities, ?duration inside effects, a duration read from a fluent.
(define (domain edge-durineq)
  (:requirements :strips :durative-actions :numeric-fluents :duration-inequalities)
  (:predicates (idle) (charged))
  (:functions (energy) (cap))
  (:durative-action charge
    :parameters ()
    :duration (and (>= ?duration 2) (<= ?duration 5))
    :condition (at start (idle))
    :effect (and (at start (not (idle))) (at end (idle)) (at end (charged))
                 (at end (increase (energy) (* 2 ?duration)))))
  (:durative-action top-up
    :parameters ()
    :duration (and (>= ?duration 0) (<= ?duration (cap)))
    :condition (at start (idle))
    :effect (and (at start (not (idle))) (at end (idle))
                 (at start (increase (energy) ?duration))))
  (:durative-action drain
    :parameters ()
    :duration (<= ?duration (energy))
    :condition (at start (idle))
    :effect (and (at start (not (idle))) (at end (idle))
                 (at end (decrease (energy) ?duration))))
)
