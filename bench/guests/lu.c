/* lu: dense LU decomposition with partial pivoting, and linear solves.
 *
 * Exercises double-precision row operations (the k-i-j elimination loop:
 * loads, multiply-add, stores with unit stride), pivot searches (fabs and
 * compares), triangular solves, a single-precision factorization refined
 * in double (mixed-precision iterative refinement), and log, pow and exp.
 *
 * Jobs on an N x N matrix A with random entries in [-1, 1) plus a
 * diagonal shift of sqrt(N) (well conditioned):
 *   1. factor PA = LU in double; log|det A| from the pivots and the
 *      permutation's sign; solve A x = b for b = A x_true, x_true known;
 *   2. factor in single precision (float) and refine the solution in
 *      double, r = b - A x, until it stops improving;
 *   3. the Hilbert matrix of order 8 (condition number about 1.5e10),
 *      solved the same way, to show what ill-conditioning costs.
 *
 * Size argument: N, the matrix dimension (default 300; the work grows as
 * N^3; memory 12 N^2 bytes).  Small size: 36 (~0.02 s under qemu-riscv64).
 *
 * Self-check: the double solution within 1e-10 of x_true and its
 * relative residual ||b - A x|| / (||A|| ||x||) below 1e-12, the refined
 * single-precision solution within 1e-12 of x_true, log|det A| equal to
 * log|det A^T| from a second elimination (of the transpose, which pivots
 * differently) to 1e-9, and the Hilbert solution within 1e-3 of all ones.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x853c49e6748fea9bull;

static double rand_unit(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(rng >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL) {
		printf("lu: out of memory\n");
		exit(2);
	}
	return p;
}

/* Factor the n x n row-major a in place into L (unit lower, below the
   diagonal) and U, with row permutation perm (PA = LU).  Returns the
   permutation's sign, 0 for a singular matrix. */
static int factor(int n, double *a, int *perm)
{
	int sign = 1;
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int k = 0; k < n; k++) {
		int p = k;
		double best = fabs(a[(size_t)k * n + k]);
		for (int i = k + 1; i < n; i++) {
			double v = fabs(a[(size_t)i * n + k]);
			if (v > best) {
				best = v;
				p = i;
			}
		}
		if (best == 0)
			return 0;
		if (p != k) {
			for (int j = 0; j < n; j++) {
				double t = a[(size_t)k * n + j];
				a[(size_t)k * n + j] = a[(size_t)p * n + j];
				a[(size_t)p * n + j] = t;
			}
			int t = perm[k];
			perm[k] = perm[p];
			perm[p] = t;
			sign = -sign;
		}
		double *rk = a + (size_t)k * n;
		double inv = 1.0 / rk[k];
		for (int i = k + 1; i < n; i++) {
			double *ri = a + (size_t)i * n;
			double l = ri[k] * inv;
			ri[k] = l;
			for (int j = k + 1; j < n; j++)
				ri[j] -= l * rk[j];
		}
	}
	return sign;
}

static int factorf(int n, float *a, int *perm)
{
	int sign = 1;
	for (int i = 0; i < n; i++)
		perm[i] = i;
	for (int k = 0; k < n; k++) {
		int p = k;
		float best = fabsf(a[(size_t)k * n + k]);
		for (int i = k + 1; i < n; i++) {
			float v = fabsf(a[(size_t)i * n + k]);
			if (v > best) {
				best = v;
				p = i;
			}
		}
		if (best == 0)
			return 0;
		if (p != k) {
			for (int j = 0; j < n; j++) {
				float t = a[(size_t)k * n + j];
				a[(size_t)k * n + j] = a[(size_t)p * n + j];
				a[(size_t)p * n + j] = t;
			}
			int t = perm[k];
			perm[k] = perm[p];
			perm[p] = t;
			sign = -sign;
		}
		float *rk = a + (size_t)k * n;
		float inv = 1.0f / rk[k];
		for (int i = k + 1; i < n; i++) {
			float *ri = a + (size_t)i * n;
			float l = ri[k] * inv;
			ri[k] = l;
			for (int j = k + 1; j < n; j++)
				ri[j] -= l * rk[j];
		}
	}
	return sign;
}

