; Sequential numeric actions: scale-up/scale-down, assign of an expression over other
; fluents, conditional numeric effects, (= ...) between two fluents, either types with
; fluents, constants in fluent arguments, division at plan time.
(define (domain edge-numeric)
  (:requirements :strips :typing :numeric-fluents :conditional-effects)
  (:types tank pump - object)
  (:constants main side - tank)
  (:predicates (on ?p - pump) (flag))
  (:functions (level ?t - tank) (rate ?p - pump) (weight ?x - (either tank pump))
              (total) (ratio) (divisor))
  (:action double
    :parameters (?t - tank)
    :precondition (> (level ?t) 0)
    :effect (and (scale-up (level ?t) 2)))
  (:action halve
    :parameters (?t - tank)
    :precondition (and)
    :effect (and (scale-down (level ?t) 2)))
  (:action scale-by-rate
    :parameters (?t - tank ?p - pump)
    :precondition (and)
    :effect (and (scale-up (level ?t) (rate ?p))))
  (:action shrink-by-divisor
    :parameters (?t - tank)
    :precondition (and)
    :effect (and (scale-down (level ?t) (divisor))))
  (:action sum-up
    :parameters ()
    :precondition (and)
    :effect (and (assign (total) (+ (level main) (* 2 (weight main))))))
  (:action pour
    :parameters (?from ?to - tank)
    :precondition (>= (level ?from) 1)
    :effect (and (decrease (level ?from) 1) (increase (level ?to) 1)
                 (when (flag) (increase (total) 10))
                 (when (> (level ?to) 5) (assign (ratio) (level ?to)))))
  (:action divide
    :parameters (?t - tank)
    :precondition (and)
    :effect (and (assign (ratio) (/ (level ?t) (divisor)))))
  (:action set-divisor-zero
    :parameters ()
    :precondition (and)
    :effect (and (assign (divisor) 0)))
  (:action raise-flag
    :parameters (?x - (either tank pump))
    :precondition (= (weight ?x) (level main))
    :effect (and (flag) (increase (weight ?x) 1)))
  (:action read-undefined
    :parameters ()
    :precondition (and)
    :effect (and (increase (total) (weight side))))
  (:action test-undefined
    :parameters ()
    :precondition (< (weight side) 100)
    :effect (and (flag)))
  (:action assign-undefined
    :parameters ()
    :precondition (and)
    :effect (and (assign (weight side) (+ (weight side) 1))))
  (:action define-side
    :parameters ()
    :precondition (and)
    :effect (and (assign (weight side) 5)))
  (:action switch-on
    :parameters (?p - pump)
    :precondition (and)
    :effect (on ?p))
)
