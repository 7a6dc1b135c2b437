; (lit) only from 2 to 10
(define (problem edge-til-p5)
  (:domain edge-til)
  (:init (open) (ready) (at 2 (lit)) (at 10 (not (lit))))
  (:goal (done))
  (:metric minimize (total-time))
)
