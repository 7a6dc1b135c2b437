; One name for a type, a predicate, an action and a constant; uppercase keywords;
; an empty :precondition (), an action without :effect parts, a 0-ary derived predicate.
(define (DOMAIN shared-names)
  (:REQUIREMENTS :STRIPS :TYPING :DERIVED-PREDICATES :NEGATIVE-PRECONDITIONS)
  (:TYPES key door - object)
  (:CONSTANTS key - key)
  (:PREDICATES (key ?k - key) (door ?d - door) (open ?d - door) (holding ?k - key) (all-open))
  
  (:ACTION key
    :PARAMETERS (?k - key)
    :PRECONDITION (and (key ?k) (not (holding ?k)))
    :EFFECT (holding ?k))
  (:ACTION door
    :PARAMETERS (?d - door ?k - key)
    :PRECONDITION (and (door ?d) (holding ?k))
    :EFFECT (open ?d))
  (:ACTION rest
    :PARAMETERS ()
    :PRECONDITION ()
    :EFFECT (and)))
