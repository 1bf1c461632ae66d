/* How mmap, mprotect, munmap, mremap and msync behave, one line per call:
   "ok", an errno name, or where a fixed mapping landed as an offset from
   a reference mapping (never an address, which differs between
   emulators), followed by what the memory holds afterwards.

   Only behaviour that qemu-riscv64 (7.2) reproduces is checked. Left out
   because qemu differs from Linux:
   - MAP_FIXED_NOREPLACE over an existing mapping: Linux fails with
     EEXIST, qemu 7.2 treats the flag as a hint and maps elsewhere. Both
     leave the existing mapping alone, which is what is checked.
   - mprotect of length 0: Linux returns 0, qemu 7.2 ENOMEM.
   - mremap to size 0: Linux fails with EINVAL, qemu 7.2 with ENOMEM.
   - PROT_GROWSDOWN and the stack's guard gap: qemu's stack is a plain
     mapping. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define PG 4096L

static char *ref; /* the reference mapping, see main */

static const char *errname(int e) {
  const char *n = strerrorname_np(e);
  return n ? n : "E?";
}

/* rc reports a call that returns 0 or -1. */
static void rc(const char *what, long r) {
  if (r == 0) printf("%-44s ok\n", what);
  else if (r == -1) printf("%-44s %s\n", what, errname(errno));
  else printf("%-44s returned %ld\n", what, r);
}

/* mapped reports an mmap or mremap whose address is chosen by the kernel. */
static char *mapped(const char *what, void *p) {
  if (p == MAP_FAILED) printf("%-44s %s\n", what, errname(errno));
  else printf("%-44s ok\n", what);
  return p;
}

/* placed reports an mmap or mremap at a fixed address, relative to ref. */
static char *placed(const char *what, void *p) {
  if (p == MAP_FAILED) printf("%-44s %s\n", what, errname(errno));
  else printf("%-44s at ref%+ld\n", what, (long)((char *)p - ref));
  return p;
}

/* pages prints the first byte of each of n pages at p as a character,
   '0' for a zero byte. */
static void pages(const char *what, const char *p, int n) {
  printf("%-44s ", what);
  for (int i = 0; i < n; i++) putchar(p[i * PG] ? p[i * PG] : '0');
  putchar('\n');
}

static void fill(char *p, int n, char first) {
  for (int i = 0; i < n; i++) memset(p + i * PG, first + i, PG);
}

static int all(const char *p, long n, char c) {
  for (long i = 0; i < n; i++)
    if (p[i] != c) return 0;
  return 1;
}

static void yesno(const char *what, int v) { printf("%-44s %s\n", what, v ? "yes" : "no"); }

/* noreplace maps n bytes at p, which overlap a mapping, with
   MAP_FIXED_NOREPLACE, and reports whether the mapping there survived
   (see the top of the file for why the call's result is not printed). */
