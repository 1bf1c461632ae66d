/* One bad memory access, chosen by argv[1], after one line of output:
   each case must end the process with SIGSEGV (or SIGBUS where named),
   as under Linux and qemu-riscv64, never with a wrong value or a fault
   of the emulator itself. The code cases warm up first (a few thousand
   calls), so an optimizer has compiled the code before it goes away.

   Where qemu-riscv64 (7.2) and Linux differ, the case follows qemu:
   stack-munmap (a store into a page of the stack unmapped below sp)
   faults under qemu, whose stack is a plain mapping, while Linux grows
   its stack (a growsdown mapping) back into the hole and the store
   succeeds. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PG 4096L

typedef long (*fn)(long);

static void say(const char *msg) {
  printf("%s\n", msg);
  fflush(stdout);
}

static char *anon(int prot) {
  char *p = mmap(NULL, PG, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    say("mmap failed");
    _exit(1);
  }
  return p;
}

/* code returns a page holding "a0 = a0 + 42; ret", mapped with prot
   (which must include PROT_WRITE). */
static fn code(int prot) {
  uint32_t *p = (uint32_t *)anon(prot);
  p[0] = 0x02a50513; /* addi a0,a0,42 */
  p[1] = 0x00008067; /* ret */
  __builtin___clear_cache((char *)p, (char *)(p + 2));
  return (fn)(uintptr_t)p;
}

__attribute__((noinline)) static long warm(fn f) {
  long s = 0;
  for (long i = 0; i < 3000; i++) s += f(i);
  return s;
}

static void store(volatile char *p) { *p = 1; }
static char load(volatile char *p) { return *p; }

static const char message[] = "a const global";

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "";
  char *p;
  fn f;
  if (!strcmp(c, "munmap")) {
    p = anon(PROT_READ | PROT_WRITE);
    p[0] = 1;
    munmap(p, PG);
    say("store after munmap");
    store(p);
  } else if (!strcmp(c, "munmap-load")) {
    p = anon(PROT_READ | PROT_WRITE);
    p[0] = 1;
    munmap(p, PG);
    say("load after munmap");
    load(p);
  } else if (!strcmp(c, "prot-none-load")) {
    p = anon(PROT_NONE);
    say("load from PROT_NONE");
    load(p + 8);
  } else if (!strcmp(c, "prot-none-store")) {
    p = anon(PROT_READ | PROT_WRITE);
    p[0] = 1;
    mprotect(p, PG, PROT_NONE);
    say("store to PROT_NONE");
    store(p + 8);
  } else if (!strcmp(c, "readonly-store")) {
    p = anon(PROT_READ | PROT_WRITE);
    p[100] = 1;
    mprotect(p, PG, PROT_READ);
    printf("read-only page still reads %d\n", load(p + 100));
    say("store to a read-only page");
    store(p + 100);
  } else if (!strcmp(c, "rodata-store")) {
    say("store to a string literal");
    char *volatile lit = (char *)"a string literal";
    store(lit);
  } else if (!strcmp(c, "const-store")) {
    say("store to a const global");
    char *volatile g = (char *)message;
    store(g + 3);
  } else if (!strcmp(c, "exec-nx")) {
    f = code(PROT_READ | PROT_WRITE);
    say("call into a read-write page");
    f(1);
  } else if (!strcmp(c, "exec-munmapped")) {
    f = code(PROT_READ | PROT_WRITE | PROT_EXEC);
    printf("warm: %ld\n", warm(f));
    munmap((void *)(uintptr_t)f, PG);
    say("call into an unmapped page");
    f(1);
  } else if (!strcmp(c, "exec-mprotect")) {
    f = code(PROT_READ | PROT_WRITE | PROT_EXEC);
    printf("warm: %ld\n", warm(f));
    mprotect((void *)(uintptr_t)f, PG, PROT_READ | PROT_WRITE);
    say("call into a page no longer executable");
    f(1);
  } else if (!strcmp(c, "null-load")) {
    say("load from NULL");
    load(NULL);
  } else if (!strcmp(c, "file-past-eof")) {
    int fd = open(argv[0], O_RDONLY);
    struct stat st;
    fstat(fd, &st);
    long end = (st.st_size + PG - 1) & ~(PG - 1);
    p = mmap(NULL, 2 * PG, PROT_READ, MAP_PRIVATE, fd, end - PG);
    load(p + (st.st_size - 1) % PG);
    say("the file's last byte loads");
    say("load from a mapped page past the end of the file (SIGBUS)");
    load(p + PG);
  } else if (!strcmp(c, "file-truncated")) {
    /* A shared view of a file the program then cuts to one page. */
    const char *dir = getenv("TMPDIR");
    char name[4096];
    snprintf(name, sizeof name, "%s/rvdyn-fault-truncated", dir && *dir ? dir : "/tmp");
    int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
    unlink(name);
    ftruncate(fd, 2 * PG);
    p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    p[PG] = 1;
    say("the second page stores while the file has two");
    ftruncate(fd, PG);
    load(p);
    say("the first page still loads after ftruncate to one page");
    say("load from the page the file no longer reaches (SIGBUS)");
    load(p + PG);
  } else if (!strcmp(c, "stack-munmap")) {
    volatile char here;
    char *page = (char *)(((uintptr_t)&here & ~(PG - 1)) - 16 * PG);
    printf("munmap: %d\n", munmap(page, PG));
    say("store to an unmapped page of the stack");
    store(page);
  } else {
    say("usage: fault CASE");
    return 2;
  }
  say("no fault");
  return 0;
}
