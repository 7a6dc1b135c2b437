; Timed initial literals against a durative action's start, end and over all condition.
(define (domain edge-til)
  (:requirements :strips :durative-actions :timed-initial-literals)
  (:predicates (open) (ready) (done) (lit))
  (:durative-action work
    :parameters ()
    :duration (= ?duration 4)
    :condition (and (at start (open)) (over all (lit)) (at end (ready)))
    :effect (at end (done)))
  (:durative-action glance
    :parameters ()
    :duration (= ?duration 4)
    :condition (over all (lit))
    :effect (at end (done)))
  (:durative-action relight
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (at end (lit)))
  (:action press
    :parameters ()
    :precondition (open)
    :effect (done))
)
