/* nbody: gravitational n-body simulation of the outer solar system.
 *
 * Exercises double-precision arithmetic in a tight O(n^2) loop (mul, add,
 * div, sqrt; fused multiply-add where the compiler contracts a*b+c), libm
 * (sin, cos, sqrt, pow for the initial orbits) and printf of doubles.  The
 * bodies are the Sun, the four giant planets (the classic benchmark's
 * initial state) and 20 small bodies started on circular orbits from their
 * orbital elements, all of them attracting each other.  The integrator is
 * the leapfrog (kick-drift-kick), in years and AU (G * Msun = 4 pi^2).
 * A second run of the same system in single precision (float) follows.
 *
 * Size argument: STEPS, time steps of 0.01 year (default 2500; the
 * work grows as STEPS).  Small size: 8 (~0.02 s under qemu-riscv64).
 *
 * Self-check: the leapfrog is time-reversible: after STEPS steps the
 * velocities are negated and the system is run STEPS steps more, which must
 * bring every body back to its start (within 1e-6 AU); the total energy
 * must be conserved to 1e-4 (relative), the angular momentum to 1e-10, the
 * total momentum must stay zero, and the single-precision run must end with
 * the energy of the double-precision one to 1e-3.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.141592653589793
#define SOLAR_MASS (4 * PI * PI)
#define DAYS_PER_YEAR 365.24
#define NPLANETS 5
#define NSMALL 20
#define N (NPLANETS + NSMALL)
#define DT 0.01

struct body {
	double x[3], v[3], a[3], m;
};

struct fbody {
	float x[3], v[3], a[3], m;
};

static struct body bodies[N], start[N];
static struct fbody fbodies[N];

/* The Sun, Jupiter, Saturn, Uranus and Neptune: positions in AU,
   velocities in AU/day, masses in solar masses. */
static const double planets[NPLANETS][7] = {
	{ 0, 0, 0, 0, 0, 0, 1 },
	{ 4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
	  1.66007664274403694e-03, 7.69901118419740425e-03, -6.90460016972063023e-05,
	  9.54791938424326609e-04 },
	{ 8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
	  -2.76742510726862411e-03, 4.99852801234917238e-03, 2.30417297573763929e-05,
	  2.85885980666130812e-04 },
	{ 1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
	  2.96460137564761618e-03, 2.37847173959480950e-03, -2.96589568540237556e-05,
	  4.36624404335156298e-05 },
	{ 1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
	  2.68067772490389322e-03, 1.62824170038242295e-03, -9.51592254519715870e-05,
	  5.15138902046611451e-05 },
};

static void init(void)
{
	for (int i = 0; i < NPLANETS; i++) {
		for (int k = 0; k < 3; k++) {
			bodies[i].x[k] = planets[i][k];
			bodies[i].v[k] = planets[i][3 + k] * DAYS_PER_YEAR;
		}
		bodies[i].m = planets[i][6] * SOLAR_MASS;
	}
	/* Small bodies on circular orbits around the Sun, from orbital
	   elements: semi-major axis a, inclination inc, longitude of the
	   node om, and phase u.  Circular speed sqrt(GM/a) = 2 pi a / T with
	   Kepler's third law T = a^1.5 years. */
	for (int j = 0; j < NSMALL; j++) {
		struct body *b = &bodies[NPLANETS + j];
		double a = 2.2 + 1.37 * j;
		double inc = 0.02 * (j % 5);
		double om = 0.7 * j;
		double u = 2.39996322972865332 * j; /* golden angle */
		double period = pow(a, 1.5);
		double speed = 2 * PI * a / period;
		double cu = cos(u), su = sin(u), co = cos(om), so = sin(om);
		double ci = cos(inc), si = sin(inc);
		/* position: rotate (a cos u, a sin u, 0) by inc about x, then
		   by om about z; the velocity is the same rotation of
		   (-speed sin u, speed cos u, 0). */
		double px = a * cu, py = a * su * ci, pz = a * su * si;
		double vx = -speed * su, vy = speed * cu * ci, vz = speed * cu * si;
		b->x[0] = co * px - so * py;
		b->x[1] = so * px + co * py;
		b->x[2] = pz;
		b->v[0] = co * vx - so * vy;
		b->v[1] = so * vx + co * vy;
		b->v[2] = vz;
		b->m = SOLAR_MASS * 1e-7 * (1 + j % 3);
	}
	/* Put the centre of mass at rest: the Sun takes the momentum. */
	double p[3] = { 0, 0, 0 };
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 3; k++)
			p[k] += bodies[i].v[k] * bodies[i].m;
	for (int k = 0; k < 3; k++)
		bodies[0].v[k] -= p[k] / bodies[0].m;
}

