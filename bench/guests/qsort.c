/* qsort: sorting through function pointers.
 *
 * Exercises indirect calls: the C library's qsort calling a comparator
 * for every comparison, and our own generic (byte-copying) merge sort
 * taking the same kind of comparator; plus memcpy-style element moves.
 * Sorted are an array of 32-bit keys and an array of 16-byte records
 * ordered by (key, id).
 *
 * Size argument: N, the number of elements (default 300000).  Small size:
 * 4000 (~0.02 s under qemu-riscv64).
 *
 * Self-check: every result must be in order, qsort and the merge sort
 * must give identical arrays, and the multiset of elements must be
 * unchanged (count, sum and an order-independent hash of the elements are
 * compared before and after).  Keys are made unique by (key, id), so the
 * sorted order is fully determined and the output does not depend on the
 * qsort implementation.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	uint32_t key;
	uint32_t id;
	uint64_t payload;
};

typedef int (*cmp_fn)(const void *, const void *);

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int cmp_u32_desc(const void *a, const void *b)
{
	return cmp_u32(b, a);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Generic top-down merge sort of n elements of the given size. */
static void merge_rec(char *a, char *tmp, size_t n, size_t size, cmp_fn cmp)
{
	if (n < 2)
		return;
	size_t half = n / 2;
	merge_rec(a, tmp, half, size, cmp);
	merge_rec(a + half * size, tmp, n - half, size, cmp);
	/* Already in order: nothing to merge. */
	if (cmp(a + (half - 1) * size, a + half * size) <= 0)
		return;
	size_t i = 0, j = half, k = 0;
	while (i < half && j < n) {
		if (cmp(a + j * size, a + i * size) < 0) {
			memcpy(tmp + k * size, a + j * size, size);
			j++;
		} else {
			memcpy(tmp + k * size, a + i * size, size);
			i++;
		}
		k++;
	}
	/* Whatever remains of the right run is already in place. */
	if (i < half)
		memcpy(tmp + k * size, a + i * size, (half - i) * size);
	memcpy(a, tmp, (k + half - i) * size);
}

static void merge_sort(void *base, size_t n, size_t size, cmp_fn cmp)
{
	char *tmp = malloc(n * size + 1);
	if (tmp == NULL) {
		printf("qsort: out of memory\n");
		exit(2);
	}
	merge_rec(base, tmp, n, size, cmp);
	free(tmp);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ull;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dull;
	x ^= x >> 33;
	return x;
}

/* Order-independent summary of a multiset of values. */
struct summary {
	uint64_t count, sum, hash;
};

static void add(struct summary *s, uint64_t v)
{
	s->count++;
	s->sum += v;
	s->hash += mix(v);
}

static int same(const struct summary *a, const struct summary *b)
{
	return a->count == b->count && a->sum == b->sum && a->hash == b->hash;
}

static int ok = 1;

static void fail(const char *msg)
{
	printf("FAIL: %s\n", msg);
	ok = 0;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL) {
		printf("qsort: out of memory\n");
		exit(2);
	}
	return p;
}

int main(int argc, char **argv)
{
	long n = 300000;
	if (argc > 1)
		n = atol(argv[1]);
	if (n < 2 || n > 10000000) {
		printf("qsort: size must be 2..10000000\n");
		return 2;
	}

	uint32_t *k1 = xmalloc(sizeof(uint32_t) * n);
	uint32_t *k2 = xmalloc(sizeof(uint32_t) * n);
	struct rec *r1 = xmalloc(sizeof(struct rec) * n);
	struct rec *r2 = xmalloc(sizeof(struct rec) * n);

	uint64_t state = 88172645463325252ull;
	struct summary before_k = { 0, 0, 0 }, before_r = { 0, 0, 0 };
	for (long i = 0; i < n; i++) {
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		k1[i] = (uint32_t)(state >> 32);
		/* Record keys repeat a lot (range n/4), ids break the ties. */
		r1[i].key = (uint32_t)(state % (uint64_t)(n / 4 + 1));
		r1[i].id = (uint32_t)i;
		r1[i].payload = state;
		add(&before_k, k1[i]);
		add(&before_r, mix(r1[i].key) ^ r1[i].id ^ r1[i].payload);
	}
	memcpy(k2, k1, sizeof(uint32_t) * n);
	memcpy(r2, r1, sizeof(struct rec) * n);

	/* 1. keys: qsort vs merge sort. */
	qsort(k1, n, sizeof(uint32_t), cmp_u32);
	merge_sort(k2, n, sizeof(uint32_t), cmp_u32);
	for (long i = 1; i < n; i++)
		if (k1[i - 1] > k1[i]) {
			fail("keys not sorted");
			break;
		}
	if (memcmp(k1, k2, sizeof(uint32_t) * n) != 0)
		fail("qsort and merge sort disagree on keys");
	struct summary after_k = { 0, 0, 0 };
	for (long i = 0; i < n; i++)
		add(&after_k, k1[i]);
	if (!same(&before_k, &after_k))
		fail("keys changed by sorting");

	/* 2. the sorted keys again, descending (reverses a sorted run). */
	qsort(k1, n, sizeof(uint32_t), cmp_u32_desc);
	merge_sort(k2, n, sizeof(uint32_t), cmp_u32_desc);
	for (long i = 1; i < n; i++)
		if (k1[i - 1] < k1[i]) {
			fail("keys not sorted descending");
			break;
		}
	if (memcmp(k1, k2, sizeof(uint32_t) * n) != 0)
		fail("qsort and merge sort disagree on descending keys");

	/* 3. records by (key, id). */
	qsort(r1, n, sizeof(struct rec), cmp_rec);
	merge_sort(r2, n, sizeof(struct rec), cmp_rec);
	struct summary after_r = { 0, 0, 0 };
	for (long i = 0; i < n; i++) {
		if (i > 0 && cmp_rec(&r1[i - 1], &r1[i]) >= 0) {
			fail("records not sorted");
			break;
		}
		add(&after_r, mix(r1[i].key) ^ r1[i].id ^ r1[i].payload);
	}
	if (!same(&before_r, &after_r))
		fail("records changed by sorting");
	if (memcmp(r1, r2, sizeof(struct rec) * n) != 0)
		fail("qsort and merge sort disagree on records");

	/* Summary of the results (independent of the qsort algorithm). */
	uint64_t pos_hash = 0;
	for (long i = 0; i < n; i++)
		pos_hash = pos_hash * 31 + r1[i].id;
	printf("qsort n=%ld\n", n);
	printf("keys: min=%u median=%u max=%u\n", (unsigned)k1[n - 1],
	       (unsigned)k1[n / 2], (unsigned)k1[0]);
	printf("records: first=(%u,%u) last=(%u,%u) order hash=%016llx\n",
	       (unsigned)r1[0].key, (unsigned)r1[0].id, (unsigned)r1[n - 1].key,
	       (unsigned)r1[n - 1].id, (unsigned long long)pos_hash);

	free(r2);
	free(r1);
	free(k2);
	free(k1);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
