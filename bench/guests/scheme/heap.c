/* heap.c: the allocator (size-segregated free lists + bump pointer) and the
   guest's own collector (stop-the-world, non-moving mark-sweep), per the
   contract in heap.h.

   Allocation order: the exact free list of the size, then the bump space,
   then first fit in the large list, then a larger small block split.  A
   collection runs when the bytes allocated since the last one exceed
   max(GC_MIN_INTERVAL, live bytes after it), every N allocations under
   -gc-every N, and when allocation fails; if that does not make room, a
   Scheme error "out of memory".

   Marking uses a bounded explicit stack.  When it is full the object is
   marked but not pushed, and after the stack drains the heap is walked
   again, rescanning every marked object, until a round ends without
   overflow.  The sweep rebuilds every free list in address order,
   coalescing adjacent free and dead blocks; a free run that ends at top
   goes back to the bump space.

   Hosted (the host answered the announcement with 0): this file never
   collects; at its safepoints it makes the host calls of the hosted
   protocol instead (docs/heap-contract.md): RVDYN_HC_GC_SAFEPOINT when
   the host has set gc_control.request, RVDYN_HC_GC_TRIGGER when the
   allocation trigger fires, RVDYN_HC_GC_FULL when allocation fails, and
   RVDYN_HC_GC_LOG when the software barrier's log is full. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "heap.h"

#define GC_MIN_INTERVAL ((uint64_t)4 << 20)
#define MARK_STACK 16384
#define POISON 0xdeadbeefdeadbeefULL

value_t *gc_roots[MAX_ROOTS];
uint64_t gc_nroots;
value_t *gc_shadow[SHADOW_MAX];
uint64_t gc_shadow_top;

struct heap_desc heap_desc;
struct gc_stats gc_stats;
struct gc_control gc_control;
static value_t gc_log[GC_LOG_MAX];
uint64_t gc_every;
uint64_t gc_interval;
int gc_poison;

static uint64_t heap_start, heap_end;
static uint64_t top;
static uint64_t heads[NFREE];
static uint64_t poison_end; /* [top, poison_end) is poisoned bump space */
static uint64_t allocs_since_gc;
static int hosted; /* the host answered the announcement: it collects */

static value_t mark_stack[MARK_STACK];
static int mark_sp;
static int mark_overflow;

#define W(a) ((uint64_t *)(uintptr_t)(a))

void gc_root(value_t *addr)
{
	if (gc_nroots == MAX_ROOTS)
		scheme_fatal("too many roots");
	gc_roots[gc_nroots++] = addr;
}

void gc_shadow_overflow(void)
{
	scheme_fatal("recursion too deep");
}

#ifdef GC_DEBUG
void gc_pop_underflow(void)
{
	fprintf(stderr, "scheme: internal error: shadow stack underflow\n");
	exit(4);
}

void gc_balance_fail(uint64_t saved)
{
	fprintf(stderr, "scheme: internal error: shadow stack at %d, expected %d\n",
		(int)gc_shadow_top, (int)saved);
	exit(4);
}
#endif

static void corrupt(void)
{
	fflush(stdout);
	fprintf(stderr, "scheme: heap corruption\n");
	exit(4);
}

void heap_init(uint64_t bytes)
{
	bytes &= ~(uint64_t)7;
#ifdef __riscv
	/* Straight from the program break: memory a new break exposes is
	   already zero, while picolibc's malloc would clear all of it byte by
	   byte (hundreds of millions of instructions for a 64 MiB heap) before
	   the first form is read.  */
	void *mem = sbrk((intptr_t)bytes);
	if (mem == (void *)-1)
		mem = NULL;
#else
	void *mem = malloc(bytes);
#endif
	if (mem == NULL) {
		fprintf(stderr, "scheme: cannot get %d MiB for the heap\n",
			(int)(bytes >> 20));
		exit(2);
	}
	heap_start = ((uint64_t)(uintptr_t)mem + 7) & ~(uint64_t)7;
	heap_end = ((uint64_t)(uintptr_t)mem + bytes) & ~(uint64_t)7;
	top = poison_end = heap_start;

	heap_desc.magic = HEAP_MAGIC;
	heap_desc.version = HEAP_VERSION;
	heap_desc.heap_start = heap_start;
	heap_desc.heap_end = heap_end;
	heap_desc.top_addr = (uint64_t)(uintptr_t)&top;
	heap_desc.roots_addr = (uint64_t)(uintptr_t)gc_roots;
	heap_desc.nroots_addr = (uint64_t)(uintptr_t)&gc_nroots;
	heap_desc.shadow_addr = (uint64_t)(uintptr_t)gc_shadow;
	heap_desc.shadow_top_addr = (uint64_t)(uintptr_t)&gc_shadow_top;
	heap_desc.free_heads_addr = (uint64_t)(uintptr_t)heads;
	heap_desc.nfree = NFREE;
	heap_desc.nsmall = NSMALL;
	heap_desc.stats_addr = (uint64_t)(uintptr_t)&gc_stats;
	heap_desc.ntypes = NTYPES;
	heap_desc.control_addr = (uint64_t)(uintptr_t)&gc_control;
	gc_control.log_cap = GC_LOG_MAX;
	gc_control.log_addr = (uint64_t)(uintptr_t)gc_log;
	gc_control.flags = gc_poison ? GC_FLAG_POISON : 0;

	hosted = rvdyn_hostcall(RVDYN_HC_HEAP_ANNOUNCE,
				(long)(uintptr_t)&heap_desc, 0) == 0;
}

