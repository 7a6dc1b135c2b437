; Decimal amounts that binary floating point does not hold exactly: 0.1 + 0.1 + 0.1 is 0.3
; in PDDL's rational arithmetic, 0.30000000000000004 in doubles.
(define (domain edge-rounding)
  (:requirements :strips :numeric-fluents)
  (:predicates (done))
  (:functions (load) (capacity))
  (:action add
    :parameters ()
    :precondition (<= (+ (load) 0.1) (capacity))
    :effect (and (increase (load) 0.1)))
  (:action finish-exact
    :parameters ()
    :precondition (= (load) (capacity))
    :effect (done))
  (:action finish-below
    :parameters ()
    :precondition (< (load) (capacity))
    :effect (done))
  (:action finish-above
    :parameters ()
    :precondition (> (load) 0.3)
    :effect (done))
)
