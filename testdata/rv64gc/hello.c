#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
int main(int argc, char **argv) {
  printf("hello from %s, %d args\n", argv[0], argc);
  double x = 0; for (int i = 1; i < 100; i++) x += sqrt((double)i) / i;
  printf("sum %.17g %f %e\n", x, sin(x), exp(-x));
  char *p = malloc(1000); strcpy(p, "heap"); puts(p); free(p);
  const char *h = getenv("HOME"); printf("HOME=%s\n", h ? h : "(none)");
  return 3;
}
