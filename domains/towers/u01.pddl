; Unsolvable: three levels, and the goal is a tower of four. Every pair of goal facts can
; hold together (a tower of three fits); the chain (on b c) (on c d) (on d a) cannot.
(define (problem towers-u01)
  (:domain towers)
  (:objects a b c d - block l1 l2 l3 - level)
  (:init (on-table a) (clear a) (on-table b) (clear b) (on-table c) (on d c) (clear d)
         (hand-free)
         (at-level a l1) (at-level b l1) (at-level c l1) (at-level d l2)
         (bottom l1) (next l1 l2) (next l2 l3))
  (:goal (and (on b c) (on c d) (on d a))))
