; Domain constants used in actions and goals; a problem that declares a constant again.
(define (domain depot)
  (:requirements :strips :typing)
  (:types place crate)
  (:constants depot - place)
  (:predicates (at ?c - crate ?p - place) (home ?c - crate))
  (:action bring-home
    :parameters (?c - crate ?from - place)
    :precondition (at ?c ?from)
    :effect (and (not (at ?c ?from)) (at ?c depot) (home ?c)))
  (:action ship
    :parameters (?c - crate ?to - place)
    :precondition (at ?c depot)
    :effect (and (not (at ?c depot)) (at ?c ?to))))
