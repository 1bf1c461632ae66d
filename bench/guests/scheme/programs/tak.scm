;;; tak: call-intensive recursion.
;;;
;;; Exercises: procedure calls and returns with almost no allocation:
;;; the Takeuchi function (three-way non-tail recursion), doubly recursive
;;; Fibonacci, and Ackermann's function (deep recursion, many small calls).
;;;
;;; n: Fibonacci argument n; Takeuchi on (k, 2k/3, k/3) with k = 3n/4;
;;; Ackermann A(2, 2n) and A(3, j) with j = n/5 capped at 7.  Work grows
;;; about 1.6x per unit of n: fib(n) makes ~1.6^n calls and dominates,
;;; tak(k) grows ~2.2x per unit of k (in uneven steps) and makes about
;;; a third to a half as many calls, A(2, 2n) ~8n^2 calls, A(3, j) ~40*4^j.
;;;
;;; Result: the list (fib tak ack2 ack3).
;;; Check: fib by an iterative loop, tak by a memoized evaluation over a
;;; table of argument triples, Ackermann by its closed forms
;;; A(2, j) = 2j + 3 and A(3, k) = 2^(k+3) - 3.

(define (tak-tak x y z)
  (if (not (< y x))
      z
      (tak-tak (tak-tak (- x 1) y z)
               (tak-tak (- y 1) z x)
               (tak-tak (- z 1) x y))))

(define (tak-fib n)
  (if (< n 2)
      n
      (+ (tak-fib (- n 1)) (tak-fib (- n 2)))))

(define (tak-ack m n)
  (cond ((= m 0) (+ n 1))
        ((= n 0) (tak-ack (- m 1) 1))
        (else (tak-ack (- m 1) (tak-ack m (- n 1))))))

(define (tak-args n)
  (let ((k (quotient (* 3 n) 4)))
    (list k (quotient (* 2 k) 3) (quotient k 3))))

(define (tak-ack3-arg n)
  (min 7 (quotient n 5)))

(define (run n)
  (let ((a (tak-args n)))
    (list (tak-fib n)
          (tak-tak (car a) (cadr a) (caddr a))
          (tak-ack 2 (* 2 n))
          (tak-ack 3 (tak-ack3-arg n)))))

;; Iterative Fibonacci.
(define (tak-fib-iter n)
  (do ((i 0 (+ i 1))
       (a 0 b)
       (b 1 (+ a b)))
      ((= i n) a)))

;; Takeuchi with memoization: every argument stays within [lo - 1, hi]
;; where lo and hi are the least and greatest initial arguments.
(define (tak-memo x y z)
  (let* ((lo (- (min x y z) 1))
         (w (+ (- (max x y z) lo) 1))
         (table (make-vector (* w w w) #f)))
    (define (index a b c)
      (+ (* (+ (* (- a lo) w) (- b lo)) w) (- c lo)))
    (define (t a b c)
      (let* ((i (index a b c))
             (seen (vector-ref table i)))
        (or seen
            (let ((v (if (< b a)
                         (let* ((p (t (- a 1) b c))
                                (q (t (- b 1) c a))
                                (r (t (- c 1) a b)))
                           (t p q r))
                         c)))
              (vector-set! table i v)
              v))))
    (t x y z)))

(define (tak-pow2 k)
  (let loop ((k k) (acc 1))
    (if (= k 0) acc (loop (- k 1) (* acc 2)))))

(define (check n result)
  (let ((a (tak-args n)))
    (equal? result
            (list (tak-fib-iter n)
                  (tak-memo (car a) (cadr a) (caddr a))
                  (+ (* 2 (* 2 n)) 3)
                  (- (tak-pow2 (+ (tak-ack3-arg n) 3)) 3)))))

(define sizes '((small . 16) (train . 26) (test . 30)))
