/* procself: the program's own /proc files.
 *
 * /proc/self/maps (lines in order and disjoint; the code, the stack, an
 * anonymous read-only mapping and a file mapping where they should be,
 * with their protections and names), what glibc's pthread_getattr_np
 * finds in it for the main thread's stack, and /proc/self/cmdline. Only
 * properties are printed: the addresses differ
 * between rvdyn, qemu-riscv64 and Linux. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct line {
	uintptr_t lo, hi;
	char perm[5];
	char name[256];
};

static struct line lines[512];
static int nlines;

static struct line *find(uintptr_t a)
{
	for (int i = 0; i < nlines; i++)
		if (a >= lines[i].lo && a < lines[i].hi)
			return &lines[i];
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argc;
	char exe[256] = {0};
	readlink("/proc/self/exe", exe, sizeof exe - 1);
	void *ro = mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FILE *tf = tmpfile();
	fputs("mapped", tf);
	fflush(tf);
	void *fm = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fileno(tf), 0);

	FILE *f = fopen("/proc/self/maps", "r");
	char buf[512];
	int ordered = 1;
	while (f && nlines < 512 && fgets(buf, sizeof buf, f)) {
		struct line *l = &lines[nlines];
		unsigned long lo, hi;
		int n = 0;
		if (sscanf(buf, "%lx-%lx %4s %*x %*x:%*x %*u %n", &lo, &hi, l->perm, &n) < 3)
			continue;
		l->lo = lo, l->hi = hi;
		strncpy(l->name, buf + n, sizeof l->name - 1);
		l->name[strcspn(l->name, "\n")] = 0;
		if (nlines > 0 && (l->lo < lines[nlines - 1].hi || l->lo >= l->hi))
			ordered = 0;
		nlines++;
	}
	printf("maps: lines %d, in order and disjoint %d\n", nlines > 4, ordered);
	struct line *code = find((uintptr_t)&main);
	printf("code: %s, named as /proc/self/exe %d\n", code ? code->perm : "none", code && strcmp(code->name, exe) == 0);
	int local;
	struct line *stack = find((uintptr_t)&local);
	printf("stack: %s %s\n", stack ? stack->perm : "none", stack ? stack->name : "");
	struct line *r = find((uintptr_t)ro);
	printf("anonymous read-only: %s, whole %d\n", r ? r->perm : "none",
	       r && r->lo <= (uintptr_t)ro && r->hi >= (uintptr_t)ro + 3 * 4096);
	struct line *fl = find((uintptr_t)fm);
	printf("file mapping: %s, named %d\n", fl ? fl->perm : "none", fl && fl->name[0] == '/');
	struct line *heap = find((uintptr_t)malloc(16));
	printf("heap: %s\n", heap ? heap->perm : "none");

	pthread_attr_t a;
	void *sa;
	size_t ss;
	pthread_getattr_np(pthread_self(), &a);
	pthread_attr_getstack(&a, &sa, &ss);
	printf("pthread_getattr_np: stack holds a local %d\n", (char *)&local >= (char *)sa && (char *)&local < (char *)sa + ss);

	f = fopen("/proc/self/cmdline", "r");
	size_t n = fread(buf, 1, sizeof buf, f);
	int same = n == strlen(argv[0]) + 1 && memcmp(buf, argv[0], n) == 0;
	printf("cmdline: argv %d\n", same);
	return 0;
}
