;; Household chores with substitutable tools: a robot carries one tool at a time between
;; rooms and uses it to fix, clean or cook things. Which tool does which job is static
;; (can-fix, can-clean, can-cook), and every job has several tools that can do it, so a
;; hidden constraint ("the drill is broken", "never hold anything hot") leaves a way out.
;; Written for planning_core's adaptive-planning environment (issue 14).
(define (domain household)
  (:requirements :strips :typing)
  (:types room thing - object
          tool item - thing)
  (:predicates (robot-at ?r - room)
               (at ?x - thing ?r - room)
               (connected ?a - room ?b - room)
               (holding ?t - tool)
               (hand-free)
               (can-fix ?t - tool ?i - item)
               (can-clean ?t - tool ?i - item)
               (can-cook ?t - tool ?i - item)
               (broken ?i - item)
               (fixed ?i - item)
               (dirty ?i - item)
               (clean ?i - item)
               (raw ?i - item)
               (cooked ?i - item))

  (:action move
    :parameters (?from - room ?to - room)
    :precondition (and (robot-at ?from) (connected ?from ?to))
    :effect (and (robot-at ?to) (not (robot-at ?from))))

  (:action pick-up
    :parameters (?t - tool ?r - room)
    :precondition (and (robot-at ?r) (at ?t ?r) (hand-free))
    :effect (and (holding ?t) (not (at ?t ?r)) (not (hand-free))))

  (:action put-down
    :parameters (?t - tool ?r - room)
    :precondition (and (robot-at ?r) (holding ?t))
    :effect (and (at ?t ?r) (hand-free) (not (holding ?t))))

  (:action fix
    :parameters (?t - tool ?i - item ?r - room)
    :precondition (and (holding ?t) (robot-at ?r) (at ?i ?r) (broken ?i) (can-fix ?t ?i))
    :effect (and (fixed ?i) (not (broken ?i))))

  (:action clean
    :parameters (?t - tool ?i - item ?r - room)
    :precondition (and (holding ?t) (robot-at ?r) (at ?i ?r) (dirty ?i) (can-clean ?t ?i))
    :effect (and (clean ?i) (not (dirty ?i))))

  (:action cook
    :parameters (?t - tool ?i - item ?r - room)
    :precondition (and (holding ?t) (robot-at ?r) (at ?i ?r) (raw ?i) (can-cook ?t ?i))
    :effect (and (cooked ?i) (not (raw ?i)))))
