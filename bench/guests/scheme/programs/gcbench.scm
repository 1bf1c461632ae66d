;;; gcbench: allocation-heavy binary trees (GCBench / binary-trees kind).
;;;
;;; Exercises: the allocator and garbage collector.  A long-lived tree of
;;; depth n and a long-lived vector stay reachable for the whole run while
;;; many short-lived trees are built and dropped: for each depth d from 4
;;; to n in steps of 2, 2^(n - d + 4) trees of depth d are built, half of
;;; them top-down (nodes allocated empty and filled in with set-car! /
;;; set-cdr!, which makes old-to-young pointers) and half bottom-up, and
;;; each is walked to count its nodes.  A node is a 3-slot vector #(left
;;; right item) or, for the top-down kind, a pair of pairs.
;;;
;;; n: the greatest tree depth.  Work and allocation double per unit of n
;;; (each depth step allocates about 2^(n+5) nodes in total).
;;;
;;; Result: (total-nodes-walked long-lived-tree-nodes item-checksum).
;;; Check: a tree of depth d has 2^(d+1) - 1 nodes, so the totals follow
;;; in closed form; the item checksum of a bottom-up tree built with item
;;; i is computed from the recurrence in closed form as well.

;; Bottom-up tree: #(left right item); leaves have #f children.
(define (gcb-make-bottom-up depth item)
  (if (= depth 0)
      (vector #f #f item)
      (vector (gcb-make-bottom-up (- depth 1) (- (* 2 item) 1))
              (gcb-make-bottom-up (- depth 1) (* 2 item))
              item)))

(define (gcb-count-vec t)
  (if (vector-ref t 0)
      (+ 1 (gcb-count-vec (vector-ref t 0)) (gcb-count-vec (vector-ref t 1)))
      1))

;; item-check: item - check(left) + check(right), as in the binary-trees
;; kind.
(define (gcb-item-check t)
  (if (vector-ref t 0)
      (+ (vector-ref t 2)
         (- (gcb-item-check (vector-ref t 0)) (gcb-item-check (vector-ref t 1))))
      (vector-ref t 2)))

;; Top-down tree: a node is ((left . right) . payload), allocated with
;; empty children and then filled in.
(define (gcb-new-node) (cons (cons '() '()) 0))

(define (gcb-populate! depth node)
  (when (> depth 0)
    (let ((l (gcb-new-node)) (r (gcb-new-node)))
      (set-car! (car node) l)
      (set-cdr! (car node) r)
      (set-cdr! node depth)
      (gcb-populate! (- depth 1) l)
      (gcb-populate! (- depth 1) r))))

(define (gcb-count-pair t)
  (if (null? (caar t))
      1
      (+ 1 (gcb-count-pair (caar t)) (gcb-count-pair (cdar t)))))

(define (gcb-pow2 k)
  (let loop ((k k) (acc 1))
    (if (= k 0) acc (loop (- k 1) (* acc 2)))))

(define (run n)
  (let* ((long-lived (gcb-new-node))
         (keep (make-vector 5000 0)))
    (gcb-populate! n long-lived)
    (do ((i 0 (+ i 1))) ((= i 5000))
      (vector-set! keep i (if (even? i) (cons i i) i)))
    (let loop ((d 4) (walked 0) (checksum 0))
      (if (> d n)
          (list walked
                (+ (gcb-count-pair long-lived)
                   (if (and (pair? (vector-ref keep 4998))
                            (= (cdr (vector-ref keep 4998)) 4998)
                            (= (vector-ref keep 4999) 4999))
                       0
                       1000000))
                checksum)
          (let ((iters (gcb-pow2 (+ (- n d) 4))))
            (let inner ((i 0) (walked walked) (checksum checksum))
              (if (= i iters)
                  (loop (+ d 2) walked checksum)
                  (let ((t1 (gcb-new-node)))
                    (gcb-populate! d t1)
                    (let* ((t2 (gcb-make-bottom-up d i))
                           (c (+ (gcb-count-pair t1) (gcb-count-vec t2))))
                      (inner (+ i 2)
                             (+ walked c)
                             (+ checksum (gcb-item-check t2))))))))))))

;; Closed forms.  Let C(d, i) be the item check of a bottom-up tree of
;; depth d built with item i.  C(0, i) = i and
;; C(d, i) = i + C(d-1, 2i-1) - C(d-1, 2i) = i - 1 for d >= 1 (induction:
;; i + (2i - 2) - (2i - 1) = i - 1 for d = 1, and for d > 1
;; i + (2i - 2) - (2i - 1) = i - 1 likewise).
(define (check n result)
  (let loop ((d 4) (walked 0) (checksum 0))
    (if (> d n)
        (equal? result
                (list walked (- (gcb-pow2 (+ n 1)) 1) checksum))
        (let* ((iters (gcb-pow2 (+ (- n d) 4)))
               (pairs (quotient iters 2))
               (size (- (gcb-pow2 (+ d 1)) 1))
               ;; items i = 0, 2, 4, ..., iters - 2 each give i - 1
               (sum-items (* 2 (quotient (* pairs (- pairs 1)) 2))))
          (loop (+ d 2)
                (+ walked (* 2 size pairs))
                (+ checksum (- sum-items pairs)))))))

(define sizes '((small . 5) (train . 9) (test . 12)))
