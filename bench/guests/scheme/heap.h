/* heap.h: the Scheme guest's value encoding, object layout, allocator,
   roots and store discipline: the heap contract between this guest and any
   collector, its own (heap.c) or a host-side one.

   docs/heap-contract.md says the same for a collector's implementer; the
   two must agree.  Summary (every word is 64 bits, little-endian):

   VALUES (value_t)
     w & 1 == 1            fixnum, value (int64_t)w >> 1 (63-bit)
     w & 7 == 0, w != 0    reference: address of an object's header word,
                           8-byte aligned, inside [heap_start, heap_end)
     w & 7 == 2, 4 or 6    immediate (booleans, (), characters, ...), never
                           a reference
     w == 0                "no value": a fresh slot, never a reference

   OBJECTS: one header word, then `size` payload words.
     header bits  0-7   type (TYPE_*; 0 = FREE block)
                  8-15  collector bits: bit 8 is the guest collector's mark
                        bit, 0 outside a guest collection; 9-15 reserved, 0
                 16-39  nrefs: payload words [0, nrefs) are value slots
                 40-63  size: payload length in words (>= 1, >= nrefs)
     Payload words [nrefs, size) are raw: never scanned (string bytes,
     lengths, opcodes).  A collector needs nothing but the header to scan
     any object.  An object may carry raw padding words beyond what its
     type needs; every type gets its lengths from nrefs or a raw word,
     never from size.

   FREE BLOCKS: type 0, nrefs 0, size >= 1; payload word 0 is the raw
     address of the next block in the same free list (0 ends the list).
     Live and free blocks tile [heap_start, *top) exactly; [*top, heap_end)
     is bump space.

   ROOTS: the global root table (roots[0..nroots): addresses of value_t C
     globals) and the shadow stack (shadow[0..shadow_top): addresses of
     value_t C locals).  No other reference to a heap object exists
     anywhere outside value slots of heap objects.

   SAFEPOINTS: every call of the allocator (gc_alloc) and of gc_safepoint.
     There, every reference the C code will still use is reachable from the
     roots.  Between safepoints the C code may hold references in registers
     and C locals that are not registered.  Objects never move.

   STORES: every store of a value into a value slot goes through
     REF_STORE(obj, index, value), initialising stores into fresh objects
     included.  The one exception: the allocator zeroes the value slots of
     the block it hands out, before anyone else sees it.  SLOT() is
     read-only, so a store that bypasses REF_STORE does not compile. */
#ifndef SCHEME_HEAP_H
#define SCHEME_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "../rt/rvdyn.h"

typedef uint64_t value_t;

/* ---- encoding ---- */

#define IS_FIXNUM(v) (((v) & 1) != 0)
#define IS_REF(v) (((v) & 7) == 0 && (v) != 0)
#define FIXNUM(n) ((((value_t)(int64_t)(n)) << 1) | 1)
#define FIXVAL(v) (((int64_t)(v)) >> 1)
#define FIXNUM_MAX (((int64_t)1 << 62) - 1)
#define FIXNUM_MIN (-((int64_t)1 << 62))

/* Immediates with low bits 010: constants numbered in bits 3 and up.  */
#define IMM(k) ((value_t)(((k) << 3) | 2))
#define FALSE_V IMM(0)
#define TRUE_V IMM(1)
#define NIL IMM(2)
#define UNSPEC IMM(3)
#define EOF_V IMM(4)
#define UNBOUND IMM(5) /* the value of a global variable never defined */

/* Characters: low bits 100, code point (a byte here) in bits 3 and up.  */
#define IS_CHAR(v) (((v) & 7) == 4)
#define MKCHAR(c) ((((value_t)(c)) << 3) | 4)
#define CHARVAL(v) ((int)((v) >> 3))

/* Primitive procedures: low bits 110, index into the primitive table.  */
#define IS_PRIM(v) (((v) & 7) == 6)
#define MKPRIM(i) ((((value_t)(i)) << 3) | 6)
#define PRIMIDX(v) ((int)((v) >> 3))

#define BOOL(c) ((c) ? TRUE_V : FALSE_V)

/* ---- headers ---- */

enum {
	TYPE_FREE = 0,   /* free block: [0] raw link */
	TYPE_PAIR = 1,   /* [0] car, [1] cdr */
	TYPE_SYMBOL = 2, /* [0] name string, [1] global value, [2] next in
			    hash chain; raw [3] hash, [4] keyword number */
	TYPE_STRING = 3, /* raw [0] length in bytes, then the bytes */
	TYPE_VECTOR = 4, /* [0, nrefs) elements: the length is nrefs */
	TYPE_CLOSURE = 5,/* [0] lambda node, [1] environment frame */
	TYPE_FRAME = 6,  /* [0] parent frame (or 0), [1, nrefs) variables */
	TYPE_NODE = 7,   /* [0..2] operands; raw [3] opcode, [4] x, [5] y */
	NTYPES
};

