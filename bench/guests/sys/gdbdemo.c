/* gdbdemo: a small program for debugger tests, built with debug
   information (-g) so that gdb can name its functions, lines and
   variables.

     gdbdemo [N]

   Sums the squares of 1..N (default 1000) twice through sum() and
   square(), keeping the running total in a global, prints it and exits
   with the total modulo 256 (N = 1000: 667667000, exit status 56).  The
   first pass makes the loop hot, so that under rvdyn a breakpoint
   planted before the second pass lands in code already compiled. */
#include <stdio.h>
#include <stdlib.h>

long total;

__attribute__((noinline)) long square(long x)
{
	return x * x;
}

__attribute__((noinline)) void sum(long n)
{
	for (long i = 1; i <= n; i++)
		total += square(i);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	sum(n);
	sum(n); /* second pass */
	printf("sum of squares 1..%ld, twice = %ld\n", n, total);
	return (int)(total & 0xff);
}
