; As domain.pddl, but the predicate cleared has an untyped parameter (of type object).
(define (domain office)
  (:requirements :adl)
  (:types person room - object manager - person)
  (:constants boss - manager)
  (:predicates (in ?p - person ?r - room) (lit ?r - room) (alarm) (quiet) (locked ?r - room)
               (cleared ?x) (badge ?p - person))
  (:action light
    :parameters (?r - room)
    :precondition (or (exists (?p - person) (in ?p ?r)) (locked ?r))
    :effect (and (lit ?r)
                 (when (exists (?p - manager) (in ?p ?r)) (quiet))
                 (when (imply (locked ?r) (alarm)) (not (quiet)))))
  (:action lock
    :parameters (?r - room)
    :precondition (not (or (lit ?r) (exists (?p - person) (in ?p ?r))))
    :effect (locked ?r))
  (:action evacuate
    :parameters (?r - room)
    :precondition (not (forall (?p - person) (not (in ?p ?r))))
    :effect (forall (?p - person) (when (in ?p ?r) (and (not (in ?p ?r)) (cleared ?p)))))
  (:action sound
    :parameters ()
    :precondition (and)
    :effect (and (alarm) (when (alarm) (not (alarm))) (forall (?r - room) (when (and (not (alarm)) (lit ?r)) (cleared ?r)))))
  (:action badge-all
    :parameters ()
    :precondition (not (imply (alarm) (quiet)))
    :effect (forall (?x - object) (when (not (= ?x boss)) (cleared ?x))))
  (:action meet
    :parameters (?p - person ?r - room)
    :precondition (and (not (= ?p ?r)) (in ?p ?r) (not (and (alarm) (quiet))))
    :effect (badge ?p)))
