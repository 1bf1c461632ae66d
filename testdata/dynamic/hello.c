/* A dynamically linked C program: printf, snprintf, sscanf, strtod, qsort
   and malloc from the shared libc, and transcendental functions from the
   shared libm. The libm inputs are volatile, so the compiler cannot fold
   the calls away: every value printed below went through libm.so.6. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(void) {
  volatile double in[] = {0.5, 1.25, 2.0, 3.75, 10.0, 1e-3, 123.456};
  enum { N = sizeof in / sizeof in[0] };
  double sum = 0;
  for (int i = 0; i < N; i++) {
    double x = in[i];
    double s = sin(x), e = exp(x), l = log(x), p = pow(x, 1.0 / 3.0), q = sqrt(x);
    printf("x=%.17g sin=%.17g exp=%.17g log=%.17g cbrt=%.17g sqrt=%.17g\n", x, s, e, l, p, q);
    sum += s + l + p + q;
  }
  volatile double y = 0.75, z = -2.5;
  printf("atan2=%.17g hypot=%.17g fmod=%.17g tanh=%.17g erf=%.17g\n",
         atan2(y, z), hypot(y, z), fmod(z, y), tanh(z), erf(y));
  printf("lgamma=%.17g expm1=%.17g log1p=%.17g cosh=%.17g\n",
         lgamma(y + 4), expm1(y / 1000), log1p(y / 1000), cosh(z));
  printf("sum=%.17g %f %e %a\n", sum, sum, sum, sum);

  /* Formatting and parsing through the shared libc. */
  char buf[128];
  int n = snprintf(buf, sizeof buf, "%d %s %.6f %x", 42, "forty-two", 42.125, 0xbeef);
  printf("snprintf %d [%s]\n", n, buf);
  int a;
  char word[32];
  double d;
  unsigned h;
  int got = sscanf(buf, "%d %31s %lf %x", &a, word, &d, &h);
  printf("sscanf %d: %d %s %.17g %u\n", got, a, word, d, h);
  char *end;
  double v = strtod("  -6.02214076e23xyz", &end);
  printf("strtod %.17g rest [%s]\n", v, end);
  printf("strtol %ld %ld\n", strtol("0x7fff", NULL, 0), strtol("-777", NULL, 8));

  /* qsort with callbacks from libc into the program. */
  double vals[] = {3.5, -1, 2.25, 1e10, -7.5, 0, 42};
  qsort(vals, sizeof vals / sizeof vals[0], sizeof vals[0], cmp_double);
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
    printf("%s%g", i ? " " : "sorted ", vals[i]);
  printf("\n");
  const char *names[] = {"pear", "apple", "fig", "banana", "cherry"};
  qsort(names, 5, sizeof names[0], cmp_str);
  for (int i = 0; i < 5; i++)
    printf("%s%s", i ? " " : "sorted ", names[i]);
  printf("\n");

  /* malloc, realloc and string functions. */
  size_t cap = 16, len = 0;
  char *s = malloc(cap);
  for (int i = 0; i < 200; i++) {
    char piece[16];
    int k = snprintf(piece, sizeof piece, "%d,", i * i);
    if (len + k + 1 > cap) s = realloc(s, cap *= 2);
    memcpy(s + len, piece, k + 1);
    len += k;
  }
  unsigned long hash = 5381;
  for (size_t i = 0; i < len; i++) hash = hash * 33 + (unsigned char)s[i];
  printf("built %zu bytes, cap %zu, hash %lu, strchr at %td, strstr at %td\n",
         strlen(s), cap, hash, strchr(s, '9') - s, strstr(s, "1024") - s);
  free(s);
  return 0;
}
