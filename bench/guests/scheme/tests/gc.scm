;; options: -gc-every 4000 -poison -heap 16
;;; gc.scm: the collector under stress: a collection every 4000
;;; allocations (about 100 collections), freed memory poisoned and
;;; checked on reuse; a 20000-element vector of lists overflows the mark
;;; stack (16384 entries).
(define (iota n) (let loop ((i n) (acc '())) (if (= i 0) acc (loop (- i 1) (cons i acc)))))
(define keep (make-vector 20000 #f))
(do ((i 0 (+ i 1))) ((= i 20000)) (vector-set! keep i (list i (* i i))))
(define (churn k)
  (let loop ((i 0) (sum 0))
    (if (= i k)
        sum
        (loop (+ i 1) (+ sum (length (iota 50)) (string-length (make-string 10 #\a)))))))
(write (churn 1000)) (newline)
(define (check-keep i) (or (= i 20000) (and (equal? (vector-ref keep i) (list i (* i i))) (check-keep (+ i 1)))))
(write (check-keep 0)) (newline)
(define (tree d) (if (= d 0) '() (cons (tree (- d 1)) (tree (- d 1)))))
(define (count t) (if (null? t) 1 (+ (count (car t)) (count (cdr t)))))
(write (let loop ((i 0) (s 0)) (if (= i 20) s (loop (+ i 1) (+ s (count (tree 10))))))) (newline)
(define syms (map (lambda (i) (string->symbol (string-append "s" (number->string i)))) (iota 5000)))
(write (eq? (car syms) 's1)) (newline)
(write (length (vector->list keep))) (newline)
