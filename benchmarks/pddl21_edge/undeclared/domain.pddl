; Features used without their requirement flags: a duration inequality (an error for us, as
; issue 28 asks; VAL warns) and negative preconditions and numeric fluents (warnings in both).
(define (domain edge-undeclared)
  (:requirements :strips :durative-actions)
  (:predicates (busy) (done))
  (:functions (budget))
  (:durative-action work
    :parameters ()
    :duration (and (>= ?duration 1) (<= ?duration (budget)))
    :condition (at start (not (busy)))
    :effect (and (at start (busy)) (at end (not (busy))) (at end (done))))
)
