; A tanker truck drives between depots on roads of given length, burning one unit of fuel
; per unit of distance, refuels at depots that sell fuel, and delivers drums of oil (a
; counted load with a capacity). Written for issue 28 (PDDL 2.1 level 2: numeric fluents).
(define (domain tanker)
  (:requirements :strips :typing :numeric-fluents)
  (:types truck depot)
  (:predicates (at ?t - truck ?d - depot)
               (road ?a ?b - depot)
               (sells-fuel ?d - depot))
  (:functions (fuel ?t - truck)
              (capacity ?t - truck)
              (drums ?t - truck)
              (stock ?d - depot)
              (demand ?d - depot)
              (distance ?a ?b - depot)
              (fuel-used))
  (:action drive
    :parameters (?t - truck ?from ?to - depot)
    :precondition (and (at ?t ?from) (road ?from ?to)
                       (>= (fuel ?t) (distance ?from ?to)))
    :effect (and (not (at ?t ?from)) (at ?t ?to)
                 (decrease (fuel ?t) (distance ?from ?to))
                 (increase (fuel-used) (distance ?from ?to))))
  (:action refuel
    :parameters (?t - truck ?d - depot)
    :precondition (and (at ?t ?d) (sells-fuel ?d) (< (fuel ?t) (capacity ?t)))
    :effect (and (assign (fuel ?t) (capacity ?t))))
  (:action load
    :parameters (?t - truck ?d - depot)
    :precondition (and (at ?t ?d) (> (stock ?d) 0) (< (drums ?t) 3))
    :effect (and (increase (drums ?t) 1) (decrease (stock ?d) 1)))
  (:action unload
    :parameters (?t - truck ?d - depot)
    :precondition (and (at ?t ?d) (>= (drums ?t) 1) (> (demand ?d) 0))
    :effect (and (decrease (drums ?t) 1) (decrease (demand ?d) 1)))
  (:action double-tank
    :parameters (?t - truck)
    :precondition (<= (* 2 (capacity ?t)) 200)
    :effect (and (scale-up (capacity ?t) 2)))
)
