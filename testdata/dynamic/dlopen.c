/* Loads libplug.so at run time from the directory of argv[0] (so the
   program works from any working directory), looks up two functions,
   calls them, and unloads the library. Also asks for a missing symbol and
   a missing library, which must fail. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  (void)argc;
  char path[4096];
  const char *slash = strrchr(argv[0], '/');
  int dirlen = slash ? (int)(slash - argv[0]) : 1;
  snprintf(path, sizeof path, "%.*s/libplug.so", dirlen, slash ? argv[0] : ".");

  void *missing = dlopen("/nonexistent/libnothere.so", RTLD_NOW);
  printf("missing library: %s\n", missing ? "loaded?!" : "null");

  printf("dlopen\n");
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("dlopen failed: %s\n", dlerror());
    return 1;
  }
  long (*poly)(long) = (long (*)(long))dlsym(h, "plug_poly");
  double (*norm)(double, double) = (double (*)(double, double))dlsym(h, "plug_norm");
  void *nosuch = dlsym(h, "plug_nosuch");
  printf("symbols: poly %s, norm %s, nosuch %s\n", poly ? "found" : "null",
         norm ? "found" : "null", nosuch ? "found?!" : "null");
  if (!poly || !norm) return 1;
  long sum = 0;
  for (long x = -1000; x <= 1000; x++) sum += poly(x);
  printf("poly(5)=%ld sum=%ld\n", poly(5), sum);
  printf("norm(3,4)=%.17g norm(1,1)=%.17g\n", norm(3, 4), norm(1, 1));
  /* A second dlopen of the same library only counts a reference. */
  void *h2 = dlopen(path, RTLD_NOW);
  printf("same handle: %s\n", h2 == h ? "yes" : "no");
  dlclose(h2);
  printf("dlclose\n");
  int rc = dlclose(h);
  printf("dlclose returned %d\n", rc);
  return 0;
}
