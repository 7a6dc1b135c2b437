;; Six agents in two groups that never meet: a ring ann-bob-cat and a line dan-eve-fay.
(define (problem swap-02)
  (:domain swap)
  (:objects ann bob cat dan eve fay - agent
            book pen cup hat key map - item)
  (:init (assigned ann book) (assigned bob pen) (assigned cat cup)
         (assigned dan hat) (assigned eve key) (assigned fay map)
         (can-swap ann bob) (can-swap bob ann) (can-swap bob cat) (can-swap cat bob)
         (can-swap cat ann) (can-swap ann cat)
         (can-swap dan eve) (can-swap eve dan) (can-swap eve fay) (can-swap fay eve))
  (:goal (and (assigned ann cup) (assigned bob book) (assigned dan map) (assigned fay hat))))