static void noreplace(const char *what, char *p, long n) {
  char before = *p;
  char *q = mmap(p, n, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  yesno(what, q != p && *p == before);
  if (q != MAP_FAILED && q != p) munmap(q, n);
}

static void anonymous(void) {
  printf("-- anonymous mappings\n");
  /* The reference: 16 pages reserved once; the fixed mappings below
     land inside it, so their offsets are the same everywhere. */
  ref = mapped("mmap 16 pages rw", mmap(NULL, 16 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (ref == MAP_FAILED) exit(1);
  yesno("fresh pages read zero", all(ref, 16 * PG, 0));
  fill(ref, 4, 'A');
  pages("pages 0-3 filled", ref, 4);

  placed("MAP_FIXED over page 1", mmap(ref + PG, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
  pages("pages 0-3 now", ref, 4);
  noreplace("NOREPLACE over page 2: it is intact", ref + 2 * PG, PG);
  rc("munmap pages 4-5", munmap(ref + 4 * PG, 2 * PG));
  noreplace("NOREPLACE over pages 3-4: 3 is intact", ref + 3 * PG, 2 * PG);
  char *p = placed("MAP_FIXED_NOREPLACE on pages 4-5", mmap(ref + 4 * PG, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0));
  if (p != MAP_FAILED) {
    yesno("it reads zero", all(p, 2 * PG, 0));
    p[0] = 'E';
  }
  pages("pages 0-5 now", ref, 6);

  char *h = mmap(ref, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  yesno("a hint at a mapped address is not taken", h != MAP_FAILED && h != ref);
  if (h != MAP_FAILED) munmap(h, PG);

  /* mprotect splits a mapping; the rest keeps its protection. */
  rc("mprotect page 1 read-only", mprotect(ref + PG, PG, PROT_READ));
  ref[0] = 'a';
  ref[2 * PG] = 'c';
  pages("pages 0-2 after stores around it", ref, 3);
  rc("mprotect page 1 none", mprotect(ref + PG, PG, PROT_NONE));
  rc("mprotect page 1 rw again", mprotect(ref + PG, PG, PROT_READ | PROT_WRITE));
  ref[PG] = 'b';
  pages("pages 0-2 now", ref, 3);

  /* MADV_DONTNEED drops a private page: anonymous memory reads zero
     again, a file page its file's contents (see ownfile). */
  rc("madvise page 2 MADV_DONTNEED", madvise(ref + 2 * PG, PG, MADV_DONTNEED));
  pages("pages 0-2 now", ref, 3);

  char *n = mapped("mmap PROT_NONE", mmap(NULL, 2 * PG, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  rc("mprotect it rw", mprotect(n, 2 * PG, PROT_READ | PROT_WRITE));
  n[PG + 5] = 'z';
  yesno("store to it kept", n[PG + 5] == 'z' && n[0] == 0);
  rc("munmap it", munmap(n, 2 * PG));
}

static void errors(const char *self) {
  printf("-- bad arguments\n");
  int ro = open(self, O_RDONLY);
  mapped("mmap length 0", mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  mapped("mmap MAP_FIXED unaligned", mmap(ref + 8 * PG + 100, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0));
  mapped("mmap file offset unaligned", mmap(NULL, PG, PROT_READ, MAP_PRIVATE, ro, 100));
  mapped("mmap fd -1 without MAP_ANONYMOUS", mmap(NULL, PG, PROT_READ, MAP_PRIVATE, -1, 0));
  mapped("mmap closed fd", mmap(NULL, PG, PROT_READ, MAP_PRIVATE, 1000, 0));
  mapped("mmap neither private nor shared", mmap(NULL, PG, PROT_READ, MAP_ANONYMOUS, -1, 0));
  mapped("mmap shared writable, fd read-only", mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0));
  char *pw = mapped("mmap private writable, fd read-only", mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, ro, 0));
  if (pw != MAP_FAILED) munmap(pw, PG);
  int dir = open("/", O_RDONLY | O_DIRECTORY);
  mapped("mmap a directory", mmap(NULL, PG, PROT_READ, MAP_PRIVATE, dir, 0));
  close(dir);
  mapped("mmap 2^62 bytes", mmap(NULL, 1L << 62, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  close(ro);

  rc("mprotect unaligned", mprotect(ref + 100, PG, PROT_READ | PROT_WRITE));
  rc("munmap pages 8-9", munmap(ref + 8 * PG, 2 * PG));
  rc("munmap them again", munmap(ref + 8 * PG, 2 * PG));
  rc("mprotect unmapped pages 8-9", mprotect(ref + 8 * PG, 2 * PG, PROT_READ));
  rc("mprotect pages 7-8, half unmapped", mprotect(ref + 7 * PG, 2 * PG, PROT_READ));
  rc("munmap unaligned", munmap(ref + 100, PG));
  rc("munmap length 0", munmap(ref, 0));
  rc("msync unaligned", msync(ref + 100, PG, MS_SYNC));
  rc("msync unmapped", msync(ref + 8 * PG, PG, MS_SYNC));
}

/* ownfile maps the program's own ELF file, read through argv[0]. */
static void ownfile(const char *self) {
  printf("-- private file mappings of the program itself\n");
  int fd = open(self, O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 2 * PG) {
    printf("cannot open %s\n", self);
    return;
  }
  static char buf[PG];
  char *m0 = mapped("mmap offset 0, 1 page", mmap(NULL, PG, PROT_READ, MAP_PRIVATE, fd, 0));
  if (m0 != MAP_FAILED) {
    yesno("starts with \\x7fELF", memcmp(m0, "\177ELF", 4) == 0);
    yesno("same bytes as pread", pread(fd, buf, PG, 0) == PG && memcmp(m0, buf, PG) == 0);
  }
  char *m1 = mapped("mmap offset 4096, 1 page", mmap(NULL, PG, PROT_READ, MAP_PRIVATE, fd, PG));
  if (m1 != MAP_FAILED) yesno("same bytes as pread", pread(fd, buf, PG, PG) == PG && memcmp(m1, buf, PG) == 0);

  /* A private copy: stores stay in memory, the file is unchanged. */
  char *w = mapped("mmap offset 4096 private rw", mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, PG));
  if (w != MAP_FAILED) {
    memset(w, 0x5a, 64);
    yesno("store kept in memory", all(w, 64, 0x5a));
    yesno("file unchanged", pread(fd, buf, PG, PG) == PG && m1 != MAP_FAILED && memcmp(m1, buf, PG) == 0);
    rc("madvise MADV_DONTNEED", madvise(w, PG, MADV_DONTNEED));
    yesno("the file's bytes are back", memcmp(w, buf, PG) == 0);
    munmap(w, PG);
  }

  /* A mapping of the last, partial page: past the end of the file the
     page reads zero. */
  long last = st.st_size & ~(PG - 1), tail = st.st_size - last;
  char *e = mapped("mmap the last page", mmap(NULL, PG, PROT_READ, MAP_PRIVATE, fd, last));
  if (e != MAP_FAILED) {
    yesno("same bytes as pread up to the end", pread(fd, buf, tail, last) == tail && memcmp(e, buf, tail) == 0);
    yesno("zero past the end of the file", all(e + tail, PG - tail, 0));
    munmap(e, PG);
  }
  /* Mapping wholly past the end succeeds (touching it would be SIGBUS). */
  char *past = mapped("mmap 1 page past the end", mmap(NULL, PG, PROT_READ, MAP_PRIVATE, fd, last + 4 * PG));
  if (past != MAP_FAILED) munmap(past, PG);
  /* The whole file at a fixed place inside the reference mapping. */
  long len = (st.st_size + PG - 1) & ~(PG - 1);
  if (len <= 1024 * PG) {
    char *big = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *f = mmap(big, st.st_size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
    long off = 0, same = 1;
    for (; f != MAP_FAILED && off < st.st_size; off += PG) {
      long k = st.st_size - off < PG ? st.st_size - off : PG;
      same &= pread(fd, buf, k, off) == k && memcmp(f + off, buf, k) == 0;
    }
    yesno("whole file MAP_FIXED, same bytes as pread", f == big && same);
    munmap(big, len);
  }
  if (m0 != MAP_FAILED) munmap(m0, PG);
  if (m1 != MAP_FAILED) munmap(m1, PG);
  rc("mapping outlives close", close(fd));
}

static void shared(void) {
  printf("-- shared file mappings\n");
  /* A fixed name in $TMPDIR (the tests give each run its own): mkstemp
     draws its first name from the clock, and a rejected draw costs a
     getrandom, so the instructions retired would vary from run to run. */
  const char *dir = getenv("TMPDIR");
  char name[4096];
  snprintf(name, sizeof name, "%s/rvdyn-mmap-shared", dir && *dir ? dir : "/tmp");
  int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) {
    printf("open: %s\n", errname(errno));
    return;
  }
  rc("ftruncate 2 pages", ftruncate(fd, 2 * PG));
  char *s = mapped("mmap shared rw", mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  char *v = mapped("mmap shared ro, a second view", mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 0));
  if (s == MAP_FAILED || v == MAP_FAILED) return;
  for (int i = 0; i < 2 * PG; i++) s[i] = (char)(i * 7 + 1);
  rc("msync", msync(s, 2 * PG, MS_SYNC));
  static char buf[2 * PG];
  yesno("pread sees the stores", pread(fd, buf, 2 * PG, 0) == 2 * PG && memcmp(buf, s, 2 * PG) == 0);
  yesno("the second view sees them", memcmp(v, s, 2 * PG) == 0);
  yesno("pwrite shows in both views", pwrite(fd, "written", 7, PG + 3) == 7 && memcmp(s + PG + 3, "written", 7) == 0 && memcmp(v + PG + 3, "written", 7) == 0);
  rc("msync MS_ASYNC", msync(s, PG, MS_ASYNC));
  rc("msync MS_INVALIDATE", msync(s, PG, MS_INVALIDATE));
  rc("munmap the rw view", munmap(s, 2 * PG));
  yesno("the ro view still reads the data", v[0] == 1 && v[5] == 36);
  rc("munmap the ro view", munmap(v, 2 * PG));
  char *o = mapped("mmap shared at offset 4096", mmap(NULL, PG, PROT_READ, MAP_SHARED, fd, PG));
  if (o != MAP_FAILED) yesno("it reads the second page", memcmp(o + 3, "written", 7) == 0);
  close(fd);
  rc("unlink", unlink(name));
  if (o != MAP_FAILED) {
    yesno("mapping outlives close and unlink", memcmp(o + 3, "written", 7) == 0);
    munmap(o, PG);
  }
}

static void remap(void) {
  printf("-- mremap\n");
  char *m = mapped("mmap 2 pages", mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  fill(m, 2, 'P');
  char *g = mapped("grow to 64 pages, may move", mremap(m, 2 * PG, 64 * PG, MREMAP_MAYMOVE));
  if (g == MAP_FAILED) return;
  pages("pages 0-3", g, 4);
  yesno("new pages read zero", all(g + 2 * PG, 62 * PG, 0));
  g[63 * PG] = 'Z';
  char *s = mremap(g, 64 * PG, PG, 0);
  yesno("shrink to 1 page stays in place", s == g);
  pages("page 0", s, 1);
  rc("the rest is unmapped: mprotect", mprotect(g + PG, PG, PROT_READ));

  /* Move to a fixed place inside the reference mapping, over what was
     there. */
  fill(ref + 10 * PG, 4, 'k');
  char *t = placed("move 1 page onto ref+10 pages", mremap(s, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, ref + 10 * PG));
  pages("ref pages 10-13", ref + 10 * PG, 4);
  rc("the old place is unmapped: mprotect", mprotect(s, PG, PROT_READ));
  if (t != MAP_FAILED) {
    placed("grow it in place over unmapped ref+11", (munmap(ref + 11 * PG, PG), mremap(t, PG, 2 * PG, 0)));
    pages("ref pages 10-13", ref + 10 * PG, 4);
    mapped("grow it in place over mapped ref+12", mremap(t, 2 * PG, 3 * PG, 0));
  }
  mapped("mremap a part of a mapping, grow in place", mremap(ref + 12 * PG, PG, 2 * PG, 0));
  mapped("mremap unmapped", mremap(ref + 8 * PG, PG, 2 * PG, MREMAP_MAYMOVE));
  mapped("mremap unaligned", mremap(ref + 100, PG, 2 * PG, MREMAP_MAYMOVE));
  mapped("MREMAP_FIXED without MREMAP_MAYMOVE", mremap(ref + 12 * PG, PG, PG, MREMAP_FIXED, ref + 14 * PG));
}

/* brkheap moves the break up and down: what stays below it keeps its
   contents, and memory given back reads as zero once the break grows
   over it again. (What happens to memory above the break differs: Linux
   unmaps it, qemu-riscv64 7.2 keeps it with its contents; not read.) */
static void brkheap(void) {
  char *p = sbrk(0);
  if (sbrk(16 * PG) == (void *)-1) {
    printf("%-44s %s\n", "sbrk(+16 pages)", errname(errno));
    return;
  }
  memset(p, 'b', 16 * PG);
  rc("sbrk(-8 pages)", sbrk(-8 * PG) == (void *)-1 ? -1 : 0);
  pages("after the break moved down", p, 8);
  rc("sbrk(+8 pages)", sbrk(8 * PG) == (void *)-1 ? -1 : 0);
  pages("after it moved back up", p, 16);
  rc("sbrk(-16 pages)", sbrk(-16 * PG) == (void *)-1 ? -1 : 0);
}

int main(int argc, char **argv) {
  (void)argc;
  brkheap();
  anonymous();
  errors(argv[0]);
  ownfile(argv[0]);
  shared();
  remap();
  return 0;
}
