; Epsilon separation, mutexes, self-overlap, zero durations, plan order and times.
(define (domain edge-eps)
  (:requirements :strips :durative-actions :numeric-fluents :negative-preconditions)
  (:predicates (a) (b) (c) (guard) (goal-reached))
  (:functions (n))
  (:durative-action make-a
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (at end (a)))
  (:durative-action use-a
    :parameters ()
    :duration (= ?duration 1)
    :condition (at start (a))
    :effect (at end (b)))
  (:durative-action hold-guard
    :parameters ()
    :duration (= ?duration 3)
    :condition (over all (guard))
    :effect (at end (c)))
  (:durative-action drop-guard
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (and (at start (not (guard))) (at end (guard))))
  (:durative-action tick
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (and (at start (increase (n) 1)) (at end (increase (n) 1))))
  (:durative-action flash
    :parameters ()
    :duration (= ?duration 0)
    :condition (at start (a))
    :effect (at end (goal-reached)))
  (:durative-action temp-goal
    :parameters ()
    :duration (= ?duration 2)
    :condition (and)
    :effect (and (at start (goal-reached)) (at end (not (goal-reached)))))
  (:action reach
    :parameters ()
    :precondition (and (b))
    :effect (goal-reached))
  (:durative-action self-break
    :parameters ()
    :duration (= ?duration 1)
    :condition (over all (guard))
    :effect (and (at start (not (guard))) (at end (guard)) (at end (c))))
  (:durative-action self-make
    :parameters ()
    :duration (= ?duration 1)
    :condition (and (at start (not (a))) (over all (a)))
    :effect (and (at start (a)) (at end (not (a))) (at end (c))))
)
