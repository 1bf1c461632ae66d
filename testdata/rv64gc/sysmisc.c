/* sysmisc: calls programs make beside their main work.
 *
 * statx (of a directory, a memfd, with AT_SYMLINK_NOFOLLOW and its
 * errors), memfd_create, sendfile and copy_file_range between memfds and
 * into a pipe, fallocate, prctl's name, CPU affinity and count, the
 * scheduler's policy and priorities, getpriority, getcpu, mlock, and
 * chdir and fchdir. The
 * output names no host value, so it is the same on every machine. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
	struct statx sx;
	int r = statx(AT_FDCWD, "/", 0, STATX_BASIC_STATS, &sx);
	printf("statx /: %d, dir %d, mask has type %d\n", r, S_ISDIR(sx.stx_mode), (sx.stx_mask & STATX_TYPE) != 0);
	r = statx(AT_FDCWD, "/no/such/path", 0, STATX_BASIC_STATS, &sx);
	printf("statx missing: %d ENOENT %d\n", r, errno == ENOENT);
	r = statx(AT_FDCWD, "/", 0, 0x80000000u, &sx);
	printf("statx reserved mask: %d EINVAL %d\n", r, errno == EINVAL);

	int a = memfd_create("a", MFD_CLOEXEC), b = memfd_create("b", 0);
	printf("memfd_create: %d %d\n", a >= 0, b >= 0);
	write(a, "0123456789abcdef", 16);
	r = statx(a, "", AT_EMPTY_PATH, STATX_SIZE, &sx);
	printf("statx of the memfd: %d, regular %d, size %llu\n", r, S_ISREG(sx.stx_mode), (unsigned long long)sx.stx_size);

	off_t off = 4;
	ssize_t n = sendfile(b, a, &off, 6);
	printf("sendfile: %zd, offset now %lld\n", n, (long long)off);
	loff_t in = 10, out = 6;
	n = copy_file_range(a, &in, b, &out, 100, 0);
	printf("copy_file_range: %zd, offsets %lld %lld\n", n, (long long)in, (long long)out);
	char buf[32] = {0};
	pread(b, buf, sizeof buf - 1, 0);
	printf("copied: %s\n", buf);
	int p[2];
	pipe(p);
	off = 0;
	n = sendfile(p[1], a, &off, 5);
	memset(buf, 0, sizeof buf);
	read(p[0], buf, sizeof buf - 1);
	printf("sendfile into a pipe: %zd %s\n", n, buf);
	printf("sendfile from a closed fd: %zd EBADF %d\n", sendfile(b, 99, NULL, 1), errno == EBADF);
	printf("fallocate: %d\n", fallocate(b, 0, 0, 8192));
	struct stat st;
	fstat(b, &st);
	printf("size after fallocate: %lld\n", (long long)st.st_size);

	/* (The initial name is the program's under Linux and rvdyn,
	 * qemu-riscv64's own under qemu.) */
	char name[16] = {0};
	printf("PR_SET_NAME: %d\n", prctl(PR_SET_NAME, "a-rather-long-thread-name"));
	prctl(PR_GET_NAME, name);
	printf("name: %s\n", name);
	printf("dumpable: %d\n", prctl(PR_GET_DUMPABLE));

	cpu_set_t cs;
	CPU_ZERO(&cs);
	r = sched_getaffinity(0, sizeof cs, &cs);
	printf("sched_getaffinity: %d, cpus > 0 %d, nprocs agrees %d\n", r, CPU_COUNT(&cs) > 0,
	       CPU_COUNT(&cs) == sysconf(_SC_NPROCESSORS_ONLN) || sysconf(_SC_NPROCESSORS_ONLN) > 0);
	printf("sched_getaffinity of pid 1<<30: %d ESRCH %d\n", sched_getaffinity(1 << 30, sizeof cs, &cs), errno == ESRCH);
	struct sched_param sp = {.sched_priority = 7};
	printf("sched_getscheduler: %d, sched_getparam: %d priority %d\n", sched_getscheduler(0), sched_getparam(0, &sp),
	       sp.sched_priority);
	printf("priority range FIFO %d..%d OTHER %d..%d, bad policy %d\n", sched_get_priority_min(SCHED_FIFO),
	       sched_get_priority_max(SCHED_FIFO), sched_get_priority_min(SCHED_OTHER), sched_get_priority_max(SCHED_OTHER),
	       sched_get_priority_max(42));
	errno = 0;
	int prio = getpriority(PRIO_PROCESS, 0);
	printf("getpriority: in range %d, errno %d\n", prio >= -20 && prio <= 19, errno);
	unsigned cpu = 99999, node = 99999;
	printf("getcpu: %d, set %d\n", getcpu(&cpu, &node), cpu != 99999 && node != 99999);
	static char locked[8192];
	printf("mlock: %d, munlock: %d\n", mlock(locked, sizeof locked), munlock(locked, sizeof locked));

	char cwd[256];
	printf("chdir /: %d, getcwd %s\n", chdir("/"), getcwd(cwd, sizeof cwd));
	int proc = open("proc", O_RDONLY | O_DIRECTORY);
	printf("relative open after chdir: %d\n", proc >= 0);
	printf("chdir missing: %d ENOENT %d\n", chdir("/no/such/dir"), errno == ENOENT);
	printf("fchdir: %d, getcwd %s\n", fchdir(proc), getcwd(cwd, sizeof cwd));
	printf("fchdir of a file: %d ENOTDIR %d\n", fchdir(a), errno == ENOTDIR);
	return 0;
}
