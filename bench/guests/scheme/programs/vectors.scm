;;; vectors: vector-heavy loops.
;;;
;;; Exercises: make-vector, vector-ref / vector-set! in tight loops, do
;;; loops, vectors of vectors, in-place swaps: a sieve of Eratosthenes,
;;; heap sort, quicksort and block-wise insertion sort of pseudo-random
;;; data (Park-Miller generator, seeds below 2^31 so products stay below
;;; 2^46), an integer matrix product, and fannkuch-style pancake flipping
;;; over all permutations (generated with Heap's algorithm).
;;;
;;; n: work scale.  The sieve runs to 20n, the sorts take n/4 elements,
;;; the matrices are d x d with d the integer cube root of 4n, and the
;;; 120 permutations of 5 elements are flipped 1 + n/300 times.  Work grows
;;; linearly with n (sorting n log n).  The data seed depends on n.
;;;
;;; Result: (prime-count sort-checksum matrix-sum max-flips flip-total).
;;; Check: primes with an odd-only sieve written separately; the sorts
;;; against a merge sort on lists of the regenerated data; the matrix sum
;;; as the sum over k of (column k of A summed) x (row k of B summed);
;;; fannkuch by enumerating permutations recursively as lists and flipping
;;; list prefixes with reverse.

(define vec-p 1000000007)

(define (vec-next s) (modulo (* s 16807) 2147483647))

;;; Sieve.
(define (vec-sieve limit)
  (let ((composite (make-vector (+ limit 1) #f)))
    (do ((i 2 (+ i 1))) ((> (* i i) limit))
      (unless (vector-ref composite i)
        (do ((j (* i i) (+ j i))) ((> j limit))
          (vector-set! composite j #t))))
    (do ((i 2 (+ i 1))
         (count 0 (if (vector-ref composite i) count (+ count 1))))
        ((> i limit) count))))

;;; Data.
(define (vec-data m seed)
  (let ((v (make-vector m 0)))
    (do ((i 0 (+ i 1)) (s (vec-next seed) (vec-next s)))
        ((= i m) v)
      (vector-set! v i (modulo (quotient s 16) 100000)))))

(define (vec-copy v)
  (let ((c (make-vector (vector-length v) 0)))
    (do ((i 0 (+ i 1))) ((= i (vector-length v)) c)
      (vector-set! c i (vector-ref v i)))))

(define (vec-swap! v i j)
  (let ((t (vector-ref v i)))
    (vector-set! v i (vector-ref v j))
    (vector-set! v j t)))

;;; Heap sort.
(define (vec-sift-down! v start end)
  (let loop ((root start))
    (let ((child (+ (* 2 root) 1)))
      (when (<= child end)
        (let* ((c (if (and (< child end)
                           (< (vector-ref v child) (vector-ref v (+ child 1))))
                      (+ child 1)
                      child)))
          (when (< (vector-ref v root) (vector-ref v c))
            (vec-swap! v root c)
            (loop c)))))))

(define (vec-heap-sort! v)
  (let ((n (vector-length v)))
    (do ((start (quotient (- n 2) 2) (- start 1))) ((< start 0))
      (vec-sift-down! v start (- n 1)))
    (do ((end (- n 1) (- end 1))) ((<= end 0) v)
      (vec-swap! v 0 end)
      (vec-sift-down! v 0 (- end 1)))))

;;; Quicksort (Lomuto partition, middle pivot; recurse on the smaller
;;; part, loop on the larger, so the depth stays logarithmic).
(define (vec-partition! v lo hi)
  (vec-swap! v (quotient (+ lo hi) 2) hi)
  (let ((pivot (vector-ref v hi)))
    (let loop ((i lo) (store lo))
      (if (< i hi)
          (if (< (vector-ref v i) pivot)
              (begin (vec-swap! v i store) (loop (+ i 1) (+ store 1)))
              (loop (+ i 1) store))
          (begin (vec-swap! v store hi) store)))))

(define (vec-quick-sort! v lo hi)
  (when (< lo hi)
    (let ((p (vec-partition! v lo hi)))
      (if (< (- p lo) (- hi p))
          (begin (vec-quick-sort! v lo (- p 1)) (vec-quick-sort! v (+ p 1) hi))
          (begin (vec-quick-sort! v (+ p 1) hi) (vec-quick-sort! v lo (- p 1)))))))

;;; Insertion sort of each block of 24 elements.
(define (vec-block-sort! v)
  (let ((n (vector-length v)))
    (do ((base 0 (+ base 24))) ((>= base n) v)
      (let ((end (min n (+ base 24))))
        (do ((i (+ base 1) (+ i 1))) ((>= i end))
          (let ((x (vector-ref v i)))
            (let loop ((j (- i 1)))
              (if (and (>= j base) (> (vector-ref v j) x))
                  (begin (vector-set! v (+ j 1) (vector-ref v j)) (loop (- j 1)))
                  (vector-set! v (+ j 1) x)))))))))

(define (vec-weigh v)
  (do ((i 0 (+ i 1))
       (s 0 (modulo (+ s (* (+ i 1) (vector-ref v i))) vec-p)))
      ((= i (vector-length v)) s)))

;;; Matrices.
(define (vec-icbrt x)
  (let loop ((d 1)) (if (> (* (+ d 1) (+ d 1) (+ d 1)) x) d (loop (+ d 1)))))
(define (vec-a i j) (- (modulo (+ (* i 7) (* j 3)) 11) 5))
(define (vec-b i j) (- (modulo (+ (* i j) 1) 13) 6))

(define (vec-matrix d f)
  (let ((m (make-vector d #f)))
    (do ((i 0 (+ i 1))) ((= i d) m)
      (let ((row (make-vector d 0)))
        (do ((j 0 (+ j 1))) ((= j d))
          (vector-set! row j (f i j)))
        (vector-set! m i row)))))

(define (vec-matmul a b d)
  (let ((c (vec-matrix d (lambda (i j) 0))))
    (do ((i 0 (+ i 1))) ((= i d) c)
      (let ((ai (vector-ref a i)) (ci (vector-ref c i)))
        (do ((j 0 (+ j 1))) ((= j d))
          (do ((k 0 (+ k 1))
               (s 0 (+ s (* (vector-ref ai k) (vector-ref (vector-ref b k) j)))))
              ((= k d) (vector-set! ci j s))))))))

(define (vec-matrix-sum c d)
  (do ((i 0 (+ i 1))
       (s 0 (+ s (do ((j 0 (+ j 1)) (t 0 (+ t (vector-ref (vector-ref c i) j))))
                     ((= j d) t)))))
      ((= i d) s)))

;;; Fannkuch over all permutations of 0..k-1 (Heap's algorithm).
(define (vec-flips perm work k)
  (do ((i 0 (+ i 1))) ((= i k)) (vector-set! work i (vector-ref perm i)))
  (let loop ((flips 0))
    (let ((first (vector-ref work 0)))
      (if (= first 0)
          flips
          (begin
            (do ((i 0 (+ i 1)) (j first (- j 1))) ((>= i j))
              (vec-swap! work i j))
            (loop (+ flips 1)))))))

(define (vec-fannkuch k)
  (let ((perm (make-vector k 0))
        (work (make-vector k 0))
        (c (make-vector k 0)))
    (do ((i 0 (+ i 1))) ((= i k)) (vector-set! perm i i))
    (let loop ((i 1)
               (maxf (vec-flips perm work k))
               (total (vec-flips perm work k)))
      (cond ((>= i k) (cons maxf total))
            ((< (vector-ref c i) i)
             (if (even? i)
                 (vec-swap! perm 0 i)
                 (vec-swap! perm (vector-ref c i) i))
             (vector-set! c i (+ (vector-ref c i) 1))
             (let ((f (vec-flips perm work k)))
               (loop 1 (max maxf f) (+ total f))))
            (else
             (vector-set! c i 0)
             (loop (+ i 1) maxf total))))))

(define (vec-fannkuch-reps n) (+ 1 (quotient n 300)))

(define (run n)
  (let* ((primes (vec-sieve (* 20 n)))
         (data (vec-data (quotient n 4) n))
         (h (vec-heap-sort! (vec-copy data)))
         (q (let ((v (vec-copy data)))
              (vec-quick-sort! v 0 (- (vector-length v) 1))
              v))
         (bl (vec-block-sort! (vec-copy data)))
         (sorts (modulo (+ (vec-weigh h) (* 3 (vec-weigh q)) (* 7 (vec-weigh bl))) vec-p))
         (d (vec-icbrt (* 4 n)))
         (msum (vec-matrix-sum (vec-matmul (vec-matrix d vec-a) (vec-matrix d vec-b) d) d))
         (fk (let loop ((r (vec-fannkuch-reps n)) (maxf 0) (total 0))
               (if (= r 0)
                   (cons maxf total)
                   (let ((f (vec-fannkuch 5)))
                     (loop (- r 1) (max maxf (car f)) (+ total (cdr f))))))))
    (list primes sorts msum (car fk) (cdr fk))))

;;; Check.

;; Odd-only sieve: slot i stands for 2i + 1.
(define (vec-odd-sieve-count limit)
  (if (< limit 2)
      0
      (let* ((half (quotient (+ limit 1) 2))
             (marks (make-vector half #t)))
        (let outer ((i 1) (count 1))          ; count 2
          (if (>= i half)
              count
              (if (vector-ref marks i)
                  (let ((p (+ (* 2 i) 1)))
                    (let mark ((j (quotient (- (* p p) 1) 2)))
                      (when (< j half)
                        (vector-set! marks j #f)
                        (mark (+ j p))))
                    (outer (+ i 1) (+ count 1)))
                  (outer (+ i 1) count)))))))

(define (vec-merge a b)
  (let loop ((a a) (b b) (acc '()))
    (cond ((null? a) (append (reverse acc) b))
          ((null? b) (append (reverse acc) a))
          ((<= (car a) (car b)) (loop (cdr a) b (cons (car a) acc)))
          (else (loop a (cdr b) (cons (car b) acc))))))

(define (vec-merge-sort lst)
  (let ((len (length lst)))
    (if (< len 2)
        lst
        (let split ((k (quotient len 2)) (front '()) (back lst))
          (if (= k 0)
              (vec-merge (vec-merge-sort (reverse front)) (vec-merge-sort back))
              (split (- k 1) (cons (car back) front) (cdr back)))))))

(define (vec-weigh-list lst)
  (let loop ((l lst) (i 1) (s 0))
    (if (null? l) s (loop (cdr l) (+ i 1) (modulo (+ s (* i (car l))) vec-p)))))

(define (vec-blocks-sorted lst)
  (let loop ((l lst) (acc '()))
    (if (null? l)
        acc
        (let take ((k 24) (l l) (block '()))
          (if (or (= k 0) (null? l))
              (loop l (append acc (vec-merge-sort block)))
              (take (- k 1) (cdr l) (cons (car l) block)))))))

(define (vec-check-matrix-sum d)
  (let loop ((k 0) (s 0))
    (if (= k d)
        s
        (let sums ((i 0) (ca 0) (rb 0))
          (if (= i d)
              (loop (+ k 1) (+ s (* ca rb)))
              (sums (+ i 1) (+ ca (vec-a i k)) (+ rb (vec-b k i))))))))

(define (vec-perms lst)
  (if (null? lst)
      (list '())
      (apply append
             (map (lambda (x)
                    (map (lambda (p) (cons x p)) (vec-perms (vec-remove x lst))))
                  lst))))
(define (vec-remove x lst)
  (cond ((null? lst) '()) ((= x (car lst)) (cdr lst)) (else (cons (car lst) (vec-remove x (cdr lst))))))

(define (vec-list-flips p)
  (let loop ((p p) (f 0))
    (if (= (car p) 0)
        f
        (let ((k (+ (car p) 1)))
          (loop (append (reverse (vec-list-head p k)) (list-tail p k)) (+ f 1))))))
(define (vec-list-head p k) (if (= k 0) '() (cons (car p) (vec-list-head (cdr p) (- k 1)))))

(define (check n result)
  (let* ((data (vector->list (vec-data (quotient n 4) n)))
         (sorted (vec-merge-sort data))
         (sorts (modulo (+ (* 4 (vec-weigh-list sorted)) (* 7 (vec-weigh-list (vec-blocks-sorted data))))
                        vec-p))
         (flips (map vec-list-flips (vec-perms '(0 1 2 3 4))))
         (reps (vec-fannkuch-reps n)))
    (equal? result
            (list (vec-odd-sieve-count (* 20 n))
                  sorts
                  (vec-check-matrix-sum (vec-icbrt (* 4 n)))
                  (let most ((l flips) (m 0)) (if (null? l) m (most (cdr l) (max m (car l)))))
                  (* reps (let add ((l flips) (s 0)) (if (null? l) s (add (cdr l) (+ s (car l))))))))))

(define sizes '((small . 100) (train . 3000) (test . 20000)))
