;;; boyer: a Boyer-style term rewriter and tautology checker.
;;;
;;; Exercises: symbols (operators are symbols, variables are symbols made
;;; with string->symbol), property lists kept as association lists and
;;; searched with assq, one-way unification building substitution alists,
;;; equal? on terms, member on lists of terms, and heavy consing of
;;; rewritten terms.
;;;
;;; Rewrite rules (lemmas) are stored under the property `lemmas` of
;;; their head symbol.  A term is rewritten inside out: arguments first,
;;; then the first lemma whose left side matches the term is applied and
;;; the result rewritten again.  The lemmas turn implies/and/or/not into
;;; if, lift ifs out of if conditions, and normalise arithmetic and list
;;; terms (associativity, distribution, reverse of append, ...).  The
;;; tautology checker walks the if-normal form, keeping the lists of
;;; conditions assumed true and assumed false.
;;;
;;; Theorems: instance i is an implication chain over k = 2 + (i mod 3)
;;; atoms.  Atom j is built from one of five templates, and each template
;;; has two surface forms that only agree after rewriting (e.g.
;;; (plus (plus u v) w) against (plus u (plus v w))), so the links of the
;;; chain only connect once the rewriter has normalised them:
;;;   even i:  (implies (and (implies A1 A2) ... (implies Ak-1 Ak)) (implies A1' Ak'))
;;;            which is a tautology;
;;;   odd i:   the same hypotheses with the conclusion (implies Ak' A1'),
;;;            which is not (the atoms use distinct variables, so they are
;;;            independent).
;;;
;;; n: number of theorem instances.  Work grows linearly with n.
;;;
;;; Result: (number-proved number-refuted).
;;; Check: by construction, the even instances are tautologies and the odd
;;; ones are not: (ceiling n/2) proved and (floor n/2) refuted.

