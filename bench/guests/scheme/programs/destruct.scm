;;; destruct: destructive list updates.
;;;
;;; Exercises: set-car! and set-cdr! on many lists, in-place reversal,
;;; append!-style splicing, rotation by relinking the last pair, cutting
;;; a list in two, and walking lists with last-pair / list-tail.
;;;
;;; A table of 32 lists of small integers is kept in a vector.  Each of
;;; the n rounds picks lists with a linear congruential generator and
;;; applies one of five destructive operations: reverse a list in place,
;;; rotate it left by k (relink the last pair to the head, cut after k),
;;; splice one list onto the end of another (the donor becomes a fresh
;;; short list), cut a list in two and give the tail to another slot, or
;;; add a constant to every element with set-car!.
;;;
;;; n: number of rounds.  Work grows linearly with n (list lengths stay
;;; bounded: long lists are cut back).
;;;
;;; Result: (total-length weighted-checksum).
;;; Check: the same rounds are replayed with purely functional list
;;; operations (reverse, append, list-tail, map, fresh lists) on a table
;;; held in an association list, and the two results compared.

(define destruct-slots 32)

;; Park-Miller generator: seeds stay below 2^31, products below 2^46.
(define (destruct-next seed) (modulo (* seed 16807) 2147483647))

(define (destruct-fresh len start)
  (let loop ((i len) (acc '()))
    (if (= i 0) acc (loop (- i 1) (cons (+ start i) acc)))))

;; In-place reversal.
(define (destruct-reverse! lst)
  (let loop ((l lst) (prev '()))
    (if (null? l)
        prev
        (let ((next (cdr l)))
          (set-cdr! l prev)
          (loop next l)))))

;; Destructive append: returns a, with b linked after its last pair.
(define (destruct-append! a b)
  (if (null? a)
      b
      (begin (set-cdr! (last-pair a) b) a)))

;; Rotate left by k (0 < k < length): make the list circular, then cut.
(define (destruct-rotate! lst k)
  (let ((cut (list-tail lst (- k 1))))
    (let ((new-head (cdr cut)))
      (set-cdr! (last-pair lst) lst)
      (set-cdr! cut '())
      new-head)))

;; Cut after k elements (0 < k < length): returns the tail, lst keeps k.
(define (destruct-split! lst k)
  (let* ((cut (list-tail lst (- k 1)))
         (tail (cdr cut)))
    (set-cdr! cut '())
    tail))

(define (destruct-add! lst c)
  (let loop ((l lst))
    (when (pair? l)
      (set-car! l (+ (car l) c))
      (loop (cdr l)))))

(define (destruct-length lst)
  (let loop ((l lst) (k 0))
    (if (null? l) k (loop (cdr l) (+ k 1)))))

(define (destruct-summary get)
  (let loop ((i 0) (total 0) (sum 0))
    (if (= i destruct-slots)
        (list total sum)
        (let inner ((l (get i)) (pos 1) (total total) (sum sum))
          (if (null? l)
              (loop (+ i 1) total sum)
              (inner (cdr l) (+ pos 1) (+ total 1)
                     (modulo (+ sum (* (+ i 1) pos (car l))) 1000000007)))))))

(define (run n)
  (let ((table (make-vector destruct-slots '())))
    (do ((i 0 (+ i 1))) ((= i destruct-slots))
      (vector-set! table i (destruct-fresh (+ 5 i) (* 100 i))))
    (let loop ((round 0) (seed 42))
      (if (= round n)
          (destruct-summary (lambda (i) (vector-ref table i)))
          (let* ((s1 (destruct-next seed))
                 (s2 (destruct-next s1))
                 (s3 (destruct-next s2))
                 (a (modulo (quotient s1 256) destruct-slots))
                 (b (modulo (quotient s2 256) destruct-slots))
                 (op (modulo (quotient s3 256) 5))
                 (la (vector-ref table a))
                 (len (destruct-length la)))
            (cond ((= op 0)
                   (vector-set! table a (destruct-reverse! la)))
                  ((= op 1)
                   (when (> len 1)
                     (vector-set! table a
                                  (destruct-rotate! la (+ 1 (modulo round (- len 1)))))))
                  ((= op 2)
                   (when (not (= a b))
                     (vector-set! table a (destruct-append! la (vector-ref table b)))
                     (vector-set! table b (destruct-fresh (+ 3 (modulo round 7)) round))))
                  ((= op 3)
                   (when (> len 1)
                     (vector-set! table b
                                  (destruct-append! (destruct-split! la (quotient len 2))
                                                    (if (= a b) '() (vector-ref table b))))))
                  (else
                   (destruct-add! la (modulo round 13))))
            ;; keep lengths bounded
            (let ((l (vector-ref table a)))
              (when (> (destruct-length l) 400)
                (destruct-split! l 100)))
            (loop (+ round 1) s3))))))

;;; The check: the same rounds with functional operations on an
;;; association list (slot . list).

(define (destruct-f-get alist i) (cdr (assv i alist)))

(define (destruct-f-put alist i val)
  (cond ((null? alist) (list (cons i val)))
        ((eqv? (caar alist) i) (cons (cons i val) (cdr alist)))
        (else (cons (car alist) (destruct-f-put (cdr alist) i val)))))

(define (destruct-f-take lst k)
  (if (= k 0) '() (cons (car lst) (destruct-f-take (cdr lst) (- k 1)))))

(define (check n result)
  (let init ((i 0) (alist '()))
    (if (< i destruct-slots)
        (init (+ i 1) (destruct-f-put alist i (destruct-fresh (+ 5 i) (* 100 i))))
        (let loop ((round 0) (seed 42) (alist alist))
          (if (= round n)
              (equal? result (destruct-summary (lambda (i) (destruct-f-get alist i))))
              (let* ((s1 (destruct-next seed))
                     (s2 (destruct-next s1))
                     (s3 (destruct-next s2))
                     (a (modulo (quotient s1 256) destruct-slots))
                     (b (modulo (quotient s2 256) destruct-slots))
                     (op (modulo (quotient s3 256) 5))
                     (la (destruct-f-get alist a))
                     (len (length la))
                     (alist
                      (case op
                        ((0) (destruct-f-put alist a (reverse la)))
                        ((1) (if (> len 1)
                                 (let ((k (+ 1 (modulo round (- len 1)))))
                                   (destruct-f-put alist a (append (list-tail la k)
                                                                   (destruct-f-take la k))))
                                 alist))
                        ((2) (if (= a b)
                                 alist
                                 (destruct-f-put
                                  (destruct-f-put alist a (append la (destruct-f-get alist b)))
                                  b (destruct-fresh (+ 3 (modulo round 7)) round))))
                        ((3) (if (> len 1)
                                 (let* ((h (quotient len 2))
                                        (alist (destruct-f-put alist a (destruct-f-take la h))))
                                   (destruct-f-put alist b
                                                   (append (list-tail la h)
                                                           (if (= a b) '() (destruct-f-get alist b)))))
                                 alist))
                        (else (destruct-f-put alist a
                                              (map (lambda (x) (+ x (modulo round 13))) la)))))
                     (l (destruct-f-get alist a))
                     (alist (if (> (length l) 400)
                                (destruct-f-put alist a (destruct-f-take l 100))
                                alist)))
                (loop (+ round 1) s3 alist)))))))

(define sizes '((small . 80) (train . 3000) (test . 20000)))
