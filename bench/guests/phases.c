/* phases: a program whose hot code changes over time.
 *
 * Exercises phase behaviour: each phase has its own hot loops, and the
 * working set of code moves from one to the next (what a fragment cache
 * must follow), ending with a return to the first phase's code:
 *   1. sort     own quicksort (explicit stack, median of three, insertion
 *               sort for short ranges) of N 32-bit values
 *   2. hash     open-addressing hash table (linear probing): count the
 *               values, then look up as many random keys
 *   3. bfs      breadth-first search over a random undirected graph with
 *               N nodes and 2N edges, stored as adjacency arrays (CSR)
 *   4. sort     phase 1's code again, on new data
 *
 * Size argument: N, the number of values and of graph nodes (default
 * 1000000).  Small size: 15000 (~0.02 s under qemu-riscv64).
 *
 * Self-check, per phase: the sorted arrays must be in order with the same
 * multiset of values as before (count, sum, order-independent hash); the
 * hash table's distinct keys and their counts must equal the runs in the
 * sorted array, and every 16th lookup must agree with a binary search in
 * it; the BFS distances (from the node of highest degree) must satisfy
 * d(source) = 0 and |d(u) - d(v)| <= 1 for every edge, and every other
 * reached node must have a neighbour one step closer (which together
 * prove that they are the shortest-path distances).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x853c49e6748fea9bull;

static uint32_t next_rand(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL) {
		printf("phases: out of memory\n");
		exit(2);
	}
	return p;
}

static int ok = 1;

static void fail(const char *what)
{
	printf("FAIL: %s\n", what);
	ok = 0;
}

/* ---- phase 1 and 4: sorting ---- */

