/* sysabi: exercises the Linux system calls a file-using program makes,
   good arguments and bad (bad pointers, bad fds, bad flags), and prints
   one line per check: what was asked and what the kernel answered (a
   value, "ok", or the errno's name).  Addresses, fd numbers, ids and
   times are never printed, only facts that hold on any Linux: the output
   is the same under rvdyn (interp and dynamo) and qemu-riscv64.

     sysabi DIR        work in DIR (an empty directory): files, directories,
                       stat, getdents64, rename, unlink, memory, process calls
     sysabi --escape   try to leave the --root directory: run by the test
                       with rvdyn --root R, R holding inside.txt and the
                       symlinks up -> ../.. and abs -> /etc

   Exit status 0 when every check printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../rt/linux.h"

static const char *ename(long e)
{
	static const struct {
		int n;
		const char *s;
	} names[] = {
		{ 1, "EPERM" }, { 2, "ENOENT" }, { 3, "ESRCH" }, { 9, "EBADF" }, { 12, "ENOMEM" },
		{ 13, "EACCES" }, { 14, "EFAULT" }, { 16, "EBUSY" }, { 17, "EEXIST" }, { 18, "EXDEV" },
		{ 20, "ENOTDIR" }, { 21, "EISDIR" }, { 22, "EINVAL" }, { 24, "EMFILE" }, { 25, "ENOTTY" },
		{ 29, "ESPIPE" }, { 34, "ERANGE" }, { 36, "ENAMETOOLONG" }, { 38, "ENOSYS" }, { 39, "ENOTEMPTY" },
		{ 40, "ELOOP" },
	};
	for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].n == e)
			return names[i].s;
	return "E?";
}

/* show prints a result as its value or its errno name. */
static void show(const char *what, long r)
{
	if (r < 0 && r > -4096)
		printf("%-40s -%s\n", what, ename(-r));
	else
		printf("%-40s %ld\n", what, r);
}

/* okay prints "ok" for a result >= 0 (an fd, an address) and the errno
   otherwise. */
static void okay(const char *what, long r)
{
	if (r < 0 && r > -4096)
		show(what, r);
	else
		printf("%-40s ok\n", what);
}

#define BAD ((void *)8) /* the null page: never mapped */
static const char text_rodata[] = "read-only";

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list(long dfd, const char *what)
{
	static char buf[512];
	char *names[32];
	int n = 0;
	sys3(NR_lseek, dfd, 0, L_SEEK_SET);
	for (;;) {
		long r = sys3(NR_getdents64, dfd, buf, sizeof buf);
		if (r <= 0) {
			if (r < 0)
				show("getdents64", r);
			break;
		}
		for (long o = 0; o < r;) {
			struct l_dirent64 *d = (struct l_dirent64 *)(buf + o);
			if (n < 32)
				names[n++] = strdup(d->name);
			o += d->reclen;
		}
	}
	qsort(names, n, sizeof names[0], cmp);
	printf("%-40s", what);
	for (int i = 0; i < n; i++) {
		printf(" %s", names[i]);
		free(names[i]);
	}
	printf("\n");
}

