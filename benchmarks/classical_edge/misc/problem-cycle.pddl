(define (problem cycle-1) (:domain cycle) (:init (q)) (:goal (done)))
