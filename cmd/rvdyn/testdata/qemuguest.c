/* The guest of the qemu-riscv64 drop-in tests (qemu_test.go): it shows
   what a command line gives a program, and dies as told.

     qemuguest [argv | env | getenv NAME | stack KIB | segv | raise SIG | exit N]

   It always prints argc and argv first; then env prints the environment,
   getenv one variable, stack recurses through KIB KiB of stack and prints
   "stack ok", segv stores to address 8, raise sends itself SIG, exit
   returns N. Build: make (riscv64-linux-gnu-gcc -O2 -static). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* down uses about 1 KiB of stack per level and cannot be a loop. */
static int __attribute__((noinline)) down(int n) {
  volatile char frame[1000];
  frame[0] = (char)n;
  frame[999] = 1;
  if (n == 0)
    return frame[999];
  return down(n - 1) + frame[0] - (char)n + frame[999] - 1;
}

int main(int argc, char **argv) {
  printf("argc %d\n", argc);
  for (int i = 0; i < argc; i++)
    printf("argv[%d] %s\n", i, argv[i]);
  if (argc < 2)
    return 0;
  const char *cmd = argv[1];
  const char *arg = argc > 2 ? argv[2] : "0";
  if (!strcmp(cmd, "env")) {
    for (char **e = environ; *e; e++)
      printf("env %s\n", *e);
  } else if (!strcmp(cmd, "getenv")) {
    const char *v = getenv(arg);
    printf("%s=%s\n", arg, v ? v : "(unset)");
  } else if (!strcmp(cmd, "stack")) {
    printf("stack %s\n", down(atoi(arg)) == 1 ? "ok" : "wrong");
  } else if (!strcmp(cmd, "segv")) {
    fflush(stdout);
    *(volatile int *)8 = 1;
  } else if (!strcmp(cmd, "raise")) {
    fflush(stdout);
    raise(atoi(arg));
    printf("survived signal %s\n", arg);
  } else if (!strcmp(cmd, "exit")) {
    return atoi(arg);
  }
  return 0;
}
