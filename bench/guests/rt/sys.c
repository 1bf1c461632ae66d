/* sys.c: the system-call shim between picolibc and Linux (RV64, user mode).

   picolibc is built for bare metal; this file gives it what it needs from
   an operating system, using only these Linux system calls (ecall with the
   number in a7, arguments in a0..a5, result or -errno in a0):
     exit (93), write (64), read (63), brk (214), clock_gettime (113).
   Provided here:
     _exit         flush stdout/stderr, then exit(93).  Every way out of a
                   program goes through it: main returning (crt0 calls
                   exit), exit() (picolibc: atexit handlers, destructors,
                   then _exit) and abort()/assert() (raise -> kill below).
     getpid, kill  just enough for raise(): kill exits with 128 + signal.
     write, read   plain system calls, errno set on failure.
     sbrk          on top of brk (in 64 KiB steps); picolibc's malloc grows
                   the heap with it.
     clock_gettime picolibc's CLOCK_* ids mapped to Linux's (they differ).
     stdin, stdout, stderr
                   picolibc tiny-stdio FILEs (FDEV_SETUP_STREAM).  Output is
                   buffered: a write system call when the buffer is full, on
                   fflush() and at exit; stderr is also flushed at '\n' so
                   that diagnostics appear promptly.  stdin is buffered too.
   Everything is plain RV64IM code (no floating point, no compressed
   instructions).  */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>

#define SYS_read 63
#define SYS_write 64
#define SYS_exit 93
#define SYS_clock_gettime 113
#define SYS_brk 214

static inline long syscall3(long n, long a, long b, long c)
{
	register long a0 __asm__("a0") = a;
	register long a1 __asm__("a1") = b;
	register long a2 __asm__("a2") = c;
	register long a7 __asm__("a7") = n;
	__asm__ volatile("ecall"
			 : "+r"(a0)
			 : "r"(a1), "r"(a2), "r"(a7)
			 : "memory");
	return a0;
}

