;;; interp: a compiler to a stack machine, the machine, and an evaluator.
;;;
;;; Exercises: an interpreter inside the interpreter: symbol dispatch with
;;; case on instruction and expression heads, association-list and
;;; vector environments, closures represented as vectors, explicit stacks
;;; and continuation lists built from pairs, and many small allocations.
;;;
;;; A little language (numbers, variables, + - * < =, if, let, letrec,
;;; lambda with fixed arguments, application) is compiled to nested
;;; instruction lists for a stack machine with environments of frame
;;; vectors (lexical addresses computed at compile time) and proper tail
;;; calls; the machine runs the code.  The same programs are also run by a
;;; direct evaluator over association-list environments.  Programs:
;;;   fib:    doubly recursive Fibonacci;
;;;   sumsq:  a tail-recursive loop summing i*i with a closure for squaring
;;;           (a higher-order helper applied to a lambda).
;;;
;;; n: the machine runs fib(n) and sumsq(4n^2); the evaluator runs
;;; fib(max(n - 3, 0)) and sumsq(2n^2).  Work grows about 1.6x per unit of n
;;; (the fib runs dominate at train and test sizes).
;;;
;;; Result: (vm-fib vm-sumsq eval-fib eval-sumsq).
;;; Check: Fibonacci by an iterative loop, the sums of squares by the
;;; closed form m(m+1)(2m+1)/6.

(define (interp-fib-program k)
  `(letrec ((fib (lambda (n)
                   (if (< n 2)
                       n
                       (+ (fib (- n 1)) (fib (- n 2)))))))
     (fib ,k)))

(define (interp-sumsq-program m)
  `(let ((apply-to (lambda (f x) (f x))))
     (letrec ((loop (lambda (i acc)
                      (if (= i 0)
                          acc
                          (loop (- i 1)
                                (+ acc (apply-to (lambda (y) (* y y)) i)))))))
       (loop ,m 0))))

;;; Compiler.  cenv is a list of frames, each a list of names.

