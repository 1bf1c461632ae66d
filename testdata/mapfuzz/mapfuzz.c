/* mapfuzz: runs a program of memory operations on an arena of pages and
   prints what each one did, for the differential tests of mappings and
   protection (mapfuzz_test.go): rvdyn in every mode must print what
   qemu-riscv64 prints, and die of the same signal at the same operation.

   Usage: mapfuzz [-q] HEX, where HEX is the program: four bytes per operation
   (kind, a, b, c), each as two hex digits. The arena is NPAGES pages
   mapped read-write at start, followed by a PROT_NONE guard of GUARD
   pages that no operation touches. An operation works on n = b%4+1 pages
   from page a%NPAGES, cut at the arena's end:

     kind%13 operation
     0       mmap MAP_FIXED|MAP_PRIVATE|MAP_ANONYMOUS, prot c%8
     1       munmap
     2       mprotect, prot c%8
     3       mremap in place to c%4+1 pages (flags 0)
     4       mremap MREMAP_MAYMOVE|MREMAP_FIXED to page c%NPAGES
     5       store byte c+k at every 64th byte k of the range, in a loop
     6       load every 64th byte of the range, in a loop, and print the sum
     7       memset the range to c
     8       write a function returning c+pg at the start of page pg
             (addi a0, zero, c+pg; ret), then __builtin___clear_cache
     9       call the function at the start of page pg 100 times, in a
             loop, and print the sum
     10      mmap MAP_FIXED of the file, MAP_SHARED if c&8 else
             MAP_PRIVATE, prot c%8, from page (c>>4)%4 of the file
     11      ftruncate the file to (c%10)*2048 bytes
     12      read the whole file (pread) and print its size and checksum

   The file is $TMPDIR/mapfuzz.file (/tmp/mapfuzz.PID without $TMPDIR),
   unlinked once open, FILE_BYTES long at start (four pages and a part),
   byte k holding k%251. A view's pages wholly past the file's end are
   SIGBUS (exit 135).

   A call is skipped unless the page holds what a function write (8) or
   a fresh mapping (zeros: an illegal instruction) left there, by the
   model below: bytes that stores or memset left could be any code, a
   loop with no end among them. Calls into unmapped and non-executable
   pages run, and fault.

   With -q the program skips (prints "skipped" for) what qemu-riscv64
   7.2, or the Linux version under it, answers otherwise than the Linux
   rvdyn follows. It keeps its own model of the arena to know (prot: each
   page's protection, -1 unmapped):
   - growing in place (3): Linux fails with EFAULT when the old range is
     more than one vma, and which same-protection neighbours Linux merges
     into one vma depends on its anon_vma bookkeeping, not modelled here;
     qemu 7.2 also looks at the pages to grow into first, and fails with
     ENOMEM where Linux says EFAULT;
   - shrinking or keeping the size in place (3) of a range whose kept
     pages are not all mapped with one protection: Linux leaves them as
     they are, qemu 7.2 gives them all the first page's protection (an
     executable page behind a writable one stops being executable);
   - a move (4): as growing, and Linux 6.17 and later move several vmas
     and the gaps between them where earlier kernels fail with EFAULT;
   - mprotect (2) over an unmapped page: Linux changes the pages before
     it, then fails with ENOMEM; qemu 7.2 fails without changing its own
     page flags, and the host's may then disagree with them;
   - a store or memset (5, 7) over a mapped page without PROT_WRITE:
     qemu 7.2 retries the faulting store for ever once the page was
     writable before;
   - a load (6) from an execute-only page (prot 4): RISC-V Linux faults
     (such a page is not readable there), qemu reads it, as its x86 host
     maps it readable.
   Without -q everything runs: the tests compare rvdyn's modes on that.

   Each line is written before the operation it names runs to its end
   (stdout unbuffered), so a fault leaves the output up to the faulting
   operation. Addresses are printed as page numbers in the arena, never
   as addresses, which differ between emulators. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PG 4096L
#define NPAGES 16
#define GUARD 16
#define FILE_BYTES (4 * PG + 100)

static char *arena;
static int fd; /* the file of kinds 10 to 12 */
static int prot[NPAGES]; /* the model: each page's protection, -1 unmapped */
/* and what each page holds: 'z' zeros, 'c' a function (8), 'd' data */
static char content[NPAGES];
static int qemu;         /* -q: skip what qemu-riscv64 answers otherwise */

static void setprot(int pg, int n, int p) {
  for (int i = pg; i < pg + n; i++) prot[i] = p;
}

static void setcontent(int pg, int n, char c) {
  for (int i = pg; i < pg + n; i++) content[i] = c;
}

