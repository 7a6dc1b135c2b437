; Action costs used without declaring :action-costs.
(define (domain roads-nocost)
  (:requirements :strips :typing)
  (:types city)
  (:predicates (at ?c - city) (road ?a ?b - city) (toll-paid))
  (:functions (total-cost) - number (distance ?a ?b - city) - number)
  (:action drive
    :parameters (?from ?to - city)
    :precondition (and (at ?from) (road ?from ?to))
    :effect (and (not (at ?from)) (at ?to) (increase (total-cost) (distance ?from ?to))))
  (:action pay-toll
    :parameters ()
    :precondition (and)
    :effect (and (toll-paid) (increase (total-cost) 5)))
  (:action wait
    :parameters ()
    :precondition (and)
    :effect (and (increase (total-cost) 0))))
