/* main.c: the command line and the benchmark driver of the Scheme guest.

     scheme [options] [PROGRAM [SIZE]]

   PROGRAM is a built-in benchmark (programs/NAME.scm, embedded by
   embed.S), `all` (the default: every benchmark, by name), `list` (print
   the names) or `-` (evaluate a program read from stdin).  SIZE is small,
   train, test or a positive integer; default test for one program, train
   for all.  Options: -gc-every N, -gc-interval KB, -poison, -heap MB,
   -gc-stats.

   For each benchmark the driver evaluates its source in the global
   environment, then (bench-main "NAME" "SIZE") from prelude.scm, which
   runs it, prints one line and exits 1 if its self-check fails.

   Exit status: 0 ok, 1 a self-check failed, 2 bad command line, 3 a
   Scheme error, 4 heap corruption (a collector bug). */
#include <stdlib.h>
#include <string.h>

#include "scheme.h"

extern const char scheme_prelude[];
extern const char scheme_programs[];

/* The C stack the evaluator may use: the guest's stack is 8 MiB.  */
#define STACK_BUDGET ((uintptr_t)6 << 20)

#define MAX_PROGRAMS 64

static const char *names[MAX_PROGRAMS];
static const char *sources[MAX_PROGRAMS];
static int nprograms;
static int show_stats;

static _Noreturn void usage(const char *msg, const char *arg)
{
	fprintf(stderr, "scheme: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	fprintf(stderr, "usage: scheme [-gc-every N] [-gc-interval KB] [-poison] [-heap MB] [-gc-stats] [PROGRAM|all|list|- [small|train|test|N]]\n");
	exit(2);
}

static int positive(const char *s, int64_t *out)
{
	int64_t v;
	if (parse_integer((const unsigned char *)s, strlen(s), 10, &v) <= 0 ||
	    v <= 0 || s[0] == '+' || s[0] == '-')
		return 0;
	*out = v;
	return 1;
}

/* Splits the embedded table and sorts it by name.  */
static void find_programs(void)
{
	const char *p = scheme_programs;
	while (*p != 0) {
		if (nprograms == MAX_PROGRAMS)
			usage("too many built-in programs", NULL);
		names[nprograms] = p;
		p += strlen(p) + 1;
		sources[nprograms] = p;
		p += strlen(p) + 1;
		nprograms++;
	}
	for (int i = 1; i < nprograms; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			const char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
			t = sources[j];
			sources[j] = sources[j - 1];
			sources[j - 1] = t;
		}
}

static void load_string(const char *text)
{
	load_text((const unsigned char *)text, strlen(text));
}

static void run_stdin(void)
{
	size_t cap = 1 << 16, len = 0;
	unsigned char *buf = malloc(cap);
	for (;;) {
		if (buf == NULL)
			scheme_fatal("out of memory");
		size_t n = fread(buf + len, 1, cap - len, stdin);
		len += n;
		if (n == 0)
			break;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
	}
	load_text(buf, len);
	free(buf);
}

/* (bench-main "NAME" "SIZE")  */
static void bench(const char *name, const char *size)
{
	value_t form = NIL, x = 0;
	GC_PUSH(&form);
	GC_PUSH(&x);
	x = make_string((const unsigned char *)size, strlen(size));
	form = cons(x, form);
	x = make_string((const unsigned char *)name, strlen(name));
	form = cons(x, form);
	form = cons(intern_c("bench-main"), form);
	x = compile_toplevel(form);
	eval(x, 0);
	GC_POP(2);
}

static void print_stats(void)
{
	if (show_stats)
		gc_print_stats();
}

int main(int argc, char **argv)
{
	char probe;
	stack_limit = (uintptr_t)&probe - STACK_BUDGET;

	int64_t heap_mb = 64, every = 0, interval_kb = 0;
	int i = 1;
	for (; i < argc && argv[i][0] == '-' && argv[i][1] != 0; i++) {
		const char *o = argv[i];
		if (strcmp(o, "-poison") == 0) {
			gc_poison = 1;
		} else if (strcmp(o, "-gc-stats") == 0) {
			show_stats = 1;
		} else if (strcmp(o, "-gc-every") == 0 || strcmp(o, "-heap") == 0 ||
			   strcmp(o, "-gc-interval") == 0) {
			int64_t *dst = o[1] == 'h' ? &heap_mb
				: o[4] == 'e' ? &every : &interval_kb;
			if (i + 1 == argc || !positive(argv[i + 1], dst))
				usage("option needs a positive integer", o);
			i++;
		} else {
			usage("unknown option", o);
		}
	}
	if (heap_mb > 1024)
		usage("heap too large (at most 1024 MB)", argv[i - 1]);
	gc_every = (uint64_t)every;
	gc_interval = (uint64_t)interval_kb << 10;

	find_programs();
	const char *program = i < argc ? argv[i++] : "all";
	int all = strcmp(program, "all") == 0;
	const char *size = i < argc ? argv[i++] : all ? "train" : "test";
	if (i < argc)
		usage("too many arguments", argv[i]);
	int64_t n;
	if (strcmp(size, "small") != 0 && strcmp(size, "train") != 0 &&
	    strcmp(size, "test") != 0 && !positive(size, &n))
		usage("bad size", size);

	if (strcmp(program, "list") == 0) {
		for (int k = 0; k < nprograms; k++)
			printf("%s\n", names[k]);
		return 0;
	}
	int selected = -1;
	if (!all && strcmp(program, "-") != 0) {
		for (int k = 0; k < nprograms; k++)
			if (strcmp(names[k], program) == 0)
				selected = k;
		if (selected < 0)
			usage("unknown program", program);
	}

	atexit(print_stats);
	heap_init((uint64_t)heap_mb << 20);
	objects_init();
	eval_init();
	prims_init();
	load_string(scheme_prelude);

	if (strcmp(program, "-") == 0) {
		run_stdin();
		return 0;
	}
	for (int k = 0; k < nprograms; k++) {
		if (!all && k != selected)
			continue;
		load_string(sources[k]);
		bench(names[k], size);
	}
	if (all)
		printf("all %d programs ok\n", nprograms);
	return 0;
}
