; Mixed-case names in the domain and problem (PDDL names are case-insensitive).
(define (domain Hanoi-Case)
  (:requirements :STRIPS :Typing)
  (:types Disc Peg)
  (:constants Big - Disc)
  (:predicates (On ?d - Disc ?p - Peg) (Empty ?p - Peg))
  (:action Move-Disc
    :parameters (?D - Disc ?From ?To - Peg)
    :precondition (and (ON ?D ?From) (empty ?To))
    :effect (and (not (On ?d ?from)) (on ?d ?to) (Empty ?From) (not (EMPTY ?TO)))))
