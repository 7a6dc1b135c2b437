; Two levels: a tower of two, turned upside down.
(define (problem towers-p01)
  (:domain towers)
  (:objects a b - block l1 l2 - level)
  (:init (on-table a) (on b a) (clear b) (hand-free)
         (at-level a l1) (at-level b l2) (bottom l1) (next l1 l2))
  (:goal (and (on a b) (on-table b))))
