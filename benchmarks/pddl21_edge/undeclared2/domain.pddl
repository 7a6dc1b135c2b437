; Features used without their requirement flags: a duration from a fluent (numeric fluents undeclared: warnings in both)
; and a negative precondition.
(define (domain edge-undeclared2)
  (:requirements :strips :durative-actions)
  (:predicates (busy) (done))
  (:functions (budget))
  (:durative-action work
    :parameters ()
    :duration (= ?duration (budget))
    :condition (at start (not (busy)))
    :effect (and (at start (busy)) (at end (not (busy))) (at end (done))))
)
