/* object.c: constructors for heap objects, the symbol table, and the
   error exits.

   Constructors register their value arguments on the shadow stack around
   gc_alloc (a safepoint), so callers need only root what they use after
   the call.  The symbol table is a heap vector of hash chains linked
   through each symbol's next slot; it doubles when it holds twice as many
   symbols as chains. */
#include <stdlib.h>
#include <string.h>

#include "scheme.h"

value_t symtab;
static uint64_t nsymbols;
uintptr_t stack_limit;

value_t cons(value_t a, value_t d)
{
	GC_PUSH(&a);
	GC_PUSH(&d);
	value_t p = gc_alloc(TYPE_PAIR, 2, 2);
	GC_POP(2);
	REF_STORE(p, 0, a);
	REF_STORE(p, 1, d);
	return p;
}

value_t make_string(const unsigned char *bytes, uint64_t len)
{
	if (len > 8 * (MAX_WORDS - 1))
		error1("string too long", FIXNUM(len));
	value_t s = gc_alloc(TYPE_STRING, 0, 1 + (len + 7) / 8);
	STR_LEN(s) = len;
	if (bytes != NULL)
		memcpy(STR_BYTES(s), bytes, len);
	return s;
}

value_t make_vector(uint64_t n, value_t fill)
{
	if (n > MAX_WORDS)
		error1("vector too long", FIXNUM(n));
	GC_PUSH(&fill);
	value_t v = gc_alloc(TYPE_VECTOR, n, n);
	GC_POP(1);
	if (fill != 0)
		for (uint64_t i = 0; i < n; i++)
			REF_STORE(v, i, fill);
	return v;
}

value_t make_frame(uint64_t nslots, value_t parent)
{
	GC_PUSH(&parent);
	value_t f = gc_alloc(TYPE_FRAME, 1 + nslots, 1 + nslots);
	GC_POP(1);
	REF_STORE(f, 0, parent);
	return f;
}

static uint64_t hash_bytes(const unsigned char *s, uint64_t len)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */
	for (uint64_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return h;
}

static value_t new_symbol(const unsigned char *name, uint64_t len, uint64_t hash)
{
	value_t str = make_string(name, len);
	GC_PUSH(&str);
	value_t s = gc_alloc(TYPE_SYMBOL, 3, 5);
	GC_POP(1);
	REF_STORE(s, 0, str);
	REF_STORE(s, 1, UNBOUND);
	REF_STORE(s, 2, NIL);
	SYM_HASH(s) = hash;
	SYM_KEYWORD(s) = KW_NONE;
	return s;
}

static void grow_symtab(void)
{
	uint64_t n = VEC_LEN(symtab);
	value_t t = make_vector(2 * n, NIL);
	for (uint64_t i = 0; i < n; i++) {
		value_t s = SLOT(symtab, i);
		while (s != NIL) {
			value_t next = SYM_NEXT(s);
			uint64_t k = SYM_HASH(s) & (2 * n - 1);
			REF_STORE(s, 2, SLOT(t, k));
			REF_STORE(t, k, s);
			s = next;
		}
	}
	symtab = t;
}

value_t intern(const unsigned char *name, uint64_t len)
{
	uint64_t h = hash_bytes(name, len);
	uint64_t k = h & (VEC_LEN(symtab) - 1);
	for (value_t s = SLOT(symtab, k); s != NIL; s = SYM_NEXT(s)) {
		value_t str = SYM_NAME(s);
		if (SYM_HASH(s) == h && STR_LEN(str) == len &&
		    memcmp(STR_BYTES(str), name, len) == 0)
			return s;
	}
	/* `name` may point into a heap string: copy it out first.  */
	unsigned char small[64];
	unsigned char *copy = len <= sizeof small ? small : malloc(len);
	if (copy == NULL)
		scheme_fatal("out of memory");
	memcpy(copy, name, len);
	value_t s = new_symbol(copy, len, h);
	if (copy != small)
		free(copy);
	k = h & (VEC_LEN(symtab) - 1); /* the table may have grown */
	REF_STORE(s, 2, SLOT(symtab, k));
	REF_STORE(symtab, k, s);
	if (++nsymbols > 2 * VEC_LEN(symtab)) {
		GC_PUSH(&s);
		grow_symtab();
		GC_POP(1);
	}
	return s;
}

value_t intern_c(const char *name)
{
	return intern((const unsigned char *)name, strlen(name));
}

/* An uninterned symbol: a compiler temporary no program can name.  */
value_t uninterned(const char *name)
{
	return new_symbol((const unsigned char *)name, strlen(name), 0);
}

void objects_init(void)
{
	gc_root(&symtab);
	symtab = make_vector(1024, NIL);
}

/* ---- errors ---- */

static void error_head(void)
{
	fflush(stdout);
	fputs("scheme: error: ", stderr);
}

static _Noreturn void error_exit(void)
{
	fputc('\n', stderr);
	fflush(stderr);
	exit(3);
}

void error1(const char *msg, value_t irritant)
{
	error_head();
	fputs(msg, stderr);
	fputs(": ", stderr);
	print_value(stderr, irritant, 1);
	error_exit();
}

void scheme_fatal(const char *msg)
{
	error_head();
	fputs(msg, stderr);
	error_exit();
}

void user_error(value_t msg, value_t irritants)
{
	error_head();
	print_value(stderr, msg, !IS_STRING(msg));
	for (; IS_PAIR(irritants); irritants = CDR(irritants)) {
		fputc(' ', stderr);
		print_value(stderr, CAR(irritants), 1);
	}
	error_exit();
}
