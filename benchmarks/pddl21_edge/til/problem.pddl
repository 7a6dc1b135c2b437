; (open) from 2, (lit) from 0 to 10, (ready) from 6
(define (problem edge-til-p)
  (:domain edge-til)
  (:init (lit) (at 2 (open)) (at 6 (ready)) (at 10 (not (lit))))
  (:goal (done))
  (:metric minimize (total-time))
)
