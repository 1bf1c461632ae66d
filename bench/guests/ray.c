/* ray: a small recursive ray tracer.
 *
 * Exercises double-precision vector arithmetic in short functions called
 * per ray (dot products, sqrt, divisions), data-dependent branches (which
 * object a ray hits first, whether a point is in shadow), recursion
 * (mirror reflections up to depth 4), libm (pow for specular highlights
 * and gamma, exp for fog and the sky, tan for the field of view, floor for
 * the checkerboard), and a single-precision pass over the primary rays.
 *
 * The scene: a checkerboard floor and five spheres (one a mirror), two
 * point lights with shadows, Phong shading, fog.  The image (W x 3W/4
 * pixels) is summarised by its mean colour, a hash of its 8-bit pixels,
 * the number of pixels each object covers and a character-art preview.
 *
 * Size argument: W, the image width in pixels (default 280; the work
 * grows as W^2).  Small size: 20 (~0.02 s under qemu-riscv64).
 *
 * Self-check: an independent pass casts every third primary ray again in
 * single precision (float), intersecting spheres by the geometric method
 * instead of the quadratic formula; at least 99% of those rays must hit
 * the same object, at a distance within 1e-3 (relative); every object must
 * be visible, and the mean brightness must be between 0.1 and 0.9.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
	double x, y, z;
} vec;

static vec v3(double x, double y, double z)
{
	vec v = { x, y, z };
	return v;
}
static vec add(vec a, vec b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static vec sub(vec a, vec b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static vec scale(vec a, double s) { return v3(a.x * s, a.y * s, a.z * s); }
static vec mul(vec a, vec b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
static double dot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec norm(vec a) { return scale(a, 1 / sqrt(dot(a, a))); }

struct sphere {
	vec c;
	double r;
	vec color;
	double reflect, shine;
};

#define NSPHERES 5
#define FLOOR NSPHERES /* object id of the floor */
#define NOBJECTS (NSPHERES + 1)
#define SKY (-1)

static const struct sphere spheres[NSPHERES] = {
	{ { 0.0, 1.0, 3.0 }, 1.0, { 0.9, 0.9, 0.95 }, 0.8, 80 },
	{ { -2.2, 0.7, 4.0 }, 0.7, { 0.9, 0.2, 0.15 }, 0.1, 20 },
	{ { 2.0, 0.5, 2.5 }, 0.5, { 0.2, 0.8, 0.3 }, 0.25, 60 },
	{ { 0.8, 0.3, 1.2 }, 0.3, { 0.2, 0.3, 0.9 }, 0.15, 40 },
	{ { -0.9, 0.25, 1.5 }, 0.25, { 0.95, 0.8, 0.2 }, 0.05, 10 },
};
static const char *object_names[NOBJECTS] = { "mirror", "red", "green", "blue", "yellow", "floor" };

struct light {
	vec p, color;
};

static const struct light lights[2] = {
	{ { -4.0, 6.0, -2.0 }, { 0.8, 0.8, 0.75 } },
	{ { 3.0, 4.0, 0.5 }, { 0.35, 0.35, 0.45 } },
};

#define EPS 1e-9

/* Nearest hit of the ray o + t d (d unit) with t > EPS: the object id
   (SKY for none) and t. */
static int intersect(vec o, vec d, double *tmin)
{
	int hit = SKY;
	double best = INFINITY;
	for (int i = 0; i < NSPHERES; i++) {
		/* |o + t d - c|^2 = r^2: t^2 + 2 b t + c = 0 */
		vec oc = sub(o, spheres[i].c);
		double b = dot(oc, d);
		double c = dot(oc, oc) - spheres[i].r * spheres[i].r;
		double disc = b * b - c;
		if (disc < 0)
			continue;
		double s = sqrt(disc);
		double t = -b - s;
		if (t <= EPS)
			t = -b + s;
		if (t > EPS && t < best) {
			best = t;
			hit = i;
		}
	}
	if (d.y < 0) {
		double t = -o.y / d.y;
		if (t > EPS && t < best) {
			best = t;
			hit = FLOOR;
		}
	}
	*tmin = best;
	return hit;
}

