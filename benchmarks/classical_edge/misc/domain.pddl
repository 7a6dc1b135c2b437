; A type declared twice with two parents; equality between a constant and an object
; written in another letter case; empty sections.
(define (domain misc)
  (:requirements :strips :typing :equality :negative-preconditions)
  (:types tool device - object gadget - tool gadget - device)
  (:constants Hammer - tool)
  (:predicates (used ?t - tool) (on ?d - device))
  (:action use
    :parameters (?t - tool)
    :precondition (not (= ?t hammer))
    :effect (used ?t))
  (:action power
    :parameters (?d - device)
    :precondition (and)
    :effect (on ?d)))