(define boyer-props '())

(define (boyer-get sym prop)
  (let ((plist (assq sym boyer-props)))
    (if plist
        (let ((entry (assq prop (cdr plist))))
          (if entry (cdr entry) '()))
        '())))

(define (boyer-put! sym prop val)
  (let ((plist (assq sym boyer-props)))
    (if plist
        (let ((entry (assq prop (cdr plist))))
          (if entry
              (set-cdr! entry val)
              (set-cdr! plist (cons (cons prop val) (cdr plist)))))
        (set! boyer-props (cons (list sym (cons prop val)) boyer-props)))))

(define boyer-lemma-list
  '((equal (implies p q) (if p (if q (t) (f)) (t)))
    (equal (and p q) (if p (if q (t) (f)) (f)))
    (equal (or p q) (if p (t) (if q (t) (f))))
    (equal (not p) (if p (f) (t)))
    (equal (if (if a b c) d e) (if a (if b d e) (if c d e)))
    (equal (plus (plus x y) z) (plus x (plus y z)))
    (equal (times (times x y) z) (times x (times y z)))
    (equal (times x (plus y z)) (plus (times x y) (times x z)))
    (equal (append (append x y) z) (append x (append y z)))
    (equal (reverse (append a b)) (append (reverse b) (reverse a)))
    (equal (length (reverse x)) (length x))
    (equal (member x (append a b)) (or (member x a) (member x b)))
    (equal (equal (plus a b) (zero)) (and (zerop a) (zerop b)))
    (equal (lessp (plus x y) (plus x z)) (lessp y z))
    (equal (difference x x) (zero))
    (equal (eqp x y) (equal (fix x) (fix y)))
    (equal (greaterp x y) (lessp y x))
    (equal (lesseqp x y) (not (lessp y x)))
    (equal (greatereqp x y) (not (lessp x y)))
    (equal (exp i (plus j k)) (times (exp i j) (exp i k)))
    (equal (count-list z (append x y)) (plus (count-list z x) (count-list z y)))
    (equal (fix (zero)) (zero))))

(define (boyer-setup!)
  (set! boyer-props '())
  (for-each
   (lambda (lemma)
     (let ((head (car (cadr lemma))))
       (boyer-put! head 'lemmas (append (boyer-get head 'lemmas) (list lemma)))))
   boyer-lemma-list))

;; One-way unification: pattern variables are symbols; the term is
;; ground.  Returns an alist or #f.
(define (boyer-unify term pat subst)
  (cond ((not subst) #f)
        ((symbol? pat)
         (let ((b (assq pat subst)))
           (if b
               (if (equal? (cdr b) term) subst #f)
               (cons (cons pat term) subst))))
        ((pair? term)
         (and (eq? (car term) (car pat))
              (boyer-unify-args (cdr term) (cdr pat) subst)))
        (else #f)))

(define (boyer-unify-args terms pats subst)
  (cond ((not subst) #f)
        ((null? pats) (if (null? terms) subst #f))
        ((null? terms) #f)
        (else (boyer-unify-args (cdr terms) (cdr pats)
                                (boyer-unify (car terms) (car pats) subst)))))

(define (boyer-subst subst term)
  (cond ((symbol? term)
         (let ((b (assq term subst))) (if b (cdr b) term)))
        ((pair? term)
         (cons (car term) (map (lambda (t) (boyer-subst subst t)) (cdr term))))
        (else term)))

(define (boyer-rewrite term)
  (if (pair? term)
      (boyer-rewrite-with
       (cons (car term) (map boyer-rewrite (cdr term)))
       (boyer-get (car term) 'lemmas))
      term))

(define (boyer-rewrite-with term lemmas)
  (if (null? lemmas)
      term
      (let ((s (boyer-unify term (cadr (car lemmas)) '())))
        (if s
            (boyer-rewrite (boyer-subst s (caddr (car lemmas))))
            (boyer-rewrite-with term (cdr lemmas))))))

(define (boyer-truep x lst) (or (equal? x '(t)) (member x lst)))
(define (boyer-falsep x lst) (or (equal? x '(f)) (member x lst)))

(define (boyer-taut? x true-lst false-lst)
  (cond ((boyer-truep x true-lst) #t)
        ((boyer-falsep x false-lst) #f)
        ((and (pair? x) (eq? (car x) 'if))
         (let ((c (cadr x)))
           (cond ((boyer-truep c true-lst) (boyer-taut? (caddr x) true-lst false-lst))
                 ((boyer-falsep c false-lst) (boyer-taut? (cadddr x) true-lst false-lst))
                 (else (and (boyer-taut? (caddr x) (cons c true-lst) false-lst)
                            (boyer-taut? (cadddr x) true-lst (cons c false-lst)))))))
        (else #f)))

;; Variable m of atom j: the symbol vJ_M.
(define (boyer-var j m)
  (string->symbol (string-append "v" (number->string j) "_" (number->string m))))

;; Atom j of template tpl in surface form 1 or 2.
(define (boyer-atom tpl j form)
  (let ((u (boyer-var j 0)) (v (boyer-var j 1)) (w (boyer-var j 2)) (x (boyer-var j 3)))
    (case tpl
      ((0) (if (= form 1)
               `(lessp (plus (plus ,u ,v) ,w) (times ,u (plus ,v ,w)))
               `(lessp (plus ,u (plus ,v ,w)) (plus (times ,u ,v) (times ,u ,w)))))
      ((1) (if (= form 1)
               `(equal (append (append ,u ,v) ,w) (reverse (append ,x ,u)))
               `(equal (append ,u (append ,v ,w)) (append (reverse ,u) (reverse ,x)))))
      ((2) (if (= form 1)
               `(equal (length (reverse (append ,u ,v))) ,w)
               `(equal (length (append (reverse ,v) (reverse ,u))) ,w)))
      ((3) (if (= form 1)
               `(greaterp (plus ,u ,v) (exp ,w (plus ,x ,u)))
               `(lessp (times (exp ,w ,x) (exp ,w ,u)) (plus ,u ,v))))
      (else (if (= form 1)
                `(eqp (count-list ,u (append ,v ,w)) (difference ,x ,x))
                `(equal (fix (plus (count-list ,u ,v) (count-list ,u ,w))) (fix (zero))))))))

(define (boyer-theorem i)
  (let* ((k (+ 2 (modulo i 3)))
         (tpl (lambda (j) (modulo (+ i j) 5)))
         (hyps (let loop ((j (- k 1)) (acc #f))
                 (if (= j 0)
                     acc
                     (let ((link `(implies ,(boyer-atom (tpl j) j (+ 1 (modulo j 2)))
                                           ,(boyer-atom (tpl (+ j 1)) (+ j 1) (+ 1 (modulo (+ j i) 2))))))
                       (loop (- j 1) (if acc `(and ,link ,acc) link))))))
         (first (boyer-atom (tpl 1) 1 2))
         (last (boyer-atom (tpl k) k 1)))
    (if (even? i)
        `(implies ,hyps (implies ,first ,last))
        `(implies ,hyps (implies ,last ,first)))))

(define (run n)
  (boyer-setup!)
  (let loop ((i 0) (proved 0) (refuted 0))
    (if (= i n)
        (list proved refuted)
        (if (boyer-taut? (boyer-rewrite (boyer-theorem i)) '() '())
            (loop (+ i 1) (+ proved 1) refuted)
            (loop (+ i 1) proved (+ refuted 1))))))

(define (check n result)
  (equal? result (list (quotient (+ n 1) 2) (quotient n 2))))

(define sizes '((small . 2) (train . 12) (test . 80)))
