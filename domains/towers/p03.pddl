; Three levels: a tower of three rebuilt in the opposite order, beside a tower of two.
(define (problem towers-p03)
  (:domain towers)
  (:objects a b c d e - block l1 l2 l3 - level)
  (:init (on-table a) (on b a) (on c b) (clear c) (on-table d) (on e d) (clear e)
         (hand-free)
         (at-level a l1) (at-level b l2) (at-level c l3) (at-level d l1) (at-level e l2)
         (bottom l1) (next l1 l2) (next l2 l3))
  (:goal (and (on-table c) (on b c) (on a b) (on d e))))
