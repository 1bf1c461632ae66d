;;; prelude.scm: the library procedures written in Scheme (map, for-each)
;;; and the benchmark driver, loaded before any program.
;;;
;;; bench-main runs one benchmark by the protocol of programs/*.scm: each
;;; program defines (run n), (check n result) and an alist `sizes' of
;;; (small . S) (train . T) (test . U).

;; map and for-each build no deep recursion: results are collected in
;; reverse and reversed once, so long lists are fine.
(define (%cars ls)
  (if (null? ls) '() (cons (car (car ls)) (%cars (cdr ls)))))

(define (%cdrs ls)
  (if (null? ls) '() (cons (cdr (car ls)) (%cdrs (cdr ls)))))

(define (%all-pairs? ls)
  (or (null? ls) (and (pair? (car ls)) (%all-pairs? (cdr ls)))))

(define (map f l . ls)
  (if (null? ls)
      (let loop ((l l) (acc '()))
        (if (pair? l)
            (loop (cdr l) (cons (f (car l)) acc))
            (reverse acc)))
      (let loop ((ls (cons l ls)) (acc '()))
        (if (%all-pairs? ls)
            (loop (%cdrs ls) (cons (apply f (%cars ls)) acc))
            (reverse acc)))))

(define (for-each f l . ls)
  (if (null? ls)
      (let loop ((l l))
        (when (pair? l)
          (f (car l))
          (loop (cdr l))))
      (let loop ((ls (cons l ls)))
        (when (%all-pairs? ls)
          (apply f (%cars ls))
          (loop (%cdrs ls))))))

;; Prints "NAME SIZE n=N: RESULT ok" (or FAIL, then exits 1).
(define (bench-main name size)
  (let* ((entry (assq (string->symbol size) sizes))
         (n (if entry (cdr entry) (string->number size)))
         (result (run n))
         (ok (check n result)))
    (display name)
    (display " ")
    (display size)
    (display " n=")
    (write n)
    (display ": ")
    (write result)
    (display (if ok " ok" " FAIL"))
    (newline)
    (if (not ok) (exit 1))))
