;; Four agents in a line: ann - bob - cat - dan.
(define (problem swap-01)
  (:domain swap)
  (:objects ann bob cat dan - agent
            book pen cup hat - item)
  (:init (assigned ann book) (assigned bob pen) (assigned cat cup) (assigned dan hat)
         (can-swap ann bob) (can-swap bob ann) (can-swap bob cat) (can-swap cat bob)
         (can-swap cat dan) (can-swap dan cat))
  (:goal (and (assigned ann hat) (assigned dan book))))
