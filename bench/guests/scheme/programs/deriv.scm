;;; deriv: symbolic differentiation.
;;;
;;; Exercises: list structure built with quasiquote / unquote-splicing,
;;; symbol dispatch with case, map over argument lists, consing of many
;;; short-lived trees, and recursive walks (derive, simplify, evaluate).
;;;
;;; For i = 0 .. n-1 an expression in x is built from i (sums, n-ary
;;; products, differences, integer powers), differentiated symbolically
;;; (product rule, chain rule, no simplification on the way), simplified
;;; (constant folding, dropping 0 terms and 1 factors, flattening), and
;;; differentiated and simplified again.  Both derivatives and the raw
;;; first derivative are evaluated at an integer point modulo a prime.
;;;
;;; n: number of expressions.  Work grows linearly with n.
;;;
;;; Result: (sum-of-first-derivatives sum-of-second-derivatives), each
;;; summed modulo 1000003 over all i.
;;; Check: each expression is converted to a coefficient list by a
;;; separate polynomial arithmetic (add, multiply, power over lists of
;;; coefficients), differentiated coefficient-wise and evaluated by
;;; Horner's rule at the same points.

(define deriv-p 1000003)

(define (deriv-expr i)
  (let ((a (+ 1 (modulo i 7)))
        (b (modulo i 5))
        (c (+ 1 (modulo i 3)))
        (k (+ 2 (modulo i 4))))
    `(+ (* ,a x x x)
        (* ,b x (+ x ,c))
        (pow (+ x ,c) ,k)
        (- (* x (pow x 2) (+ x 1)) ,b)
        (* (+ x ,a) (+ x ,b) (- x ,c))
        (pow (* ,c x (+ x ,(- b 2))) 2))))

(define (deriv-point i) (- (modulo (* i 7) 23) 11))

;; Symbolic derivative with respect to x, unsimplified.
(define (deriv-d e)
  (cond ((number? e) 0)
        ((symbol? e) (if (eq? e 'x) 1 0))
        (else
         (case (car e)
           ((+) `(+ ,@(map deriv-d (cdr e))))
           ((-) `(- ,(deriv-d (cadr e)) ,(deriv-d (caddr e))))
           ((*) (deriv-product (cdr e)))
           ((pow) `(* ,(caddr e) (pow ,(cadr e) ,(- (caddr e) 1)) ,(deriv-d (cadr e))))
           (else (error "deriv: unknown operator" e))))))

;; d(f1 f2 ... fk) = sum over j of f1 .. df_j .. fk
(define (deriv-product factors)
  (let loop ((before '()) (after factors) (terms '()))
    (if (null? after)
        `(+ ,@(reverse terms))
        (loop (cons (car after) before)
              (cdr after)
              (cons `(* ,@(reverse before) ,(deriv-d (car after)) ,@(cdr after))
                    terms)))))

