(define (problem case-twin-1) (:domain case-twin) (:init) (:goal (b)))
