/* scheme.h: declarations shared by the interpreter's parts: object
   accessors and constructors (object.c), reader and printer (read.c,
   print.c), compiler and evaluator (eval.c), primitives (prims.c). */
#ifndef SCHEME_H
#define SCHEME_H

#include <stdint.h>
#include <stdio.h>

#include "heap.h"

/* ---- object accessors (layouts in heap.h) ---- */

#define IS_PAIR(v) HAS_TYPE(v, TYPE_PAIR)
#define IS_SYMBOL(v) HAS_TYPE(v, TYPE_SYMBOL)
#define IS_STRING(v) HAS_TYPE(v, TYPE_STRING)
#define IS_VECTOR(v) HAS_TYPE(v, TYPE_VECTOR)
#define IS_CLOSURE(v) HAS_TYPE(v, TYPE_CLOSURE)

#define CAR(p) SLOT(p, 0)
#define CDR(p) SLOT(p, 1)

#define SYM_NAME(s) SLOT(s, 0)
#define SYM_VALUE(s) SLOT(s, 1)
#define SYM_NEXT(s) SLOT(s, 2)
#define SYM_HASH(s) RAW(s, 3)
#define SYM_KEYWORD(s) RAW(s, 4)

#define STR_LEN(s) RAW(s, 0)
#define STR_BYTES(s) ((unsigned char *)&RAW(s, 1))

#define VEC_LEN(v) NREFS(v)

#define CLO_LAMBDA(c) SLOT(c, 0)
#define CLO_ENV(c) SLOT(c, 1)

/* Nodes: three operand slots, then opcode and two integer operands.  */
#define NODE_A(n) SLOT(n, 0)
#define NODE_B(n) SLOT(n, 1)
#define NODE_C(n) SLOT(n, 2)
#define NODE_OP(n) RAW(n, 3)
#define NODE_X(n) RAW(n, 4)
#define NODE_Y(n) RAW(n, 5)

/* ---- object.c ---- */

extern value_t symtab; /* vector of hash chains */

value_t cons(value_t a, value_t d);
value_t make_string(const unsigned char *bytes, uint64_t len);
value_t make_vector(uint64_t n, value_t fill);
value_t make_frame(uint64_t nslots, value_t parent);
value_t intern(const unsigned char *name, uint64_t len);
value_t intern_c(const char *name);
value_t uninterned(const char *name);
void objects_init(void);

/* The stack check: recursion in C (evaluator, reader, printer, equal?)
   stops with "recursion too deep" before the C stack runs out. */
extern uintptr_t stack_limit;
#define CHECK_STACK()                                             \
	do {                                                      \
		char stack_probe_;                                \
		if ((uintptr_t)&stack_probe_ < stack_limit)       \
			scheme_fatal("recursion too deep");       \
	} while (0)

/* ---- errors ---- */

/* "scheme: error: MSG: IRRITANT" on stderr, exit 3.  */
_Noreturn void error1(const char *msg, value_t irritant);
/* A user error: message displayed, irritants written, space-separated.  */
_Noreturn void user_error(value_t msg, value_t irritants);

/* ---- print.c ---- */

void print_value(FILE *f, value_t v, int write);

/* ---- read.c ---- */

struct reader {
	const unsigned char *p, *end;
};
/* read_datum: the next datum, or EOF_V at the end of the text.  */
value_t read_datum(struct reader *r);
/* parse_integer: 1 and *out if [s, s + n) is an integer in radix, -1 if
   it is one too large for a fixnum, 0 if it is not one. */
int parse_integer(const unsigned char *s, uint64_t n, int radix, int64_t *out);

/* ---- eval.c ---- */

value_t compile_toplevel(value_t x);
value_t eval(value_t node, value_t env);
void eval_init(void);
/* Evaluates every form of a source text at top level.  */
void load_text(const unsigned char *text, uint64_t len);

/* Keyword numbers (SYM_KEYWORD) of the special forms.  */
enum {
	KW_NONE, KW_QUOTE, KW_QUASIQUOTE, KW_UNQUOTE, KW_UNQUOTE_SPLICING,
	KW_LAMBDA, KW_DEFINE, KW_IF, KW_SET, KW_BEGIN, KW_LET, KW_LETSTAR,
	KW_LETREC, KW_LETRECSTAR, KW_COND, KW_CASE, KW_AND, KW_OR, KW_WHEN,
	KW_UNLESS, KW_DO, KW_ELSE, KW_ARROW, KW_DOT3, NKW
};

/* ---- prims.c ---- */

typedef value_t (*prim_fn)(int argc, const value_t *av);
struct prim {
	const char *name;
	int min, max; /* argument counts; max -1: any */
	prim_fn fn;
};
extern const struct prim prims[];
extern int nprims;
/* Primitives the compiler and evaluator refer to directly.  */
extern int prim_apply, prim_cons, prim_list, prim_append, prim_list_to_vector;
void prims_init(void);
int equal(value_t a, value_t b);
int64_t list_length(value_t l); /* -1 if not a proper list */

#endif
