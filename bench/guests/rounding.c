/* rounding: IEEE 754 rounding modes and exception flags, through <fenv.h>.
 *
 * Exercises the floating-point environment: fesetround/fegetround through
 * the four C rounding modes (on RISC-V the dynamic rounding mode, frm),
 * operations whose result depends on the mode (division, sqrt, fma,
 * conversions between double, float and integers, rint and lrint), and
 * fetestexcept/feclearexcept on the accrued flags (fflags) after
 * operations that raise each of them, signalling and quiet comparisons
 * included.  Then a loop that switches modes on every iteration: interval
 * arithmetic, bounds on sum 1/k^2 (and so on pi) with the lower bound
 * summed rounding downward and the upper bound upward; and the harmonic
 * series summed in each mode, in double and in float (whose sum stalls
 * at 15.403683 rounding to nearest).  Results are printed in hexadecimal
 * (%a), exact, and in decimal with the mode back at to-nearest.
 *
 * Without hardware floating point (the soft-float RV64IM build, picolibc),
 * only rounding to nearest exists and no flags are kept: the program says
 * so and runs what remains.
 *
 * Size argument: N, the number of terms of the sums (default 2200000;
 * the work grows as N).  Small size: 12000 (~0.02 s under qemu-riscv64).
 *
 * Self-check: every mode set reads back with fegetround; the per-mode
 * results against IEEE semantics (downward <= to nearest <= upward,
 * toward zero = downward for positive and upward for negative results,
 * exact cases equal in every mode, rint and lrint of halfway cases); each
 * operation raises exactly the expected flags; the interval contains pi;
 * the harmonic sums are ordered by mode and the Kahan sum to nearest is
 * within 1e-9 of log N + gamma + 1/2N - 1/12N^2.
 */
/* The program changes the rounding mode.  GCC does not implement
   #pragma STDC FENV_ACCESS ON; -frounding-math is its equivalent, and
   without it GCC may expand rint() inline as if rounding to nearest (as
   it does on x86-64).  The pragma keeps the build line the standard one. */
#pragma GCC optimize("rounding-math")

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Operands are read from volatile variables, and results written to
   them, so that the compiler neither folds an operation at compile time
   (in the default mode) nor moves it across a change of mode. */
static volatile double v_one = 1, v_two = 2, v_three = 3, v_m_one = -1;
static volatile double v_zero = 0, v_tenth = 0.1, v_ten = 10;
static volatile double v_half_odd = 2.5, v_m_half_odd = -2.5, v_big = 1e300;
static volatile double v_max = DBL_MAX, v_min = DBL_MIN, v_huge = 1e30;
static volatile double v_tiny = 1e-300;
static volatile float vf_one = 1, vf_three = 3, vf_two = 2, vf_max = FLT_MAX;
static volatile int64_t v_2p53p1 = (INT64_C(1) << 53) + 1;
static volatile double sink;
static volatile long sink_l;
static volatile int sink_i;

struct mode {
	int mode;
	const char *name;
};

/* The order matters to the checks: nearest, upward, downward, toward
   zero.  Without the modes there is one entry, and nothing to set. */
#if defined(FE_TONEAREST) && defined(FE_UPWARD) && defined(FE_DOWNWARD) && defined(FE_TOWARDZERO)
#define HAVE_MODES 1
static const struct mode modes[] = {
	{ FE_TONEAREST, "to nearest" },
	{ FE_UPWARD, "upward" },
	{ FE_DOWNWARD, "downward" },
	{ FE_TOWARDZERO, "toward zero" },
};
#else
#define HAVE_MODES 0
static const struct mode modes[] = { { 0, "to nearest" } };
#endif
#define NMODES ((int)(sizeof(modes) / sizeof(modes[0])))
#define NEAREST 0
#define UPWARD (HAVE_MODES ? 1 : 0)
#define DOWNWARD (HAVE_MODES ? 2 : 0)

/* Sets the rounding mode modes[m]. */
static void use_mode(int m)
{
#if HAVE_MODES
	fesetround(modes[m].mode);
#else
	(void)m;
#endif
}