#define HDR_TYPE(h) ((unsigned)((h) & 0xff))
#define HDR_MARK ((uint64_t)1 << 8)
#define HDR_NREFS(h) ((uint64_t)(((h) >> 16) & 0xffffff))
#define HDR_SIZE(h) ((uint64_t)((h) >> 40))
#define MAKE_HDR(type, nrefs, size) \
	((uint64_t)(type) | ((uint64_t)(nrefs) << 16) | ((uint64_t)(size) << 40))
#define MAX_WORDS ((uint64_t)0xffffff) /* largest nrefs and size */

#define HEADER(v) (*(uint64_t *)(uintptr_t)(v))
#define TYPE_OF(v) HDR_TYPE(HEADER(v))
#define NREFS(v) HDR_NREFS(HEADER(v))
#define HAS_TYPE(v, t) (IS_REF(v) && TYPE_OF(v) == (t))

/* Value slot i of object v: read-only, see REF_STORE.  */
#define SLOT(v, i) (((const value_t *)(uintptr_t)(v))[1 + (i)])
/* Raw payload word i of object v (i >= nrefs): plain loads and stores.  */
#define RAW(v, i) (((uint64_t *)(uintptr_t)(v))[1 + (i)])

/* REF_STORE: the one way to store into a value slot.  On RISC-V it is a
   single `sd` (inline asm, so the compiler can neither merge nor split it)
   right after the profile tag HINT of PROFILE_TAG(1), in the same asm
   statement so that nothing is scheduled between them: the relational
   profiler's store barrier (a host collector's barrier mode "rpa")
   selects exactly these stores.  After the store comes the software
   store barrier of a host collector's mode "soft": when the host has set
   gc_control.barrier (only while it marks concurrently), the stored value
   goes to gc_log_ref.  Disabled, that barrier costs one load and one
   branch; under qemu-riscv64 and natively it is always disabled. */
#define REF_BARRIER(val)                                                    \
	do {                                                                \
		if (__builtin_expect(*(volatile uint64_t *)&gc_control.barrier != 0, 0)) \
			gc_log_ref(val);                                    \
	} while (0)
#ifdef __riscv
#define REF_STORE(obj, i, val)                                              \
	do {                                                                \
		value_t *ref_slot_ = (value_t *)(uintptr_t)(obj) + 1 + (i); \
		value_t ref_val_ = (val);                                   \
		__asm__ volatile(PROFILE_TAG_INSN(1) "sd %1, %0"            \
				 : "=m"(*ref_slot_) : "r"(ref_val_));       \
		REF_BARRIER(ref_val_);                                      \
	} while (0)
#else
#define REF_STORE(obj, i, val)                                              \
	do {                                                                \
		value_t *ref_slot_ = (value_t *)(uintptr_t)(obj) + 1 + (i); \
		value_t ref_val_ = (val);                                   \
		*ref_slot_ = ref_val_;                                      \
		REF_BARRIER(ref_val_);                                      \
	} while (0)
#endif

/* ---- allocator ---- */

/* Free lists: heads[s] for 1 <= s < NSMALL holds free blocks of exactly s
   payload words; heads[0] holds every larger free block (first fit).  */
#define NSMALL 32
#define NFREE NSMALL

/* gc_alloc: a fresh object with header (type, nrefs, size), its value
   slots zeroed (raw words zeroed too).  A safepoint.  On failure after a
   collection, a Scheme error "out of memory". */
value_t gc_alloc(unsigned type, uint64_t nrefs, uint64_t size);

/* gc_safepoint: may collect (only under -gc-every), or answer a hosting
   collector's safepoint request; a safepoint.  */
void gc_safepoint(void);

/* ---- roots ---- */

#define MAX_ROOTS 128
#define SHADOW_MAX (1 << 18)

extern value_t *gc_roots[MAX_ROOTS];
extern uint64_t gc_nroots;
extern value_t *gc_shadow[SHADOW_MAX];
extern uint64_t gc_shadow_top;

/* gc_root: register a C global holding a value (start-up only).  */
void gc_root(value_t *addr);

/* GC_PUSH registers a C local (it must hold a value, 0 at least, already)
   until the matching GC_POP.  Overflow is a Scheme error ("recursion too
   deep"): the shadow stack grows with the evaluator's recursion. */
void gc_shadow_overflow(void);
#define GC_PUSH(addr)                                      \
	do {                                               \
		if (gc_shadow_top == SHADOW_MAX)           \
			gc_shadow_overflow();              \
		gc_shadow[gc_shadow_top++] = (addr);       \
	} while (0)
