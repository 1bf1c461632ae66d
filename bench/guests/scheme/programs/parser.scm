;;; parser: a lexer and recursive-descent parser for arithmetic text.
;;;
;;; Exercises: character dispatch (char-numeric?, char-whitespace?, case
;;; on characters), string-ref scanning, token lists, mutually recursive
;;; descent procedures (expression / term / factor with precedence and
;;; parentheses), tree building and a tree evaluator, number->string and
;;; string->number.
;;;
;;; For i = 0 .. n-1 a random expression tree (Park-Miller generator,
;;; seeds below 2^31) of depth up to 5 over + - * and small numbers is
;;; printed as text with minimal parentheses, lexed, parsed back into a
;;; tree and evaluated modulo 1000003.
;;;
;;; n: number of expressions.  Work grows linearly with n; the seed
;;; depends on n.
;;;
;;; Result: (sum-of-values total-tokens) modulo 1000003 for the sum.
;;; Check: the generated trees are evaluated directly (never going
;;; through text) and their tokens counted from the tree.

(define prs-p 1000003)
(define (prs-next s) (modulo (* s 16807) 2147483647))

;; Tree: number or (op left right); returns (tree . seed).
(define (prs-gen depth seed)
  (let* ((s (prs-next seed)) (r (quotient s 64)))
    (if (or (= depth 0) (= (modulo r 4) 0))
        (cons (modulo r 1000) s)
        (let* ((l (prs-gen (- depth 1) s))
               (rt (prs-gen (- depth 1) (cdr l)))
               (op (vector-ref '#(+ - *) (modulo (quotient r 8) 3))))
          (cons (list op (car l) (car rt)) (cdr rt))))))

(define (prs-prec op) (if (eq? op '*) 2 1))

;; Print with parentheses only where needed.
(define (prs-print t)
  (if (number? t)
      (number->string t)
      (let* ((op (car t)) (p (prs-prec op))
             (l (prs-print (cadr t)))
             (r (prs-print (caddr t)))
             (lp (and (pair? (cadr t)) (< (prs-prec (car (cadr t))) p)))
             (rp (and (pair? (caddr t)) (<= (prs-prec (car (caddr t))) p))))
        (string-append (if lp (string-append "(" l ")") l)
                       " " (symbol->string op) " "
                       (if rp (string-append "(" r ")") r)))))

(define (prs-lex str)
  (let ((len (string-length str)))
    (let loop ((i 0) (acc '()))
      (if (>= i len)
          (reverse acc)
          (let ((c (string-ref str i)))
            (cond ((char-whitespace? c) (loop (+ i 1) acc))
                  ((char-numeric? c)
                   (let num ((j i))
                     (if (and (< j len) (char-numeric? (string-ref str j)))
                         (num (+ j 1))
                         (loop j (cons (string->number (substring str i j)) acc)))))
                  (else
                   (loop (+ i 1)
                         (cons (case c
                                 ((#\+) '+) ((#\-) '-) ((#\*) '*)
                                 ((#\() 'open) ((#\)) 'close)
                                 (else (error "lex: bad char" c)))
                               acc)))))))))

;; Parsers take a token list and return (tree . rest).
(define (prs-expr toks)
  (let loop ((lt (prs-term toks)))
    (let ((rest (cdr lt)))
      (if (and (pair? rest) (memq (car rest) '(+ -)))
          (let ((rt (prs-term (cdr rest))))
            (loop (cons (list (car rest) (car lt) (car rt)) (cdr rt))))
          lt))))

(define (prs-term toks)
  (let loop ((lt (prs-factor toks)))
    (let ((rest (cdr lt)))
      (if (and (pair? rest) (eq? (car rest) '*))
          (let ((rt (prs-factor (cdr rest))))
            (loop (cons (list '* (car lt) (car rt)) (cdr rt))))
          lt))))

(define (prs-factor toks)
  (cond ((number? (car toks)) (cons (car toks) (cdr toks)))
        ((eq? (car toks) 'open)
         (let ((e (prs-expr (cdr toks))))
           (if (eq? (car (cdr e)) 'close)
               (cons (car e) (cdr (cdr e)))
               (error "parse: expected )"))))
        (else (error "parse: bad token" (car toks)))))

(define (prs-eval t)
  (if (number? t)
      t
      (let ((a (prs-eval (cadr t))) (b (prs-eval (caddr t))))
        (case (car t)
          ((+) (modulo (+ a b) prs-p))
          ((-) (modulo (- a b) prs-p))
          (else (modulo (* a b) prs-p))))))

(define (run n)
  (let loop ((i 0) (seed (+ 77 n)) (sum 0) (tokens 0))
    (if (= i n)
        (list sum tokens)
        (let* ((g (prs-gen 5 seed))
               (toks (prs-lex (prs-print (car g))))
               (tree (prs-expr toks)))
          (if (null? (cdr tree))
              (loop (+ i 1) (cdr g)
                    (modulo (+ sum (prs-eval (car tree))) prs-p)
                    (+ tokens (length toks)))
              (error "parse: trailing tokens"))))))

;;; Check: evaluate the trees directly; count numbers, operators and the
;;; parentheses the printer must add.
(define (prs-check-value t)
  (cond ((number? t) t)
        ((eq? (car t) '+) (modulo (+ (prs-check-value (cadr t)) (prs-check-value (caddr t))) prs-p))
        ((eq? (car t) '-) (modulo (- (prs-check-value (cadr t)) (prs-check-value (caddr t))) prs-p))
        (else (modulo (* (prs-check-value (cadr t)) (prs-check-value (caddr t))) prs-p))))

(define (prs-check-tokens t)
  (if (number? t)
      1
      (let* ((l (cadr t)) (r (caddr t)) (mul (eq? (car t) '*))
             (lparen (and (pair? l) mul (not (eq? (car l) '*))))
             (rparen (and (pair? r) (or mul (not (eq? (car r) '*))))))
        (+ 1 (prs-check-tokens l) (prs-check-tokens r)
           (if lparen 2 0) (if rparen 2 0)))))

(define (check n result)
  (let loop ((i 0) (seed (+ 77 n)) (sum 0) (tokens 0))
    (if (= i n)
        (equal? result (list sum tokens))
        (let ((g (prs-gen 5 seed)))
          (loop (+ i 1) (cdr g)
                (modulo (+ sum (prs-check-value (car g))) prs-p)
                (+ tokens (prs-check-tokens (car g))))))))

(define sizes '((small . 15) (train . 500) (test . 3000)))