/* Sets the rounding mode modes[m]; reports whether it reads back. */
static int set_mode(int m)
{
#if HAVE_MODES
	return fesetround(modes[m].mode) == 0 && fegetround() == modes[m].mode;
#else
	(void)m;
	return 1;
#endif
}

static int ok = 1;

static void fail(const char *what)
{
	printf("FAIL: %s\n", what);
	ok = 0;
}

/* 1. Operations whose result depends on the rounding mode. */
enum { OP_THIRD, OP_M_THIRD, OP_SQRT2, OP_FMA, OP_FMA_EXACT, OP_THIRD_F,
       OP_TO_FLOAT, OP_FROM_INT, OP_RINT, OP_M_RINT, OP_EXACT, NOPS };
static const char *op_names[NOPS] = {
	"1/3", "-1/3", "sqrt(2)", "fma(0.1,0.1,1)", "fma(0.1,10,-1)",
	"1/3 (float)", "(float)0.1", "(double)(2^53+1)", "rint(2.5)",
	"rint(-2.5)", "2*3",
};

static void ops(double r[NOPS], long *lr)
{
	r[OP_THIRD] = sink = v_one / v_three;
	r[OP_M_THIRD] = sink = v_m_one / v_three;
	r[OP_SQRT2] = sink = sqrt(v_two);
	r[OP_FMA] = sink = fma(v_tenth, v_tenth, v_one);
	/* 0.1 * 10 is 1 + 2^-54 exactly: one rounding gives 2^-54 in
	   every mode, where a multiply and an add would give 0. */
	r[OP_FMA_EXACT] = sink = fma(v_tenth, v_ten, v_m_one);
	r[OP_THIRD_F] = sink = (double)(vf_one / vf_three);
	r[OP_TO_FLOAT] = sink = (double)(float)v_tenth;
	r[OP_FROM_INT] = sink = (double)v_2p53p1;
	r[OP_RINT] = sink = rint(v_half_odd);
	r[OP_M_RINT] = sink = rint(v_m_half_odd);
	r[OP_EXACT] = sink = v_two * v_three;
	*lr = sink_l = lrint(v_m_half_odd);
}

static void rounding_table(void)
{
	double r[4][NOPS];
	long lr[4];
	for (int m = 0; m < NMODES; m++) {
		if (!set_mode(m))
			fail("fesetround");
		ops(r[m], &lr[m]);
	}
	set_mode(NEAREST);
	printf("rounding modes: %d of 4\n", NMODES);
	printf("  %-17s", "mode");
	/* Columns 22 wide, the last one unpadded. */
	for (int m = 0; m < NMODES; m++)
		printf(" %-*s", m + 1 < NMODES ? 22 : 0, modes[m].name);
	printf("\n");
	for (int i = 0; i < NOPS; i++) {
		printf("  %-17s", op_names[i]);
		for (int m = 0; m < NMODES; m++)
			printf(" %-*a", m + 1 < NMODES ? 22 : 0, r[m][i]);
		printf("\n");
	}
	printf("  %-17s", "lrint(-2.5)");
	for (int m = 0; m < NMODES; m++)
		printf(" %-*ld", m + 1 < NMODES ? 22 : 0, lr[m]);
	printf("\n");
	if (r[0][OP_RINT] != 2 || r[0][OP_M_RINT] != -2 || lr[0] != -2)
		fail("rint/lrint of halfway cases to nearest");
	if (!HAVE_MODES)
		return;
	/* Modes 0..3: nearest, upward, downward, toward zero. */
	for (int i = 0; i < NOPS; i++) {
		double n = r[0][i], u = r[1][i], d = r[2][i], z = r[3][i];
		int exact = i == OP_EXACT || i == OP_FMA_EXACT;
		if (!(d <= n && n <= u) || (exact && !(d == u)) || (!exact && !(d < u)) ||
		    z != (n >= 0 ? d : u))
			fail(op_names[i]);
	}
	if (r[0][OP_FMA_EXACT] != 0x1p-54)
		fail("fma is not fused");
	if (r[1][OP_RINT] != 3 || r[2][OP_RINT] != 2 || r[1][OP_M_RINT] != -2 ||
	    r[2][OP_M_RINT] != -3 || lr[1] != -2 || lr[2] != -3 || lr[3] != -2)
		fail("rint/lrint of halfway cases");
}

