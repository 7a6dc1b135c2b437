;; Clean a mug and heat it; look at a book under the desk lamp.
(define (problem alfred-02)
  (:domain alfred)
  (:objects door counter-spot sink-spot microwave-spot desk-spot shelf-spot - location
            countertop1 sinkbasin1 microwave1 desk1 shelf1 - receptacle
            desklamp1 - device
            mug1 book1 potato1 - thing)
  (:init (at-agent door) (hand-empty)
         (receptacle-at countertop1 counter-spot) (opened countertop1)
         (receptacle-at sinkbasin1 sink-spot) (opened sinkbasin1) (sink sinkbasin1)
         (receptacle-at microwave1 microwave-spot) (openable microwave1) (closed microwave1)
         (microwave microwave1)
         (receptacle-at desk1 desk-spot) (opened desk1)
         (receptacle-at shelf1 shelf-spot) (opened shelf1)
         (device-at desklamp1 desk-spot) (is-off desklamp1)
         (in mug1 countertop1) (in book1 shelf1) (in potato1 countertop1)
         (cleanable mug1) (heatable mug1) (coolable mug1)
         (heatable potato1) (coolable potato1) (cleanable potato1) (sliceable potato1))
  (:goal (and (clean mug1) (hot mug1) (in mug1 countertop1) (is-on desklamp1) (holding book1))))