/* Dark at the zenith, brighter towards the horizon. */
static const vec horizon = { 0.27, 0.33, 0.53 };

static vec sky(vec d)
{
	double h = d.y > 0 ? d.y : 0;
	return add(v3(0.02, 0.03, 0.08), scale(sub(horizon, v3(0.02, 0.03, 0.08)), exp(-4 * h)));
}

static vec trace(vec o, vec d, int depth)
{
	double t;
	int id = intersect(o, d, &t);
	if (id == SKY)
		return sky(d);
	vec p = add(o, scale(d, t)), n, color;
	double reflect, shine;
	if (id == FLOOR) {
		n = v3(0, 1, 0);
		int check = ((int)floor(p.x) + (int)floor(p.z)) & 1;
		color = check ? v3(0.85, 0.85, 0.8) : v3(0.15, 0.15, 0.2);
		reflect = 0.2;
		shine = 30;
	} else {
		n = scale(sub(p, spheres[id].c), 1 / spheres[id].r);
		color = spheres[id].color;
		reflect = spheres[id].reflect;
		shine = spheres[id].shine;
	}
	vec result = scale(color, 0.08); /* ambient */
	for (int l = 0; l < 2; l++) {
		vec tol = sub(lights[l].p, p);
		double dist = sqrt(dot(tol, tol));
		vec ld = scale(tol, 1 / dist);
		double diff = dot(n, ld);
		if (diff <= 0)
			continue;
		double ts;
		int blocker = intersect(p, ld, &ts);
		if (blocker != SKY && ts < dist)
			continue; /* in shadow */
		result = add(result, scale(mul(color, lights[l].color), diff));
		/* Phong: the reflected light direction against the view. */
		vec r = sub(scale(n, 2 * diff), ld);
		double spec = -dot(r, d);
		if (spec > 0)
			result = add(result, scale(lights[l].color, pow(spec, shine)));
	}
	if (reflect > 0 && depth < 4) {
		vec rd = norm(sub(d, scale(n, 2 * dot(d, n))));
		vec rc = trace(p, rd, depth + 1);
		result = add(scale(result, 1 - reflect), scale(rc, reflect));
	}
	/* Fog: fade to the horizon colour with distance. */
	double f = exp(-0.03 * t);
	return add(scale(result, f), scale(horizon, 1 - f));
}

/* The camera: at eye, looking along +z tilted down, 60 degrees wide. */
static const vec eye = { 0.0, 1.5, -1.8 };

static vec primary(int x, int y, int w, int h)
{
	double half = tan(30 * 3.141592653589793 / 180);
	double u = ((x + 0.5) / w * 2 - 1) * half;
	double v = (1 - (y + 0.5) / h * 2) * half * h / w;
	return norm(v3(u, v - 0.22, 1));
}

static uint8_t to_byte(double c)
{
	if (c <= 0)
		return 0;
	if (c >= 1)
		return 255;
	return (uint8_t)(pow(c, 1 / 2.2) * 255 + 0.5);
}

/* The independent pass: primary rays in float, spheres by the geometric
   method (project the centre on the ray, then Pythagoras). */
static int intersect_f(int x, int y, int w, int h, float *tmin)
{
	float half = tanf(30 * 3.14159265f / 180);
	float u = ((x + 0.5f) / w * 2 - 1) * half;
	float v = (1 - (y + 0.5f) / h * 2) * half * h / w - 0.22f;
	float len = sqrtf(u * u + v * v + 1);
	float dx = u / len, dy = v / len, dz = 1 / len;
	float ox = (float)eye.x, oy = (float)eye.y, oz = (float)eye.z;
	int hit = SKY;
	float best = INFINITY;
	for (int i = 0; i < NSPHERES; i++) {
		float lx = (float)spheres[i].c.x - ox, ly = (float)spheres[i].c.y - oy;
		float lz = (float)spheres[i].c.z - oz, r = (float)spheres[i].r;
		float tca = lx * dx + ly * dy + lz * dz;
		if (tca < 0)
			continue;
		float d2 = lx * lx + ly * ly + lz * lz - tca * tca;
		if (d2 > r * r)
			continue;
		float t = tca - sqrtf(r * r - d2);
		if (t < best) {
			best = t;
			hit = i;
		}
	}
	if (dy < 0) {
		float t = -oy / dy;
		if (t < best) {
			best = t;
			hit = FLOOR;
		}
	}
	*tmin = best;
	return hit;
}

