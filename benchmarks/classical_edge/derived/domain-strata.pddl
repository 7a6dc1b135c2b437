; Derived predicates over derived predicates: (top ?x) negates (covered ?x), itself derived;
; (reach ?x ?y) is the transitive closure of (link ?x ?y).
(define (domain strata)
  (:requirements :strips :typing :negative-preconditions :derived-predicates :existential-preconditions)
  (:types node)
  (:predicates (link ?x ?y - node) (covered ?x - node) (top ?x - node) (reach ?x ?y - node)
               (marked ?x - node))
  (:derived (reach ?x ?y - node) (or (link ?x ?y) (exists (?z - node) (and (reach ?x ?z) (link ?z ?y)))))
  (:derived (covered ?x - node) (exists (?y - node) (and (link ?y ?x) (not (marked ?y)))))
  (:derived (top ?x - node) (not (covered ?x)))
  (:action mark
    :parameters (?x - node)
    :precondition (top ?x)
    :effect (marked ?x))
  (:action connect
    :parameters (?x ?y - node)
    :precondition (and (not (reach ?y ?x)) (not (= ?x ?y)))
    :effect (link ?x ?y)))