static void accelerations(void)
{
	for (int i = 0; i < N; i++)
		bodies[i].a[0] = bodies[i].a[1] = bodies[i].a[2] = 0;
	for (int i = 0; i < N; i++) {
		struct body *bi = &bodies[i];
		for (int j = i + 1; j < N; j++) {
			struct body *bj = &bodies[j];
			double dx = bi->x[0] - bj->x[0];
			double dy = bi->x[1] - bj->x[1];
			double dz = bi->x[2] - bj->x[2];
			double d2 = dx * dx + dy * dy + dz * dz;
			double mag = 1.0 / (d2 * sqrt(d2));
			double mi = bi->m * mag, mj = bj->m * mag;
			bi->a[0] -= dx * mj;
			bi->a[1] -= dy * mj;
			bi->a[2] -= dz * mj;
			bj->a[0] += dx * mi;
			bj->a[1] += dy * mi;
			bj->a[2] += dz * mi;
		}
	}
}

/* Leapfrog, kick-drift-kick; the accelerations must be current. */
static void advance(int steps)
{
	for (int s = 0; s < steps; s++) {
		for (int i = 0; i < N; i++)
			for (int k = 0; k < 3; k++) {
				bodies[i].v[k] += 0.5 * DT * bodies[i].a[k];
				bodies[i].x[k] += DT * bodies[i].v[k];
			}
		accelerations();
		for (int i = 0; i < N; i++)
			for (int k = 0; k < 3; k++)
				bodies[i].v[k] += 0.5 * DT * bodies[i].a[k];
	}
}

static double energy(void)
{
	double e = 0;
	for (int i = 0; i < N; i++) {
		const struct body *b = &bodies[i];
		e += 0.5 * b->m * (b->v[0] * b->v[0] + b->v[1] * b->v[1] + b->v[2] * b->v[2]);
		for (int j = i + 1; j < N; j++) {
			double dx = b->x[0] - bodies[j].x[0];
			double dy = b->x[1] - bodies[j].x[1];
			double dz = b->x[2] - bodies[j].x[2];
			e -= b->m * bodies[j].m / sqrt(dx * dx + dy * dy + dz * dz);
		}
	}
	return e;
}

/* Total angular momentum about the origin, its z component, and the
   largest component of the total momentum. */
static double angular_z(void)
{
	double l = 0;
	for (int i = 0; i < N; i++)
		l += bodies[i].m * (bodies[i].x[0] * bodies[i].v[1] - bodies[i].x[1] * bodies[i].v[0]);
	return l;
}

static double momentum(void)
{
	double worst = 0;
	for (int k = 0; k < 3; k++) {
		double p = 0;
		for (int i = 0; i < N; i++)
			p += bodies[i].m * bodies[i].v[k];
		if (fabs(p) > worst)
			worst = fabs(p);
	}
	return worst;
}

