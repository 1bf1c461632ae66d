/* A JIT-style guest: it writes RISC-V machine code into memory it mapped
   itself and calls it, then rewrites the code and calls it again. Each
   function is called a few thousand times from a loop before it is
   rewritten, so an optimizer has compiled both the calling loop and the
   generated code by then, and must notice the rewrite.

   Buffer A follows W^X: mapped read-write, filled, mprotect'ed to
   read-execute, called; mprotect'ed back to read-write, rewritten with a
   different function, the instruction cache synchronized, read-execute
   again, called. Buffer B is mapped read-write-execute once; its code
   (a loop) is modified in place, one instruction at a time, between
   calls.

   Left out: the double-mapping JIT (one memfd mapped twice, written
   through a read-write view and run through a read-execute one).
   qemu-riscv64 7.2 keeps running the old code after a write through the
   other view, __builtin___clear_cache notwithstanding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Registers by ABI name. */
enum { ZERO = 0, RA = 1, T0 = 5, T1 = 6, T2 = 7, A0 = 10, A1 = 11, A2 = 12 };

/* The base instruction formats. */
static uint32_t r_type(uint32_t f7, int rs2, int rs1, uint32_t f3, int rd, uint32_t op) {
  return f7 << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 | f3 << 12 | (uint32_t)rd << 7 | op;
}
static uint32_t i_type(int32_t imm, int rs1, uint32_t f3, int rd, uint32_t op) {
  return ((uint32_t)imm & 0xfff) << 20 | (uint32_t)rs1 << 15 | f3 << 12 | (uint32_t)rd << 7 | op;
}
static uint32_t b_type(int32_t off, int rs2, int rs1, uint32_t f3) {
  uint32_t u = (uint32_t)off;
  return (u >> 12 & 1) << 31 | (u >> 5 & 0x3f) << 25 | (uint32_t)rs2 << 20 | (uint32_t)rs1 << 15 |
         f3 << 12 | (u >> 1 & 0xf) << 8 | (u >> 11 & 1) << 7 | 0x63;
}
static uint32_t j_type(int32_t off, int rd) {
  uint32_t u = (uint32_t)off;
  return (u >> 20 & 1) << 31 | (u >> 1 & 0x3ff) << 21 | (u >> 11 & 1) << 20 | (u >> 12 & 0xff) << 12 |
         (uint32_t)rd << 7 | 0x6f;
}

/* The instructions used, as an assembler spells them. */
static uint32_t add(int rd, int a, int b) { return r_type(0, b, a, 0, rd, 0x33); }
static uint32_t sub(int rd, int a, int b) { return r_type(0x20, b, a, 0, rd, 0x33); }
static uint32_t xor_(int rd, int a, int b) { return r_type(0, b, a, 4, rd, 0x33); }
static uint32_t mul(int rd, int a, int b) { return r_type(1, b, a, 0, rd, 0x33); }
static uint32_t addi(int rd, int a, int32_t imm) { return i_type(imm, a, 0, rd, 0x13); }
static uint32_t bge(int a, int b, int32_t off) { return b_type(off, b, a, 5); }
static uint32_t jal(int rd, int32_t off) { return j_type(off, rd); }
static uint32_t ret(void) { return i_type(0, RA, 0, ZERO, 0x67); }

typedef long (*fn3)(long, long, long);
typedef long (*fn2)(long, long);

static void sync_icache(void *p, size_t n) {
  __builtin___clear_cache((char *)p, (char *)p + n);
}

/* check stops the program at a failed call, before it would call code
   that is not there. */
static void check(int ok, const char *what) {
  if (!ok) {
    printf("%s failed\n", what);
    exit(1);
  }
}

/* run3 calls f n times with varying arguments and sums the results. */
__attribute__((noinline)) static long run3(fn3 f, long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += f(i, i + 3, 7 - i);
  return s;
}

__attribute__((noinline)) static long run2(fn2 f, long n) {
  long s = 0;
  for (long i = 0; i < n; i++) s += f(i % 64, i);
  return s;
}

int main(void) {
  const size_t page = 4096;

  /* Buffer A: W^X. */
  uint32_t *a = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(a != MAP_FAILED, "mmap A");
  uint32_t madd[] = {mul(A0, A0, A1), add(A0, A0, A2), ret()}; /* a*b + c */
  memcpy(a, madd, sizeof madd);
  sync_icache(a, sizeof madd);
  check(mprotect(a, page, PROT_READ | PROT_EXEC) == 0, "mprotect A rx");
  fn3 fa = (fn3)(uintptr_t)a;
  printf("A1: f(6,7,8)=%ld sum=%ld\n", fa(6, 7, 8), run3(fa, 5000));

  check(mprotect(a, page, PROT_READ | PROT_WRITE) == 0, "mprotect A rw");
  uint32_t msub[] = {sub(A0, A0, A1), ret()}; /* a - b */
  memcpy(a, msub, sizeof msub);
  sync_icache(a, sizeof msub);
  check(mprotect(a, page, PROT_READ | PROT_EXEC) == 0, "mprotect A rx again");
  printf("A2: f(6,7,8)=%ld sum=%ld\n", fa(6, 7, 8), run3(fa, 5000));

  /* Buffer B: read-write-execute, modified in place. f(n, k) loops over
     i in [0, n) accumulating op(i, k). */
  uint32_t *b = mmap(NULL, page, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  check(b != MAP_FAILED, "mmap B");
  uint32_t loop[] = {
      addi(T0, ZERO, 0), /*       i = 0 */
      addi(T1, ZERO, 0), /*       acc = 0 */
      bge(T0, A0, 20),   /* top:  if i >= n goto done */
      xor_(T2, T0, A1),  /*       t = i ^ k      <- the word rewritten */
      add(T1, T1, T2),   /*       acc += t */
      addi(T0, T0, 1),   /*       i++ */
      jal(ZERO, -16),    /*       goto top */
      addi(A0, T1, 0),   /* done: return acc */
      ret(),
  };
  memcpy(b, loop, sizeof loop);
  sync_icache(b, sizeof loop);
  fn2 fb = (fn2)(uintptr_t)b;
  printf("B1: f(10,3)=%ld sum=%ld\n", fb(10, 3), run2(fb, 3000));

  b[3] = mul(T2, T0, A1); /* t = i * k */
  sync_icache(b + 3, 4);
  printf("B2: f(10,3)=%ld sum=%ld\n", fb(10, 3), run2(fb, 3000));

  b[3] = sub(T2, A1, T0); /* t = k - i */
  b[5] = addi(T0, T0, 2); /* i += 2 */
  sync_icache(b, sizeof loop);
  printf("B3: f(10,3)=%ld sum=%ld\n", fb(10, 3), run2(fb, 3000));

  /* Rewritten as a whole: a straight-line function in place of the loop. */
  uint32_t straight[] = {add(A0, A0, A1), add(A0, A0, A0), ret()}; /* 2(n+k) */
  memcpy(b, straight, sizeof straight);
  sync_icache(b, sizeof straight);
  printf("B4: f(10,3)=%ld sum=%ld\n", fb(10, 3), run2(fb, 3000));

  check(munmap(a, page) == 0 && munmap(b, page) == 0, "munmap");
  return 0;
}
