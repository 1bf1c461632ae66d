/* linux.h: raw Linux system calls for guests that work with files and
   memory (RV64 numbering, asm-generic/unistd.h).

   picolibc's stdio has no file support on this target, so guests that
   open, read and write files call the kernel directly through sys6():
   the result is the kernel's, a value or -errno (-4095..-1), with no
   errno variable involved.  The structures are the RV64 kernel's.
   The same source runs under rvdyn and qemu-riscv64. */
#ifndef RT_LINUX_H
#define RT_LINUX_H

#include <stdint.h>

#define NR_getcwd 17
#define NR_dup 23
#define NR_dup3 24
#define NR_fcntl 25
#define NR_ioctl 29
#define NR_mkdirat 34
#define NR_unlinkat 35
#define NR_ftruncate 46
#define NR_faccessat 48
#define NR_openat 56
#define NR_close 57
#define NR_getdents64 61
#define NR_lseek 62
#define NR_read 63
#define NR_write 64
#define NR_readv 65
#define NR_writev 66
#define NR_pread64 67
#define NR_pwrite64 68
#define NR_newfstatat 79
#define NR_fstat 80
#define NR_nanosleep 101
#define NR_clock_gettime 113
#define NR_rt_sigaction 134
#define NR_rt_sigprocmask 135
#define NR_uname 160
#define NR_getpid 172
#define NR_getuid 174
#define NR_geteuid 175
#define NR_getgid 176
#define NR_getegid 177
#define NR_munmap 215
#define NR_mremap 216
#define NR_mmap 222
#define NR_mprotect 226
#define NR_prlimit64 261
#define NR_renameat2 276
#define NR_getrandom 278

#define L_AT_FDCWD (-100)
#define L_AT_REMOVEDIR 0x200
#define L_AT_SYMLINK_NOFOLLOW 0x100
#define L_O_RDONLY 0
#define L_O_WRONLY 1
#define L_O_RDWR 2
#define L_O_CREAT 0100
#define L_O_EXCL 0200
#define L_O_TRUNC 01000
#define L_O_APPEND 02000
#define L_O_DIRECTORY 0200000
#define L_SEEK_SET 0
#define L_SEEK_CUR 1
#define L_SEEK_END 2
#define L_PROT_READ 1
#define L_PROT_WRITE 2
#define L_MAP_PRIVATE 2
#define L_MAP_ANONYMOUS 0x20
#define L_MREMAP_MAYMOVE 1
#define L_S_IFMT 0170000
#define L_S_IFREG 0100000
#define L_S_IFDIR 0040000

struct l_iovec {
	void *base;
	unsigned long len;
};

struct l_timespec {
	long sec;
	long nsec;
};

/* struct stat of RV64 Linux (asm-generic), 128 bytes. */
struct l_stat {
	unsigned long dev, ino;
	unsigned int mode, nlink, uid, gid;
	unsigned long rdev, pad1;
	long size;
	int blksize, pad2;
	long blocks;
	long atime, atime_nsec, mtime, mtime_nsec, ctime, ctime_nsec;
	unsigned int unused[2];
};

struct l_dirent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

struct l_utsname {
	char sysname[65], nodename[65], release[65], version[65], machine[65], domainname[65];
};

static inline long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long a0 __asm__("a0") = a;
	register long a1 __asm__("a1") = b;
	register long a2 __asm__("a2") = c;
	register long a3 __asm__("a3") = d;
	register long a4 __asm__("a4") = e;
	register long a5 __asm__("a5") = f;
	register long a7 __asm__("a7") = n;
	__asm__ volatile("ecall"
			 : "+r"(a0)
			 : "r"(a1), "r"(a2), "r"(a3), "r"(a4), "r"(a5), "r"(a7)
			 : "memory");
	return a0;
}

#define sys0(n) sys6(n, 0, 0, 0, 0, 0, 0)
#define sys1(n, a) sys6(n, (long)(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b) sys6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define sys3(n, a, b, c) sys6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sys4(n, a, b, c, d) sys6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)
#define sys5(n, a, b, c, d, e) sys6(n, (long)(a), (long)(b), (long)(c), (long)(d), (long)(e), 0)

#endif
