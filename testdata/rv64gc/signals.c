/* signals: handlers installed with sigaction and run on signal frames.
 *
 * raise, kill and tgkill to self with plain and SA_SIGINFO handlers (the
 * siginfo's code, the ucontext's saved registers and mask), a handler
 * that changes the context it returns to, a signal blocked and run when
 * unblocked, SA_RESETHAND, SA_NODEFER and a nested signal, the
 * alternate stack with SA_ONSTACK, floating-point state kept across a
 * handler that does arithmetic of its own, a handler that longjmps out,
 * a hot loop around raise (compiled in fragments by rvdyn's
 * optimizer), and sigwaitinfo and sigtimedwait. Ends with abort() caught by a SIGABRT handler that
 * exits. */
#define _GNU_SOURCE
#include <errno.h>
#include <fenv.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static volatile sig_atomic_t hits, depth, maxdepth;
static volatile int last_code, last_signo;
static volatile uintptr_t last_sp;

static void plain(int sig)
{
	hits++;
	last_signo = sig;
}

static void info(int sig, siginfo_t *si, void *uc)
{
	ucontext_t *u = uc;
	hits++;
	last_signo = si->si_signo;
	last_code = si->si_code;
	/* the saved mask is the one before the handler: SIGUSR1 not in it */
	printf("  info: signo %d code %d pid-matches %d usr1-blocked-before %d usr1-blocked-now %d\n",
	       si->si_signo, si->si_code, si->si_pid == getpid(),
	       sigismember((sigset_t *)&u->uc_sigmask, SIGUSR1), ({
		       sigset_t now;
		       sigprocmask(SIG_BLOCK, NULL, &now);
		       sigismember(&now, sig);
	       }));
}

/* Changes a saved register the interrupted code reads back. */
static volatile long poke_target;
static void poke(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	ucontext_t *u = uc;
	/* a0 of the interrupted context is the system call's result; make
	 * raise's kill return 42 instead of 0, which raise passes on. */
	u->uc_mcontext.__gregs[10] = 42;
	poke_target = 1;
}

static volatile int calls;
static void nested(int sig)
{
	depth++;
	calls++;
	if (depth > maxdepth)
		maxdepth = depth;
	if (calls < 3)
		raise(sig); /* runs at once under SA_NODEFER, after return without */
	depth--;
}

static void onstack(int sig)
{
	int local;
	(void)sig;
	last_sp = (uintptr_t)&local;
	hits++;
}

static volatile double fpin = 1.0 / 3.0;
static void fpwork(int sig)
{
	(void)sig;
	volatile double x = fpin * 3.0 + 0.1; /* inexact */
	fesetround(FE_UPWARD);
	x = x / 7.0;
	(void)x;
	hits++;
}

static sigjmp_buf jb;
static void jumper(int sig)
{
	siglongjmp(jb, sig);
}

static void onabort(int sig)
{
	printf("SIGABRT handler: %d, exiting with 7\n", sig);
	fflush(stdout);
	_exit(7);
}

static void install(int sig, void (*h)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) != 0)
		perror("sigaction");
}

static void install_info(int sig, void (*h)(int, siginfo_t *, void *))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = h;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR2);
	if (sigaction(sig, &sa, NULL) != 0)
		perror("sigaction");
}

