/* mergesort: stable in-place merge sort, without an O(n) buffer.
 *
 * Exercises what an in-place stable sort does instead of copying: runs of
 * 16 by insertion sort, then bottom-up merges in which each merge splits
 * both runs at a pivot found by binary search, exchanges the two middle
 * blocks by a rotation (block swaps), and merges the two halves that
 * result recursively (O(n log^2 n) comparisons and moves, O(log n)
 * stack).  Two versions of the same algorithm: one specialized for
 * 32-bit ints (inline comparisons), one generic over element size with a
 * comparator pointer (an indirect call per comparison, byte-wise swaps),
 * used on 12-byte records ordered by a key that repeats, so that
 * stability shows.  The inputs: random ints, ints with few distinct
 * values, nearly sorted ints, descending ints, and records by key and
 * then by a second key (stability keeps the first order among equals).
 *
 * Size argument: N, the number of elements of each input (default
 * 150000).  Small size: 1000 (~0.02 s under qemu-riscv64).
 *
 * Self-check: each int result must equal the input sorted by an LSD radix
 * sort (with a buffer); each record result must equal the input sorted by
 * a stable counting sort on the key, field for field, which also checks
 * stability; and the records sorted by key after a sort by the second
 * key must be ordered by (key, second key).  Prints an order-sensitive
 * checksum of each result.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN 16

/* ---- ints ---- */

static void swap_blocks_int(int32_t *x, size_t i, size_t j, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		int32_t t = x[i + k];
		x[i + k] = x[j + k];
		x[j + k] = t;
	}
}

/* Exchanges the blocks [a, m) and [m, b) by block swaps: the shorter
 * block is swapped with the end of the longer one that it belongs in,
 * and what remains is the same problem, smaller. */
static void rotate_int(int32_t *x, size_t a, size_t m, size_t b)
{
	size_t l = m - a, r = b - m;
	while (l > 0 && r > 0) {
		if (l <= r) {
			/* [A][B1 B2], |B1| = |A|: swapping A and B1 puts B1 in place */
			swap_blocks_int(x, a, a + l, l);
			a += l;
			r -= l;
		} else {
			/* [A1 A2][B], |A2| = |B|: swapping A2 and B puts A2 in place */
			swap_blocks_int(x, a + l - r, a + l, r);
			l -= r;
		}
	}
}

/* First index in [lo, hi) whose element is not less than v. */
static size_t lower_int(const int32_t *x, size_t lo, size_t hi, int32_t v)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First index in [lo, hi) whose element is greater than v. */
static size_t upper_int(const int32_t *x, size_t lo, size_t hi, int32_t v)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v < x[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Merges the sorted runs [a, m) and [m, b) in place, stably. */
static void merge_int(int32_t *x, size_t a, size_t m, size_t b)
{
	while (a < m && m < b) {
		if (!(x[m] < x[m - 1]))
			return; /* already in order */
		if (b - a == 2) {
			int32_t t = x[a];
			x[a] = x[m];
			x[m] = t;
			return;
		}
		/* Split the longer run in the middle, the other where that
		 * element goes: equal elements of the left run stay left. */
		size_t c1, c2;
		if (m - a >= b - m) {
			c1 = a + (m - a) / 2;
			c2 = lower_int(x, m, b, x[c1]);
		} else {
			c2 = m + (b - m) / 2;
			c1 = upper_int(x, a, m, x[c2]);
		}
		rotate_int(x, c1, m, c2);
		size_t mid = c1 + (c2 - m);
		/* Recurse into the smaller half, loop on the larger. */
		if (mid - a < b - mid) {
			merge_int(x, a, c1, mid);
			a = mid;
			m = c2;
		} else {
			merge_int(x, mid, c2, b);
			b = mid;
			m = c1;
		}
	}
}

static void sort_int(int32_t *x, size_t n)
{
	for (size_t s = 0; s < n; s += RUN) {
		size_t e = s + RUN < n ? s + RUN : n;
		for (size_t i = s + 1; i < e; i++) {
			int32_t v = x[i];
			size_t j = i;
			for (; j > s && v < x[j - 1]; j--)
				x[j] = x[j - 1];
			x[j] = v;
		}
	}
	for (size_t w = RUN; w < n; w *= 2)
		for (size_t a = 0; a + w < n; a += 2 * w)
			merge_int(x, a, a + w, a + 2 * w < n ? a + 2 * w : n);
}

/* ---- generic ---- */

typedef int (*cmp_fn)(const void *, const void *);

struct sorter {
	char *base;
	size_t size;
	cmp_fn cmp;
};

#define AT(s, i) ((s)->base + (i) * (s)->size)

static void swap_bytes(char *p, char *q, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		char t = p[k];
		p[k] = q[k];
		q[k] = t;
	}
}

