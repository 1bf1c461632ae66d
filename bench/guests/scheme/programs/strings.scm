;;; strings: building text and scanning it again.
;;;
;;; Exercises: string-append, substring, string-ref / string-set!,
;;; string->list / list->string, char predicates and case conversion,
;;; number->string / string->number, string equality in assoc, and a hash
;;; table of word counts built from a vector of association-list buckets.
;;;
;;; A generator (Park-Miller, seeds below 2^31) describes n lines of 12
;;; tokens each: words made of one or two syllables, some capitalised,
;;; and numbers.  run writes each line as text (words and numbers joined
;;; with spaces and commas, a period at the end, built piece by piece with
;;; string-append), then scans the text character by character: it cuts
;;; tokens out with substring, lower-cases words through string->list /
;;; list->string, counts them in the hash table and parses numbers with
;;; string->number.
;;;
;;; n: number of lines.  Work grows linearly with n.  The seed differs
;;; with n, so every size sees a different text.
;;;
;;; Result: (words distinct number-sum top-word top-count): top-word is
;;; the most frequent word (ties broken by string<?) as a symbol.
;;; Check: the token descriptions are counted directly, without any text:
;;; words are interned as symbols and counted in an association list
;;; keyed with assq, and numbers are summed as integers.

(define strings-syllables
  '#("ka" "ro" "mi" "tu" "sen" "da" "lo" "pe" "vi" "zu"))

(define (strings-next s) (modulo (* s 16807) 2147483647))

;; One line: a list of tokens, each a number or a pair (word . capital?),
;; and the next seed.
(define (strings-line seed)
  (let loop ((k 0) (s seed) (acc '()))
    (if (= k 12)
        (cons (reverse acc) s)
        (let* ((s1 (strings-next s))
               (s2 (strings-next s1))
               (s3 (strings-next s2))
               (r1 (quotient s1 1024))
               (r2 (quotient s2 1024))
               (r3 (quotient s3 1024)))
          (if (= (modulo r1 6) 0)
              (loop (+ k 1) s3 (cons (modulo r2 100000) acc))
              (let* ((a (vector-ref strings-syllables (modulo r2 10)))
                     (word (if (= (modulo r1 3) 0)
                               a
                               (string-append a (vector-ref strings-syllables (modulo r3 10))))))
                (loop (+ k 1) s3 (cons (cons word (= (modulo r3 4) 0)) acc))))))))

(define (strings-seed n) (+ 1000 (* 7 n)))

;; Text of one line.
(define (strings-render tokens)
  (let loop ((ts tokens) (text "") (first #t))
    (if (null? ts)
        (string-append text ".")
        (let* ((t (car ts))
               (piece (if (number? t)
                          (number->string t)
                          (if (cdr t)
                              (let ((w (string-copy (car t))))
                                (string-set! w 0 (char-upcase (string-ref w 0)))
                                w)
                              (car t))))
               (sep (cond (first "")
                          ((= (string-length text) (* 3 (quotient (string-length text) 3))) ", ")
                          (else " "))))
          (loop (cdr ts) (string-append text sep piece) #f)))))

(define (strings-hash str)
  (let loop ((i 0) (h 0))
    (if (= i (string-length str))
        h
        (loop (+ i 1) (modulo (+ (* h 31) (char->integer (string-ref str i))) 211)))))

(define (strings-count! table word)
  (let* ((h (strings-hash word))
         (bucket (vector-ref table h))
         (entry (assoc word bucket)))
    (if entry
        (set-cdr! entry (+ (cdr entry) 1))
        (vector-set! table h (cons (cons word 1) bucket)))))

(define (strings-lower str)
  (list->string (map char-downcase (string->list str))))

;; Scan one line of text; returns the sum of its numbers, counts words.
(define (strings-scan! text table counter)
  (let ((len (string-length text)))
    (let loop ((i 0) (sum 0))
      (cond ((>= i len) sum)
            ((char-alphabetic? (string-ref text i))
             (let find ((j i))
               (if (and (< j len) (char-alphabetic? (string-ref text j)))
                   (find (+ j 1))
                   (begin
                     (strings-count! table (strings-lower (substring text i j)))
                     (set-car! counter (+ (car counter) 1))
                     (loop j sum)))))
            ((char-numeric? (string-ref text i))
             (let find ((j i))
               (if (and (< j len) (char-numeric? (string-ref text j)))
                   (find (+ j 1))
                   (loop j (+ sum (string->number (substring text i j)))))))
            (else (loop (+ i 1) sum))))))

(define (run n)
  (let ((table (make-vector 211 '()))
        (counter (list 0)))
    (let loop ((line 0) (seed (strings-seed n)) (sum 0))
      (if (< line n)
          (let* ((l (strings-line seed))
                 (text (strings-render (car l))))
            (loop (+ line 1) (cdr l) (+ sum (strings-scan! text table counter))))
          (let scan ((b 0) (distinct 0) (top "") (top-count 0))
            (if (= b 211)
                (list (car counter) distinct sum (string->symbol top) top-count)
                (let walk ((es (vector-ref table b)) (distinct distinct) (top top) (tc top-count))
                  (if (null? es)
                      (scan (+ b 1) distinct top tc)
                      (let ((e (car es)))
                        (if (or (> (cdr e) tc)
                                (and (= (cdr e) tc) (string<? (car e) top)))
                            (walk (cdr es) (+ distinct 1) (car e) (cdr e))
                            (walk (cdr es) (+ distinct 1) top tc)))))))))))

(define (check n result)
  (let loop ((line 0) (seed (strings-seed n)) (counts '()) (words 0) (sum 0))
    (if (< line n)
        (let ((l (strings-line seed)))
          (let tok ((ts (car l)) (counts counts) (words words) (sum sum))
            (cond ((null? ts) (loop (+ line 1) (cdr l) counts words sum))
                  ((number? (car ts)) (tok (cdr ts) counts words (+ sum (car ts))))
                  (else
                   (let* ((sym (string->symbol (car (car ts))))
                          (e (assq sym counts)))
                     (if e
                         (begin (set-cdr! e (+ (cdr e) 1))
                                (tok (cdr ts) counts (+ words 1) sum))
                         (tok (cdr ts) (cons (cons sym 1) counts) (+ words 1) sum)))))))
        (let best ((cs counts) (top #f) (tc 0))
          (cond ((pair? cs)
                 (let ((c (car cs)))
                   (if (or (> (cdr c) tc)
                           (and (= (cdr c) tc)
                                (string<? (symbol->string (car c)) (symbol->string top))))
                       (best (cdr cs) (car c) (cdr c))
                       (best (cdr cs) top tc))))
                (else
                 (equal? result (list words (length counts) sum top tc))))))))

(define sizes '((small . 10) (train . 300) (test . 3500)))
