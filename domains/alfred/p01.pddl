;; Cool an apple and put it back on the counter.
(define (problem alfred-01)
  (:domain alfred)
  (:objects kitchen-door counter-spot fridge-spot sink-spot - location
            countertop1 fridge1 sinkbasin1 - receptacle
            apple1 mug1 - thing)
  (:init (at-agent kitchen-door) (hand-empty)
         (receptacle-at countertop1 counter-spot) (opened countertop1)
         (receptacle-at fridge1 fridge-spot) (openable fridge1) (closed fridge1) (fridge fridge1)
         (receptacle-at sinkbasin1 sink-spot) (opened sinkbasin1) (sink sinkbasin1)
         (in apple1 countertop1) (in mug1 sinkbasin1)
         (coolable apple1) (heatable apple1) (cleanable apple1) (sliceable apple1)
         (coolable mug1) (heatable mug1) (cleanable mug1))
  (:goal (and (cold apple1) (in apple1 countertop1))))
