/* matmul: integer matrix multiply.
 *
 * Exercises tight, regular loops over arrays: the i-k-j triple loop of
 * C = A * B with 32-bit inputs and 64-bit sums (loads with sign extension,
 * mul, add, strided stores).
 *
 * Size argument: N, the matrix dimension (default 1000; the work grows as
 * N^3; memory 16 N^2 bytes).  Small size: 200 (about 1/100 of the default
 * work: ~0.02 s under qemu-riscv64).
 *
 * Self-check: Freivalds' test with three fixed vectors x, comparing C*x
 * with A*(B*x) (computed in O(N^2) by a different loop), plus a few
 * entries of C recomputed as plain dot products.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t rng = 12345u;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL) {
		printf("matmul: out of memory\n");
		exit(2);
	}
	return p;
}

/* C = A * B, all n x n, row major. */
static void multiply(int n, const int32_t *a, const int32_t *b, int64_t *c)
{
	for (int i = 0; i < n * n; i++)
		c[i] = 0;
	for (int i = 0; i < n; i++) {
		int64_t *crow = c + (size_t)i * n;
		for (int k = 0; k < n; k++) {
			int64_t aik = a[(size_t)i * n + k];
			const int32_t *brow = b + (size_t)k * n;
			for (int j = 0; j < n; j++)
				crow[j] += aik * brow[j];
		}
	}
}

/* y = M * x for an int32 matrix. */
static void matvec32(int n, const int32_t *m, const int64_t *x, int64_t *y)
{
	for (int i = 0; i < n; i++) {
		int64_t s = 0;
		for (int j = 0; j < n; j++)
			s += m[(size_t)i * n + j] * x[j];
		y[i] = s;
	}
}

int main(int argc, char **argv)
{
	int n = 1000;
	if (argc > 1)
		n = atoi(argv[1]);
	if (n < 1 || n > 2000) {
		printf("matmul: size must be 1..2000\n");
		return 2;
	}

	int32_t *a = xmalloc(sizeof(int32_t) * n * n);
	int32_t *b = xmalloc(sizeof(int32_t) * n * n);
	int64_t *c = xmalloc(sizeof(int64_t) * n * n);
	for (int i = 0; i < n * n; i++) {
		a[i] = (int32_t)(next_rand() % 2001) - 1000;
		b[i] = (int32_t)(next_rand() % 2001) - 1000;
	}

	multiply(n, a, b, c);

	/* Summary of C: sum, weighted hash, trace, corners. */
	int64_t sum = 0, trace = 0;
	uint64_t hash = 1469598103934665603ull;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < n; j++) {
			int64_t v = c[(size_t)i * n + j];
			sum += v;
			hash = (hash ^ (uint64_t)v) * 1099511628211ull;
		}
		trace += c[(size_t)i * n + i];
	}
	printf("matmul n=%d\n", n);
	printf("sum=%lld trace=%lld\n", (long long)sum, (long long)trace);
	printf("c[0][0]=%lld c[n-1][n-1]=%lld\n", (long long)c[0],
	       (long long)c[(size_t)n * n - 1]);
	printf("hash=%016llx\n", (unsigned long long)hash);

	/* Self-check 1: Freivalds, C x == A (B x). */
	int64_t *x = xmalloc(sizeof(int64_t) * n);
	int64_t *bx = xmalloc(sizeof(int64_t) * n);
	int64_t *abx = xmalloc(sizeof(int64_t) * n);
	int ok = 1;
	for (int t = 0; t < 3 && ok; t++) {
		for (int j = 0; j < n; j++)
			x[j] = (int64_t)((j * (t + 3) + t) % 7) - 3;
		matvec32(n, b, x, bx);
		matvec32(n, a, bx, abx);
		for (int i = 0; i < n; i++) {
			int64_t s = 0;
			for (int j = 0; j < n; j++)
				s += c[(size_t)i * n + j] * x[j];
			if (s != abx[i]) {
				printf("FAIL: Freivalds test %d, row %d\n", t, i);
				ok = 0;
				break;
			}
		}
	}

	/* Self-check 2: some entries as dot products (column access). */
	for (int t = 0; t < 16 && ok; t++) {
		int i = (int)(((uint32_t)t * 2654435761u) % (uint32_t)n);
		int j = (int)(((uint32_t)t * 40503u + 7u) % (uint32_t)n);
		int64_t s = 0;
		for (int k = n - 1; k >= 0; k--)
			s += (int64_t)a[(size_t)i * n + k] * b[(size_t)k * n + j];
		if (s != c[(size_t)i * n + j]) {
			printf("FAIL: c[%d][%d]\n", i, j);
			ok = 0;
		}
	}

	free(abx);
	free(bx);
	free(x);
	free(c);
	free(b);
	free(a);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
