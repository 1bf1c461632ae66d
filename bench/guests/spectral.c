/* spectral: the spectral norm of an infinite matrix, by the power method.
 *
 * Exercises double-precision division and multiply-add in nested loops
 * over vectors (the matrix is never stored: A(i,j) = 1 / ((i+j)(i+j+1)/2
 * + i + 1) is computed at every use), sqrt, and a single-precision run of
 * the same iteration.  The norm ||A||_2 is the square root of the largest
 * eigenvalue of A^T A, found by ten rounds of u = A^T A v, v = A^T A u on
 * the leading N x N block; it tends to 1.2742241528... as N grows.
 *
 * Size argument: N, the block size (default 350; the work grows as N^2).
 * Small size: 24 (~0.02 s under qemu-riscv64).
 *
 * Self-check: the estimate (a Rayleigh quotient, so a bound from below)
 * must not exceed the Frobenius norm of the block (computed directly, a
 * bound from above), its residual ||A^T A v - lambda v|| must be below
 * 1e-6 lambda, the single-precision run must agree to 1e-5, and for
 * N >= 100 the value must be within 1e-5 of the known limit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double a(int i, int j)
{
	return 1.0 / ((double)(i + j) * (i + j + 1) / 2 + i + 1);
}

static float af(int i, int j)
{
	return 1.0f / ((float)(i + j) * (float)(i + j + 1) / 2 + (float)(i + 1));
}

/* out = A v */
static void mul_av(int n, const double *v, double *out)
{
	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int j = 0; j < n; j++)
			s += a(i, j) * v[j];
		out[i] = s;
	}
}

/* out = A^T v */
static void mul_atv(int n, const double *v, double *out)
{
	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int j = 0; j < n; j++)
			s += a(j, i) * v[j];
		out[i] = s;
	}
}

static void mul_atav(int n, const double *v, double *out, double *tmp)
{
	mul_av(n, v, tmp);
	mul_atv(n, tmp, out);
}

static void mul_atav_f(int n, const float *v, float *out, float *tmp)
{
	for (int i = 0; i < n; i++) {
		float s = 0;
		for (int j = 0; j < n; j++)
			s += af(i, j) * v[j];
		tmp[i] = s;
	}
	for (int i = 0; i < n; i++) {
		float s = 0;
		for (int j = 0; j < n; j++)
			s += af(j, i) * tmp[j];
		out[i] = s;
	}
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL) {
		printf("spectral: out of memory\n");
		exit(2);
	}
	return p;
}

int main(int argc, char **argv)
{
	int n = 350;
	if (argc > 1)
		n = atoi(argv[1]);
	if (n < 2 || n > 100000) {
		printf("spectral: size must be 2..100000\n");
		return 2;
	}

	double *u = xmalloc(sizeof(double) * n), *v = xmalloc(sizeof(double) * n);
	double *tmp = xmalloc(sizeof(double) * n), *w = xmalloc(sizeof(double) * n);
	for (int i = 0; i < n; i++)
		u[i] = 1;
	for (int r = 0; r < 10; r++) {
		mul_atav(n, u, v, tmp);
		mul_atav(n, v, u, tmp);
	}
	/* lambda = (u . v) / (v . v), the Rayleigh quotient of A^T A at v. */
	double uv = 0, vv = 0;
	for (int i = 0; i < n; i++) {
		uv += u[i] * v[i];
		vv += v[i] * v[i];
	}
	double lambda = uv / vv, norm = sqrt(lambda);
	printf("spectral n=%d\n", n);
	printf("norm %.9f\n", norm);

	/* Residual of the eigenpair: ||A^T A v - lambda v|| / ||v||. */
	mul_atav(n, v, w, tmp);
	double res = 0;
	for (int i = 0; i < n; i++)
		res += (w[i] - lambda * v[i]) * (w[i] - lambda * v[i]);
	res = sqrt(res / vv);

	/* Frobenius norm: an upper bound on the 2-norm. */
	double frob = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			frob += a(i, j) * a(i, j);
	frob = sqrt(frob);
	printf("frobenius bound %.9f\n", frob);

	/* The same in single precision. */
	float *uf = xmalloc(sizeof(float) * n), *vf = xmalloc(sizeof(float) * n);
	float *tf = xmalloc(sizeof(float) * n);
	for (int i = 0; i < n; i++)
		uf[i] = 1;
	for (int r = 0; r < 10; r++) {
		mul_atav_f(n, uf, vf, tf);
		mul_atav_f(n, vf, uf, tf);
	}
	float uvf = 0, vvf = 0;
	for (int i = 0; i < n; i++) {
		uvf += uf[i] * vf[i];
		vvf += vf[i] * vf[i];
	}
	float normf = sqrtf(uvf / vvf);
	printf("single precision norm %.6f\n", (double)normf);

	int ok = 1;
	if (!(norm <= frob && norm > 1.0)) {
		printf("FAIL: norm %.9f outside (1, %.9f]\n", norm, frob);
		ok = 0;
	}
	if (!(res < 1e-6 * lambda)) {
		printf("FAIL: residual %g\n", res);
		ok = 0;
	}
	if (!(fabs((double)normf - norm) < 1e-5)) {
		printf("FAIL: single precision %.9f, double %.9f\n", (double)normf, norm);
		ok = 0;
	}
	if (n >= 100 && !(fabs(norm - 1.2742241528) < 1e-5)) {
		printf("FAIL: norm %.9f far from the limit\n", norm);
		ok = 0;
	}
	free(tf);
	free(vf);
	free(uf);
	free(w);
	free(tmp);
	free(v);
	free(u);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