#ifdef GC_DEBUG
void gc_pop_underflow(void);
#define GC_POP(n)                                          \
	do {                                               \
		if (gc_shadow_top < (uint64_t)(n))         \
			gc_pop_underflow();                \
		gc_shadow_top -= (n);                      \
	} while (0)
/* GC_BALANCE(saved): the shadow stack is back where it was.  */
void gc_balance_fail(uint64_t saved);
#define GC_BALANCE(saved)                                  \
	do {                                               \
		if (gc_shadow_top != (saved))              \
			gc_balance_fail(saved);            \
	} while (0)
#else
#define GC_POP(n) (gc_shadow_top -= (n))
#define GC_BALANCE(saved) ((void)(saved))
#endif

/* ---- the heap descriptor ---- */

#define HEAP_MAGIC 0x3150414548445652ULL /* "RVDHEAP1" little-endian */
#define HEAP_VERSION 2

/* struct heap_desc: what a host collector needs, at a fixed layout (all
   fields 64-bit guest addresses or counts; offsets in the comments). */
struct heap_desc {
	uint64_t magic;          /*   0 HEAP_MAGIC */
	uint64_t version;        /*   8 HEAP_VERSION */
	uint64_t heap_start;     /*  16 first header word */
	uint64_t heap_end;       /*  24 end of the heap (exclusive) */
	uint64_t top_addr;       /*  32 &top: uint64_t, end of the tiled part */
	uint64_t roots_addr;     /*  40 gc_roots: value_t *[] */
	uint64_t nroots_addr;    /*  48 &gc_nroots: uint64_t */
	uint64_t shadow_addr;    /*  56 gc_shadow: value_t *[] */
	uint64_t shadow_top_addr;/*  64 &gc_shadow_top: uint64_t */
	uint64_t free_heads_addr;/*  72 heads: uint64_t[nfree] */
	uint64_t nfree;          /*  80 NFREE */
	uint64_t nsmall;         /*  88 NSMALL: heads[s], 0 < s < NSMALL,
				    exact size s; heads[0] size >= NSMALL */
	uint64_t stats_addr;     /*  96 struct gc_stats */
	uint64_t ntypes;         /* 104 NTYPES: types in use are < ntypes */
	uint64_t control_addr;   /* 112 &gc_control (version 2) */
};

/* struct gc_control: the words a host collector and the guest share once
   the host has answered the announcement with 0 (docs/heap-contract.md,
   "The hosted protocol").  The host writes request at any time; the other
   host-written words only while the guest is stopped in a host call. */
struct gc_control {
	uint64_t request;    /*  0 host: nonzero asks for RVDYN_HC_GC_SAFEPOINT
				at the next safepoint */
	uint64_t alloc_bits; /*  8 host: ORed into every header gc_alloc
				writes (allocation colour; bits 8-15 only) */
	uint64_t barrier;    /* 16 host: nonzero makes REF_STORE log every
				stored reference (software store barrier) */
	uint64_t interval;   /* 24 host: bytes allocated after which the guest
				calls RVDYN_HC_GC_TRIGGER (0: the guest's own
				rule, max(4 MiB, live bytes)) */
	uint64_t log_n;      /* 32 guest appends, host resets: entries in log */
	uint64_t log_cap;    /* 40 guest: GC_LOG_MAX */
	uint64_t log_addr;   /* 48 guest: gc_log, value_t[log_cap] */
	uint64_t flags;      /* 56 guest: GC_FLAG_POISON under -poison */
};

#define GC_LOG_MAX 1024
#define GC_FLAG_POISON 1

struct gc_stats {
	uint64_t collections;     /* collections so far (a host's included) */
	uint64_t bytes_allocated; /* all objects ever allocated, headers too */
	uint64_t live_bytes;      /* live after the last collection */
	uint64_t since_gc;        /* bytes allocated since the last one */
};

extern struct heap_desc heap_desc;
extern struct gc_stats gc_stats;
extern struct gc_control gc_control;

/* gc_log_ref: the software store barrier's slow path (REF_BARRIER): logs
   v if it is a reference; a full log goes to the host
   (RVDYN_HC_GC_LOG). */
void gc_log_ref(value_t v);

/* Options, set before heap_init.  */
extern uint64_t gc_every; /* collect every N allocations (0: off) */
extern uint64_t gc_interval; /* bytes between collections (0: the rule) */
extern int gc_poison;     /* poison free memory and verify it on reuse */

/* heap_init: take `bytes` of memory for the heap, fill the descriptor and
   announce it to the host. */
void heap_init(uint64_t bytes);
/* gc_collect: a full stop-the-world collection now.  */
void gc_collect(void);
/* gc_print_stats: the -gc-stats line on stderr.  */
void gc_print_stats(void);

/* Provided by the rest of the interpreter.  */
_Noreturn void scheme_fatal(const char *msg);

#endif
