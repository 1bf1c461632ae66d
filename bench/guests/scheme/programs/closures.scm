;;; closures: closures and higher-order functions.
;;;
;;; Exercises: lambda creation and indirect calls through closures:
;;; map / filter / fold written here with lambdas, function composition
;;; and repeated composition, Church numerals (addition, multiplication,
;;; exponentiation), accumulators and a message-passing object that keep
;;; state in captured variables updated with set!, variadic procedures
;;; called through apply, a generator built from a closure, and lazy
;;; streams built from thunks (a stream sieve of primes).
;;;
;;; n: number of rounds; round i uses lists of 20 + (i mod 30) elements
;;; and numerals below 60.  After the rounds, the stream sieve produces
;;; the first 10 + n/100 primes.  Work grows linearly with n in the rounds
;;; plus roughly quadratically in the (small) number of primes.
;;;
;;; Result: (rounds-checksum prime-sum).
;;; Check: each round's values by closed forms or plain loops (sums of odd
;;; squares by a stepping loop, Church results by ordinary arithmetic,
;;; Fibonacci sums by F(k+2) - 1), primes by trial division.

(define (clo-fold f init lst)
  (if (null? lst) init (clo-fold f (f init (car lst)) (cdr lst))))

(define (clo-map f lst)
  (reverse (clo-fold (lambda (acc x) (cons (f x) acc)) '() lst)))

(define (clo-filter keep? lst)
  (reverse (clo-fold (lambda (acc x) (if (keep? x) (cons x acc) acc)) '() lst)))

(define (clo-range lo hi)
  (let loop ((i hi) (acc '()))
    (if (< i lo) acc (loop (- i 1) (cons i acc)))))

(define (clo-compose . fs)
  (if (null? fs)
      (lambda (x) x)
      (let ((f (car fs)) (rest (apply clo-compose (cdr fs))))
        (lambda (x) (f (rest x))))))

(define (clo-repeat f k)
  (clo-fold (lambda (g ignored) (clo-compose f g)) (lambda (x) x) (clo-range 1 k)))

;; Church numerals.
(define (clo-church k)
  (if (= k 0)
      (lambda (f) (lambda (x) x))
      (let ((p (clo-church (- k 1))))
        (lambda (f) (lambda (x) (f ((p f) x)))))))
(define (clo-c-add a b) (lambda (f) (lambda (x) ((a f) ((b f) x)))))
(define (clo-c-mul a b) (lambda (f) (a (b f))))
(define (clo-c-exp a b) (b a))
(define (clo-c->int c) ((c (lambda (x) (+ x 1))) 0))

;; An accumulator and a message-passing account.
(define (clo-make-acc total)
  (lambda (k) (set! total (+ total k)) total))

(define (clo-make-account balance)
  (let ((ops 0))
    (lambda (msg . args)
      (set! ops (+ ops 1))
      (case msg
        ((deposit) (set! balance (+ balance (car args))) balance)
        ((withdraw) (set! balance (- balance (car args))) balance)
        ((transfer) (set! balance (- balance (apply + args))) balance)
        ((ops) ops)
        (else balance)))))

;; A generator of Fibonacci numbers 1, 1, 2, 3, ...
(define (clo-fib-gen)
  (let ((a 0) (b 1))
    (lambda ()
      (let ((next b))
        (set! b (+ a b))
        (set! a next)
        next))))

(define (clo-round i)
  (let* ((m (+ 20 (modulo i 30)))
         (sq (clo-fold + 0 (clo-map (lambda (x) (* x x))
                                    (clo-filter odd? (clo-range 1 m)))))
         (church (clo-c->int (clo-c-add (clo-c-mul (clo-church (modulo i 12)) (clo-church 5))
                                        (clo-c-exp (clo-church 2) (clo-church (modulo i 6))))))
         (acc (clo-make-acc i))
         (adders (clo-map (lambda (k) (lambda () (acc k))) (clo-range 1 10)))
         (accv (clo-fold (lambda (last thunk) (thunk)) 0 adders))
         (account (clo-make-account 100))
         (bal (begin (account 'deposit i)
                     (account 'withdraw 7)
                     (account 'transfer 1 2 3 (modulo i 5))
                     (+ (account 'balance) (account 'ops))))
         (comp (+ ((clo-repeat (lambda (x) (+ x 3)) (modulo i 10)) i)
                  ((clo-compose (lambda (x) (* x 2)) (lambda (x) (+ x 1))) i)))
         (gen (clo-fib-gen))
         (fibs (clo-fold (lambda (s ignored) (+ s (gen))) 0 (clo-range 1 (modulo i 20)))))
    (+ sq church accv bal comp fibs)))

;; Streams: (head . thunk).
(define (clo-ints-from k) (cons k (lambda () (clo-ints-from (+ k 1)))))
(define (clo-stream-filter keep? s)
  (if (keep? (car s))
      (cons (car s) (lambda () (clo-stream-filter keep? ((cdr s)))))
      (clo-stream-filter keep? ((cdr s)))))
(define (clo-sieve s)
  (let ((p (car s)))
    (cons p (lambda ()
              (clo-sieve (clo-stream-filter (lambda (x) (not (= 0 (remainder x p))))
                                            ((cdr s))))))))
(define (clo-stream-sum s k)
  (let loop ((s s) (k k) (acc 0))
    (if (= k 0) acc (loop ((cdr s)) (- k 1) (+ acc (car s))))))

(define (clo-prime-count n) (+ 10 (quotient n 100)))

(define (run n)
  (let loop ((i 0) (total 0))
    (if (= i n)
        (list total (clo-stream-sum (clo-sieve (clo-ints-from 2)) (clo-prime-count n)))
        (loop (+ i 1) (+ total (clo-round i))))))

;;; Check.

(define (clo-check-round i)
  (let* ((m (+ 20 (modulo i 30)))
         (sq (do ((x 1 (+ x 2)) (s 0 (+ s (* x x)))) ((> x m) s)))
         (church (+ (* 5 (modulo i 12)) (expt 2 (modulo i 6))))
         (accv (+ i 55))
         (bal (+ (- (+ 100 i) 7 6 (modulo i 5)) 5))
         (comp (+ i (* 3 (modulo i 10)) (* 2 (+ i 1))))
         (fibs (let ((k (modulo i 20)))
                 ;; F(1) + ... + F(k) = F(k+2) - 1
                 (let f ((j 0) (a 0) (b 1))
                   (if (= j (+ k 2)) (- a 1) (f (+ j 1) b (+ a b)))))))
    (+ sq church accv bal comp fibs)))

(define (clo-check-primes count)
  (let loop ((k 2) (found 0) (sum 0))
    (if (= found count)
        sum
        (if (let trial ((d 2))
              (cond ((> (* d d) k) #t)
                    ((= 0 (remainder k d)) #f)
                    (else (trial (+ d 1)))))
            (loop (+ k 1) (+ found 1) (+ sum k))
            (loop (+ k 1) found sum)))))

(define (check n result)
  (let loop ((i 0) (total 0))
    (if (= i n)
        (equal? result (list total (clo-check-primes (clo-prime-count n))))
        (loop (+ i 1) (+ total (clo-check-round i))))))

(define sizes '((small . 10) (train . 400) (test . 6000)))
