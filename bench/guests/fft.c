/* fft: fast Fourier transforms, and big-number multiplication with them.
 *
 * Exercises complex double-precision arithmetic in strided butterfly loops
 * (the iterative radix-2 Cooley-Tukey FFT with a bit-reversal permutation),
 * libm (sin and cos for the twiddle factors, exp and log for a test
 * signal, and their single-precision versions), rounding back to integers
 * (llround), and a single-precision transform beside the double one.
 *
 * Three jobs on transforms of length N:
 *   1. a random complex signal, transformed forward and back (double and
 *      float): the round-trip error, and Parseval's identity;
 *   2. a sampled Gaussian, whose discrete transform is known in closed
 *      form (a Gaussian again);
 *   3. the product of two random N/2-digit decimal numbers (digits in base
 *      100) by convolution: transform both, multiply, transform back,
 *      round and carry.
 *
 * Size argument: N, the transform length, a power of two (default 65536;
 * the work grows as N log N).  Small size: 256 (~0.02 s under
 * qemu-riscv64).
 *
 * Self-check: round-trip errors below 1e-9 (double) and 1e-3 (float),
 * Parseval's identity to 1e-9, the Gaussian's transform to 1e-9 of the
 * closed form, and every convolution coefficient within 0.1 of an integer,
 * with 64 of them recomputed exactly as integer sums and the product's
 * value mod 1000000007 compared with the product of the factors' values.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.141592653589793

typedef struct {
	double re, im;
} cplx;

typedef struct {
	float re, im;
} cplxf;

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_rand(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

/* Uniform in [-1, 1). */
static double rand_unit(void)
{
	return (double)(next_rand() >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL) {
		printf("fft: out of memory\n");
		exit(2);
	}
	return p;
}

static int log2n;
static cplx *twiddle;   /* exp(-2 pi i k / N), k < N/2 */
static cplxf *twiddlef;

static void make_twiddles(int n)
{
	twiddle = xmalloc(sizeof(cplx) * (n / 2));
	twiddlef = xmalloc(sizeof(cplxf) * (n / 2));
	for (int k = 0; k < n / 2; k++) {
		double t = -2 * PI * k / n;
		twiddle[k].re = cos(t);
		twiddle[k].im = sin(t);
		float tf = (float)t;
		twiddlef[k].re = cosf(tf);
		twiddlef[k].im = sinf(tf);
	}
}

static unsigned bitrev(unsigned x, int bits)
{
	unsigned r = 0;
	for (int i = 0; i < bits; i++) {
		r = (r << 1) | (x & 1);
		x >>= 1;
	}
	return r;
}

/* In-place transform; inverse != 0 conjugates the twiddles and divides
   by N. */
static void fft(cplx *x, int n, int inverse)
{
	for (int i = 0; i < n; i++) {
		int j = (int)bitrev((unsigned)i, log2n);
		if (i < j) {
			cplx t = x[i];
			x[i] = x[j];
			x[j] = t;
		}
	}
	for (int len = 2; len <= n; len <<= 1) {
		int half = len / 2, step = n / len;
		for (int i = 0; i < n; i += len) {
			for (int k = 0; k < half; k++) {
				cplx w = twiddle[k * step];
				if (inverse)
					w.im = -w.im;
				cplx *p = &x[i + k], *q = &x[i + k + half];
				double tr = q->re * w.re - q->im * w.im;
				double ti = q->re * w.im + q->im * w.re;
				q->re = p->re - tr;
				q->im = p->im - ti;
				p->re += tr;
				p->im += ti;
			}
		}
	}
	if (inverse)
		for (int i = 0; i < n; i++) {
			x[i].re /= n;
			x[i].im /= n;
		}
}

static void fftf(cplxf *x, int n, int inverse)
{
	for (int i = 0; i < n; i++) {
		int j = (int)bitrev((unsigned)i, log2n);
		if (i < j) {
			cplxf t = x[i];
			x[i] = x[j];
			x[j] = t;
		}
	}
	for (int len = 2; len <= n; len <<= 1) {
		int half = len / 2, step = n / len;
		for (int i = 0; i < n; i += len) {
			for (int k = 0; k < half; k++) {
				cplxf w = twiddlef[k * step];
				if (inverse)
					w.im = -w.im;
				cplxf *p = &x[i + k], *q = &x[i + k + half];
				float tr = q->re * w.re - q->im * w.im;
				float ti = q->re * w.im + q->im * w.re;
				q->re = p->re - tr;
				q->im = p->im - ti;
				p->re += tr;
				p->im += ti;
			}
		}
	}
	if (inverse)
		for (int i = 0; i < n; i++) {
			x[i].re /= (float)n;
			x[i].im /= (float)n;
		}
}

#define MOD 1000000007ull

