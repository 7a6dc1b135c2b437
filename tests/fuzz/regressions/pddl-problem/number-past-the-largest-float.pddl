;; Three towns: the direct road a-c (10) is dearer than the detour a-b-c (3 + 4).
(define (problem costs-3)
  (:domain costs)
  (:objects a b c - city
            van1 - van
            parcel1 - parcel)
  (:init (van-at van1 a) (parcel-at parcel1 a)
         (road a b) (road b a) (road b c) (road c b) (road a c) (road c a)
         (= (road-length a b) 9999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999) (= (road-length b a) 3)
         (= (road-length b c) 4) (= (road-length c b) 4)
         (= (road-length a c) 10) (= (road-length c a) 10)
         (= (total-cost) 0))
  (:goal (parcel-at parcel1 c))
  (:metric minimize (total-cost)))