static void files(const char *dir)
{
	long d = sys4(NR_openat, L_AT_FDCWD, dir, L_O_RDONLY | L_O_DIRECTORY, 0);
	okay("openat DIR O_DIRECTORY", d);
	show("openat bad path pointer", sys4(NR_openat, L_AT_FDCWD, BAD, L_O_RDONLY, 0));
	show("openat missing file", sys4(NR_openat, d, "missing", L_O_RDONLY, 0));
	show("openat bad dirfd", sys4(NR_openat, 77, "x", L_O_RDONLY, 0));
	show("openat empty path", sys4(NR_openat, d, "", L_O_RDONLY, 0));
	long fd = sys4(NR_openat, d, "a.txt", L_O_RDWR | L_O_CREAT | L_O_TRUNC, 0644);
	okay("openat a.txt O_CREAT", fd);
	show("openat a.txt O_CREAT|O_EXCL again", sys4(NR_openat, d, "a.txt", L_O_RDWR | L_O_CREAT | L_O_EXCL, 0644));
	show("write", sys3(NR_write, fd, "hello, ", 7));
	char w2[] = "file ", w3[] = "world\n";
	struct l_iovec iov[2] = { { w2, 5 }, { w3, 6 } };
	show("writev 2 buffers", sys3(NR_writev, fd, iov, 2));
	show("write bad buffer", sys3(NR_write, fd, BAD, 4));
	show("writev bad iovec", sys3(NR_writev, fd, BAD, 1));
	show("pwrite64 at 0", sys4(NR_pwrite64, fd, "H", 1, 0));
	show("pwrite64 negative offset", sys4(NR_pwrite64, fd, "H", 1, -5));
	show("lseek SEEK_CUR", sys3(NR_lseek, fd, 0, L_SEEK_CUR));
	show("lseek SEEK_SET 0", sys3(NR_lseek, fd, 0, L_SEEK_SET));
	show("lseek bad whence", sys3(NR_lseek, fd, 0, 9));
	char buf[64];
	memset(buf, 0, sizeof buf);
	long r = sys3(NR_read, fd, buf, sizeof buf - 1);
	show("read", r);
	printf("%-40s %s", "read gives", buf);
	show("read at end", sys3(NR_read, fd, buf, sizeof buf));
	show("read into text (read-only)", sys3(NR_read, fd, (void *)files, 4));
	show("read into rodata", sys3(NR_read, fd, (void *)text_rodata, 4));
	show("read bad buffer", sys3(NR_read, fd, BAD, 4));
	memset(buf, 0, sizeof buf);
	show("pread64 at 7", sys4(NR_pread64, fd, buf, 4, 7));
	printf("%-40s %s\n", "pread64 gives", buf);
	char r1[6] = { 0 }, r2[8] = { 0 };
	struct l_iovec riov[2] = { { r1, 5 }, { r2, 7 } };
	sys3(NR_lseek, fd, 0, L_SEEK_SET);
	show("readv 2 buffers", sys3(NR_readv, fd, riov, 2));
	printf("%-40s %s|%s\n", "readv gives", r1, r2);
	struct l_stat st;
	show("fstat", sys2(NR_fstat, fd, &st));
	printf("%-40s size %ld regular %d\n", "fstat gives", st.size, (st.mode & L_S_IFMT) == L_S_IFREG);
	show("fstat bad buffer", sys2(NR_fstat, fd, BAD));
	show("ftruncate 5", sys2(NR_ftruncate, fd, 5));
	show("newfstatat a.txt", sys4(NR_newfstatat, d, "a.txt", &st, 0));
	printf("%-40s size %ld\n", "newfstatat gives", st.size);
	show("newfstatat DIR itself", sys4(NR_newfstatat, d, ".", &st, 0));
	printf("%-40s directory %d\n", "newfstatat gives", (st.mode & L_S_IFMT) == L_S_IFDIR);
	show("newfstatat missing", sys4(NR_newfstatat, d, "nope", &st, 0));
	show("newfstatat bad path", sys4(NR_newfstatat, d, BAD, &st, 0));
	show("newfstatat bad buffer", sys4(NR_newfstatat, d, "a.txt", BAD, 0));
	show("newfstatat bad flags", sys4(NR_newfstatat, d, "a.txt", &st, 0x7000000));
	long fm = sys6(NR_mmap, 0, 4096, L_PROT_READ, L_MAP_PRIVATE, fd, 0);
	okay("mmap a.txt private", fm);
	if (fm >= 0 || fm < -4095) {
		printf("%-40s %.5s\n", "mmap a.txt gives", (char *)fm);
		show("munmap a.txt", sys2(NR_munmap, fm, 4096));
	}
	show("mmap a.txt unaligned offset", sys6(NR_mmap, 0, 4096, L_PROT_READ, L_MAP_PRIVATE, fd, 7));
	long fd2 = sys1(NR_dup, fd);
	okay("dup", fd2);
	show("dup3 to itself", sys3(NR_dup3, fd, fd, 0));
	show("close dup", sys1(NR_close, fd2));
	show("close", sys1(NR_close, fd));
	show("close again", sys1(NR_close, fd));
	long f1 = sys4(NR_openat, d, "a.txt", L_O_RDONLY, 0);
	long f2 = sys4(NR_openat, d, "a.txt", L_O_RDONLY, 0);
	sys1(NR_close, f1);
	long f3 = sys4(NR_openat, d, "a.txt", L_O_RDONLY, 0);
	printf("%-40s %d\n", "lowest free fd reused", f3 == f1 && f2 != f1);
	sys1(NR_close, f2);
	sys1(NR_close, f3);
	show("write to a read-only fd", sys3(NR_write, f3, "x", 1));

	/* Bad fds. */
	show("read fd 99", sys3(NR_read, 99, buf, 1));
	show("write fd -1", sys3(NR_write, -1, buf, 1));
	show("close fd 99", sys1(NR_close, 99));
	show("fstat fd 99", sys2(NR_fstat, 99, &st));
	show("lseek fd 99", sys3(NR_lseek, 99, 0, 0));
	show("getdents64 fd 99", sys3(NR_getdents64, 99, buf, sizeof buf));
	show("ftruncate fd 99", sys2(NR_ftruncate, 99, 0));
	show("pread64 fd 99", sys4(NR_pread64, 99, buf, 1, 0));
	show("dup fd 99", sys1(NR_dup, 99));

	/* Directories. */
	show("mkdirat sub", sys3(NR_mkdirat, d, "sub", 0755));
	show("mkdirat sub again", sys3(NR_mkdirat, d, "sub", 0755));
	show("mkdirat bad path", sys3(NR_mkdirat, d, BAD, 0755));
	long s = sys4(NR_openat, d, "sub", L_O_RDONLY | L_O_DIRECTORY, 0);
	okay("openat sub", s);
	for (int i = 0; i < 3; i++) {
		char name[8] = { 'f', (char)('0' + i), 0 };
		long f = sys4(NR_openat, s, name, L_O_WRONLY | L_O_CREAT, 0644);
		sys3(NR_write, f, name, 2);
		sys1(NR_close, f);
	}
	list(s, "getdents64 sub");
	show("getdents64 bad buffer", sys3(NR_getdents64, s, BAD, 512));
	show("getdents64 on a file", sys3(NR_getdents64, 1, buf, sizeof buf));
	show("renameat2 f0 -> ../moved", sys5(NR_renameat2, s, "f0", d, "moved", 0));
	show("renameat2 missing", sys5(NR_renameat2, s, "nope", d, "x", 0));
	show("renameat2 bad flags", sys5(NR_renameat2, s, "f1", d, "x", 99));
	list(d, "getdents64 DIR");
	show("unlinkat sub (not empty)", sys3(NR_unlinkat, d, "sub", L_AT_REMOVEDIR));
	show("unlinkat sub as a file", sys3(NR_unlinkat, d, "sub", 0));
	show("unlinkat sub/f1", sys3(NR_unlinkat, s, "f1", 0));
	show("unlinkat sub/f2", sys3(NR_unlinkat, d, "sub/f2", 0));
	show("unlinkat missing", sys3(NR_unlinkat, d, "sub/f2", 0));
	show("unlinkat bad flags", sys3(NR_unlinkat, d, "moved", 1));
	show("unlinkat sub", sys3(NR_unlinkat, d, "sub", L_AT_REMOVEDIR));
	show("unlinkat moved", sys3(NR_unlinkat, d, "moved", 0));
	show("unlinkat a.txt", sys3(NR_unlinkat, d, "a.txt", 0));
	list(d, "getdents64 DIR at the end");
	show("faccessat DIR", sys4(NR_faccessat, L_AT_FDCWD, dir, 0, 0));
	show("faccessat missing", sys4(NR_faccessat, d, "gone", 0, 0));
	sys1(NR_close, s);
	sys1(NR_close, d);
}

