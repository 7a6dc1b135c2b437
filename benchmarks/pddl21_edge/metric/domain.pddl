; Metrics: maximize, several fluents, total-time in timed and sequential plans.
(define (domain edge-metric)
  (:requirements :strips :durative-actions :numeric-fluents)
  (:predicates (done))
  (:functions (cost) (reward) (used ?r - object))
  (:durative-action job
    :parameters (?r - object)
    :duration (= ?duration 3)
    :condition (and)
    :effect (and (at end (done)) (at end (increase (cost) 2)) (at start (increase (used ?r) 1))
                 (at end (increase (reward) (* ?duration (used ?r))))))
)
