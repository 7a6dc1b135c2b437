; A cook boils water in kettles and brews tea in pots while the water stays hot (an over
; all condition), heats the stove for as long as there is gas (a numeric duration), and can
; only buy milk while the shop is open (a timed initial literal window). Written for
; issue 28 (PDDL 2.1 level 3: durative actions; PDDL 2.2 timed initial literals).
(define (domain kitchen)
  (:requirements :strips :typing :durative-actions :numeric-fluents :duration-inequalities
                 :timed-initial-literals)
  (:types kettle pot)
  (:predicates (cold ?k - kettle) (hot ?k - kettle) (kettle-free ?k - kettle)
               (empty ?p - pot) (tea ?p - pot) (shop-open) (have-milk) (milky ?p - pot)
               (stove-free))
  (:functions (boil-time ?k - kettle) (gas) (heat))
  (:durative-action boil
    :parameters (?k - kettle)
    :duration (= ?duration (boil-time ?k))
    :condition (and (at start (cold ?k)) (at start (kettle-free ?k)) (at start (stove-free)))
    :effect (and (at start (not (kettle-free ?k))) (at start (not (stove-free)))
                 (at end (not (cold ?k))) (at end (hot ?k)) (at end (kettle-free ?k))
                 (at end (stove-free))))
  (:durative-action brew
    :parameters (?k - kettle ?p - pot)
    :duration (= ?duration 3)
    :condition (and (at start (empty ?p)) (at start (kettle-free ?k)) (over all (hot ?k)))
    :effect (and (at start (not (empty ?p))) (at start (not (kettle-free ?k)))
                 (at end (tea ?p)) (at end (kettle-free ?k))))
  (:durative-action warm-stove
    :parameters ()
    :duration (and (>= ?duration 1) (<= ?duration (gas)))
    :condition (and (at start (stove-free)) (at start (> (gas) 0)))
    :effect (and (at start (not (stove-free))) (at end (stove-free))
                 (at end (decrease (gas) ?duration)) (at end (increase (heat) ?duration))))
  (:durative-action buy-milk
    :parameters ()
    :duration (= ?duration 2)
    :condition (over all (shop-open))
    :effect (at end (have-milk)))
  (:action add-milk
    :parameters (?p - pot)
    :precondition (and (tea ?p) (have-milk))
    :effect (milky ?p))
)