static void rotate_gen(const struct sorter *s, size_t a, size_t m, size_t b)
{
	size_t l = m - a, r = b - m;
	while (l > 0 && r > 0) {
		if (l <= r) {
			swap_bytes(AT(s, a), AT(s, a + l), l * s->size);
			a += l;
			r -= l;
		} else {
			swap_bytes(AT(s, a + l - r), AT(s, a + l), r * s->size);
			l -= r;
		}
	}
}

static size_t lower_gen(const struct sorter *s, size_t lo, size_t hi, const char *v)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->cmp(AT(s, mid), v) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t upper_gen(const struct sorter *s, size_t lo, size_t hi, const char *v)
{
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->cmp(v, AT(s, mid)) < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void merge_gen(const struct sorter *s, size_t a, size_t m, size_t b)
{
	while (a < m && m < b) {
		if (s->cmp(AT(s, m), AT(s, m - 1)) >= 0)
			return;
		if (b - a == 2) {
			swap_bytes(AT(s, a), AT(s, m), s->size);
			return;
		}
		size_t c1, c2;
		if (m - a >= b - m) {
			c1 = a + (m - a) / 2;
			c2 = lower_gen(s, m, b, AT(s, c1));
		} else {
			c2 = m + (b - m) / 2;
			c1 = upper_gen(s, a, m, AT(s, c2));
		}
		rotate_gen(s, c1, m, c2);
		size_t mid = c1 + (c2 - m);
		if (mid - a < b - mid) {
			merge_gen(s, a, c1, mid);
			a = mid;
			m = c2;
		} else {
			merge_gen(s, mid, c2, b);
			b = mid;
			m = c1;
		}
	}
}

static void sort_gen(void *base, size_t n, size_t size, cmp_fn cmp)
{
	struct sorter st = {base, size, cmp}, *s = &st;
	for (size_t r = 0; r < n; r += RUN) {
		size_t e = r + RUN < n ? r + RUN : n;
		for (size_t i = r + 1; i < e; i++)
			for (size_t j = i; j > r && cmp(AT(s, j), AT(s, j - 1)) < 0; j--)
				swap_bytes(AT(s, j), AT(s, j - 1), size);
	}
	for (size_t w = RUN; w < n; w *= 2)
		for (size_t a = 0; a + w < n; a += 2 * w)
			merge_gen(s, a, a + w, a + 2 * w < n ? a + 2 * w : n);
}

/* ---- records ---- */

struct rec {
	uint32_t key;  /* repeats: 0 .. NKEYS-1 */
	uint32_t key2; /* repeats too */
	uint32_t seq;  /* the position in the input */
};

#define NKEYS 1000

static int by_key(const void *p, const void *q)
{
	const struct rec *x = p, *y = q;
	return (x->key > y->key) - (x->key < y->key);
}

static int by_key2(const void *p, const void *q)
{
	const struct rec *x = p, *y = q;
	return (x->key2 > y->key2) - (x->key2 < y->key2);
}

/* ---- the checks ---- */

/* LSD radix sort of signed ints, a byte at a time, through buf. */
static void radix_int(int32_t *x, int32_t *buf, size_t n)
{
	for (int shift = 0; shift < 32; shift += 8) {
		size_t count[257] = {0};
		for (size_t i = 0; i < n; i++)
			count[((((uint32_t)x[i] ^ 0x80000000u) >> shift) & 255) + 1]++;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
			buf[count[(((uint32_t)x[i] ^ 0x80000000u) >> shift) & 255]++] = x[i];
		memcpy(x, buf, n * sizeof *x);
	}
}

/* Stable counting sort of records by key, from in to out. */
static void counting_recs(const struct rec *in, struct rec *out, size_t n)
{
	static size_t start[NKEYS + 1];
	memset(start, 0, sizeof start);
	for (size_t i = 0; i < n; i++)
		start[in[i].key + 1]++;
	for (int k = 0; k < NKEYS; k++)
		start[k + 1] += start[k];
	for (size_t i = 0; i < n; i++)
		out[start[in[i].key]++] = in[i];
}

/* Order-sensitive: a polynomial hash of the sequence. */
static uint64_t checksum(const void *p, size_t bytes)
{
	const uint8_t *b = p;
	uint64_t h = 0;
	for (size_t i = 0; i < bytes; i++)
		h = h * 0x100000001b3u + b[i];
	return h;
}

static uint64_t rng = 0x853c49e6748fea9bu;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

static int ok = 1;

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL) {
		printf("mergesort: out of memory\n");
		exit(2);
	}
	return p;
}

