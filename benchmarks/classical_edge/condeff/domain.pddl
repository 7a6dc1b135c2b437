; Conditional effects: when, forall ... when, an atom added and deleted by one action,
; a delete of an absent atom, an add of a present atom.
(define (domain switches)
  (:requirements :strips :typing :negative-preconditions :conditional-effects)
  (:types switch)
  (:predicates (on ?s - switch) (seen ?s - switch) (wired ?a ?b - switch) (fresh ?s - switch) (done))
  (:action toggle
    :parameters (?s - switch)
    :precondition (and)
    :effect (and (when (on ?s) (not (on ?s)))
                 (when (not (on ?s)) (on ?s))))
  (:action propagate
    :parameters (?s - switch)
    :precondition (on ?s)
    :effect (forall (?t - switch) (when (wired ?s ?t) (and (on ?t) (seen ?t)))))
  (:action all-off
    :parameters ()
    :precondition (and)
    :effect (forall (?t - switch) (when (on ?t) (and (not (on ?t)) (seen ?t)))))
  (:action refresh
    :parameters (?s - switch)
    :precondition (and)
    :effect (and (not (fresh ?s)) (fresh ?s)))
  (:action move-on
    :parameters (?from ?to - switch)
    :precondition (on ?from)
    :effect (and (not (on ?from)) (on ?to)))
  (:action clear-seen
    :parameters (?s - switch)
    :precondition (and)
    :effect (not (seen ?s)))
  (:action mark
    :parameters (?s - switch)
    :precondition (and)
    :effect (and (seen ?s) (when (seen ?s) (done)))))