;; Simplifier: fold numbers, drop neutral elements, flatten nested + and *.
(define (deriv-simplify e)
  (if (pair? e)
      (let ((args (map deriv-simplify (cdr e))))
        (case (car e)
          ((+) (deriv-simplify-nary '+ args 0))
          ((*) (deriv-simplify-nary '* args 1))
          ((-) (let ((a (car args)) (b (cadr args)))
                 (cond ((and (number? a) (number? b)) (- a b))
                       ((eqv? b 0) a)
                       ((equal? a b) 0)
                       (else `(- ,a ,b)))))
          ((pow) (let ((u (car args)) (k (cadr args)))
                   (cond ((= k 0) 1)
                         ((= k 1) u)
                         ((number? u) (expt u k))
                         (else `(pow ,u ,k)))))
          (else (error "simplify: unknown operator" e))))
      e))

(define (deriv-simplify-nary op args unit)
  (let loop ((args args) (const unit) (rest '()))
    (cond ((null? args)
           (let ((terms (if (= const unit) (reverse rest) (cons const (reverse rest)))))
             (cond ((and (eq? op '*) (= const 0)) 0)
                   ((null? terms) unit)
                   ((null? (cdr terms)) (car terms))
                   (else (cons op terms)))))
          ((number? (car args))
           (loop (cdr args)
                 (if (eq? op '+) (+ const (car args)) (* const (car args)))
                 rest))
          ((and (pair? (car args)) (eq? (caar args) op))
           (loop (append (cdar args) (cdr args)) const rest))
          (else (loop (cdr args) const (cons (car args) rest))))))

;; Evaluate at x = v modulo deriv-p.
(define (deriv-eval e v)
  (cond ((number? e) (modulo e deriv-p))
        ((symbol? e) (modulo v deriv-p))
        (else
         (case (car e)
           ((+) (let loop ((l (cdr e)) (acc 0))
                  (if (null? l) acc
                      (loop (cdr l) (modulo (+ acc (deriv-eval (car l) v)) deriv-p)))))
           ((*) (let loop ((l (cdr e)) (acc 1))
                  (if (null? l) acc
                      (loop (cdr l) (modulo (* acc (deriv-eval (car l) v)) deriv-p)))))
           ((-) (modulo (- (deriv-eval (cadr e) v) (deriv-eval (caddr e) v)) deriv-p))
           ((pow) (let ((b (deriv-eval (cadr e) v)))
                    (let loop ((k (caddr e)) (acc 1))
                      (if (= k 0) acc (loop (- k 1) (modulo (* acc b) deriv-p))))))
           (else (error "eval: unknown operator" e))))))

(define (run n)
  (let loop ((i 0) (s1 0) (s2 0) (bad 0))
    (if (= i n)
        (if (= bad 0) (list s1 s2) (list 'mismatch bad))
        (let* ((e (deriv-expr i))
               (v (deriv-point i))
               (d1 (deriv-d e))
               (s (deriv-simplify d1))
               (d2 (deriv-simplify (deriv-d s)))
               (e1 (deriv-eval s v)))
          (loop (+ i 1)
                (modulo (+ s1 e1) deriv-p)
                (modulo (+ s2 (deriv-eval d2 v)) deriv-p)
                (if (= e1 (deriv-eval d1 v)) bad (+ bad 1)))))))

;;; The check: polynomials as coefficient lists, constant term first.

(define (deriv-padd p q)
  (cond ((null? p) q)
        ((null? q) p)
        (else (cons (+ (car p) (car q)) (deriv-padd (cdr p) (cdr q))))))

(define (deriv-pscale c p) (map (lambda (a) (* c a)) p))

(define (deriv-pmul p q)
  (if (null? p)
      '()
      (deriv-padd (deriv-pscale (car p) q)
                  (cons 0 (deriv-pmul (cdr p) q)))))

(define (deriv-ppow p k)
  (if (= k 0) (list 1) (deriv-pmul p (deriv-ppow p (- k 1)))))

(define (deriv-poly e)
  (cond ((number? e) (list e))
        ((eq? e 'x) (list 0 1))
        ((eq? (car e) '+)
         (let loop ((l (cdr e)) (acc '()))
           (if (null? l) acc (loop (cdr l) (deriv-padd acc (deriv-poly (car l)))))))
        ((eq? (car e) '*)
         (let loop ((l (cdr e)) (acc (list 1)))
           (if (null? l) acc (loop (cdr l) (deriv-pmul acc (deriv-poly (car l)))))))
        ((eq? (car e) '-)
         (deriv-padd (deriv-poly (cadr e)) (deriv-pscale -1 (deriv-poly (caddr e)))))
        (else (deriv-ppow (deriv-poly (cadr e)) (caddr e)))))

(define (deriv-pderiv p)
  (if (null? p)
      '()
      (let loop ((l (cdr p)) (k 1) (acc '()))
        (if (null? l)
            (reverse acc)
            (loop (cdr l) (+ k 1) (cons (* k (car l)) acc))))))

(define (deriv-horner p v)
  (let loop ((l (reverse p)) (acc 0))
    (if (null? l) acc (loop (cdr l) (modulo (+ (* acc v) (car l)) deriv-p)))))

(define (check n result)
  (let loop ((i 0) (s1 0) (s2 0))
    (if (= i n)
        (equal? result (list s1 s2))
        (let* ((p (deriv-poly (deriv-expr i)))
               (p1 (deriv-pderiv p))
               (v (deriv-point i)))
          (loop (+ i 1)
                (modulo (+ s1 (deriv-horner p1 v)) deriv-p)
                (modulo (+ s2 (deriv-horner (deriv-pderiv p1) v)) deriv-p))))))

(define sizes '((small . 4) (train . 100) (test . 700)))
