;;; nqueens: count every solution of the n-queens puzzle, with lists.
;;;
;;; Exercises: recursion and backtracking over lists: candidate rows are
;;; kept in a list and removed with a consing delete, placed queens are a
;;; list walked by a diagonal test on every candidate, and the count is
;;; threaded through a fold written with explicit recursion.
;;;
;;; n: board size.  Work grows roughly 5x to 6x per unit of n (the search
;;; tree of an n-board is about n!/c^n nodes).
;;;
;;; Result: the number of solutions.
;;; Check: the known table of solution counts for boards of size 1 to 14.

;; The list (1 2 ... n).
(define (nq-range n)
  (let loop ((i n) (acc '()))
    (if (= i 0) acc (loop (- i 1) (cons i acc)))))

;; A copy of lst without the first element eqv? to x.
(define (nq-remove x lst)
  (cond ((null? lst) '())
        ((eqv? x (car lst)) (cdr lst))
        (else (cons (car lst) (nq-remove x (cdr lst))))))

;; Can a queen go in row `row` of the next column, given the rows of the
;; queens already placed (nearest column first)?
(define (nq-safe? row placed)
  (let loop ((placed placed) (dist 1))
    (cond ((null? placed) #t)
          ((= (abs (- (car placed) row)) dist) #f)
          (else (loop (cdr placed) (+ dist 1))))))

;; Count completions: `free` are the rows not used yet.
(define (nq-count free placed)
  (if (null? free)
      1
      (let try ((cands free) (total 0))
        (if (null? cands)
            total
            (let ((row (car cands)))
              (try (cdr cands)
                   (if (nq-safe? row placed)
                       (+ total (nq-count (nq-remove row free) (cons row placed)))
                       total)))))))

(define (run n)
  (nq-count (nq-range n) '()))

(define nq-known
  '#(1 1 0 0 2 10 4 40 92 352 724 2680 14200 73712 365596))

(define (check n result)
  (and (<= 0 n) (< n (vector-length nq-known))
       (eqv? result (vector-ref nq-known n))))

(define sizes '((small . 7) (train . 10) (test . 11)))
