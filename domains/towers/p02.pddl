; Three levels: two towers of two become one of three.
(define (problem towers-p02)
  (:domain towers)
  (:objects a b c d - block l1 l2 l3 - level)
  (:init (on-table a) (on b a) (clear b) (on-table c) (on d c) (clear d) (hand-free)
         (at-level a l1) (at-level b l2) (at-level c l1) (at-level d l2)
         (bottom l1) (next l1 l2) (next l2 l3))
  (:goal (and (on d b) (on b c) (on-table c))))
