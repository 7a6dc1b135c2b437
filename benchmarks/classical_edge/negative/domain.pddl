; Negative preconditions and negative goals (hand-written for the classical edge set).
(define (domain lamps)
  (:requirements :strips :typing :negative-preconditions)
  (:types lamp)
  (:predicates (on ?l - lamp) (broken ?l - lamp))
  (:action switch-on
    :parameters (?l - lamp)
    :precondition (and (not (on ?l)) (not (broken ?l)))
    :effect (on ?l))
  (:action switch-off
    :parameters (?l - lamp)
    :precondition (on ?l)
    :effect (not (on ?l))))