/* The function a write (8) puts at the start of a page. */
typedef long (*fn)(void);

/* mapped reports whether pages [pg, pg+n) are all mapped. */
static int mapped(int pg, int n) {
  for (int i = pg; i < pg + n; i++)
    if (prot[i] < 0) return 0;
  return 1;
}

/* readonly reports whether one of pages [pg, pg+n) is mapped without
   PROT_WRITE. */
static int readonly(int pg, int n) {
  for (int i = pg; i < pg + n; i++)
    if (prot[i] >= 0 && !(prot[i] & PROT_WRITE)) return 1;
  return 0;
}

/* skip prints that an operation is skipped under -q when bad holds. */
static int skip(int bad) {
  if (qemu && bad) {
    printf(" skipped\n");
    return 1;
  }
  return 0;
}

/* uniform reports whether pages [pg, pg+n) are mapped with one
   protection. */
static int uniform(int pg, int n) {
  for (int i = pg; i < pg + n; i++)
    if (prot[i] < 0 || prot[i] != prot[pg]) return 0;
  return 1;
}

/* execonly reports whether one of pages [pg, pg+n) is execute-only. */
static int execonly(int pg, int n) {
  for (int i = pg; i < pg + n; i++)
    if (prot[i] == PROT_EXEC) return 1;
  return 0;
}

static const char *errname(int e) {
  const char *n = strerrorname_np(e);
  return n ? n : "E?";
}

/* where prints an address mmap or mremap returned, as an arena page,
   and returns it (-1: failed or outside the arena). */
static long where(void *p) {
  if (p == MAP_FAILED) {
    printf(" %s\n", errname(errno));
    return -1;
  }
  long off = (char *)p - arena;
  if (off % PG == 0 && off >= 0 && off < (NPAGES + GUARD) * PG) {
    printf(" at page %ld\n", off / PG);
    return off / PG;
  }
  printf(" outside the arena\n");
  return -1;
}

/* rc prints the result of a call that returns 0 or -1, and returns it. */
static int rc(int r) {
  if (r == 0)
    printf(" ok\n");
  else
    printf(" %s\n", errname(errno));
  return r;
}

static int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The access loops are functions of their own, so the optimizer compiles
   one trace of each and runs it over every range the program gives. */
__attribute__((noinline)) static void store(volatile char *p, long len, int c) {
  for (long k = 0; k < len; k += 64)
    p[k] = (char)(c + k / 64);
}

__attribute__((noinline)) static long call(fn f) {
  long sum = 0;
  for (int k = 0; k < 100; k++)
    sum += f();
  return sum;
}

