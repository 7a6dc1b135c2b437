; A tiny blocksworld written for the malformed-input tests: every file in
; tests/malformed/ is this domain, problem or plan with exactly one fault.
(define (domain tinyblocks)
  (:requirements :strips :typing)
  (:types block - place)
  (:constants table - place)
  (:predicates (on ?x - block ?y - place)
               (clear ?x - place)
               (holding ?x - block)
               (handempty))
  (:action pick
    :parameters (?x - block ?y - place)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y)
                 (not (on ?x ?y)) (not (clear ?x)) (not (handempty))))
  (:process slow
    :parameters ()
    :precondition ()
    :effect ())
  (:action put
    :parameters (?x - block ?y - place)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (on ?x ?y) (clear ?x) (handempty)
                 (not (holding ?x)) (not (clear ?y)))))
