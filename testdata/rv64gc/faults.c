/* faults: handlers for the signals of faulting instructions.
 *
 * A store to a read-only page caught by a SIGSEGV handler that makes the
 * page writable and returns (the store runs again), a hot loop that
 * faults on each page of a PROT_NONE region in turn (the loop is
 * compiled into fragments by rvdyn's optimizer), a load from an unmapped
 * page left with siglongjmp, an illegal instruction and an ebreak skipped
 * by handlers that move the saved pc, and a stack overflow caught on the
 * alternate stack. Last, a fault with no handler ends the program
 * (status 139). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define PAGE 4096
static char *region;
static volatile int faults, lastcode;
static volatile uintptr_t lastaddr;
static sigjmp_buf jb;
static volatile int jumping;

static void segv(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	faults++;
	lastcode = si->si_code;
	lastaddr = (uintptr_t)si->si_addr;
	if (jumping)
		siglongjmp(jb, sig);
	/* make the page writable: the faulting store runs again */
	uintptr_t page = lastaddr & ~(uintptr_t)(PAGE - 1);
	if (mprotect((void *)page, PAGE, PROT_READ | PROT_WRITE) != 0)
		_exit(99);
}

static void skip(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;
	lastcode = si->si_code;
	lastaddr = (uintptr_t)si->si_addr;
	printf("  signal %d code %d at the faulting pc %d\n", sig, si->si_code,
	       (uintptr_t)si->si_addr == u->uc_mcontext.__gregs[0]);
	u->uc_mcontext.__gregs[0] += 4; /* past the 4-byte instruction */
}

static volatile uintptr_t deepest;
static int recurse(int n)
{
	volatile char pad[512];
	pad[0] = (char)n;
	deepest = (uintptr_t)pad;
	return recurse(n + 1) + pad[0];
}

static void overflow(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	int local;
	faults++;
	lastaddr = (uintptr_t)&local;
	siglongjmp(jb, sig);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);

	/* a store to a read-only page */
	region = mmap(NULL, 16 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	*(volatile char *)&region[100] = 7;
	printf("read-only store: faults %d, code %d (SEGV_ACCERR %d), addr matches %d, value %d\n", faults,
	       lastcode, SEGV_ACCERR, lastaddr == (uintptr_t)&region[100], region[100]);

	/* a hot loop over PROT_NONE pages */
	mprotect(region, 16 * PAGE, PROT_NONE);
	faults = 0;
	uint64_t sum = 0;
	for (int round = 0; round < 4; round++)
		for (int i = 0; i < 16 * PAGE; i += 64) {
			region[i] += (char)(i >> 6);
			sum += (unsigned char)region[i];
		}
	printf("loop: faults %d, sum %llu\n", faults, (unsigned long long)sum);

	/* a load from an unmapped page, left with siglongjmp */
	munmap(region + 8 * PAGE, PAGE);
	jumping = 1;
	faults = 0;
	volatile char c = 0;
	if (sigsetjmp(jb, 1) == 0) {
		c = region[8 * PAGE + 5];
		printf("not reached %d\n", c);
	}
	jumping = 0;
	printf("unmapped load: faults %d, code %d (SEGV_MAPERR %d), addr matches %d\n", faults, lastcode, SEGV_MAPERR,
	       lastaddr == (uintptr_t)&region[8 * PAGE + 5]);

	/* SIGILL and SIGTRAP, skipped */
	struct sigaction sk;
	memset(&sk, 0, sizeof sk);
	sk.sa_sigaction = skip;
	sk.sa_flags = SA_SIGINFO;
	sigaction(SIGILL, &sk, NULL);
	sigaction(SIGTRAP, &sk, NULL);
	__asm__ volatile(".4byte 0xffffffff");
	printf("after the illegal instruction (ILL_ILLOPC %d)\n", ILL_ILLOPC);
	__asm__ volatile(".4byte 0x00100073"); /* ebreak */
	printf("after the ebreak (TRAP_BRKPT %d)\n", TRAP_BRKPT);

	/* a stack overflow, caught on the alternate stack */
	static char alt[64 * 1024];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
	sigaltstack(&ss, NULL);
	sa.sa_sigaction = overflow;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	faults = 0;
	if (sigsetjmp(jb, 1) == 0)
		recurse(0);
	printf("stack overflow: faults %d, handler on the alternate stack %d\n", faults,
	       lastaddr >= (uintptr_t)alt && lastaddr < (uintptr_t)alt + sizeof alt);

	/* no handler: the fault ends the program */
	signal(SIGSEGV, SIG_DFL);
	fflush(stdout);
	*(volatile int *)(region + 8 * PAGE) = 1;
	printf("not reached\n");
	return 0;
}