__attribute__((noinline)) static unsigned long load(const volatile char *p, long len) {
  unsigned long sum = 0;
  for (long k = 0; k < len; k += 64)
    sum = sum * 31 + (unsigned char)p[k];
  return sum;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc == 3 && strcmp(argv[1], "-q") == 0) {
    qemu = 1;
    argv++, argc--;
  }
  if (argc != 2) {
    fprintf(stderr, "usage: mapfuzz [-q] HEX\n");
    return 2;
  }
  arena = mmap(NULL, (NPAGES + GUARD) * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (arena == MAP_FAILED ||
      mmap(arena, NPAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != arena) {
    perror("mapfuzz: arena");
    return 2;
  }
  setprot(0, NPAGES, PROT_READ | PROT_WRITE);
  setcontent(0, NPAGES, 'z');
  /* Not mkstemp: glibc draws its names from the clock, and the run's
     instruction count would differ from run to run. */
  const char *dir = getenv("TMPDIR");
  char path[4096];
  if (dir && *dir)
    snprintf(path, sizeof path, "%s/mapfuzz.file", dir);
  else
    snprintf(path, sizeof path, "/tmp/mapfuzz.%d", (int)getpid());
  static char bytes[FILE_BYTES];
  for (int k = 0; k < FILE_BYTES; k++) bytes[k] = (char)(k % 251);
  if ((fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600)) < 0 || unlink(path) != 0 ||
      write(fd, bytes, FILE_BYTES) != FILE_BYTES) {
    perror("mapfuzz: file");
    return 2;
  }
  const char *s = argv[1];
  size_t len = strlen(s);
  for (size_t i = 0; i + 8 <= len; i += 8) {
    int v[4];
    for (int j = 0; j < 4; j++) {
      int hi = hex(s[i + 2 * j]), lo = hex(s[i + 2 * j + 1]);
      if (hi < 0 || lo < 0) {
        fprintf(stderr, "mapfuzz: bad hex at %zu\n", i + 2 * j);
        return 2;
      }
      v[j] = hi * 16 + lo;
    }
    int kind = v[0] % 13, pg = v[1] % NPAGES, n = v[2] % 4 + 1, c = v[3];
    if (pg + n > NPAGES) n = NPAGES - pg;
    char *p = arena + pg * PG;
    long bytes = n * PG;
    switch (kind) {
    case 0:
      printf("mmap %d+%d prot %d:", pg, n, c % 8);
      if (where(mmap(p, bytes, c % 8, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == pg) {
        setprot(pg, n, c % 8);
        setcontent(pg, n, 'z');
      }
      break;
    case 1:
      printf("munmap %d+%d:", pg, n);
      if (rc(munmap(p, bytes)) == 0) setprot(pg, n, -1);
      break;
    case 2:
      printf("mprotect %d+%d prot %d:", pg, n, c % 8);
      if (skip(!mapped(pg, n))) break;
      if (rc(mprotect(p, bytes, c % 8)) == 0)
        setprot(pg, n, c % 8);
      else
        for (int i = pg; i < pg + n && prot[i] >= 0; i++) prot[i] = c % 8; /* Linux: up to the hole */
      break;
    case 3: {
      int m = c % 4 + 1;
      if (pg + m > NPAGES) m = NPAGES - pg;
      printf("mremap %d+%d to %d pages:", pg, n, m);
      if (skip(m > n || !uniform(pg, m))) break;
      if (where(mremap(p, bytes, m * PG, 0)) == pg) {
        if (m < n) {
          setprot(pg + m, n - m, -1);
        } else {
          setprot(pg + n, m - n, prot[pg + n - 1]);
          setcontent(pg + n, m - n, 'z');
        }
      }
      break;
    }
    case 4: {
      int to = c % NPAGES;
      if (to + n > NPAGES) to = NPAGES - n;
      printf("mremap %d+%d to page %d:", pg, n, to);
      if (skip(1)) break;
      int q[4];
      char k[4];
      for (int i = 0; i < n; i++) q[i] = prot[pg + i], k[i] = content[pg + i];
      if (where(mremap(p, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, arena + to * PG)) == to) {
        setprot(pg, n, -1);
        for (int i = 0; i < n; i++) prot[to + i] = q[i], content[to + i] = k[i];
      }
      break;
    }
    case 5:
      printf("store %d+%d:", pg, n);
      if (skip(readonly(pg, n))) break;
      setcontent(pg, n, 'd');
      store(p, bytes, c);
      printf(" ok\n");
      break;
    case 6:
      printf("load %d+%d:", pg, n);
      if (skip(execonly(pg, n))) break;
      printf(" sum %lu\n", load(p, bytes));
      break;
    case 7:
      printf("memset %d+%d:", pg, n);
      if (skip(readonly(pg, n))) break;
      setcontent(pg, n, 'd');
      memset(p, c, bytes);
      printf(" ok\n");
      break;
    case 8: {
      printf("write function %d returning %d:", pg, c + pg);
      if (skip(readonly(pg, 1))) break;
      setcontent(pg, 1, 'd'); /* a fault half way leaves anything */
      uint32_t *w = (uint32_t *)p;
      w[0] = (uint32_t)(c + pg) << 20 | 10 << 7 | 0x13; /* addi a0, zero, c+pg */
      w[1] = 0x00008067;                                /* ret */
      __builtin___clear_cache((char *)w, (char *)(w + 2));
      content[pg] = 'c';
      printf(" ok\n");
      break;
    }
    case 9:
      printf("call %d:", pg);
      if (prot[pg] >= 0 && content[pg] == 'd') {
        printf(" skipped\n");
        break;
      }
      printf(" sum %ld\n", call((fn)p));
      break;
    case 10: {
      int shared = c & 8, off = (c >> 4) % 4;
      printf("mmap %d+%d prot %d %s file page %d:", pg, n, c % 8, shared ? "shared" : "private", off);
      if (where(mmap(p, bytes, c % 8, (shared ? MAP_SHARED : MAP_PRIVATE) | MAP_FIXED, fd, off * PG)) == pg) {
        setprot(pg, n, c % 8);
        setcontent(pg, n, 'd');
      }
      break;
    }
    case 11:
      printf("ftruncate %d:", (c % 10) * 2048);
      rc(ftruncate(fd, (c % 10) * 2048));
      break;
    case 12: {
      static unsigned char buf[8 * PG];
      long got = pread(fd, buf, sizeof buf, 0);
      unsigned long sum = 0;
      for (long k = 0; k < got; k++) sum = sum * 31 + buf[k];
      printf("file: %ld bytes, sum %lu\n", got, sum);
      break;
    }
    }
  }
  printf("done\n");
  return 0;
}
