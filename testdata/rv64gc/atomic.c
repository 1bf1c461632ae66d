/* The A extension through C11 atomics (AMOs and lr/sc loops), lr/sc by
   hand (an sc without a reservation fails), and the counters a user
   program may read. */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

static _Atomic long counter;
static _Atomic int word = 5;
static _Atomic unsigned char byte = 7;

int main(void) {
  long sum = 0;
  for (int i = 0; i < 1000; i++) {
    sum += atomic_fetch_add(&counter, i);
    atomic_fetch_xor(&word, i);
    atomic_fetch_or(&word, 1 << (i % 31));
    atomic_fetch_and(&word, ~(1 << (i % 7)));
  }
  int expected = 12345, seen = atomic_load(&word);
  _Bool ok1 = atomic_compare_exchange_strong(&word, &expected, 1);
  _Bool ok2 = atomic_compare_exchange_strong(&word, &seen, -7);
  long old = atomic_exchange(&counter, 42);
  unsigned char b = atomic_fetch_add(&byte, 250); /* a sub-word atomic: an lr/sc loop on the word */
  printf("sum %ld counter %ld old %ld word %d ok %d %d seen %d byte %u %u\n", sum, (long)counter, old, (int)word, ok1, ok2, seen, b, (unsigned)byte);

  int32_t mem32 = -5; int64_t mem64 = 3;
  long r1, r2, r3, r4;
  __asm__ volatile("amomin.w %0, %2, (%1)" : "=r"(r1) : "r"(&mem32), "r"(4L) : "memory");
  __asm__ volatile("amomaxu.w %0, %2, (%1)" : "=r"(r2) : "r"(&mem32), "r"(4L) : "memory");
  __asm__ volatile("amominu.d %0, %2, (%1)" : "=r"(r3) : "r"(&mem64), "r"(-1L) : "memory");
  __asm__ volatile("amomax.d %0, %2, (%1)" : "=r"(r4) : "r"(&mem64), "r"(-9L) : "memory");
  printf("amo %ld %ld %ld %ld mem %d %ld\n", r1, r2, r3, r4, mem32, (long)mem64);

  /* sc after lr succeeds; a second sc, with the reservation gone, fails. */
  long val, fail1, fail2;
  int64_t cell = 10;
  __asm__ volatile("lr.d %0, (%3)\n\taddi %0, %0, 1\n\tsc.d %1, %0, (%3)\n\tsc.d %2, %0, (%3)"
                   : "=&r"(val), "=&r"(fail1), "=&r"(fail2) : "r"(&cell) : "memory");
  printf("lr/sc %ld sc1 %ld sc2 %ld cell %ld\n", val, fail1, fail2, (long)cell);

  unsigned long i1, i2;
  __asm__ volatile("rdinstret %0" : "=r"(i1));
  for (volatile int k = 0; k < 10; k++) {}
  __asm__ volatile("rdinstret %0" : "=r"(i2));
  printf("instret advances %d\n", i2 > i1);
  return 0;
}