/* Solve LU x = P b with the factors of factor(). */
static void solve(int n, const double *lu, const int *perm, const double *b, double *x)
{
	for (int i = 0; i < n; i++) {
		double s = b[perm[i]];
		for (int j = 0; j < i; j++)
			s -= lu[(size_t)i * n + j] * x[j];
		x[i] = s;
	}
	for (int i = n - 1; i >= 0; i--) {
		double s = x[i];
		for (int j = i + 1; j < n; j++)
			s -= lu[(size_t)i * n + j] * x[j];
		x[i] = s / lu[(size_t)i * n + i];
	}
}

static void solvef(int n, const float *lu, const int *perm, const float *b, float *x)
{
	for (int i = 0; i < n; i++) {
		float s = b[perm[i]];
		for (int j = 0; j < i; j++)
			s -= lu[(size_t)i * n + j] * x[j];
		x[i] = s;
	}
	for (int i = n - 1; i >= 0; i--) {
		float s = x[i];
		for (int j = i + 1; j < n; j++)
			s -= lu[(size_t)i * n + j] * x[j];
		x[i] = s / lu[(size_t)i * n + i];
	}
}

/* log|det| of factored a: the sum of log|u_kk|. */
static double log_det(int n, const double *lu)
{
	double s = 0;
	for (int k = 0; k < n; k++)
		s += log(fabs(lu[(size_t)k * n + k]));
	return s;
}

static int neg_pivots(int n, const double *lu)
{
	int c = 0;
	for (int k = 0; k < n; k++)
		c += lu[(size_t)k * n + k] < 0;
	return c;
}

/* r = b - A x */
static void residual(int n, const double *a, const double *b, const double *x, double *r)
{
	for (int i = 0; i < n; i++) {
		double s = b[i];
		for (int j = 0; j < n; j++)
			s -= a[(size_t)i * n + j] * x[j];
		r[i] = s;
	}
}

static double max_abs(int n, const double *v)
{
	double m = 0;
	for (int i = 0; i < n; i++)
		if (fabs(v[i]) > m)
			m = fabs(v[i]);
	return m;
}

static double max_err(int n, const double *x, const double *want)
{
	double m = 0;
	for (int i = 0; i < n; i++)
		if (fabs(x[i] - want[i]) > m)
			m = fabs(x[i] - want[i]);
	return m;
}

struct result {
	double err, relres, refined_err;
};

/* Solve a x = a x_true in double, and in float refined in double. */
static struct result solve_both(int n, const double *a, const double *xt, int verbose)
{
	struct result res;
	double *lu = xmalloc(sizeof(double) * n * n);
	float *luf = xmalloc(sizeof(float) * n * n);
	double *b = xmalloc(sizeof(double) * n), *x = xmalloc(sizeof(double) * n);
	double *r = xmalloc(sizeof(double) * n);
	float *rf = xmalloc(sizeof(float) * n), *df = xmalloc(sizeof(float) * n);
	int *perm = xmalloc(sizeof(int) * n), *permf = xmalloc(sizeof(int) * n);

	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int j = 0; j < n; j++)
			s += a[(size_t)i * n + j] * xt[j];
		b[i] = s;
	}
	memcpy(lu, a, sizeof(double) * n * n);
	int sign = factor(n, lu, perm);
	solve(n, lu, perm, b, x);
	res.err = max_err(n, x, xt);
	residual(n, a, b, x, r);
	double an = 0; /* ||A||_inf */
	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int j = 0; j < n; j++)
			s += fabs(a[(size_t)i * n + j]);
		if (s > an)
			an = s;
	}
	res.relres = max_abs(n, r) / (an * max_abs(n, x));
	if (verbose) {
		double ld = log_det(n, lu);
		int s = (neg_pivots(n, lu) & 1) ? -sign : sign;
		printf("double: det = %c10^%.6f, error %.1e, relative residual %.1e\n",
		       s < 0 ? '-' : '+', ld / log(10.0), res.err, res.relres);
	}

	for (size_t i = 0; i < (size_t)n * n; i++)
		luf[i] = (float)a[i];
	factorf(n, luf, permf);
	for (int i = 0; i < n; i++)
		rf[i] = (float)b[i];
	solvef(n, luf, permf, rf, df);
	for (int i = 0; i < n; i++)
		x[i] = df[i];
	double first = max_err(n, x, xt), prev = INFINITY;
	for (int steps = 0; steps < 20; steps++) {
		residual(n, a, b, x, r);
		double rn = max_abs(n, r);
		if (!(rn < prev))
			break;
		prev = rn;
		for (int i = 0; i < n; i++)
			rf[i] = (float)r[i];
		solvef(n, luf, permf, rf, df);
		for (int i = 0; i < n; i++)
			x[i] += df[i];
	}
	res.refined_err = max_err(n, x, xt);
	if (verbose)
		printf("single: error %.1e, refined in double %.1e\n", first, res.refined_err);

	free(permf);
	free(perm);
	free(df);
	free(rf);
	free(r);
	free(x);
	free(b);
	free(luf);
	free(lu);
	return res;
}