int main(void)
{
	/* plain handler, raise */
	install(SIGUSR1, plain, 0);
	int r = raise(SIGUSR1);
	printf("raise: %d, hits %d, signo %d\n", r, hits, last_signo);

	/* SA_SIGINFO: kill (SI_USER) and tgkill (SI_TKILL) */
	install_info(SIGUSR1, info);
	kill(getpid(), SIGUSR1);
	printf("kill: code %d\n", last_code);
	syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	printf("tgkill: code %d\n", last_code);
	sigset_t now;
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("after: usr1 blocked %d, usr2 blocked %d\n", sigismember(&now, SIGUSR1), sigismember(&now, SIGUSR2));

	/* a handler that changes the saved a0 */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = poke;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR2, &sa, NULL);
	long k = syscall(SYS_kill, getpid(), SIGUSR2);
	printf("kill with a poked a0: %ld (handler ran %ld)\n", k, poke_target);

	/* blocked, then run when unblocked */
	install(SIGUSR1, plain, 0);
	hits = 0;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR1);
	raise(SIGUSR1);
	sigset_t pend;
	sigpending(&pend);
	printf("blocked: hits %d, pending %d\n", hits, sigismember(&pend, SIGUSR1));
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	printf("unblocked: hits %d (two raises, one delivery)\n", hits);

	/* SA_RESETHAND: the second raise takes the default action, here
	 * ignore for SIGCHLD-like: use SIGWINCH, whose default is ignore */
	install(SIGWINCH, plain, SA_RESETHAND);
	hits = 0;
	raise(SIGWINCH);
	raise(SIGWINCH);
	struct sigaction old;
	sigaction(SIGWINCH, NULL, &old);
	printf("resethand: hits %d, handler now default %d\n", hits, old.sa_handler == SIG_DFL);

	/* SA_NODEFER: nested to depth 3 */
	install(SIGUSR2, nested, SA_NODEFER);
	raise(SIGUSR2);
	printf("nodefer: max depth %d, depth %d, calls %d\n", maxdepth, depth, calls);
	/* without it the nested raise stays pending until the handler returns */
	maxdepth = calls = 0;
	install(SIGUSR2, nested, 0);
	raise(SIGUSR2);
	printf("deferred: max depth %d, depth %d, calls %d\n", maxdepth, depth, calls);

	/* alternate stack */
	static char alt[64 * 1024];
	stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
	printf("sigaltstack: %d\n", sigaltstack(&ss, NULL));
	stack_t cur;
	sigaltstack(NULL, &cur);
	printf("altstack flags %d size-matches %d\n", cur.ss_flags, cur.ss_size == sizeof alt);
	install(SIGUSR1, onstack, SA_ONSTACK);
	raise(SIGUSR1);
	printf("on the alternate stack: %d\n", last_sp >= (uintptr_t)alt && last_sp < (uintptr_t)alt + sizeof alt);
	install(SIGUSR1, onstack, 0);
	raise(SIGUSR1);
	printf("without SA_ONSTACK: %d\n", last_sp >= (uintptr_t)alt && last_sp < (uintptr_t)alt + sizeof alt);
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
	sigaltstack(NULL, &cur);
	printf("disabled: flags %d\n", cur.ss_flags);

	/* floating-point state survives a handler that changes it */
	feclearexcept(FE_ALL_EXCEPT);
	fesetround(FE_TOWARDZERO);
	install(SIGUSR1, fpwork, 0);
	raise(SIGUSR1);
	printf("fp: round towardzero %d, inexact %d\n", fegetround() == FE_TOWARDZERO, fetestexcept(FE_INEXACT) != 0);
	fesetround(FE_TONEAREST);

	/* siglongjmp out of a handler: the mask comes back with it */
	install(SIGUSR2, jumper, 0);
	int got = sigsetjmp(jb, 1);
	if (got == 0) {
		raise(SIGUSR2);
		printf("not reached\n");
	}
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("longjmp: %d, usr2 blocked after %d\n", got, sigismember(&now, SIGUSR2));

	/* hot: many deliveries from a loop */
	install(SIGUSR1, plain, 0);
	hits = 0;
	uint64_t acc = 0;
	for (int i = 0; i < 3000; i++) {
		acc = acc * 31 + (uint64_t)i;
		if (i % 3 == 0)
			raise(SIGUSR1);
	}
	printf("loop: hits %d, acc %llu\n", hits, (unsigned long long)acc);

	/* sigwaitinfo and sigtimedwait take a blocked signal synchronously */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	raise(SIGUSR2);
	siginfo_t si;
	int w = sigwaitinfo(&set, &si);
	printf("sigwaitinfo: %d, code %d\n", w, si.si_code);
	struct timespec zero = {0, 0};
	w = sigtimedwait(&set, &si, &zero);
	printf("sigtimedwait with nothing pending: %d, EAGAIN %d\n", w, errno == EAGAIN);
	sigprocmask(SIG_UNBLOCK, &set, NULL);

	/* ignored */
	install(SIGUSR1, SIG_IGN, 0);
	raise(SIGUSR1);
	printf("ignored: still here\n");

	install(SIGABRT, onabort, 0);
	fflush(stdout);
	abort();
}
