; Uses (not (= ...)) and exists but declares only :strips and :typing.
(define (domain req-equality)
  (:requirements :strips :typing)
  (:types node)
  (:predicates (at ?n - node) (edge ?a ?b - node))
  (:action move
    :parameters (?a ?b - node)
    :precondition (and (at ?a) (not (= ?a ?b)) (exists (?c - node) (edge ?a ?c)))
    :effect (and (not (at ?a)) (at ?b))))