/* ---- allocation ---- */

static void check_poison(uint64_t from, uint64_t to)
{
	for (uint64_t a = from; a < to; a += 8)
		if (*W(a) != POISON)
			corrupt();
}

static void fill_poison(uint64_t from, uint64_t to)
{
	for (uint64_t a = from; a < to; a += 8)
		*W(a) = POISON;
}

/* Turns [a, a + 8 * words) (words >= 2) into a free block on its list's
   head. */
static void push_free(uint64_t a, uint64_t words)
{
	uint64_t size = words - 1;
	*W(a) = MAKE_HDR(TYPE_FREE, 0, size);
	uint64_t *h = &heads[size < NSMALL ? size : 0];
	W(a)[1] = *h;
	*h = a;
}

/* Takes the free block b (already unlinked) for an object of `size`
   payload words: splits off the rest when it can hold a free block,
   otherwise the object gets up to one padding word.  Returns the object's
   payload size. */
static uint64_t take_block(uint64_t b, uint64_t size)
{
	uint64_t bsize = HDR_SIZE(*W(b));
	if (gc_poison)
		check_poison(b + 16, b + 8 + 8 * bsize);
	if (bsize - size >= 2) {
		push_free(b + 8 * (size + 1), bsize - size);
		return size;
	}
	return bsize;
}

static uint64_t try_alloc(uint64_t size, uint64_t *got)
{
	uint64_t b;
	if (size < NSMALL && (b = heads[size]) != 0) {
		heads[size] = W(b)[1];
		*got = take_block(b, size);
		return b;
	}
	uint64_t bytes = 8 * (size + 1);
	if (heap_end - top >= bytes) {
		b = top;
		top += bytes;
		if (gc_poison && b < poison_end)
			check_poison(b, top < poison_end ? top : poison_end);
		*got = size;
		return b;
	}
	for (uint64_t *link = &heads[0]; (b = *link) != 0; link = &W(b)[1]) {
		if (HDR_SIZE(*W(b)) >= size) {
			*link = W(b)[1];
			*got = take_block(b, size);
			return b;
		}
	}
	for (uint64_t s = size + 2; s < NSMALL; s++) {
		if ((b = heads[s]) != 0) {
			heads[s] = W(b)[1];
			*got = take_block(b, size);
			return b;
		}
	}
	return 0;
}

/* trigger_limit: bytes allocated since the last collection that start the
   next: -gc-interval, or max(GC_MIN_INTERVAL, live bytes after the last). */
static uint64_t trigger_limit(void)
{
	if (gc_interval != 0)
		return gc_interval;
	return gc_stats.live_bytes > GC_MIN_INTERVAL ? gc_stats.live_bytes
						      : GC_MIN_INTERVAL;
}

/* The words the host may change at any time are read through volatile. */
#define HOST_WORD(w) (*(volatile uint64_t *)&(w))

/* hosted_safepoint: the hosted protocol at a safepoint: answer a pending
   request, then fire the allocation trigger (alloc: called from
   gc_alloc; gc_safepoint fires only the -gc-every count). */
static void hosted_safepoint(int alloc)
{
	if (HOST_WORD(gc_control.request) != 0)
		rvdyn_hostcall(RVDYN_HC_GC_SAFEPOINT, 0, 0);
	int fire;
	if (gc_every != 0) {
		fire = ++allocs_since_gc >= gc_every;
	} else {
		uint64_t limit = HOST_WORD(gc_control.interval);
		if (limit == 0)
			limit = trigger_limit();
		fire = alloc && gc_stats.since_gc > limit;
	}
	if (fire) {
		rvdyn_hostcall(RVDYN_HC_GC_TRIGGER, 0, 0);
		gc_stats.since_gc = 0;
		allocs_since_gc = 0;
	}
}

value_t gc_alloc(unsigned type, uint64_t nrefs, uint64_t size)
{
	if (size == 0)
		size = 1;
	if (size > MAX_WORDS)
		scheme_fatal("out of memory");
	if (hosted) {
		hosted_safepoint(1);
	} else if (gc_every != 0) {
		if (++allocs_since_gc >= gc_every)
			gc_collect();
	} else if (gc_stats.since_gc > trigger_limit()) {
		gc_collect();
	}
	uint64_t got;
	uint64_t b = try_alloc(size, &got);
	if (b == 0) {
		if (hosted) {
			/* Still a safepoint: nothing allocated yet. */
			rvdyn_hostcall(RVDYN_HC_GC_FULL, 0, 0);
			gc_stats.since_gc = 0;
			allocs_since_gc = 0;
		} else {
			gc_collect();
		}
		b = try_alloc(size, &got);
		if (b == 0)
			scheme_fatal("out of memory");
	}
	*W(b) = MAKE_HDR(type, nrefs, got) | gc_control.alloc_bits;
	memset(W(b) + 1, 0, 8 * got);
	gc_stats.since_gc += 8 * (got + 1);
	gc_stats.bytes_allocated += 8 * (got + 1);
	return (value_t)b;
}

