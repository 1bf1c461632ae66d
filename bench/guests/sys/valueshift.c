/* valueshift: loads whose values are invariant for a while, then change:
   the guest that tests value specialization's guards (a fragment
   specialized on a profiled value must leave, not miscompute, when the
   value changes mid-run).

     valueshift [ROUNDS]

   Each round runs a hot loop that reads a global step, a divisor and an
   element of a table through a global pointer.  For the first third of
   the rounds they keep their first values, long enough for the loop to
   be compiled with them as constants; then the step and divisor change
   every few rounds, the pointer switches tables, and for the last rounds
   the divisor changes on every iteration.  Prints a checksum per phase
   and the total. */
#include <stdio.h>
#include <stdlib.h>

static volatile long step = 3;
static volatile unsigned long divisor = 7;
static long table_a[64], table_b[64];
static long *volatile table = table_a;

static unsigned long run(int n, int jitter)
{
	unsigned long sum = 0;
	for (int i = 0; i < n; i++) {
		if (jitter)
			divisor = 5 + (i & 3);
		long s = step;
		unsigned long d = divisor;
		sum += (unsigned long)(table[i & 63] * s) / d + (unsigned long)i % d;
	}
	return sum;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 300;
	if (rounds < 3)
		rounds = 3;
	for (int i = 0; i < 64; i++) {
		table_a[i] = i * 37 + 11;
		table_b[i] = 1000 - i * 13;
	}
	unsigned long phase[3] = {0, 0, 0};
	for (int r = 0; r < rounds; r++) {
		int p = r < rounds / 3 ? 0 : r < 2 * rounds / 3 ? 1 : 2;
		if (p == 1 && r % 5 == 0) {
			step = 3 + r % 4;
			divisor = 7 + r % 3;
			table = (r / 5) % 2 ? table_b : table_a;
		}
		phase[p] += run(1000, p == 2);
	}
	printf("phase 0 %lu\nphase 1 %lu\nphase 2 %lu\ntotal %lu\n", phase[0], phase[1], phase[2],
	       phase[0] + phase[1] + phase[2]);
	return 0;
}