int main(int argc, char **argv)
{
	int w = 280;
	if (argc > 1)
		w = atoi(argv[1]);
	if (w < 16 || w > 8000) {
		printf("ray: width must be 16..8000\n");
		return 2;
	}
	int h = w * 3 / 4;
	uint8_t *img = malloc((size_t)w * h * 3);
	signed char *ids = malloc((size_t)w * h);
	if (img == NULL || ids == NULL) {
		printf("ray: out of memory\n");
		return 2;
	}

	long count[NOBJECTS + 1] = { 0 };
	double sum[3] = { 0, 0, 0 };
	uint64_t hash = 1469598103934665603ull;
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			vec d = primary(x, y, w, h);
			double t;
			int id = intersect(eye, d, &t);
			ids[(size_t)y * w + x] = (signed char)id;
			count[id == SKY ? NOBJECTS : id]++;
			vec c = trace(eye, d, 0);
			uint8_t *px = img + ((size_t)y * w + x) * 3;
			px[0] = to_byte(c.x);
			px[1] = to_byte(c.y);
			px[2] = to_byte(c.z);
			for (int k = 0; k < 3; k++) {
				sum[k] += px[k] / 255.0;
				hash = (hash ^ px[k]) * 1099511628211ull;
			}
		}
	double npix = (double)w * h;
	printf("ray %dx%d\n", w, h);
	printf("mean colour %.6f %.6f %.6f, hash %016llx\n", sum[0] / npix, sum[1] / npix,
	       sum[2] / npix, (unsigned long long)hash);
	printf("pixels:");
	for (int i = 0; i < NOBJECTS; i++)
		printf(" %s %ld", object_names[i], count[i]);
	printf(" sky %ld\n", count[NOBJECTS]);

	/* Character art, 48 x 18, darkest to brightest. */
	static const char ramp[] = " .:-=+*#%@";
	for (int r = 0; r < 18; r++) {
		char line[49];
		for (int c = 0; c < 48; c++) {
			const uint8_t *px = img + ((size_t)(r * h / 18) * w + (size_t)(c * w / 48)) * 3;
			int lum = (px[0] * 3 + px[1] * 6 + px[2]) / 10;
			line[c] = ramp[lum * 10 / 256];
		}
		line[48] = 0;
		printf("|%s|\n", line);
	}

	/* Self-check. */
	int ok = 1;
	long tried = 0, agree = 0, far = 0;
	for (long i = 0; i < (long)w * h; i += 3) {
		int x = (int)(i % w), y = (int)(i / w);
		float tf;
		int id = intersect_f(x, y, w, h, &tf);
		tried++;
		if (id != ids[i])
			continue;
		agree++;
		if (id != SKY) {
			double t;
			intersect(eye, primary(x, y, w, h), &t);
			if (fabs(tf - t) > 1e-3 * t)
				far++;
		}
	}
	if (agree < tried * 99 / 100 || far > 0) {
		printf("FAIL: single-precision pass: %ld of %ld rays agree, %ld at other distances\n",
		       agree, tried, far);
		ok = 0;
	}
	for (int i = 0; i < NOBJECTS; i++)
		if (count[i] == 0) {
			printf("FAIL: %s not visible\n", object_names[i]);
			ok = 0;
		}
	double mean = (sum[0] + sum[1] + sum[2]) / (3 * npix);
	if (!(mean > 0.1 && mean < 0.9)) {
		printf("FAIL: mean brightness %f\n", mean);
		ok = 0;
	}
	free(ids);
	free(img);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