int main(int argc, char **argv)
{
	int n = 300;
	if (argc > 1)
		n = atoi(argv[1]);
	if (n < 8 || n > 4000) {
		printf("lu: size must be 8..4000\n");
		return 2;
	}
	int ok = 1;

	double *a = xmalloc(sizeof(double) * n * n);
	double *xt = xmalloc(sizeof(double) * n);
	double shift = sqrt((double)n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			a[(size_t)i * n + j] = rand_unit() + (i == j ? shift : 0);
	/* x_true(i) = exp(i / n) / (1 + i)^0.5 */
	for (int i = 0; i < n; i++)
		xt[i] = exp((double)i / n) / pow(1.0 + i, 0.5);
	printf("lu n=%d\n", n);
	struct result r = solve_both(n, a, xt, 1);
	if (!(r.err < 1e-10) || !(r.relres < 1e-12) || !(r.refined_err < 1e-12)) {
		printf("FAIL: solution error\n");
		ok = 0;
	}

	/* log|det A| again, from A^T: the determinant does not change under
	   transposition, but the elimination does. */
	double *lu = xmalloc(sizeof(double) * n * n);
	int *perm = xmalloc(sizeof(int) * n);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			lu[(size_t)j * n + i] = a[(size_t)i * n + j];
	double ld_t = 0;
	if (factor(n, lu, perm) != 0)
		ld_t = log_det(n, lu);
	memcpy(lu, a, sizeof(double) * n * n);
	double ld = 0;
	if (factor(n, lu, perm) != 0)
		ld = log_det(n, lu);
	if (!(fabs(ld - ld_t) < 1e-9 * fabs(ld))) {
		printf("FAIL: log|det| %.12f, from the transpose %.12f\n", ld, ld_t);
		ok = 0;
	}

	/* Hilbert matrix H(i,j) = 1 / (i + j + 1), x_true all ones. */
	double h[8 * 8], ones[8];
	for (int i = 0; i < 8; i++) {
		ones[i] = 1;
		for (int j = 0; j < 8; j++)
			h[i * 8 + j] = 1.0 / (i + j + 1);
	}
	struct result hr = solve_both(8, h, ones, 0);
	/* cond(H) * FLT_EPSILON is about 900: refinement cannot converge. */
	printf("hilbert 8: double error %.0e, single precision refinement %s\n",
	       hr.err, hr.refined_err < 1e-3 ? "converges" : "does not converge");
	if (!(hr.err < 1e-3)) {
		printf("FAIL: Hilbert solution\n");
		ok = 0;
	}

	free(perm);
	free(lu);
	free(xt);
	free(a);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