static void memory(void)
{
	long a = sys6(NR_mmap, 0, 3 * 4096, L_PROT_READ | L_PROT_WRITE, L_MAP_PRIVATE | L_MAP_ANONYMOUS, -1, 0);
	okay("mmap 3 pages", a);
	char *p = (char *)a;
	int zero = 1;
	for (int i = 0; i < 3 * 4096; i++)
		zero &= p[i] == 0;
	printf("%-40s %d\n", "mmap memory is zero", zero);
	strcpy(p + 4096, "kept across mremap");
	long b = sys5(NR_mremap, a, 3 * 4096, 40 * 4096, L_MREMAP_MAYMOVE, 0);
	okay("mremap to 40 pages", b);
	printf("%-40s %s\n", "mremap keeps", (char *)b + 4096);
	((char *)b)[40 * 4096 - 1] = 1;
	show("mremap shrink to 2 pages", sys5(NR_mremap, b, 40 * 4096, 2 * 4096, 0, 0) == b);
	show("mremap not mapped", sys5(NR_mremap, 4096 * 3, 4096, 8192, 0, 0));
	show("mprotect read-only", sys3(NR_mprotect, b, 4096, L_PROT_READ));
	show("mprotect unaligned", sys3(NR_mprotect, b + 1, 4096, L_PROT_READ));
	show("munmap", sys2(NR_munmap, b, 2 * 4096));
	show("munmap unaligned", sys2(NR_munmap, b + 1, 4096));
	show("mmap length 0", sys6(NR_mmap, 0, 0, 3, L_MAP_PRIVATE | L_MAP_ANONYMOUS, -1, 0));
	show("mmap neither private nor shared", sys6(NR_mmap, 0, 4096, 3, L_MAP_ANONYMOUS, -1, 0));
	show("mmap bad fd", sys6(NR_mmap, 0, 4096, 1, L_MAP_PRIVATE, 99, 0));
	long c = sys6(NR_mmap, 0, 4096, 3, L_MAP_PRIVATE | L_MAP_ANONYMOUS, -1, 0);
	char *q = (char *)c;
	q[0] = 'z';
	show("read fd 0 into mmap memory", sys3(NR_read, 0, q, 1));
	show("munmap again", sys2(NR_munmap, c, 4096));
}

