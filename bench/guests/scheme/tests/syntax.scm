;;; syntax.scm: every special form: define, lambda, let forms, do, if,
;;; cond, case, and, or, when, unless, begin, set!, quote, quasiquote.
(define (show . xs) (for-each (lambda (x) (write x) (display " ")) xs) (newline))

;; define and lambda: fixed, rest and variadic parameters
(define x 10)
(define (add a b) (+ a b))
(define (rest a b . r) (list a b r))
(define (all . args) args)
(define sq (lambda (n) (* n n)))
(show x (add 1 2) (rest 1 2) (rest 1 2 3 4) (all) (all 1 2) (sq 7))
(show ((lambda (a . b) (list a b)) 1 2 3) ((lambda args args) 4 5))
;; internal defines, also mutually recursive
(define (evens n)
  (define (ev? k) (if (= k 0) #t (od? (- k 1))))
  (define (od? k) (if (= k 0) #f (ev? (- k 1))))
  (define limit n)
  (let loop ((i 0) (acc '()))
    (if (> i limit) (reverse acc) (loop (+ i 1) (if (ev? i) (cons i acc) acc)))))
(show (evens 10))
;; closures capture their frame
(define (counter)
  (let ((n 0))
    (lambda () (set! n (+ n 1)) n)))
(define c1 (counter))
(define c2 (counter))
(c1) (c1)
(show (c1) (c2))
;; let, let*, letrec, letrec*, named let
(show (let ((a 1) (b 2)) (let ((a b) (b a)) (list a b))))
(show (let* ((a 1) (b (+ a 1)) (c (* b 10))) (list a b c)) (let* () 5))
(show (letrec ((f (lambda (n) (if (= n 0) 1 (* n (f (- n 1))))))) (f 10)))
(show (letrec* ((a 1) (b (+ a 1))) (list a b)))
(show (let loop ((i 0) (acc '())) (if (= i 5) acc (loop (+ i 1) (cons i acc)))))
(show (let () (define z 3) (* z z)))
;; do
(show (do ((i 0 (+ i 1)) (acc '() (cons i acc))) ((= i 4) acc)))
(show (let ((v (make-vector 3 0))) (do ((i 0 (+ i 1))) ((= i 3) v) (vector-set! v i (* i i)))))
(show (do ((i 0 (+ i 1)) (fixed 'k)) ((= i 2) fixed)))
;; if
(show (if #t 'yes 'no) (if #f 'yes 'no) (if '() 'empty-is-true 'no) (if 0 'zero-is-true 'no))
(if #f (show 'never))
;; cond with else and =>
(define (classify n)
  (cond ((< n 0) 'negative)
        ((assv n '((0 . zero) (1 . one))) => cdr)
        ((> n 100))
        (else 'other)))
(show (classify -5) (classify 0) (classify 1) (classify 500) (classify 50))
(show (cond (#f 1)))
;; case with else
(define (kind x)
  (case x
    ((1 2 3) 'small)
    ((a b) 'letter)
    ((#\x) 'char)
    (else 'unknown)))
(show (kind 2) (kind 'b) (kind #\x) (kind 99))
;; and, or
(show (and) (and 1 2) (and 1 #f 3) (or) (or #f 2) (or #f #f))
;; when, unless, begin
(show (when (= 1 1) 'a 'b) (unless (= 1 2) 'c 'd))
(when #f (show 'never))
(unless #t (show 'never))
(show (begin 1 2 3))
(begin (define top-from-begin 42))
(show top-from-begin)
;; set! on locals, outer locals and globals
(define g 1)
(define (bump!) (set! g (+ g 1)))
(bump!) (bump!)
(show g (let ((a 1)) (let ((f (lambda () (set! a (+ a 10))))) (f) (f) a)))
;; quote and quasiquote
(show 'sym '(1 . 2) '(a (b c) #(1 2)) ''a '#(1 #\a "s"))
(define n 3)
(show `(1 ,n ,@(list 4 5) 6) `(x . ,n) `(,@'() . tail) `#(1 ,n ,@(list 7 8)) `((nested ,n) ,(+ n 1)))
;; vectors and strings are self-evaluating
(show #(1 2 3) "str" #\a #t #f)
;; comments
#| block #| nested |# comment |#
(show 'after-block #;(show 'skipped) 'datum-comment)
;; argument evaluation is left to right
(define order '())
(define (note x) (set! order (cons x order)) x)
(list (note 1) (note 2) (note 3))
(show (reverse order))
;; shadowing a keyword by a local variable
(show (let ((list (lambda args 'mine))) (list 1 2)) (let ((if (lambda (a b c) c))) (if 1 2 3)))