void gc_safepoint(void)
{
	if (hosted)
		hosted_safepoint(0);
	else if (gc_every != 0 && ++allocs_since_gc >= gc_every)
		gc_collect();
}

void gc_log_ref(value_t v)
{
	if (!IS_REF(v))
		return;
	gc_log[gc_control.log_n++] = v;
	if (gc_control.log_n == GC_LOG_MAX)
		rvdyn_hostcall(RVDYN_HC_GC_LOG, 0, 0);
}

/* ---- marking ---- */

static inline void mark_value(value_t v)
{
	if (!IS_REF(v))
		return;
#ifdef GC_DEBUG
	if (v < heap_start || v >= top)
		corrupt();
#endif
	uint64_t h = HEADER(v);
	if (h & HDR_MARK)
		return;
	HEADER(v) = h | HDR_MARK;
	if (HDR_NREFS(h) == 0)
		return;
	if (mark_sp == MARK_STACK) {
		mark_overflow = 1;
		return;
	}
	mark_stack[mark_sp++] = v;
}

static void drain(void)
{
	while (mark_sp > 0) {
		value_t v = mark_stack[--mark_sp];
		uint64_t n = NREFS(v);
		for (uint64_t i = 0; i < n; i++)
			mark_value(SLOT(v, i));
	}
}

static void mark(void)
{
	for (uint64_t i = 0; i < gc_nroots; i++)
		mark_value(*gc_roots[i]);
	for (uint64_t i = 0; i < gc_shadow_top; i++)
		mark_value(*gc_shadow[i]);
	drain();
	/* Objects marked while the stack was full have unscanned slots:
	   rescan every marked object until nothing overflows. */
	while (mark_overflow) {
		mark_overflow = 0;
		for (uint64_t a = heap_start; a < top; a += 8 * (HDR_SIZE(*W(a)) + 1)) {
			uint64_t h = *W(a);
			if (!(h & HDR_MARK))
				continue;
			for (uint64_t i = 0; i < HDR_NREFS(h); i++) {
				mark_value(SLOT(a, i));
				drain();
			}
		}
	}
}

/* ---- sweeping ---- */

/* The free run [run, end) becomes one or more free blocks, appended to
   their lists (tails[] keeps the lists in address order). */
static void flush_run(uint64_t run, uint64_t end, uint64_t *tails)
{
	while (run < end) {
		uint64_t words = (end - run) / 8;
		if (words > MAX_WORDS + 1)
			words = MAX_WORDS + 1;
		if (end - run - 8 * words == 8) /* never leave one word */
			words--;
		uint64_t size = words - 1;
		*W(run) = MAKE_HDR(TYPE_FREE, 0, size);
		W(run)[1] = 0;
		if (gc_poison)
			fill_poison(run + 16, run + 8 * words);
		int k = size < NSMALL ? (int)size : 0;
		if (tails[k] == 0)
			heads[k] = run;
		else
			W(tails[k])[1] = run;
		tails[k] = run;
		run += 8 * words;
	}
}

static void sweep(void)
{
	uint64_t tails[NFREE];
	memset(heads, 0, sizeof heads);
	memset(tails, 0, sizeof tails);
	uint64_t live = 0;
	uint64_t run = 0; /* start of the current free run, 0 if none */
	uint64_t a = heap_start;
	while (a < top) {
		uint64_t h = *W(a);
		uint64_t bytes = 8 * (HDR_SIZE(h) + 1);
		if (HDR_TYPE(h) != TYPE_FREE && (h & HDR_MARK)) {
			*W(a) = h & ~HDR_MARK;
			live += bytes;
			if (run != 0) {
				flush_run(run, a, tails);
				run = 0;
			}
		} else if (run == 0) {
			run = a;
		}
		a += bytes;
	}
	if (a != top)
		corrupt();
	if (run != 0) {
		/* The last run goes back to the bump space.  */
		if (gc_poison) {
			fill_poison(run, top);
			if (top > poison_end)
				poison_end = top;
		}
		top = run;
	}
	gc_stats.live_bytes = live;
}

void gc_collect(void)
{
	mark();
	sweep();
	gc_stats.collections++;
	gc_stats.since_gc = 0;
	allocs_since_gc = 0;
}

void gc_print_stats(void)
{
	fprintf(stderr, "gc: %llu collections, %llu bytes allocated, %llu bytes live after the last\n",
		(unsigned long long)gc_stats.collections,
		(unsigned long long)gc_stats.bytes_allocated,
		(unsigned long long)gc_stats.live_bytes);
}