/* Linux returns -errno (-4095..-1) on failure.  */
static long check(long r)
{
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

ssize_t write(int fd, const void *buf, size_t n)
{
	return check(syscall3(SYS_write, fd, (long)buf, (long)n));
}

ssize_t read(int fd, void *buf, size_t n)
{
	return check(syscall3(SYS_read, fd, (long)buf, (long)n));
}

/* picolibc numbers its clocks differently from Linux (and its <time.h>
   declares clock_gettime only for POSIX-timer targets, so a program
   declares it itself).  Translate picolibc's ids to Linux's. */
int clock_gettime(clockid_t id, struct timespec *ts)
{
	static const signed char linux_id[] = {
		5, /* 0 CLOCK_REALTIME_COARSE */
		0, /* 1 CLOCK_REALTIME */
		2, /* 2 CLOCK_PROCESS_CPUTIME_ID */
		3, /* 3 CLOCK_THREAD_CPUTIME_ID */
		1, /* 4 CLOCK_MONOTONIC */
		4, /* 5 CLOCK_MONOTONIC_RAW */
		6, /* 6 CLOCK_MONOTONIC_COARSE */
		7, /* 7 CLOCK_BOOTTIME */
	};
	if ((unsigned long)id >= sizeof linux_id) {
		errno = EINVAL;
		return -1;
	}
	/* picolibc's struct timespec (64-bit time_t, long tv_nsec) has the
	   layout of the RV64 Linux one. */
	return (int)check(syscall3(SYS_clock_gettime, linux_id[id], (long)ts, 0));
}

/* ---- heap ---- */

/* picolibc's malloc asks sbrk for every small block while its free list
   is empty; one brk system call each would be slow.  So the kernel's break
   (sys_brk) moves in steps of BRK_STEP, and sbrk hands out memory below it
   (cur_brk is the break the program sees).  The heap never shrinks. */
#define BRK_STEP 65536

static uintptr_t cur_brk; /* 0 until the first call */
static uintptr_t sys_brk;

void *sbrk(ptrdiff_t incr)
{
	if (cur_brk == 0) {
		sys_brk = (uintptr_t)syscall3(SYS_brk, 0, 0, 0);
		/* Keep the break 16-byte aligned (malloc rounds sizes up). */
		cur_brk = (sys_brk + 15) & ~(uintptr_t)15;
	}
	uintptr_t old = cur_brk;
	uintptr_t want = old + (uintptr_t)incr;
	if ((incr > 0 && want < old) || (incr < 0 && want > old)) {
		errno = ENOMEM;
		return (void *)-1;
	}
	if (want > sys_brk) {
		/* brk returns the new break, or the old one when it cannot
		   move.  Try a whole step first, then just what is needed. */
		uintptr_t step = (want + BRK_STEP - 1) & ~(uintptr_t)(BRK_STEP - 1);
		uintptr_t got = (uintptr_t)syscall3(SYS_brk, (long)step, 0, 0);
		if (got < want)
			got = (uintptr_t)syscall3(SYS_brk, (long)want, 0, 0);
		if (got < want) {
			errno = ENOMEM;
			return (void *)-1;
		}
		sys_brk = got;
	}
	cur_brk = want;
	return (void *)old;
}

/* ---- stdio ---- */

struct outbuf {
	int fd;
	int len;
	char data[4096];
};

static struct outbuf out_buf = { 1, 0, { 0 } };
static struct outbuf err_buf = { 2, 0, { 0 } };

static int drain(struct outbuf *b)
{
	int off = 0;
	int ok = 1;
	while (off < b->len) {
		long r = syscall3(SYS_write, b->fd, (long)(b->data + off),
				  b->len - off);
		if (r == -4 /* EINTR */)
			continue;
		if (r <= 0) {
			ok = 0;
			break;
		}
		off += (int)r;
	}
	b->len = 0;
	return ok ? 0 : EOF;
}

static int out_put(char c, FILE *f)
{
	(void)f;
	out_buf.data[out_buf.len++] = c;
	if (out_buf.len == (int)sizeof out_buf.data)
		return drain(&out_buf) == 0 ? (unsigned char)c : EOF;
	return (unsigned char)c;
}

static int out_flush(FILE *f)
{
	(void)f;
	return drain(&out_buf);
}

static int err_put(char c, FILE *f)
{
	(void)f;
	err_buf.data[err_buf.len++] = c;
	if (c == '\n' || err_buf.len == (int)sizeof err_buf.data)
		return drain(&err_buf) == 0 ? (unsigned char)c : EOF;
	return (unsigned char)c;
}

static int err_flush(FILE *f)
{
	(void)f;
	return drain(&err_buf);
}

static struct {
	int pos;
	int len;
	char data[1024];
} in_buf;

static int in_get(FILE *f)
{
	(void)f;
	if (in_buf.pos == in_buf.len) {
		/* Output written so far should be visible before we block.  */
		drain(&out_buf);
		drain(&err_buf);
		long r = syscall3(SYS_read, 0, (long)in_buf.data,
				  sizeof in_buf.data);
		if (r <= 0) {
			in_buf.pos = in_buf.len = 0;
			return r == 0 ? _FDEV_EOF : _FDEV_ERR;
		}
		in_buf.pos = 0;
		in_buf.len = (int)r;
	}
	return (unsigned char)in_buf.data[in_buf.pos++];
}

static FILE guest_stdin = FDEV_SETUP_STREAM(NULL, in_get, NULL, _FDEV_SETUP_READ);
static FILE guest_stdout = FDEV_SETUP_STREAM(out_put, NULL, out_flush, _FDEV_SETUP_WRITE);
static FILE guest_stderr = FDEV_SETUP_STREAM(err_put, NULL, err_flush, _FDEV_SETUP_WRITE);

FILE *const stdin = &guest_stdin;
FILE *const stdout = &guest_stdout;
FILE *const stderr = &guest_stderr;

/* ---- exit ---- */

void _exit(int status)
{
	drain(&out_buf);
	drain(&err_buf);
	for (;;)
		syscall3(SYS_exit, status, 0, 0);
}

/* picolibc's raise() (and so abort() and assert()) ends in
   kill(getpid(), sig) for signals without a handler.  There is no kill
   system call here: the process exits with status 128 + sig, which is what
   a shell reports for a process killed by that signal. */
pid_t getpid(void)
{
	return 1;
}

int kill(pid_t pid, int sig)
{
	(void)pid;
	_exit(128 + sig);
}
