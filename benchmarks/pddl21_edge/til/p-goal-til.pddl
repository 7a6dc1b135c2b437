; a literal after the plan's end takes the goal away
(define (problem edge-til-p4)
  (:domain edge-til)
  (:init (lit) (at 2 (open)) (at 6 (ready)) (at 20 (not (done))))
  (:goal (done))
  (:metric minimize (total-time))
)
