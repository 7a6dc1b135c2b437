; (lit) is deleted at 6, inside an interval [2, 6] only at its end, or [3, 7] inside
(define (problem edge-til-p2)
  (:domain edge-til)
  (:init (lit) (open) (ready) (at 6 (not (lit))))
  (:goal (done))
  (:metric minimize (total-time))
)
