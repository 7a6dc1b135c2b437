; A conditional effect spanning a durative action: condition at start, effect at end.
(define (domain edge-durspan)
  (:requirements :strips :durative-actions :conditional-effects)
  (:predicates (cold) (warned))
  (:durative-action spanning
    :parameters ()
    :duration (= ?duration 1)
    :condition (and)
    :effect (when (at start (cold)) (at end (warned))))
  (:action warm
    :parameters ()
    :precondition (cold)
    :effect (not (cold)))
)
