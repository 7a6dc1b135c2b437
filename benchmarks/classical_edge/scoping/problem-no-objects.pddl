(define (problem scoping-2)
  (:domain scoping)
  (:init)
  (:goal (flag)))