int main(int argc, char **argv)
{
	long nl = 65536;
	if (argc > 1)
		nl = atol(argv[1]);
	if (nl < 64 || nl > (1L << 22) || (nl & (nl - 1)) != 0) {
		printf("fft: size must be a power of two in 64..4194304\n");
		return 2;
	}
	int n = (int)nl;
	while ((1 << log2n) < n)
		log2n++;
	make_twiddles(n);
	printf("fft n=%d\n", n);
	int ok = 1;

	/* 1. Round trip and Parseval, double and float. */
	cplx *x = xmalloc(sizeof(cplx) * n), *y = xmalloc(sizeof(cplx) * n);
	cplxf *xf = xmalloc(sizeof(cplxf) * n);
	double e_time = 0;
	for (int i = 0; i < n; i++) {
		x[i].re = rand_unit();
		x[i].im = rand_unit();
		y[i] = x[i];
		xf[i].re = (float)x[i].re;
		xf[i].im = (float)x[i].im;
		e_time += x[i].re * x[i].re + x[i].im * x[i].im;
	}
	fft(y, n, 0);
	double e_freq = 0;
	for (int i = 0; i < n; i++)
		e_freq += y[i].re * y[i].re + y[i].im * y[i].im;
	e_freq /= n;
	printf("signal energy %.9e, spectrum energy / n %.9e\n", e_time, e_freq);
	printf("spectrum[1] = %.9f %+.9fi\n", y[1].re, y[1].im);
	fft(y, n, 1);
	fftf(xf, n, 0);
	printf("single precision spectrum[1] = %.4f %+.4fi\n", (double)xf[1].re, (double)xf[1].im);
	fftf(xf, n, 1);
	double err = 0, errf = 0;
	for (int i = 0; i < n; i++) {
		double d = fmax(fabs(y[i].re - x[i].re), fabs(y[i].im - x[i].im));
		if (d > err)
			err = d;
		d = fmax(fabs((double)xf[i].re - x[i].re), fabs((double)xf[i].im - x[i].im));
		if (d > errf)
			errf = d;
	}
	printf("round trip error: double %.1e, float %.1e\n", err, errf);
	if (!(err < 1e-9) || !(errf < 1e-3)) {
		printf("FAIL: round trip\n");
		ok = 0;
	}
	if (!(fabs(e_time - e_freq) < 1e-9 * e_time)) {
		printf("FAIL: Parseval\n");
		ok = 0;
	}

	/* 2. g_k = exp(-pi k^2 / N) over k = -N/2 .. N/2-1, wrapped: its
	   transform is sqrt(N) g (the Gaussian is its own transform; the
	   terms left out weigh exp(-pi N / 4), far below 1e-9 for N >= 64). */
	for (int i = 0; i < n; i++) {
		double k = i < n / 2 ? i : i - n;
		x[i].re = exp(-PI * k * k / n);
		x[i].im = 0;
	}
	fft(x, n, 0);
	double gerr = 0, sqn = sqrt((double)n);
	for (int i = 0; i < n; i++) {
		double k = i < n / 2 ? i : i - n;
		double want = sqn * exp(-PI * k * k / n);
		double d = fmax(fabs(x[i].re - want), fabs(x[i].im));
		if (d > gerr)
			gerr = d;
	}
	/* log of the peak, as a printable summary: log(sqrt(N)). */
	printf("gaussian: log peak %.9f, max error %.1e\n", log(x[0].re), gerr);
	if (!(gerr < 1e-9)) {
		printf("FAIL: Gaussian transform\n");
		ok = 0;
	}

	/* 3. Multiply two numbers of n/2 base-100 digits (least significant
	   first), by convolution. */
	int m = n / 2;
	int *da = xmalloc(sizeof(int) * m), *db = xmalloc(sizeof(int) * m);
	uint64_t va = 0, vb = 0;
	for (int i = m - 1; i >= 0; i--) {
		da[i] = (int)(next_rand() % 100);
		db[i] = (int)(next_rand() % 100);
		va = (va * 100 + (uint64_t)da[i]) % MOD;
		vb = (vb * 100 + (uint64_t)db[i]) % MOD;
	}
	for (int i = 0; i < n; i++) {
		x[i].re = i < m ? da[i] : 0;
		x[i].im = 0;
		y[i].re = i < m ? db[i] : 0;
		y[i].im = 0;
	}
	fft(x, n, 0);
	fft(y, n, 0);
	for (int i = 0; i < n; i++) {
		double re = x[i].re * y[i].re - x[i].im * y[i].im;
		double im = x[i].re * y[i].im + x[i].im * y[i].re;
		x[i].re = re;
		x[i].im = im;
	}
	fft(x, n, 1);
	int64_t *c = xmalloc(sizeof(int64_t) * (n + 1));
	double worst = 0;
	for (int i = 0; i < n; i++) {
		c[i] = llround(x[i].re);
		double d = fabs(x[i].re - (double)c[i]);
		if (d > worst)
			worst = d;
	}
	c[n] = 0;
	/* Sampled coefficients recomputed as exact sums. */
	for (int t = 0; t < 64; t++) {
		int k = (int)(((uint64_t)t * 2654435761u) % (uint64_t)(n - 1));
		int64_t s = 0;
		for (int i = 0; i <= k; i++)
			if (i < m && k - i < m)
				s += (int64_t)da[i] * db[k - i];
		if (s != c[k]) {
			printf("FAIL: coefficient %d: %lld, want %lld\n", k, (long long)c[k], (long long)s);
			ok = 0;
			break;
		}
	}
	/* Carry into base-100 digits. */
	int64_t carry = 0;
	for (int i = 0; i <= n; i++) {
		int64_t v = c[i] + carry;
		c[i] = v % 100;
		carry = v / 100;
	}
	int top = n;
	while (top > 0 && c[top] == 0)
		top--;
	uint64_t vc = 0, hash = 1469598103934665603ull;
	for (int i = top; i >= 0; i--) {
		vc = (vc * 100 + (uint64_t)c[i]) % MOD;
		hash = (hash ^ (uint64_t)c[i]) * 1099511628211ull;
	}
	printf("product: %d digits, leading %lld%02lld%02lld, hash %016llx\n",
	       2 * top + (c[top] >= 10 ? 2 : 1), (long long)c[top],
	       (long long)c[top - 1], (long long)c[top - 2], (unsigned long long)hash);
	printf("convolution: farthest from an integer %.1e\n", worst);
	if (!(worst < 0.1)) {
		printf("FAIL: convolution not near integers\n");
		ok = 0;
	}
	if (vc != va * vb % MOD) {
		printf("FAIL: product mod p\n");
		ok = 0;
	}
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