static void process(void)
{
	char buf[64];
	show("getrandom 16", sys3(NR_getrandom, buf, 16, 0));
	show("getrandom bad flags", sys3(NR_getrandom, buf, 16, 0x100));
	show("getrandom bad buffer", sys3(NR_getrandom, BAD, 16, 0));
	struct l_utsname u;
	show("uname", sys1(NR_uname, &u));
	printf("%-40s %s %s\n", "uname gives", u.sysname, u.machine);
	show("uname bad buffer", sys1(NR_uname, BAD));
	printf("%-40s %d %d\n", "getuid == geteuid, getgid == getegid",
	       sys0(NR_getuid) == sys0(NR_geteuid), sys0(NR_getgid) == sys0(NR_getegid));
	okay("getpid", sys0(NR_getpid));
	unsigned long act[3] = { 1 /* SIG_IGN */, 0, 0 }, old[3] = { 7, 7, 7 };
	show("rt_sigaction SIGUSR1", sys4(NR_rt_sigaction, 10, act, 0, 8));
	show("rt_sigaction SIGUSR1 read back", sys4(NR_rt_sigaction, 10, 0, old, 8));
	printf("%-40s %lu\n", "rt_sigaction old handler", old[0]);
	show("rt_sigaction SIGKILL", sys4(NR_rt_sigaction, 9, act, 0, 8));
	show("rt_sigaction bad sigsetsize", sys4(NR_rt_sigaction, 10, act, 0, 4));
	show("rt_sigaction bad act", sys4(NR_rt_sigaction, 10, BAD, 0, 8));
	show("rt_sigaction signal 0", sys4(NR_rt_sigaction, 0, act, 0, 8));
	unsigned long set = 1ul << (10 - 1), oset = 7;
	show("rt_sigprocmask block SIGUSR1", sys4(NR_rt_sigprocmask, 0, &set, 0, 8));
	show("rt_sigprocmask read", sys4(NR_rt_sigprocmask, 0, 0, &oset, 8));
	printf("%-40s %lx\n", "rt_sigprocmask mask", oset);
	show("rt_sigprocmask bad how", sys4(NR_rt_sigprocmask, 7, &set, 0, 8));
	show("rt_sigprocmask bad set", sys4(NR_rt_sigprocmask, 0, BAD, 0, 8));
	sys4(NR_rt_sigprocmask, 2, &oset, 0, 8);
	unsigned long lim[2];
	show("prlimit64 RLIMIT_NOFILE", sys4(NR_prlimit64, 0, 7, 0, lim));
	show("prlimit64 RLIMIT_STACK", sys4(NR_prlimit64, 0, 3, 0, lim));
	show("prlimit64 resource 99", sys4(NR_prlimit64, 0, 99, 0, lim));
	show("prlimit64 bad old", sys4(NR_prlimit64, 0, 7, 0, BAD));
	struct l_timespec ts = { 0, 1000000 }, bad = { 0, 2000000000 };
	show("nanosleep 1 ms", sys2(NR_nanosleep, &ts, 0));
	show("nanosleep bad nsec", sys2(NR_nanosleep, &bad, 0));
	show("clock_gettime MONOTONIC", sys2(NR_clock_gettime, 1, &ts));
	show("clock_gettime bad clock", sys2(NR_clock_gettime, 99, &ts));
	show("clock_gettime bad pointer", sys2(NR_clock_gettime, 1, BAD));
	show("getcwd too small", sys2(NR_getcwd, buf, 1));
	show("getcwd bad buffer", sys2(NR_getcwd, BAD, 64));
	show("ioctl on fd 99", sys3(NR_ioctl, 99, 0x5401, buf));
	show("unknown syscall 999", sys0(999));
}

