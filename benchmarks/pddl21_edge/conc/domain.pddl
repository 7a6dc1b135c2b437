; Numeric concurrency: invariants over fluents, simultaneous updates of one fluent,
; reads of a fluent another action changes at the same time, simultaneous swaps.
(define (domain edge-conc)
  (:requirements :strips :durative-actions :numeric-fluents :conditional-effects)
  (:predicates (p) (q) (done))
  (:functions (fuel) (x) (y))
  (:durative-action fly
    :parameters ()
    :duration (= ?duration 4)
    :condition (over all (>= (fuel) 0))
    :effect (at end (done)))
  (:durative-action burn
    :parameters ()
    :duration (= ?duration 1)
    :condition (at start (>= (fuel) 1))
    :effect (and (at start (decrease (fuel) 3)) (at end (increase (fuel) 3))))
  (:durative-action set-x
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (at start (assign (x) 7)))
  (:durative-action add-x
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (at start (increase (x) 1)))
  (:durative-action read-x
    :parameters ()
    :duration (= ?duration 1)
    :condition (at start (< (x) 100))
    :effect (at end (q)))
  (:durative-action copy-x
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (at start (assign (y) (x))))
  (:durative-action cond-p
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (when (at start (p)) (at start (q))))
  (:durative-action kill-p
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (at start (not (p))))
  (:action swap
    :parameters ()
    :precondition (and)
    :effect (and (assign (x) (y)) (assign (y) (x))))
  (:action set-and-add
    :parameters ()
    :precondition (and)
    :effect (and (assign (x) 5) (increase (x) 1)))
  (:action add-twice
    :parameters ()
    :precondition (and)
    :effect (and (increase (x) 1) (increase (x) 2)))
  (:durative-action check-add-x
    :parameters ()
    :duration (= ?duration 1)
    :condition (at start (< (x) 50))
    :effect (at start (increase (x) 1)))
)
