(define (problem free-variable-1) (:domain free-variable) (:objects a b) (:init (link a b)) (:goal (marked b)))
