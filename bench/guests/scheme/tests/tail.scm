;;; tail.scm: proper tail calls: a loop through every tail context, which
;;; would exhaust the C stack (about 25000 nested evaluations) if it
;;; recursed: 30000 iterations of each, 10^5 for named let, do and
;;; mutual recursion.
(define n 100000)
(define m 30000)
(define (loop-if i) (if (= i 0) 'if (loop-if (- i 1))))
(define (loop-cond i) (cond ((= i 0) 'cond) ((odd? i) (loop-cond (- i 1))) (else (loop-cond (- i 1)))))
(define (loop-case i) (case (remainder i 2) ((0) (if (= i 0) 'case (loop-case (- i 1)))) (else (loop-case (- i 1)))))
(define (loop-and i) (and #t (if (= i 0) 'and (loop-and (- i 1)))))
(define (loop-or i) (or #f (if (= i 0) 'or (loop-or (- i 1)))))
(define (loop-when i) (when #t (if (= i 0) 'when (loop-when (- i 1)))))
(define (loop-unless i) (unless #f (if (= i 0) 'unless (loop-unless (- i 1)))))
(define (loop-begin i) (begin 1 (if (= i 0) 'begin (loop-begin (- i 1)))))
(define (loop-let i) (let ((j (- i 1))) (if (< j 0) 'let (loop-let j))))
(define (loop-let* i) (let* ((j (- i 1)) (k j)) (if (< k 0) 'let* (loop-let* k))))
(define (loop-letrec i) (letrec ((j (- i 1))) (if (< j 0) 'letrec (loop-letrec j))))
(define (loop-apply i) (if (= i 0) 'apply (apply loop-apply (list (- i 1)))))
(define (ping i) (if (= i 0) 'mutual (pong (- i 1))))
(define (pong i) (if (= i 0) 'mutual (ping (- i 1))))
(define (loop-rest i . r) (if (= i 0) 'rest (loop-rest (- i 1) i)))
(for-each (lambda (f) (write (f m)) (newline))
          (list loop-if loop-cond loop-case loop-and loop-or loop-when loop-unless
                loop-begin loop-let loop-let* loop-letrec loop-apply loop-rest))
(write (ping n)) (newline)
(write (let loop ((i 0)) (if (= i n) 'named-let (loop (+ i 1))))) (newline)
(write (do ((i 0 (+ i 1))) ((= i n) 'do))) (newline)
;; non-tail recursion of moderate depth is fine
(define (depth k) (if (= k 0) 0 (+ 1 (depth (- k 1)))))
(write (depth 10000)) (newline)