int main(int argc, char **argv)
{
	long n = 150000;
	if (argc > 1)
		n = atol(argv[1]);
	if (n < 2 || n > 10000000) {
		printf("mergesort: size must be 2..10000000\n");
		return 2;
	}
	size_t un = (size_t)n;
	int32_t *x = xmalloc(un * sizeof *x), *want = xmalloc(un * sizeof *x), *buf = xmalloc(un * sizeof *x);
	struct rec *r = xmalloc(un * sizeof *r), *rwant = xmalloc(un * sizeof *r);

	printf("mergesort n=%ld\n", n);
	static const char *const inputs[] = {"random", "few distinct", "nearly sorted", "descending"};
	for (int in = 0; in < 4; in++) {
		for (size_t i = 0; i < un; i++) {
			uint32_t v = next();
			switch (in) {
			case 0: x[i] = (int32_t)v; break;
			case 1: x[i] = (int32_t)(v % 17) - 8; break;
			case 2: x[i] = v % 100 == 0 ? (int32_t)(v >> 8) : (int32_t)i * 16; break;
			default: x[i] = (int32_t)(un - i) * 3 - (int32_t)(v % 4); break;
			}
		}
		memcpy(want, x, un * sizeof *x);
		radix_int(want, buf, un);
		sort_int(x, un);
		int same = memcmp(x, want, un * sizeof *x) == 0;
		printf("ints, %s: min %ld, median %ld, max %ld, checksum %016llx%s\n", inputs[in], (long)x[0],
		       (long)x[un / 2], (long)x[un - 1], (unsigned long long)checksum(x, un * sizeof *x),
		       same ? "" : " FAIL");
		ok = ok && same;
	}

	for (size_t i = 0; i < un; i++) {
		uint32_t v = next();
		r[i].key = v % NKEYS;
		r[i].key2 = (v >> 16) % 64;
		r[i].seq = (uint32_t)i;
	}
	counting_recs(r, rwant, un);
	sort_gen(r, un, sizeof *r, by_key);
	int same = memcmp(r, rwant, un * sizeof *r) == 0;
	printf("records by key: first (%u,%u), last (%u,%u), checksum %016llx%s\n", (unsigned)r[0].key,
	       (unsigned)r[0].seq, (unsigned)r[un - 1].key, (unsigned)r[un - 1].seq,
	       (unsigned long long)checksum(r, un * sizeof *r), same ? "" : " FAIL");
	ok = ok && same;

	/* Sorting by key2 and then stably by key orders by (key, key2). */
	sort_gen(r, un, sizeof *r, by_key2);
	for (size_t i = 1; i < un; i++)
		if (r[i - 1].key2 > r[i].key2) {
			printf("FAIL: records not sorted by second key at %lu\n", (unsigned long)i);
			ok = 0;
			break;
		}
	sort_gen(r, un, sizeof *r, by_key);
	size_t groups = 1;
	for (size_t i = 1; i < un; i++) {
		if (r[i - 1].key > r[i].key || (r[i - 1].key == r[i].key && r[i - 1].key2 > r[i].key2)) {
			printf("FAIL: records not sorted by (key, second key) at %lu\n", (unsigned long)i);
			ok = 0;
			break;
		}
		groups += r[i - 1].key != r[i].key || r[i - 1].key2 != r[i].key2;
	}
	printf("records by (key, second key): %lu groups, checksum %016llx\n", (unsigned long)groups,
	       (unsigned long long)checksum(r, un * sizeof *r));

	free(rwant);
	free(r);
	free(buf);
	free(want);
	free(x);
	if (!ok) {
		printf("FAIL: a result differs from the reference sort\n");
		return 1;
	}
	printf("check ok\n");
	return 0;
}