static void insertion_sort(uint32_t *a, long lo, long hi)
{
	for (long i = lo + 1; i <= hi; i++) {
		uint32_t v = a[i];
		long j = i - 1;
		while (j >= lo && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

static void swap(uint32_t *a, long i, long j)
{
	uint32_t t = a[i];
	a[i] = a[j];
	a[j] = t;
}

static void quicksort(uint32_t *a, long n)
{
	long stack[128];
	int sp = 0;
	stack[sp++] = 0;
	stack[sp++] = n - 1;
	while (sp > 0) {
		long hi = stack[--sp];
		long lo = stack[--sp];
		while (hi - lo > 16) {
			long mid = lo + (hi - lo) / 2;
			if (a[mid] < a[lo])
				swap(a, mid, lo);
			if (a[hi] < a[lo])
				swap(a, hi, lo);
			if (a[hi] < a[mid])
				swap(a, hi, mid);
			uint32_t pivot = a[mid];
			long i = lo, j = hi;
			while (i <= j) {
				while (a[i] < pivot)
					i++;
				while (a[j] > pivot)
					j--;
				if (i <= j) {
					swap(a, i, j);
					i++;
					j--;
				}
			}
			/* Push the larger part, loop on the smaller: the stack
			   stays O(log n) deep. */
			if (j - lo > hi - i) {
				stack[sp++] = lo;
				stack[sp++] = j;
				lo = i;
			} else {
				stack[sp++] = i;
				stack[sp++] = hi;
				hi = j;
			}
		}
		insertion_sort(a, lo, hi);
	}
}

struct summary {
	uint64_t count, sum, hash;
};

static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static struct summary summarize(const uint32_t *a, long n)
{
	struct summary s = { 0, 0, 0 };
	for (long i = 0; i < n; i++) {
		s.count++;
		s.sum += a[i];
		s.hash += mix(a[i]);
	}
	return s;
}

/* Sorts a; checks and prints.  Returns the number of distinct values. */
static long sort_phase(const char *name, uint32_t *a, long n)
{
	struct summary before = summarize(a, n);
	quicksort(a, n);
	struct summary after = summarize(a, n);
	if (before.count != after.count || before.sum != after.sum ||
	    before.hash != after.hash)
		fail("sorting changed the values");
	long distinct = n > 0;
	for (long i = 1; i < n; i++) {
		if (a[i - 1] > a[i]) {
			fail("not sorted");
			break;
		}
		distinct += a[i - 1] != a[i];
	}
	printf("%s: %ld values, %ld distinct, min %u median %u max %u\n", name, n,
	       distinct, (unsigned)a[0], (unsigned)a[n / 2], (unsigned)a[n - 1]);
	return distinct;
}

/* ---- phase 2: hashing ---- */

struct slot {
	uint32_t key;
	uint32_t count; /* 0: empty */
};

static struct slot *table;
static uint32_t table_mask;

static uint32_t slot_of(uint32_t key)
{
	return (key * 2654435761u) >> 7 & table_mask;
}

static void insert(uint32_t key)
{
	uint32_t i = slot_of(key);
	while (table[i].count != 0 && table[i].key != key)
		i = (i + 1) & table_mask;
	table[i].key = key;
	table[i].count++;
}

static uint32_t lookup(uint32_t key)
{
	uint32_t i = slot_of(key);
	while (table[i].count != 0) {
		if (table[i].key == key)
			return table[i].count;
		i = (i + 1) & table_mask;
	}
	return 0;
}

/* Count of key in the sorted array, by binary search. */
static long sorted_count(const uint32_t *a, long n, uint32_t key)
{
	long lo = 0, hi = n; /* first index with a[i] >= key */
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (a[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	long first = lo;
	hi = n; /* first index with a[i] > key */
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		if (a[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - first;
}

static void hash_phase(const uint32_t *orig, const uint32_t *sorted, long n,
		       long distinct, uint32_t range)
{
	uint32_t cap = 1;
	while (cap < 2 * (uint32_t)n)
		cap *= 2;
	table = calloc(cap, sizeof *table);
	if (table == NULL) {
		printf("phases: out of memory\n");
		exit(2);
	}
	table_mask = cap - 1;

	for (long i = 0; i < n; i++)
		insert(orig[i]);

	long used = 0;
	for (uint32_t i = 0; i < cap; i++)
		used += table[i].count != 0;
	if (used != distinct)
		fail("hash table and sorted array disagree on distinct values");
	/* Every run of the sorted array must be one table entry. */
	for (long i = 0; i < n && ok;) {
		long j = i;
		while (j < n && sorted[j] == sorted[i])
			j++;
		if (lookup(sorted[i]) != (uint32_t)(j - i))
			fail("hash count differs from sorted run length");
		i = j;
	}

	/* Random lookups, hits and misses. */
	uint64_t hits = 0, found = 0;
	for (long i = 0; i < n; i++) {
		uint32_t key = next_rand() % (2 * range);
		uint32_t c = lookup(key);
		hits += c != 0;
		found += c;
		if ((i & 15) == 0 && (long)c != sorted_count(sorted, n, key)) {
			fail("lookup differs from binary search");
			break;
		}
	}
	printf("hash: %u slots, %ld used, %ld lookups: %llu hits, %llu occurrences\n",
	       (unsigned)cap, used, n, (unsigned long long)hits,
	       (unsigned long long)found);
	free(table);
}

/* ---- phase 3: breadth-first search ---- */

/* The edges of the graph: generated twice from the same seed (once to
   count degrees, once to fill the adjacency arrays), never stored as a
   list.  Mostly local edges, some long ones. */
static void edge(long n, uint32_t *u, uint32_t *v)
{
	*u = next_rand() % (uint32_t)n;
	if (next_rand() % 8 == 0)
		*v = next_rand() % (uint32_t)n;
	else
		*v = (*u + 1 + next_rand() % 64) % (uint32_t)n;
}

static void bfs_phase(long n)
{
	long m = 2 * n; /* undirected edges */
	uint32_t u, v;

	/* Adjacency arrays: the neighbours of v are adj[start[v] ..
	   start[v+1]). */
	uint32_t *start = calloc((size_t)n + 1, sizeof(uint32_t));
	uint32_t *adj = xmalloc(sizeof(uint32_t) * 2 * m);
	if (start == NULL) {
		printf("phases: out of memory\n");
		exit(2);
	}
	uint64_t seed = rng;
	for (long i = 0; i < m; i++) {
		edge(n, &u, &v);
		start[u + 1]++;
		start[v + 1]++;
	}
	for (long k = 0; k < n; k++)
		start[k + 1] += start[k];
	uint32_t *fill = xmalloc(sizeof(uint32_t) * n);
	memcpy(fill, start, sizeof(uint32_t) * n);
	rng = seed;
	for (long i = 0; i < m; i++) {
		edge(n, &u, &v);
		adj[fill[u]++] = v;
		adj[fill[v]++] = u;
	}
	uint32_t *queue = fill; /* reused: n entries are enough */

	int32_t *dist = xmalloc(sizeof(int32_t) * n);
	for (long k = 0; k < n; k++)
		dist[k] = -1;
	/* Start from the node of highest degree (the first such). */
	uint32_t src = 0;
	for (long k = 1; k < n; k++)
		if (start[k + 1] - start[k] > start[src + 1] - start[src])
			src = (uint32_t)k;
	long head = 0, tail = 0;
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		u = queue[head++];
		for (uint32_t k = start[u]; k < start[u + 1]; k++) {
			v = adj[k];
			if (dist[v] < 0) {
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
			}
		}
	}

	long reached = 0;
	int32_t maxd = 0;
	uint64_t dsum = 0;
	for (long k = 0; k < n; k++) {
		if (dist[k] < 0)
			continue;
		reached++;
		dsum += (uint64_t)dist[k];
		if (dist[k] > maxd)
			maxd = dist[k];
	}
	printf("bfs: %ld nodes, %ld edges, source %u, %ld reached, max distance %d, "
	       "distance sum %llu\n",
	       n, m, (unsigned)src, reached, (int)maxd, (unsigned long long)dsum);

	/* Check: edges never span more than one level, and every reached
	   node but the source has a parent one level up. */
	if (dist[src] != 0 || reached != tail)
		fail("bfs bookkeeping");
	for (long x = 0; x < n && ok; x++) {
		int has_parent = 0;
		for (uint32_t k = start[x]; k < start[x + 1]; k++) {
			int32_t a = dist[x], b = dist[adj[k]];
			if ((a < 0) != (b < 0) || a - b > 1 || b - a > 1) {
				fail("bfs edge spans more than one level");
				break;
			}
			has_parent |= b == a - 1;
		}
		if (x != (long)src && dist[x] >= 0 && !has_parent)
			fail("bfs node without a parent");
	}

	free(queue);
	free(dist);
	free(adj);
	free(start);
}

int main(int argc, char **argv)
{
	long n = 1000000;
	if (argc > 1)
		n = atol(argv[1]);
	if (n < 2 || n > 50000000) {
		printf("phases: size must be 2..50000000\n");
		return 2;
	}
	printf("phases n=%ld\n", n);

	/* Values in [0, n): plenty of duplicates. */
	uint32_t range = (uint32_t)n;
	uint32_t *orig = xmalloc(sizeof(uint32_t) * n);
	uint32_t *a = xmalloc(sizeof(uint32_t) * n);
	for (long i = 0; i < n; i++)
		orig[i] = next_rand() % range;
	memcpy(a, orig, sizeof(uint32_t) * n);

	long distinct = sort_phase("sort", a, n);
	if (ok)
		hash_phase(orig, a, n, distinct, range);
	free(orig); /* the graph needs the memory */
	if (ok)
		bfs_phase(n);
	if (ok) {
		/* Back to the sorting code, with a different distribution:
		   many short ascending runs. */
		for (long i = 0; i < n; i++)
			a[i] = (uint32_t)(i % 1000) * 4099u + next_rand() % 97;
		sort_phase("sort again", a, n);
	}

	free(a);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
