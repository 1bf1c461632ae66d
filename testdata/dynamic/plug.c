/* libplug.so, the library dlopen.c loads at run time: two exported
   functions, a constructor and a destructor that the dynamic linker runs
   at dlopen and dlclose, a thread-local counter (dynamic TLS, reached
   through __tls_get_addr), and a dependency on libm. */
#include <math.h>
#include <stdio.h>

static __thread int calls;
static int loaded;

__attribute__((constructor)) static void plug_init(void) {
  loaded = 1;
  printf("plug: constructor\n");
}

__attribute__((destructor)) static void plug_fini(void) {
  printf("plug: destructor after %d calls\n", calls);
  fflush(stdout);
}

/* plug_poly evaluates 3x^2 - 2x + 7 and counts its calls. */
long plug_poly(long x) {
  calls++;
  return 3 * x * x - 2 * x + 7;
}

/* plug_norm is the Euclidean norm of (x, y), from libm. */
double plug_norm(double x, double y) {
  calls++;
  return loaded ? hypot(x, y) : -1;
}
