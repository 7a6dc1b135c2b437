; Assorted forms: a duration read from a fluent the action itself changes at start, an
; at-end duration bound, negative and fractional numbers, unary minus, bare total-time.
(define (domain edge-misc)
  (:requirements :strips :durative-actions :numeric-fluents :duration-inequalities)
  (:predicates (free) (done))
  (:functions (len) (v))
  (:durative-action grow
    :parameters ()
    :duration (= ?duration (len))
    :condition (at start (free))
    :effect (and (at start (not (free))) (at end (free)) (at start (increase (len) 1))
                 (at end (done))))
  (:durative-action late-bound
    :parameters ()
    :duration (and (>= ?duration 1) (at end (<= ?duration (len))))
    :condition (at start (free))
    :effect (and (at start (not (free))) (at end (free)) (at start (assign (len) 2))))
  (:durative-action neg
    :parameters ()
    :duration (= ?duration 0.5)
    :condition (at start (> (v) (- 4)))
    :effect (and (at end (decrease (v) -1.5)) (at end (done))))
)