/* escape tries to leave the root; each line shows what the guest got. */
static void escape(void)
{
	char buf[64];
	const char *paths[] = { "inside.txt", "../inside.txt", "../../../../inside.txt", "/inside.txt",
				"/../../inside.txt", "up/inside.txt", "up/up/secret.txt", "../secret.txt",
				"/etc/passwd", "../../../../../etc/passwd", "abs/passwd", "up/../../secret.txt" };
	for (unsigned i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		long fd = sys4(NR_openat, L_AT_FDCWD, paths[i], L_O_RDONLY, 0);
		char what[64];
		snprintf(what, sizeof what, "open %s", paths[i]);
		if (fd < 0) {
			show(what, fd);
			continue;
		}
		memset(buf, 0, sizeof buf);
		long r = sys3(NR_read, fd, buf, sizeof buf - 1);
		sys1(NR_close, fd);
		if (r > 0 && buf[r - 1] == '\n')
			buf[r - 1] = 0;
		printf("%-40s %s\n", what, buf);
	}
	struct l_stat st;
	show("newfstatat ../../secret.txt", sys4(NR_newfstatat, L_AT_FDCWD, "../../secret.txt", &st, 0));
	show("newfstatat up (nofollow)", sys4(NR_newfstatat, L_AT_FDCWD, "up", &st, L_AT_SYMLINK_NOFOLLOW));
	show("mkdirat ../made", sys3(NR_mkdirat, L_AT_FDCWD, "../made", 0755));
	show("unlinkat ../secret.txt", sys3(NR_unlinkat, L_AT_FDCWD, "../secret.txt", 0));
	show("unlinkat up/up/secret.txt", sys3(NR_unlinkat, L_AT_FDCWD, "up/up/secret.txt", 0));
	show("renameat2 inside.txt -> ../../moved", sys5(NR_renameat2, L_AT_FDCWD, "inside.txt", L_AT_FDCWD, "../../moved", 0));
	show("renameat2 moved back", sys5(NR_renameat2, L_AT_FDCWD, "/moved", L_AT_FDCWD, "inside.txt", 0));
	long fd = sys4(NR_openat, L_AT_FDCWD, "up/up/new.txt", L_O_WRONLY | L_O_CREAT, 0644);
	okay("openat O_CREAT up/up/new.txt", fd);
	sys1(NR_close, fd);
	show("unlinkat /new.txt", sys3(NR_unlinkat, L_AT_FDCWD, "/new.txt", 0));
	show("unlinkat /made", sys3(NR_unlinkat, L_AT_FDCWD, "/made", L_AT_REMOVEDIR));
	long d = sys4(NR_openat, L_AT_FDCWD, "..", L_O_RDONLY | L_O_DIRECTORY, 0);
	list(d, "getdents64 ..");
	long u = sys4(NR_openat, d, "up/..", L_O_RDONLY | L_O_DIRECTORY, 0);
	list(u, "getdents64 up/.. from ..");
	show("getcwd", sys2(NR_getcwd, buf, sizeof buf));
	printf("%-40s %s\n", "getcwd gives", buf);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		printf("usage: sysabi DIR | sysabi --escape\n");
		return 2;
	}
	if (strcmp(argv[1], "--escape") == 0) {
		escape();
	} else {
		files(argv[1]);
		memory();
		process();
	}
	printf("done\n");
	return 0;
}
