;; A household in the manner of ALFRED (Shridhar et al. 2020) as ACPBench Hard poses it:
;; one agent walks between locations, opens and closes receptacles (fridge, drawers,
;; microwave), picks things up and puts them in receptacles, cleans things at a sink, heats
;; them in a microwave, cools them in a fridge, slices them with a knife, and toggles
;; devices (a desk lamp). Receptacle kinds and object properties are static facts, so one
;; domain serves many object types. Written for planning_core (issue 12) from that
;; description; it is not the ALFRED or ACPBench PDDL.
(define (domain alfred)
  (:requirements :strips :typing)
  (:types location receptacle thing device - object)
  (:predicates (at-agent ?l - location)
               (receptacle-at ?r - receptacle ?l - location)
               (device-at ?d - device ?l - location)
               (in ?t - thing ?r - receptacle)
               (holding ?t - thing)
               (hand-empty)
               (openable ?r - receptacle)
               (opened ?r - receptacle)
               (closed ?r - receptacle)
               (sink ?r - receptacle)
               (microwave ?r - receptacle)
               (fridge ?r - receptacle)
               (cleanable ?t - thing)
               (heatable ?t - thing)
               (coolable ?t - thing)
               (sliceable ?t - thing)
               (knife ?t - thing)
               (clean ?t - thing)
               (hot ?t - thing)
               (cold ?t - thing)
               (sliced ?t - thing)
               (is-on ?d - device)
               (is-off ?d - device))

  (:action go-to
    :parameters (?from ?to - location)
    :precondition (at-agent ?from)
    :effect (and (at-agent ?to) (not (at-agent ?from))))

  (:action open-receptacle
    :parameters (?r - receptacle ?l - location)
    :precondition (and (at-agent ?l) (receptacle-at ?r ?l) (openable ?r) (closed ?r))
    :effect (and (opened ?r) (not (closed ?r))))

  (:action close-receptacle
    :parameters (?r - receptacle ?l - location)
    :precondition (and (at-agent ?l) (receptacle-at ?r ?l) (openable ?r) (opened ?r))
    :effect (and (closed ?r) (not (opened ?r))))

  (:action pick-up
    :parameters (?t - thing ?r - receptacle ?l - location)
    :precondition (and (at-agent ?l) (receptacle-at ?r ?l) (opened ?r) (in ?t ?r)
                       (hand-empty))
    :effect (and (holding ?t) (not (in ?t ?r)) (not (hand-empty))))

  (:action put
    :parameters (?t - thing ?r - receptacle ?l - location)
    :precondition (and (at-agent ?l) (receptacle-at ?r ?l) (opened ?r) (holding ?t))
    :effect (and (in ?t ?r) (hand-empty) (not (holding ?t))))

  (:action clean-thing
    :parameters (?t - thing ?r - receptacle ?l - location)
    :precondition (and (at-agent ?l) (receptacle-at ?r ?l) (sink ?r) (holding ?t)
                       (cleanable ?t))
    :effect (clean ?t))

  (:action heat-thing
    :parameters (?t - thing ?r - receptacle ?l - location)
    :precondition (and (at-agent ?l) (receptacle-at ?r ?l) (microwave ?r) (opened ?r)
                       (holding ?t) (heatable ?t))
    :effect (and (hot ?t) (not (cold ?t))))

  (:action cool-thing
    :parameters (?t - thing ?r - receptacle ?l - location)
    :precondition (and (at-agent ?l) (receptacle-at ?r ?l) (fridge ?r) (opened ?r)
                       (holding ?t) (coolable ?t))
    :effect (and (cold ?t) (not (hot ?t))))

  (:action slice-thing
    :parameters (?t - thing ?k - thing ?r - receptacle ?l - location)
    :precondition (and (at-agent ?l) (receptacle-at ?r ?l) (in ?t ?r) (holding ?k)
                       (knife ?k) (sliceable ?t))
    :effect (sliced ?t))

  (:action toggle-on
    :parameters (?d - device ?l - location)
    :precondition (and (at-agent ?l) (device-at ?d ?l) (is-off ?d))
    :effect (and (is-on ?d) (not (is-off ?d))))

  (:action toggle-off
    :parameters (?d - device ?l - location)
    :precondition (and (at-agent ?l) (device-at ?d ?l) (is-on ?d))
    :effect (and (is-off ?d) (not (is-on ?d)))))
