; A continuous effect whose rate reads the fluent it changes (exponential growth): VAL
; solves it; we validate linear change only and refuse this with its position.
(define (domain edge-contnl)
  (:requirements :strips :durative-actions :numeric-fluents :continuous-effects
                 :duration-inequalities)
  (:functions (money))
  (:durative-action invest
    :parameters ()
    :duration (<= ?duration 10)
    :condition (and)
    :effect (increase (money) (* #t (money))))
)