/* The same integrator in single precision. */
static void faccelerations(void)
{
	for (int i = 0; i < N; i++)
		fbodies[i].a[0] = fbodies[i].a[1] = fbodies[i].a[2] = 0;
	for (int i = 0; i < N; i++) {
		struct fbody *bi = &fbodies[i];
		for (int j = i + 1; j < N; j++) {
			struct fbody *bj = &fbodies[j];
			float dx = bi->x[0] - bj->x[0];
			float dy = bi->x[1] - bj->x[1];
			float dz = bi->x[2] - bj->x[2];
			float d2 = dx * dx + dy * dy + dz * dz;
			float mag = 1.0f / (d2 * sqrtf(d2));
			float mi = bi->m * mag, mj = bj->m * mag;
			bi->a[0] -= dx * mj;
			bi->a[1] -= dy * mj;
			bi->a[2] -= dz * mj;
			bj->a[0] += dx * mi;
			bj->a[1] += dy * mi;
			bj->a[2] += dz * mi;
		}
	}
}

static void fadvance(int steps)
{
	const float dt = (float)DT;
	for (int s = 0; s < steps; s++) {
		for (int i = 0; i < N; i++)
			for (int k = 0; k < 3; k++) {
				fbodies[i].v[k] += 0.5f * dt * fbodies[i].a[k];
				fbodies[i].x[k] += dt * fbodies[i].v[k];
			}
		faccelerations();
		for (int i = 0; i < N; i++)
			for (int k = 0; k < 3; k++)
				fbodies[i].v[k] += 0.5f * dt * fbodies[i].a[k];
	}
}

/* The energy of the single-precision system, summed in double. */
static double fenergy(void)
{
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 3; k++) {
			bodies[i].x[k] = fbodies[i].x[k];
			bodies[i].v[k] = fbodies[i].v[k];
		}
	return energy();
}

int main(int argc, char **argv)
{
	long steps = 2500;
	if (argc > 1)
		steps = atol(argv[1]);
	if (steps < 1 || steps > 100000000) {
		printf("nbody: steps must be 1..100000000\n");
		return 2;
	}

	init();
	for (int i = 0; i < N; i++)
		start[i] = bodies[i];
	for (int i = 0; i < N; i++) {
		for (int k = 0; k < 3; k++) {
			fbodies[i].x[k] = (float)bodies[i].x[k];
			fbodies[i].v[k] = (float)bodies[i].v[k];
		}
		fbodies[i].m = (float)bodies[i].m;
	}

	double e0 = energy(), l0 = angular_z();
	printf("nbody bodies=%d steps=%ld dt=%.2f years\n", N, steps, DT);
	printf("energy before: %.9f\n", e0);
	accelerations();
	advance((int)steps);
	double e1 = energy(), l1 = angular_z(), p1 = momentum();
	printf("energy after:  %.9f\n", e1);
	printf("angular momentum: %.9f -> %.9f\n", l0, l1);
	printf("jupiter at (%.6f, %.6f, %.6f) AU\n", bodies[1].x[0], bodies[1].x[1], bodies[1].x[2]);

	/* Back in time: negate the velocities and run again. */
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 3; k++)
			bodies[i].v[k] = -bodies[i].v[k];
	advance((int)steps);
	double back = 0;
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 3; k++) {
			double d = fabs(bodies[i].x[k] - start[i].x[k]);
			if (d > back)
				back = d;
		}
	printf("reversed run returns within %.1e AU\n", back);

	faccelerations();
	fadvance((int)steps);
	double ef = fenergy();
	printf("single precision energy after: %.6f\n", ef);

	int ok = 1;
	if (!(back < 1e-6)) {
		printf("FAIL: the reversed run ends %g AU from the start\n", back);
		ok = 0;
	}
	if (!(fabs(e1 - e0) < 1e-4 * fabs(e0))) {
		printf("FAIL: energy not conserved\n");
		ok = 0;
	}
	if (!(fabs(l1 - l0) < 1e-10 * fabs(l0))) {
		printf("FAIL: angular momentum not conserved\n");
		ok = 0;
	}
	if (!(p1 < 1e-12)) {
		printf("FAIL: total momentum %g\n", p1);
		ok = 0;
	}
	if (!(fabs(ef - e1) < 1e-3 * fabs(e1))) {
		printf("FAIL: single-precision energy %g, double %g\n", ef, e1);
		ok = 0;
	}
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
