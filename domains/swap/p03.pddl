;; Eight agents in a star around hub; gus may only start a trade with hub, never be asked.
(define (problem swap-03)
  (:domain swap)
  (:objects hub ann bob cat dan eve fay gus - agent
            book pen cup hat key map coin ring - item)
  (:init (assigned hub book) (assigned ann pen) (assigned bob cup) (assigned cat hat)
         (assigned dan key) (assigned eve map) (assigned fay coin) (assigned gus ring)
         (can-swap hub ann) (can-swap ann hub) (can-swap hub bob) (can-swap bob hub)
         (can-swap hub cat) (can-swap cat hub) (can-swap hub dan) (can-swap dan hub)
         (can-swap hub eve) (can-swap eve hub) (can-swap hub fay) (can-swap fay hub)
         (can-swap gus hub))
  (:goal (and (assigned ann ring) (assigned bob pen) (assigned cat book) (assigned fay hat))))
