/* alarm: SIGALRM from the real-time interval timer, caught by a handler.
 *
 * A periodic setitimer interrupting a busy loop (compiled into fragments
 * by rvdyn's optimizer) until five ticks are in, getitimer, alarm's
 * seconds left, sigsuspend and pause woken by a one-shot timer, a
 * nanosleep cut short with the time left, a read of an empty pipe
 * interrupted (EINTR) and, with SA_RESTART, made again until the
 * handler writes to the pipe, and last a timer whose
 * SIGALRM takes the default action: the program ends killed by it
 * (status 142). The output does not depend on how fast the machine is:
 * the waits that a tick arriving before them would leave waiting
 * forever (pause, nanosleep, read) are woken by a periodic timer, so a
 * tick lost to a slow start is made up by the next one. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t ticks;

static void tick(int sig)
{
	(void)sig;
	ticks++;
}

static int pipefd = -1;
static void tick_then_write(int sig)
{
	(void)sig;
	if (++ticks == 3)
		write(pipefd, "x", 1);
}

static void oneshot(long usec)
{
	struct itimerval it = {.it_interval = {0, 0}, .it_value = {0, usec}};
	if (setitimer(ITIMER_REAL, &it, NULL) != 0)
		perror("setitimer");
}

/* periodic: every usec until disarmed */
static void periodic(long usec)
{
	struct itimerval it = {.it_interval = {0, usec}, .it_value = {0, usec}};
	if (setitimer(ITIMER_REAL, &it, NULL) != 0)
		perror("setitimer");
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tick;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);

	/* periodic, 2 ms */
	struct itimerval it = {.it_interval = {0, 2000}, .it_value = {0, 2000}};
	printf("setitimer: %d\n", setitimer(ITIMER_REAL, &it, NULL));
	struct itimerval cur;
	getitimer(ITIMER_REAL, &cur);
	printf("getitimer: interval %ld us, armed %d\n", (long)cur.it_interval.tv_usec,
	       cur.it_value.tv_sec > 0 || cur.it_value.tv_usec > 0);
	uint64_t spins = 0;
	while (ticks < 5)
		spins = spins * 6364136223846793005ull + 1442695040888963407ull;
	struct itimerval off = {{0, 0}, {0, 0}}, old;
	setitimer(ITIMER_REAL, &off, &old);
	printf("busy loop: at least 5 ticks %d, old interval %ld us\n", ticks >= 5, (long)old.it_interval.tv_usec);
	getitimer(ITIMER_REAL, &cur);
	printf("disarmed: %d\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_usec == 0);

	/* alarm's seconds */
	printf("alarm(100): %u\n", alarm(100));
	printf("alarm(0): %u\n", alarm(0));

	/* sigsuspend: SIGALRM blocked, then let in while suspended */
	sigset_t block, empty, now;
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	sigemptyset(&empty);
	sigprocmask(SIG_BLOCK, &block, NULL);
	ticks = 0;
	oneshot(5000);
	int r = sigsuspend(&empty);
	int e = errno;
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("sigsuspend: %d errno EINTR %d, ticks %d, alrm blocked again %d\n", r, e == EINTR, ticks,
	       sigismember(&now, SIGALRM));
	sigprocmask(SIG_UNBLOCK, &block, NULL);

	/* pause */
	ticks = 0;
	periodic(5000);
	r = pause();
	e = errno;
	oneshot(0);
	printf("pause: %d errno EINTR %d, ticks at least 1 %d\n", r, e == EINTR, ticks >= 1);

	/* nanosleep cut short */
	ticks = 0;
	periodic(5000);
	struct timespec req = {10, 0}, rem = {0, 0};
	r = nanosleep(&req, &rem);
	e = errno;
	oneshot(0);
	printf("nanosleep: %d errno EINTR %d, ticks at least 1 %d, more than 9 s left %d\n", r, e == EINTR,
	       ticks >= 1, rem.tv_sec >= 9);

	/* a read of an empty pipe: -EINTR without SA_RESTART, made again
	 * with it until the handler writes to the pipe */
	int p[2];
	pipe(p);
	ticks = 0;
	periodic(5000);
	char buf[4];
	r = read(p[0], buf, sizeof buf);
	e = errno;
	oneshot(0);
	printf("read without SA_RESTART: %d errno EINTR %d, ticks at least 1 %d\n", r, e == EINTR, ticks >= 1);
	pipefd = p[1];
	sa.sa_handler = tick_then_write;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	ticks = 0;
	struct itimerval per = {.it_interval = {0, 2000}, .it_value = {0, 2000}};
	setitimer(ITIMER_REAL, &per, NULL);
	r = read(p[0], buf, sizeof buf);
	setitimer(ITIMER_REAL, &off, NULL);
	printf("read with SA_RESTART: %d '%c', after at least 3 ticks %d\n", r, buf[0], ticks >= 3);

	/* the default action */
	signal(SIGALRM, SIG_DFL);
	fflush(stdout);
	oneshot(5000);
	for (;;)
		spins = spins * 6364136223846793005ull + 1442695040888963407ull;
}
