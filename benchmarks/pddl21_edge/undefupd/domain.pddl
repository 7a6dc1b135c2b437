; Updates of a fluent the problem gives no value: VAL starts an increase, decrease or
; scale from 0 (as action costs do) and an assign needs no old value; reading it fails.
(define (domain edge-undefupd)
  (:requirements :strips :durative-actions :numeric-fluents)
  (:predicates (done))
  (:functions (used) (dist))
  (:durative-action go-inc
    :parameters ()
    :duration (= ?duration (/ (dist) 2))
    :condition (and)
    :effect (and (at end (done)) (at end (increase (used) (dist)))))
  (:durative-action go-dec
    :parameters ()
    :duration (= ?duration (/ (dist) 2))
    :condition (and)
    :effect (and (at end (done)) (at end (decrease (used) (dist)))))
  (:durative-action go-scale
    :parameters ()
    :duration (= ?duration (/ (dist) 2))
    :condition (and)
    :effect (and (at end (done)) (at end (scale-up (used) 3))))
  (:durative-action go-assign
    :parameters ()
    :duration (= ?duration (/ (dist) 2))
    :condition (and)
    :effect (and (at end (done)) (at end (assign (used) (* 2 (dist))))))
  (:durative-action go-read
    :parameters ()
    :duration (= ?duration (/ (dist) 2))
    :condition (at start (<= (used) 100))
    :effect (and (at end (done))))
  (:action step-inc
    :parameters ()
    :precondition (and)
    :effect (and (done) (increase (used) 1)))
)
