/* glibc calls that reach pipe2, ppoll, pselect6, fcntl, dup3, getrusage,
   sysinfo and clock_getres, with output that depends on none of the
   host's numbers: rvdyn and qemu-riscv64 must print the same. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  int p[2];
  printf("pipe %d fds %d %d\n", pipe(p), p[0], p[1]);
  struct pollfd pf[2] = {{p[0], POLLIN, 0}, {p[1], POLLOUT, 0}};
  printf("poll empty %d revents %d %d\n", poll(pf, 2, 0), pf[0].revents, pf[1].revents);
  printf("write %zd\n", write(p[1], "xyz", 3));
  printf("poll full %d revents %d\n", poll(pf, 1, 10), pf[0].revents);
  fd_set rs, ws;
  FD_ZERO(&rs); FD_ZERO(&ws); FD_SET(p[0], &rs); FD_SET(p[1], &ws);
  struct timeval tv = {0, 0};
  printf("select %d read %d write %d\n", select(p[1] + 1, &rs, &ws, 0, &tv), FD_ISSET(p[0], &rs), FD_ISSET(p[1], &ws));
  char b[8] = {0};
  printf("read %zd %s\n", read(p[0], b, sizeof b), b);
  printf("nonblock %d\n", fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK));
  errno = 0;
  printf("read empty %zd errno %d\n", read(p[0], b, 1), errno);
  printf("dup2 %d\n", dup2(p[0], 10));
  struct pollfd closed = {42, POLLIN, 0};
  printf("poll closed %d revents %d\n", poll(&closed, 1, 0), closed.revents);
  FD_ZERO(&rs); FD_SET(42, &rs);
  errno = 0;
  printf("select closed %d errno %d\n", select(43, &rs, 0, 0, &tv), errno);
  close(p[1]);
  printf("poll hangup %d\n", poll(pf, 1, 0));
  int q[2];
  printf("pipe2 %d fds %d %d\n", pipe2(q, O_NONBLOCK | O_CLOEXEC), q[0], q[1]);
  errno = 0;
  printf("pipe2 bad flags %d errno %d\n", pipe2(q, O_APPEND), errno);
  struct rusage ru;
  printf("getrusage %d maxrss>0 %d\n", getrusage(RUSAGE_SELF, &ru), ru.ru_maxrss > 0);
  struct sysinfo si;
  printf("sysinfo %d totalram>0 %d unit %u\n", sysinfo(&si), si.totalram > 0, si.mem_unit);
  printf("phys pages>0 %d\n", sysconf(_SC_PHYS_PAGES) > 0);
  struct timespec res;
  printf("clock_getres %d ns>0 %d\n", clock_getres(CLOCK_MONOTONIC, &res), res.tv_sec == 0 && res.tv_nsec > 0);
  errno = 0;
  printf("clock_getres bad %d errno %d\n", clock_getres(1234, &res), errno);
  char *argv[] = {"prog", "-v", "--out=f", "a", 0};
  static struct option lo[] = {{"verbose", no_argument, 0, 'v'}, {"out", required_argument, 0, 'o'}, {0, 0, 0, 0}};
  int c, v = 0;
  const char *o = "-";
  while ((c = getopt_long(4, argv, "vo:", lo, 0)) != -1) {
    if (c == 'v') v++;
    if (c == 'o') o = optarg;
  }
  printf("getopt v=%d o=%s rest=%d\n", v, o, 4 - optind);
  return 0;
}