/* 2. Exception flags. */
#if defined(FE_INVALID) && defined(FE_DIVBYZERO) && defined(FE_OVERFLOW) && \
	defined(FE_UNDERFLOW) && defined(FE_INEXACT)
static const struct {
	int flag;
	const char *name;
} flags[] = {
	{ FE_INVALID, "invalid" },   { FE_DIVBYZERO, "divbyzero" },
	{ FE_OVERFLOW, "overflow" }, { FE_UNDERFLOW, "underflow" },
	{ FE_INEXACT, "inexact" },
};

static void flag_names(int f, char *buf)
{
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (f & flags[i].flag) {
			if (buf[0])
				strcat(buf, " ");
			strcat(buf, flags[i].name);
		}
	if (!buf[0])
		strcpy(buf, "none");
}

#define X_ (FE_INEXACT)
#define O_ (FE_OVERFLOW | FE_INEXACT)
#define U_ (FE_UNDERFLOW | FE_INEXACT)

static void flag_table(void)
{
	static const struct {
		const char *what;
		int want;
	} cases[] = {
		{ "2*3", 0 },
		{ "1/3", X_ },
		{ "1/0", FE_DIVBYZERO },
		{ "0/0", FE_INVALID },
		{ "DBL_MAX*2", O_ },
		{ "DBL_MIN/3", U_ },
		{ "DBL_MIN/4 (exact)", 0 },
		{ "sqrt(-1)", FE_INVALID },
		{ "inf-inf", FE_INVALID },
		{ "FLT_MAX*2 (float)", O_ },
		{ "(float)1e300", O_ },
		{ "(float)DBL_MIN", U_ },
		{ "lrint(1e30)", FE_INVALID },
		{ "1+1e-300", X_ },
		{ "NaN < 1", FE_INVALID },
		{ "isless(NaN, 1)", 0 },
		{ "NaN == NaN", 0 },
	};
	double inf = v_one / v_zero, nan;
	feclearexcept(FE_ALL_EXCEPT);
	nan = v_zero / v_zero;
	printf("exception flags:\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		volatile double vinf = inf, vnan = nan;
		feclearexcept(FE_ALL_EXCEPT);
		switch (i) {
		case 0: sink = v_two * v_three; break;
		case 1: sink = v_one / v_three; break;
		case 2: sink = v_one / v_zero; break;
		case 3: sink = v_zero / v_zero; break;
		case 4: sink = v_max * v_two; break;
		case 5: sink = v_min / v_three; break;
		case 6: sink = v_min / 4; break;
		case 7: sink = sqrt(v_m_one); break;
		case 8: sink = vinf - vinf; break;
		case 9: sink = vf_max * vf_two; break;
		case 10: sink = (float)v_big; break;
		case 11: sink = (float)v_min; break;
		case 12: sink_l = lrint(v_huge); break;
		case 13: sink = v_one + v_tiny; break;
		case 14: sink_i = vnan < v_one; break;
		case 15: sink_i = isless(vnan, v_one); break;
		case 16: sink_i = vnan == vnan; break;
		}
		int got = fetestexcept(FE_ALL_EXCEPT);
		char buf[64];
		flag_names(got, buf);
		printf("  %-19s %s\n", cases[i].what, buf);
		if (got != cases[i].want)
			fail(cases[i].what);
	}
	feclearexcept(FE_ALL_EXCEPT);
}
#else
static void flag_table(void)
{
	printf("exception flags: not available\n");
}
#endif