(define (interp-lookup name cenv)
  (let loop ((frames cenv) (d 0))
    (if (null? frames)
        (error "interp: unbound variable" name)
        (let scan ((names (car frames)) (i 0))
          (cond ((null? names) (loop (cdr frames) (+ d 1)))
                ((eq? (car names) name) (list 'lref d i))
                (else (scan (cdr names) (+ i 1))))))))

;; Compile e, then continue with code `next`.
(define (interp-comp e cenv next)
  (cond ((number? e) (cons (list 'const e) next))
        ((symbol? e) (cons (interp-lookup e cenv) next))
        (else
         (case (car e)
           ((+ - * < =)
            (interp-comp (cadr e) cenv
                         (interp-comp (caddr e) cenv
                                      (cons (list 'prim (car e)) next))))
           ((if)
            (interp-comp (cadr e) cenv
                         (cons (list 'branch
                                     (interp-comp (caddr e) cenv '())
                                     (interp-comp (cadddr e) cenv '()))
                               next)))
           ((lambda)
            (cons (list 'closure (length (cadr e))
                        (interp-comp (caddr e) (cons (cadr e) cenv) '()))
                  next))
           ((let)
            ;; (let ((x e) ...) body) => ((lambda (x ...) body) e ...)
            (interp-comp (cons (list 'lambda (map car (cadr e)) (caddr e))
                               (map cadr (cadr e)))
                         cenv next))
           ((letrec)
            (let* ((names (map car (cadr e)))
                   (inner (cons names cenv)))
              (cons (list 'frame (length names))
                    (let loop ((bs (cadr e)) (i 0))
                      (if (null? bs)
                          (interp-comp (caddr e) inner (cons '(pop-frame) next))
                          (interp-comp (cadr (car bs)) inner
                                       (cons (list 'set-slot i)
                                             (loop (cdr bs) (+ i 1)))))))))
           (else
            ;; application: operator, then arguments, then call
            (interp-comp (car e) cenv
                         (let loop ((args (cdr e)))
                           (if (null? args)
                               (cons (list 'call (length (cdr e))) next)
                               (interp-comp (car args) cenv (loop (cdr args)))))))))))

;;; The machine.  stack: list of values; env: list of frame vectors;
;;; kont: list of (code . env) to resume when the current code runs out.

(define (interp-vm code)
  (let run ((code code) (stack '()) (env '()) (kont '()))
    (if (null? code)
        (if (null? kont)
            (car stack)
            (run (car (car kont)) stack (cdr (car kont)) (cdr kont)))
        (let ((ins (car code)) (rest (cdr code)))
          (case (car ins)
            ((const) (run rest (cons (cadr ins) stack) env kont))
            ((lref) (run rest
                         (cons (vector-ref (list-ref env (cadr ins)) (caddr ins)) stack)
                         env kont))
            ((prim)
             (let ((b (car stack)) (a (cadr stack)) (s (cddr stack)))
               (run rest
                    (cons (case (cadr ins)
                            ((+) (+ a b))
                            ((-) (- a b))
                            ((*) (* a b))
                            ((<) (< a b))
                            (else (= a b)))
                          s)
                    env kont)))
            ((branch)
             (run (if (car stack) (cadr ins) (caddr ins))
                  (cdr stack) env
                  (if (null? rest) kont (cons (cons rest env) kont))))
            ((closure)
             (run rest (cons (vector 'closure (cadr ins) (caddr ins) env) stack) env kont))
            ((frame)
             (run rest stack (cons (make-vector (cadr ins) #f) env) kont))
            ((set-slot)
             (vector-set! (car env) (cadr ins) (car stack))
             (run rest (cdr stack) env kont))
            ((pop-frame) (run rest stack (cdr env) kont))
            ((call)
             (let* ((nargs (cadr ins))
                    (frame (make-vector nargs #f)))
               (let pop ((i (- nargs 1)) (s stack))
                 (if (>= i 0)
                     (begin (vector-set! frame i (car s))
                            (pop (- i 1) (cdr s)))
                     (let ((clo (car s)))
                       (run (vector-ref clo 2)
                            (cdr s)
                            (cons frame (vector-ref clo 3))
                            (if (null? rest) kont (cons (cons rest env) kont))))))))
            (else (error "interp: bad instruction" ins)))))))

;;; The direct evaluator: environments are association lists, closures
;;; are lists (closure params body env).

(define (interp-eval e env)
  (cond ((number? e) e)
        ((symbol? e)
         (let ((b (assq e env)))
           (if b (cdr b) (error "eval: unbound" e))))
        (else
         (case (car e)
           ((+) (+ (interp-eval (cadr e) env) (interp-eval (caddr e) env)))
           ((-) (- (interp-eval (cadr e) env) (interp-eval (caddr e) env)))
           ((*) (* (interp-eval (cadr e) env) (interp-eval (caddr e) env)))
           ((<) (< (interp-eval (cadr e) env) (interp-eval (caddr e) env)))
           ((=) (= (interp-eval (cadr e) env) (interp-eval (caddr e) env)))
           ((if) (if (interp-eval (cadr e) env)
                     (interp-eval (caddr e) env)
                     (interp-eval (cadddr e) env)))
           ((lambda) (list 'closure (cadr e) (caddr e) env))
           ((let)
            (interp-eval (caddr e)
                         (append (map (lambda (b) (cons (car b) (interp-eval (cadr b) env)))
                                      (cadr e))
                                 env)))
           ((letrec)
            (let* ((cells (map (lambda (b) (cons (car b) #f)) (cadr e)))
                   (env2 (append cells env)))
              (let fill ((cells cells) (bs (cadr e)))
                (when (pair? cells)
                  (set-cdr! (car cells) (interp-eval (cadr (car bs)) env2))
                  (fill (cdr cells) (cdr bs))))
              (interp-eval (caddr e) env2)))
           (else
            (let ((f (interp-eval (car e) env))
                  (args (map (lambda (a) (interp-eval a env)) (cdr e))))
              (interp-apply f args)))))))

(define (interp-apply f args)
  (let bind ((params (cadr f)) (args args) (env (cadddr f)))
    (if (null? params)
        (interp-eval (caddr f) env)
        (bind (cdr params) (cdr args) (cons (cons (car params) (car args)) env)))))

(define (interp-compile-run program)
  (interp-vm (interp-comp program '() '())))

(define (run n)
  (list (interp-compile-run (interp-fib-program n))
        (interp-compile-run (interp-sumsq-program (* 4 n n)))
        (interp-eval (interp-fib-program (max 0 (- n 3))) '())
        (interp-eval (interp-sumsq-program (* 2 n n)) '())))

(define (interp-fib-iter k)
  (let loop ((i 0) (a 0) (b 1))
    (if (= i k) a (loop (+ i 1) b (+ a b)))))

(define (interp-sumsq-closed m)
  (quotient (* m (+ m 1) (+ (* 2 m) 1)) 6))

(define (check n result)
  (equal? result
          (list (interp-fib-iter n)
                (interp-sumsq-closed (* 4 n n))
                (interp-fib-iter (max 0 (- n 3)))
                (interp-sumsq-closed (* 2 n n)))))

(define sizes '((small . 9) (train . 20) (test . 23)))
