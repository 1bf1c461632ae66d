/* events: eventfd, epoll and timerfd, the files event loops wait on.
 *
 * An eventfd counted up and read back (also as a semaphore, and empty
 * and non-blocking), an epoll set over a pipe, an eventfd and a timerfd
 * (each event's 64-bit data back as given, timeouts of 0 and of some
 * milliseconds, a removed file), a timer's expirations read from its
 * timerfd, and an epoll_wait with no timeout ended by a signal's handler
 * (EINTR). The output does not depend on how fast the machine is. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <unistd.h>

static volatile sig_atomic_t ticks;
static void tick(int sig)
{
	(void)sig;
	ticks++;
}

int main(void)
{
	int e = eventfd(3, 0);
	uint64_t v = 4;
	write(e, &v, sizeof v);
	v = 0;
	printf("eventfd: read %zd, value %llu\n", read(e, &v, sizeof v), (unsigned long long)v);
	int s = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
	read(s, &v, sizeof v);
	printf("semaphore: %llu", (unsigned long long)v);
	read(s, &v, sizeof v);
	printf(" %llu", (unsigned long long)v);
	printf(", then %zd EAGAIN %d\n", read(s, &v, sizeof v), errno == EAGAIN);

	int p[2];
	pipe(p);
	int t = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 0x1122334455667788ull};
	printf("epoll_ctl: %d", epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
	ev.data.u64 = 0xfeedface00000001ull;
	printf(" %d", epoll_ctl(ep, EPOLL_CTL_ADD, e, &ev));
	ev.data.u64 = 42;
	printf(" %d, twice %d EEXIST %d\n", epoll_ctl(ep, EPOLL_CTL_ADD, t, &ev), epoll_ctl(ep, EPOLL_CTL_ADD, t, &ev),
	       errno == EEXIST);
	struct epoll_event out[8];
	printf("nothing ready: %d\n", epoll_wait(ep, out, 8, 0));
	write(p[1], "x", 1);
	int n = epoll_wait(ep, out, 8, -1);
	printf("pipe ready: %d, data %llx, events %x\n", n, (unsigned long long)out[0].data.u64, out[0].events);
	char c;
	read(p[0], &c, 1);
	v = 1;
	write(e, &v, sizeof v);
	n = epoll_wait(ep, out, 8, 100);
	printf("eventfd ready: %d, data %llx\n", n, (unsigned long long)out[0].data.u64);
	read(e, &v, sizeof v);
	struct itimerspec its = {.it_value = {0, 5000000}};
	printf("timerfd_settime: %d\n", timerfd_settime(t, 0, &its, NULL));
	n = epoll_wait(ep, out, 8, -1);
	printf("timer fired: %d, data %llu\n", n, (unsigned long long)out[0].data.u64);
	uint64_t exp = 0;
	printf("expirations: read %zd, at least one %d\n", read(t, &exp, sizeof exp), exp >= 1);
	struct itimerspec cur;
	timerfd_gettime(t, &cur);
	printf("disarmed: %d\n", cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec == 0);
	printf("epoll_ctl DEL: %d, wait 10 ms: %d\n", epoll_ctl(ep, EPOLL_CTL_DEL, p[0], NULL), epoll_wait(ep, out, 8, 10));
	printf("bad maxevents: %d EINVAL %d\n", epoll_wait(ep, out, 0, 0), errno == EINVAL);

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tick;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 0}, {0, 10000}};
	setitimer(ITIMER_REAL, &it, NULL);
	printf("epoll_wait for ever: %d EINTR %d, ticks %d\n", epoll_wait(ep, out, 8, -1), errno == EINTR, ticks);
	return 0;
}