/* 3. Interval arithmetic with a change of mode in every iteration:
   sum_{k<=n} 1/k^2 + 1/(n+1) < pi^2/6 < sum_{k<=n} 1/k^2 + 1/n.  k*k is
   exact (n <= 5e7 < 2^26.5), so rounding the divisions and the sums down
   gives a lower bound, up an upper one.  The bounds live in volatile
   variables and k is read from one, so that every operation happens
   between the two changes of mode that surround it. */
static volatile double v_lo, v_hi, v_k;

static void pi_interval(long n)
{
	v_lo = v_hi = 0;
	for (long k = n; k >= 1; k--) {
		v_k = (double)k;
		use_mode(DOWNWARD);
		double kd = v_k;
		v_lo = v_lo + 1 / (kd * kd);
		use_mode(UPWARD);
		kd = v_k;
		v_hi = v_hi + 1 / (kd * kd);
	}
	use_mode(DOWNWARD);
	double plo = sqrt(6 * (v_lo + 1 / ((double)n + 1)));
	v_lo = plo;
	use_mode(UPWARD);
	double phi = sqrt(6 * (v_hi + 1 / (double)n));
	v_hi = phi;
	use_mode(NEAREST);
	plo = v_lo;
	phi = v_hi;
	printf("pi in [%.14f, %.14f] (%a, %a)\n", plo, phi, plo, phi);
	/* Rounding to nearest (no directed modes), the bounds are not
	   rigorous: allow for n rounding errors of the sums. */
	double slack = HAVE_MODES ? 0 : n * 4e-16;
	if (!(plo - slack <= 3.141592653589793 && 3.141592653589793 <= phi + slack) ||
	    !(phi - plo < 10.0 / n))
		fail("pi interval");
}

/* 4. The harmonic series in each mode, in double (plain and Kahan) and
   in float.  Each sum starts from a volatile zero and ends in a volatile
   variable, so that it is computed after its mode is set and before the
   next. */
static volatile double v_sd[4], v_sk[4];
static volatile float v_sf[4];

static void harmonic(long n)
{
	for (int m = 0; m < NMODES; m++) {
		use_mode(m);
		double s = v_zero, ks = v_zero, c = v_zero;
		float f = (float)v_zero;
		for (long k = 1; k <= n; k++) {
			double t = 1 / (double)k;
			s += t;
			double y = t - c;
			double z = ks + y;
			c = (z - ks) - y;
			ks = z;
			f += 1 / (float)k;
		}
		v_sd[m] = s;
		v_sk[m] = ks;
		v_sf[m] = f;
	}
	use_mode(NEAREST);
	double sd[4], sk[4];
	float sf[4];
	printf("harmonic sums of %ld terms:\n", n);
	for (int m = 0; m < NMODES; m++) {
		sd[m] = v_sd[m];
		sk[m] = v_sk[m];
		sf[m] = v_sf[m];
		printf("  %-11s double %.12f kahan %.12f float %.6f (%a)\n", modes[m].name,
		       sd[m], sk[m], (double)sf[m], (double)sf[m]);
	}
	double nd = (double)n;
	double want = log(nd) + 0.57721566490153286 + 1 / (2 * nd) - 1 / (12 * nd * nd);
	if (!(fabs(sk[0] - want) < 1e-9))
		fail("harmonic sum to nearest");
	if (n >= 2097152 && sf[0] != 15.403683f)
		fail("float harmonic sum does not stall at 15.403683");
	if (HAVE_MODES && !(sd[2] <= sd[0] && sd[0] <= sd[1] && sd[3] == sd[2] &&
			    sf[2] <= sf[0] && sf[0] <= sf[1] && sf[3] == sf[2]))
		fail("harmonic sums out of order");
}

int main(int argc, char **argv)
{
	long n = 2200000;
	if (argc > 1)
		n = atol(argv[1]);
	if (n < 100 || n > 50000000) {
		printf("rounding: size must be 100..50000000\n");
		return 2;
	}
	printf("rounding n=%ld\n", n);
	rounding_table();
	flag_table();
	pi_interval(n);
	harmonic(n);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
