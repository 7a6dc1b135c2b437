; A small domain for plan-file forms.
(define (domain robots)
  (:requirements :strips :typing)
  (:types robot cell)
  (:predicates (at ?r - robot ?c - cell) (adj ?a ?b - cell) (beeped) (scanned ?c - cell))
  (:action move
    :parameters (?r - robot ?from ?to - cell)
    :precondition (and (at ?r ?from) (adj ?from ?to))
    :effect (and (not (at ?r ?from)) (at ?r ?to)))
  (:action scan
    :parameters (?r - robot ?c - cell)
    :precondition (at ?r ?c)
    :effect (scanned ?c))
  (:action beep
    :parameters ()
    :precondition (and)
    :effect (beeped)))
