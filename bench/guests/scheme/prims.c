/* prims.c: the primitive procedures, one C function each, and the table
   that names them.

   A primitive gets its arguments as an array the caller keeps rooted, and
   checks every argument's type: a wrong one is a Scheme error naming the
   primitive, never a C crash.  Fixnum arithmetic checks overflow (63-bit
   results; there are no bignums). */
#include <stdlib.h>
#include <string.h>

#include "scheme.h"

#define PRIM(name) static value_t name(int argc, const value_t *av)
#define UNUSED_ARGC (void)argc

/* ---- argument checks ---- */

static _Noreturn void wrong(const char *who, const char *what, value_t v)
{
	char msg[96];
	size_t n = strlen(who);
	if (n > 40)
		n = 40;
	memcpy(msg, who, n);
	msg[n] = 0;
	strcat(msg, ": not ");
	strcat(msg, what);
	error1(msg, v);
}

static _Noreturn void failure(const char *who, const char *what, value_t v)
{
	char msg[96];
	size_t n = strlen(who);
	if (n > 40)
		n = 40;
	memcpy(msg, who, n);
	msg[n] = 0;
	strcat(msg, ": ");
	strcat(msg, what);
	error1(msg, v);
}

static int64_t fix(const char *who, value_t v)
{
	if (!IS_FIXNUM(v))
		wrong(who, "an integer", v);
	return FIXVAL(v);
}

static value_t pair(const char *who, value_t v)
{
	if (!IS_PAIR(v))
		wrong(who, "a pair", v);
	return v;
}

static value_t str(const char *who, value_t v)
{
	if (!IS_STRING(v))
		wrong(who, "a string", v);
	return v;
}

static value_t vec(const char *who, value_t v)
{
	if (!IS_VECTOR(v))
		wrong(who, "a vector", v);
	return v;
}

static int chr(const char *who, value_t v)
{
	if (!IS_CHAR(v))
		wrong(who, "a character", v);
	return CHARVAL(v);
}

static value_t sym(const char *who, value_t v)
{
	if (!IS_SYMBOL(v))
		wrong(who, "a symbol", v);
	return v;
}

/* An index into [0, n) (n + 1 if end is allowed).  */
static uint64_t index_arg(const char *who, value_t v, uint64_t n)
{
	int64_t i = fix(who, v);
	if (i < 0 || (uint64_t)i >= n)
		failure(who, "index out of range", v);
	return (uint64_t)i;
}

static _Noreturn void overflow(const char *who)
{
	char msg[64];
	size_t n = strlen(who);
	memcpy(msg, who, n);
	strcpy(msg + n, ": fixnum overflow");
	scheme_fatal(msg);
}

int64_t list_length(value_t l)
{
	/* Floyd: slow moves one pair per two of l.  */
	value_t slow = l;
	int64_t n = 0;
	for (;;) {
		if (l == NIL)
			return n;
		if (!IS_PAIR(l))
			return -1;
		l = CDR(l);
		n++;
		if (l == NIL)
			return n;
		if (!IS_PAIR(l))
			return -1;
		l = CDR(l);
		n++;
		slow = CDR(slow);
		if (l == slow)
			return -1;
	}
}

/* ---- numbers ---- */

PRIM(p_add)
{
	value_t acc = FIXNUM(0);
	for (int i = 0; i < argc; i++) {
		fix("+", av[i]);
		int64_t r;
		/* Tagged: (2a+1) + (2b+1) - 1 = 2(a+b) + 1.  */
		if (__builtin_add_overflow((int64_t)acc, (int64_t)av[i] - 1, &r))
			overflow("+");
		acc = (value_t)r;
	}
	return acc;
}

PRIM(p_sub)
{
	int64_t a = fix("-", av[0]);
	if (argc == 1) {
		if (a == FIXNUM_MIN)
			overflow("-");
		return FIXNUM(-a);
	}
	value_t acc = av[0];
	for (int i = 1; i < argc; i++) {
		fix("-", av[i]);
		int64_t r;
		if (__builtin_sub_overflow((int64_t)acc, (int64_t)av[i] - 1, &r))
			overflow("-");
		acc = (value_t)r;
	}
	return acc;
}

PRIM(p_mul)
{
	int64_t acc = 1;
	for (int i = 0; i < argc; i++) {
		int64_t b = fix("*", av[i]);
		if (__builtin_mul_overflow(acc, b, &acc) || acc > FIXNUM_MAX ||
		    acc < FIXNUM_MIN)
			overflow("*");
	}
	return FIXNUM(acc);
}

static void divisor(const char *who, int64_t a, int64_t b)
{
	if (b == 0)
		failure(who, "division by zero", FIXNUM(a));
	if (a == FIXNUM_MIN && b == -1)
		overflow(who);
}

PRIM(p_quotient)
{
	UNUSED_ARGC;
	int64_t a = fix("quotient", av[0]), b = fix("quotient", av[1]);
	divisor("quotient", a, b);
	return FIXNUM(a / b);
}

PRIM(p_remainder)
{
	UNUSED_ARGC;
	int64_t a = fix("remainder", av[0]), b = fix("remainder", av[1]);
	divisor("remainder", a, b);
	return FIXNUM(a % b);
}

PRIM(p_modulo)
{
	UNUSED_ARGC;
	int64_t a = fix("modulo", av[0]), b = fix("modulo", av[1]);
	divisor("modulo", a, b);
	int64_t m = a % b;
	if (m != 0 && ((m < 0) != (b < 0)))
		m += b;
	return FIXNUM(m);
}

/* n-ary comparisons: every argument is checked, even after a false.  */
#define COMPARE(name, sname, op)                                      \
	PRIM(name)                                                    \
	{                                                             \
		int ok = 1;                                           \
		for (int i = 0; i < argc; i++) {                      \
			int64_t b = fix(sname, av[i]);                \
			if (i > 0 && !(FIXVAL(av[i - 1]) op b))       \
				ok = 0;                               \
		}                                                     \
		return BOOL(ok);                                      \
	}
COMPARE(p_num_eq, "=", ==)
COMPARE(p_lt, "<", <)
COMPARE(p_gt, ">", >)
COMPARE(p_le, "<=", <=)
COMPARE(p_ge, ">=", >=)

PRIM(p_zerop) { UNUSED_ARGC; return BOOL(fix("zero?", av[0]) == 0); }
PRIM(p_positivep) { UNUSED_ARGC; return BOOL(fix("positive?", av[0]) > 0); }
PRIM(p_negativep) { UNUSED_ARGC; return BOOL(fix("negative?", av[0]) < 0); }
PRIM(p_oddp) { UNUSED_ARGC; return BOOL((fix("odd?", av[0]) & 1) != 0); }
PRIM(p_evenp) { UNUSED_ARGC; return BOOL((fix("even?", av[0]) & 1) == 0); }

PRIM(p_abs)
{
	UNUSED_ARGC;
	int64_t a = fix("abs", av[0]);
	if (a == FIXNUM_MIN)
		overflow("abs");
	return FIXNUM(a < 0 ? -a : a);
}

PRIM(p_min)
{
	int64_t m = fix("min", av[0]);
	for (int i = 1; i < argc; i++) {
		int64_t b = fix("min", av[i]);
		if (b < m)
			m = b;
	}
	return FIXNUM(m);
}

PRIM(p_max)
{
	int64_t m = fix("max", av[0]);
	for (int i = 1; i < argc; i++) {
		int64_t b = fix("max", av[i]);
		if (b > m)
			m = b;
	}
	return FIXNUM(m);
}

static uint64_t gcd2(uint64_t a, uint64_t b)
{
	while (b != 0) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

static uint64_t uabs(int64_t a)
{
	return a < 0 ? -(uint64_t)a : (uint64_t)a;
}

PRIM(p_gcd)
{
	uint64_t g = 0;
	for (int i = 0; i < argc; i++)
		g = gcd2(g, uabs(fix("gcd", av[i])));
	if (g > (uint64_t)FIXNUM_MAX)
		overflow("gcd");
	return FIXNUM((int64_t)g);
}

PRIM(p_lcm)
{
	uint64_t l = 1;
	for (int i = 0; i < argc; i++) {
		uint64_t a = uabs(fix("lcm", av[i]));
		if (a == 0)
			return FIXNUM(0);
		uint64_t g = gcd2(l, a);
		if (__builtin_mul_overflow(l / g, a, &l) || l > (uint64_t)FIXNUM_MAX)
			overflow("lcm");
	}
	return FIXNUM((int64_t)l);
}

PRIM(p_expt)
{
	UNUSED_ARGC;
	int64_t b = fix("expt", av[0]), e = fix("expt", av[1]);
	if (e < 0)
		failure("expt", "negative exponent", av[1]);
	int64_t r = 1;
	while (e > 0) {
		if ((e & 1) && (__builtin_mul_overflow(r, b, &r) ||
				r > FIXNUM_MAX || r < FIXNUM_MIN))
			overflow("expt");
		e >>= 1;
		if (e > 0 && (__builtin_mul_overflow(b, b, &b) ||
			      b > FIXNUM_MAX || b < FIXNUM_MIN))
			overflow("expt");
	}
	return FIXNUM(r);
}

PRIM(p_numberp) { UNUSED_ARGC; return BOOL(IS_FIXNUM(av[0])); }

PRIM(p_exactp)
{
	UNUSED_ARGC;
	fix("exact?", av[0]);
	return TRUE_V;
}

static int radix_arg(const char *who, int argc, const value_t *av)
{
	if (argc < 2)
		return 10;
	int64_t r = fix(who, av[1]);
	if (r != 2 && r != 8 && r != 10 && r != 16)
		failure(who, "bad radix", av[1]);
	return (int)r;
}

PRIM(p_number_to_string)
{
	int64_t n = fix("number->string", av[0]);
	int radix = radix_arg("number->string", argc, av);
	unsigned char buf[72];
	int i = sizeof buf;
	uint64_t u = uabs(n);
	do {
		buf[--i] = (unsigned char)"0123456789abcdef"[u % (uint64_t)radix];
		u /= (uint64_t)radix;
	} while (u != 0);
	if (n < 0)
		buf[--i] = '-';
	return make_string(buf + i, sizeof buf - (size_t)i);
}

PRIM(p_string_to_number)
{
	value_t s = str("string->number", av[0]);
	int radix = radix_arg("string->number", argc, av);
	int64_t v;
	if (parse_integer(STR_BYTES(s), STR_LEN(s), radix, &v) > 0)
		return FIXNUM(v);
	return FALSE_V;
}

/* ---- equivalence ---- */

PRIM(p_not) { UNUSED_ARGC; return BOOL(av[0] == FALSE_V); }
PRIM(p_eqp) { UNUSED_ARGC; return BOOL(av[0] == av[1]); }
PRIM(p_booleanp) { UNUSED_ARGC; return BOOL(av[0] == TRUE_V || av[0] == FALSE_V); }

int equal(value_t a, value_t b)
{
	CHECK_STACK();
	for (;;) {
		if (a == b)
			return 1;
		if (!IS_REF(a) || !IS_REF(b) || TYPE_OF(a) != TYPE_OF(b))
			return 0;
		switch (TYPE_OF(a)) {
		case TYPE_PAIR:
			if (!equal(CAR(a), CAR(b)))
				return 0;
			a = CDR(a);
			b = CDR(b);
			continue;
		case TYPE_STRING:
			return STR_LEN(a) == STR_LEN(b) &&
			       memcmp(STR_BYTES(a), STR_BYTES(b), STR_LEN(a)) == 0;
		case TYPE_VECTOR:
			if (VEC_LEN(a) != VEC_LEN(b))
				return 0;
			for (uint64_t i = 0; i < VEC_LEN(a); i++)
				if (!equal(SLOT(a, i), SLOT(b, i)))
					return 0;
			return 1;
		default:
			return 0;
		}
	}
}

PRIM(p_equalp) { UNUSED_ARGC; return BOOL(equal(av[0], av[1])); }

/* ---- pairs and lists ---- */

PRIM(p_cons) { UNUSED_ARGC; return cons(av[0], av[1]); }
PRIM(p_car) { UNUSED_ARGC; return CAR(pair("car", av[0])); }
PRIM(p_cdr) { UNUSED_ARGC; return CDR(pair("cdr", av[0])); }

PRIM(p_set_car)
{
	UNUSED_ARGC;
	REF_STORE(pair("set-car!", av[0]), 0, av[1]);
	return UNSPEC;
}

PRIM(p_set_cdr)
{
	UNUSED_ARGC;
	REF_STORE(pair("set-cdr!", av[0]), 1, av[1]);
	return UNSPEC;
}

/* c[ad]+r: path read right to left, 'a' = car.  */
static value_t cxr(const char *name, value_t v)
{
	size_t n = strlen(name);
	for (size_t i = n - 2; i >= 1; i--) {
		if (!IS_PAIR(v))
			wrong(name, "a pair", v);
		v = name[i] == 'a' ? CAR(v) : CDR(v);
	}
	return v;
}
PRIM(p_caar) { UNUSED_ARGC; return cxr("caar", av[0]); }
PRIM(p_cadr) { UNUSED_ARGC; return cxr("cadr", av[0]); }
PRIM(p_cdar) { UNUSED_ARGC; return cxr("cdar", av[0]); }
PRIM(p_cddr) { UNUSED_ARGC; return cxr("cddr", av[0]); }
PRIM(p_caddr) { UNUSED_ARGC; return cxr("caddr", av[0]); }
PRIM(p_cdddr) { UNUSED_ARGC; return cxr("cdddr", av[0]); }
PRIM(p_cadddr) { UNUSED_ARGC; return cxr("cadddr", av[0]); }

PRIM(p_list)
{
	value_t l = NIL;
	GC_PUSH(&l);
	for (int i = argc - 1; i >= 0; i--)
		l = cons(av[i], l);
	GC_POP(1);
	return l;
}

PRIM(p_listp) { UNUSED_ARGC; return BOOL(list_length(av[0]) >= 0); }

static int64_t proper(const char *who, value_t l)
{
	int64_t n = list_length(l);
	if (n < 0)
		wrong(who, "a proper list", l);
	return n;
}

PRIM(p_length) { UNUSED_ARGC; return FIXNUM(proper("length", av[0])); }

/* A fresh copy of the proper list l ending in `last`.  */
static value_t copy_onto(const char *who, value_t l, value_t last)
{
	proper(who, l);
	value_t head = NIL, tail = 0, c;
	GC_PUSH(&l);
	GC_PUSH(&last);
	GC_PUSH(&head);
	for (; l != NIL; l = CDR(l)) {
		c = cons(CAR(l), NIL);
		if (tail == 0)
			head = c;
		else
			REF_STORE(tail, 1, c);
		tail = c;
	}
	if (tail == 0)
		head = last;
	else
		REF_STORE(tail, 1, last);
	GC_POP(3);
	return head;
}

PRIM(p_append)
{
	if (argc == 0)
		return NIL;
	value_t r = av[argc - 1];
	GC_PUSH(&r);
	for (int i = argc - 2; i >= 0; i--)
		r = copy_onto("append", av[i], r);
	GC_POP(1);
	return r;
}

PRIM(p_reverse)
{
	UNUSED_ARGC;
	value_t l = av[0], r = NIL;
	proper("reverse", l);
	GC_PUSH(&r);
	for (; l != NIL; l = CDR(l)) /* av[0] is rooted */
		r = cons(CAR(l), r);
	GC_POP(1);
	return r;
}

PRIM(p_list_tail)
{
	UNUSED_ARGC;
	value_t l = av[0];
	int64_t k = fix("list-tail", av[1]);
	if (k < 0)
		failure("list-tail", "index out of range", av[1]);
	for (; k > 0; k--) {
		if (!IS_PAIR(l))
			failure("list-tail", "index out of range", av[1]);
		l = CDR(l);
	}
	return l;
}

PRIM(p_list_ref)
{
	UNUSED_ARGC;
	value_t l = av[0];
	int64_t k = fix("list-ref", av[1]);
	if (k < 0)
		failure("list-ref", "index out of range", av[1]);
	for (; k > 0; k--) {
		if (!IS_PAIR(l))
			failure("list-ref", "index out of range", av[1]);
		l = CDR(l);
	}
	if (!IS_PAIR(l))
		failure("list-ref", "index out of range", av[1]);
	return CAR(l);
}

PRIM(p_list_copy)
{
	UNUSED_ARGC;
	if (!IS_PAIR(av[0]))
		return av[0];
	return copy_onto("list-copy", av[0], NIL);
}

PRIM(p_last_pair)
{
	UNUSED_ARGC;
	value_t l = pair("last-pair", av[0]);
	while (IS_PAIR(CDR(l)))
		l = CDR(l);
	return l;
}

static value_t mem(const char *who, value_t x, value_t l, int use_equal)
{
	for (; IS_PAIR(l); l = CDR(l))
		if (CAR(l) == x || (use_equal && equal(CAR(l), x)))
			return l;
	if (l != NIL)
		wrong(who, "a proper list", l);
	return FALSE_V;
}
PRIM(p_memq) { UNUSED_ARGC; return mem("memq", av[0], av[1], 0); }
PRIM(p_member) { UNUSED_ARGC; return mem("member", av[0], av[1], 1); }

static value_t ass(const char *who, value_t x, value_t l, int use_equal)
{
	for (; IS_PAIR(l); l = CDR(l)) {
		value_t e = CAR(l);
		if (!IS_PAIR(e))
			wrong(who, "a pair in an association list", e);
		if (CAR(e) == x || (use_equal && equal(CAR(e), x)))
			return e;
	}
	if (l != NIL)
		wrong(who, "a proper list", l);
	return FALSE_V;
}
PRIM(p_assq) { UNUSED_ARGC; return ass("assq", av[0], av[1], 0); }
PRIM(p_assoc) { UNUSED_ARGC; return ass("assoc", av[0], av[1], 1); }

PRIM(p_pairp) { UNUSED_ARGC; return BOOL(IS_PAIR(av[0])); }
PRIM(p_nullp) { UNUSED_ARGC; return BOOL(av[0] == NIL); }

/* ---- symbols ---- */

PRIM(p_symbolp) { UNUSED_ARGC; return BOOL(IS_SYMBOL(av[0])); }

PRIM(p_symbol_to_string)
{
	UNUSED_ARGC;
	value_t s = SYM_NAME(sym("symbol->string", av[0]));
	return make_string(STR_BYTES(s), STR_LEN(s));
}

PRIM(p_string_to_symbol)
{
	UNUSED_ARGC;
	value_t s = str("string->symbol", av[0]);
	return intern(STR_BYTES(s), STR_LEN(s));
}

/* ---- characters ---- */

PRIM(p_charp) { UNUSED_ARGC; return BOOL(IS_CHAR(av[0])); }
PRIM(p_char_to_integer) { UNUSED_ARGC; return FIXNUM(chr("char->integer", av[0])); }

PRIM(p_integer_to_char)
{
	UNUSED_ARGC;
	int64_t c = fix("integer->char", av[0]);
	if (c < 0 || c > 255)
		failure("integer->char", "out of range", av[0]);
	return MKCHAR(c);
}

#define CHAR_COMPARE(name, sname, op)                                 \
	PRIM(name)                                                    \
	{                                                             \
		int ok = 1;                                           \
		for (int i = 0; i < argc; i++) {                      \
			int b = chr(sname, av[i]);                    \
			if (i > 0 && !(CHARVAL(av[i - 1]) op b))      \
				ok = 0;                               \
		}                                                     \
		return BOOL(ok);                                      \
	}
CHAR_COMPARE(p_char_eq, "char=?", ==)
CHAR_COMPARE(p_char_lt, "char<?", <)
CHAR_COMPARE(p_char_gt, "char>?", >)
CHAR_COMPARE(p_char_le, "char<=?", <=)
CHAR_COMPARE(p_char_ge, "char>=?", >=)

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }
static int upper(int c) { return c >= 'a' && c <= 'z' ? c - 32 : c; }

PRIM(p_char_alphabeticp)
{
	UNUSED_ARGC;
	int c = lower(chr("char-alphabetic?", av[0]));
	return BOOL(c >= 'a' && c <= 'z');
}

PRIM(p_char_numericp)
{
	UNUSED_ARGC;
	int c = chr("char-numeric?", av[0]);
	return BOOL(c >= '0' && c <= '9');
}

PRIM(p_char_whitespacep)
{
	UNUSED_ARGC;
	int c = chr("char-whitespace?", av[0]);
	return BOOL(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f');
}

PRIM(p_char_upcase) { UNUSED_ARGC; return MKCHAR(upper(chr("char-upcase", av[0]))); }
PRIM(p_char_downcase) { UNUSED_ARGC; return MKCHAR(lower(chr("char-downcase", av[0]))); }

/* ---- strings ---- */

PRIM(p_stringp) { UNUSED_ARGC; return BOOL(IS_STRING(av[0])); }

PRIM(p_make_string)
{
	int64_t n = fix("make-string", av[0]);
	if (n < 0)
		failure("make-string", "negative length", av[0]);
	int c = argc > 1 ? chr("make-string", av[1]) : ' ';
	value_t s = make_string(NULL, (uint64_t)n);
	memset(STR_BYTES(s), c, (size_t)n);
	return s;
}

PRIM(p_string)
{
	for (int i = 0; i < argc; i++)
		chr("string", av[i]);
	value_t s = make_string(NULL, (uint64_t)argc);
	for (int i = 0; i < argc; i++)
		STR_BYTES(s)[i] = (unsigned char)CHARVAL(av[i]);
	return s;
}

PRIM(p_string_length) { UNUSED_ARGC; return FIXNUM(STR_LEN(str("string-length", av[0]))); }

PRIM(p_string_ref)
{
	UNUSED_ARGC;
	value_t s = str("string-ref", av[0]);
	return MKCHAR(STR_BYTES(s)[index_arg("string-ref", av[1], STR_LEN(s))]);
}

PRIM(p_string_set)
{
	UNUSED_ARGC;
	value_t s = str("string-set!", av[0]);
	uint64_t i = index_arg("string-set!", av[1], STR_LEN(s));
	STR_BYTES(s)[i] = (unsigned char)chr("string-set!", av[2]);
	return UNSPEC;
}

PRIM(p_substring)
{
	value_t s = str("substring", av[0]);
	uint64_t n = STR_LEN(s);
	uint64_t start = index_arg("substring", av[1], n + 1);
	uint64_t end = argc > 2 ? index_arg("substring", av[2], n + 1) : n;
	if (end < start)
		failure("substring", "end before start", av[2]);
	return make_string(STR_BYTES(s) + start, end - start);
}

PRIM(p_string_append)
{
	uint64_t n = 0;
	for (int i = 0; i < argc; i++)
		n += STR_LEN(str("string-append", av[i]));
	value_t s = make_string(NULL, n);
	unsigned char *b = STR_BYTES(s);
	for (int i = 0; i < argc; i++) {
		memcpy(b, STR_BYTES(av[i]), STR_LEN(av[i]));
		b += STR_LEN(av[i]);
	}
	return s;
}

PRIM(p_string_copy)
{
	UNUSED_ARGC;
	value_t s = str("string-copy", av[0]);
	return make_string(STR_BYTES(s), STR_LEN(s));
}

PRIM(p_string_to_list)
{
	UNUSED_ARGC;
	value_t s = str("string->list", av[0]), l = NIL;
	GC_PUSH(&l);
	for (uint64_t i = STR_LEN(s); i > 0; i--)
		l = cons(MKCHAR(STR_BYTES(s)[i - 1]), l);
	GC_POP(1);
	return l;
}

PRIM(p_list_to_string)
{
	UNUSED_ARGC;
	int64_t n = proper("list->string", av[0]);
	for (value_t l = av[0]; l != NIL; l = CDR(l))
		chr("list->string", CAR(l));
	value_t s = make_string(NULL, (uint64_t)n);
	uint64_t i = 0;
	for (value_t l = av[0]; l != NIL; l = CDR(l))
		STR_BYTES(s)[i++] = (unsigned char)CHARVAL(CAR(l));
	return s;
}

/* Byte-wise comparison of two strings: <0, 0, >0.  */
static int strcmp2(value_t a, value_t b)
{
	uint64_t na = STR_LEN(a), nb = STR_LEN(b);
	int c = memcmp(STR_BYTES(a), STR_BYTES(b), na < nb ? na : nb);
	if (c != 0)
		return c;
	return na < nb ? -1 : na > nb;
}

#define STRING_COMPARE(name, sname, op)                               \
	PRIM(name)                                                    \
	{                                                             \
		int ok = 1;                                           \
		for (int i = 0; i < argc; i++) {                      \
			str(sname, av[i]);                            \
			if (i > 0 && !(strcmp2(av[i - 1], av[i]) op 0)) \
				ok = 0;                               \
		}                                                     \
		return BOOL(ok);                                      \
	}
STRING_COMPARE(p_string_eq, "string=?", ==)
STRING_COMPARE(p_string_lt, "string<?", <)
STRING_COMPARE(p_string_gt, "string>?", >)
STRING_COMPARE(p_string_le, "string<=?", <=)
STRING_COMPARE(p_string_ge, "string>=?", >=)

PRIM(p_string_fill)
{
	UNUSED_ARGC;
	value_t s = str("string-fill!", av[0]);
	memset(STR_BYTES(s), chr("string-fill!", av[1]), STR_LEN(s));
	return UNSPEC;
}

/* ---- vectors ---- */

PRIM(p_vectorp) { UNUSED_ARGC; return BOOL(IS_VECTOR(av[0])); }

PRIM(p_make_vector)
{
	int64_t n = fix("make-vector", av[0]);
	if (n < 0)
		failure("make-vector", "negative length", av[0]);
	return make_vector((uint64_t)n, argc > 1 ? av[1] : FALSE_V);
}

PRIM(p_vector)
{
	value_t v = make_vector((uint64_t)argc, 0);
	for (int i = 0; i < argc; i++)
		REF_STORE(v, i, av[i]);
	return v;
}

PRIM(p_vector_length) { UNUSED_ARGC; return FIXNUM(VEC_LEN(vec("vector-length", av[0]))); }

PRIM(p_vector_ref)
{
	UNUSED_ARGC;
	value_t v = vec("vector-ref", av[0]);
	return SLOT(v, index_arg("vector-ref", av[1], VEC_LEN(v)));
}

PRIM(p_vector_set)
{
	UNUSED_ARGC;
	value_t v = vec("vector-set!", av[0]);
	REF_STORE(v, index_arg("vector-set!", av[1], VEC_LEN(v)), av[2]);
	return UNSPEC;
}

PRIM(p_vector_to_list)
{
	UNUSED_ARGC;
	value_t v = vec("vector->list", av[0]), l = NIL;
	GC_PUSH(&l);
	for (uint64_t i = VEC_LEN(v); i > 0; i--)
		l = cons(SLOT(v, i - 1), l);
	GC_POP(1);
	return l;
}

PRIM(p_list_to_vector)
{
	UNUSED_ARGC;
	int64_t n = proper("list->vector", av[0]);
	value_t v = make_vector((uint64_t)n, 0);
	uint64_t i = 0;
	for (value_t l = av[0]; l != NIL; l = CDR(l))
		REF_STORE(v, i++, CAR(l));
	return v;
}

PRIM(p_vector_fill)
{
	UNUSED_ARGC;
	value_t v = vec("vector-fill!", av[0]);
	for (uint64_t i = 0; i < VEC_LEN(v); i++)
		REF_STORE(v, i, av[1]);
	return UNSPEC;
}

/* ---- control and output ---- */

PRIM(p_procedurep) { UNUSED_ARGC; return BOOL(IS_PRIM(av[0]) || IS_CLOSURE(av[0])); }

/* Never called: the evaluator performs apply itself (a tail call).  */
PRIM(p_apply)
{
	(void)argc;
	(void)av;
	scheme_fatal("internal error: apply");
}

PRIM(p_error)
{
	value_t rest = NIL;
	GC_PUSH(&rest);
	for (int i = argc - 1; i >= 1; i--)
		rest = cons(av[i], rest);
	user_error(av[0], rest);
}

PRIM(p_exit)
{
	int code = 0;
	if (argc > 0) {
		if (IS_FIXNUM(av[0]))
			code = (int)(FIXVAL(av[0]) & 255);
		else if (av[0] == FALSE_V)
			code = 1;
	}
	fflush(stdout);
	exit(code);
}

PRIM(p_display) { UNUSED_ARGC; print_value(stdout, av[0], 0); return UNSPEC; }
PRIM(p_write) { UNUSED_ARGC; print_value(stdout, av[0], 1); return UNSPEC; }
PRIM(p_newline) { (void)av; UNUSED_ARGC; fputc('\n', stdout); return UNSPEC; }

PRIM(p_write_char)
{
	UNUSED_ARGC;
	fputc(chr("write-char", av[0]), stdout);
	return UNSPEC;
}

/* ---- the table ---- */

const struct prim prims[] = {
	{ "+", 0, -1, p_add },
	{ "-", 1, -1, p_sub },
	{ "*", 0, -1, p_mul },
	{ "quotient", 2, 2, p_quotient },
	{ "remainder", 2, 2, p_remainder },
	{ "modulo", 2, 2, p_modulo },
	{ "=", 1, -1, p_num_eq },
	{ "<", 1, -1, p_lt },
	{ ">", 1, -1, p_gt },
	{ "<=", 1, -1, p_le },
	{ ">=", 1, -1, p_ge },
	{ "zero?", 1, 1, p_zerop },
	{ "positive?", 1, 1, p_positivep },
	{ "negative?", 1, 1, p_negativep },
	{ "odd?", 1, 1, p_oddp },
	{ "even?", 1, 1, p_evenp },
	{ "abs", 1, 1, p_abs },
	{ "min", 1, -1, p_min },
	{ "max", 1, -1, p_max },
	{ "gcd", 0, -1, p_gcd },
	{ "lcm", 0, -1, p_lcm },
	{ "expt", 2, 2, p_expt },
	{ "number?", 1, 1, p_numberp },
	{ "integer?", 1, 1, p_numberp },
	{ "exact?", 1, 1, p_exactp },
	{ "number->string", 1, 2, p_number_to_string },
	{ "string->number", 1, 2, p_string_to_number },
	{ "not", 1, 1, p_not },
	{ "eq?", 2, 2, p_eqp },
	{ "eqv?", 2, 2, p_eqp },
	{ "equal?", 2, 2, p_equalp },
	{ "boolean?", 1, 1, p_booleanp },
	{ "cons", 2, 2, p_cons },
	{ "car", 1, 1, p_car },
	{ "cdr", 1, 1, p_cdr },
	{ "set-car!", 2, 2, p_set_car },
	{ "set-cdr!", 2, 2, p_set_cdr },
	{ "caar", 1, 1, p_caar },
	{ "cadr", 1, 1, p_cadr },
	{ "cdar", 1, 1, p_cdar },
	{ "cddr", 1, 1, p_cddr },
	{ "caddr", 1, 1, p_caddr },
	{ "cdddr", 1, 1, p_cdddr },
	{ "cadddr", 1, 1, p_cadddr },
	{ "list", 0, -1, p_list },
	{ "list?", 1, 1, p_listp },
	{ "length", 1, 1, p_length },
	{ "append", 0, -1, p_append },
	{ "reverse", 1, 1, p_reverse },
	{ "list-tail", 2, 2, p_list_tail },
	{ "list-ref", 2, 2, p_list_ref },
	{ "list-copy", 1, 1, p_list_copy },
	{ "last-pair", 1, 1, p_last_pair },
	{ "memq", 2, 2, p_memq },
	{ "memv", 2, 2, p_memq },
	{ "member", 2, 2, p_member },
	{ "assq", 2, 2, p_assq },
	{ "assv", 2, 2, p_assq },
	{ "assoc", 2, 2, p_assoc },
	{ "pair?", 1, 1, p_pairp },
	{ "null?", 1, 1, p_nullp },
	{ "symbol?", 1, 1, p_symbolp },
	{ "symbol->string", 1, 1, p_symbol_to_string },
	{ "string->symbol", 1, 1, p_string_to_symbol },
	{ "char?", 1, 1, p_charp },
	{ "char->integer", 1, 1, p_char_to_integer },
	{ "integer->char", 1, 1, p_integer_to_char },
	{ "char=?", 1, -1, p_char_eq },
	{ "char<?", 1, -1, p_char_lt },
	{ "char>?", 1, -1, p_char_gt },
	{ "char<=?", 1, -1, p_char_le },
	{ "char>=?", 1, -1, p_char_ge },
	{ "char-alphabetic?", 1, 1, p_char_alphabeticp },
	{ "char-numeric?", 1, 1, p_char_numericp },
	{ "char-whitespace?", 1, 1, p_char_whitespacep },
	{ "char-upcase", 1, 1, p_char_upcase },
	{ "char-downcase", 1, 1, p_char_downcase },
	{ "string?", 1, 1, p_stringp },
	{ "make-string", 1, 2, p_make_string },
	{ "string", 0, -1, p_string },
	{ "string-length", 1, 1, p_string_length },
	{ "string-ref", 2, 2, p_string_ref },
	{ "string-set!", 3, 3, p_string_set },
	{ "substring", 2, 3, p_substring },
	{ "string-append", 0, -1, p_string_append },
	{ "string-copy", 1, 1, p_string_copy },
	{ "string->list", 1, 1, p_string_to_list },
	{ "list->string", 1, 1, p_list_to_string },
	{ "string=?", 1, -1, p_string_eq },
	{ "string<?", 1, -1, p_string_lt },
	{ "string>?", 1, -1, p_string_gt },
	{ "string<=?", 1, -1, p_string_le },
	{ "string>=?", 1, -1, p_string_ge },
	{ "string-fill!", 2, 2, p_string_fill },
	{ "vector?", 1, 1, p_vectorp },
	{ "make-vector", 1, 2, p_make_vector },
	{ "vector", 0, -1, p_vector },
	{ "vector-length", 1, 1, p_vector_length },
	{ "vector-ref", 2, 2, p_vector_ref },
	{ "vector-set!", 3, 3, p_vector_set },
	{ "vector->list", 1, 1, p_vector_to_list },
	{ "list->vector", 1, 1, p_list_to_vector },
	{ "vector-fill!", 2, 2, p_vector_fill },
	{ "procedure?", 1, 1, p_procedurep },
	{ "apply", 2, -1, p_apply },
	{ "error", 1, -1, p_error },
	{ "exit", 0, 1, p_exit },
	{ "display", 1, 1, p_display },
	{ "write", 1, 1, p_write },
	{ "newline", 0, 0, p_newline },
	{ "write-char", 1, 1, p_write_char },
};

int nprims = (int)(sizeof prims / sizeof prims[0]);
int prim_apply, prim_cons, prim_list, prim_append, prim_list_to_vector;

static int find_prim(const char *name)
{
	for (int i = 0; i < nprims; i++)
		if (strcmp(prims[i].name, name) == 0)
			return i;
	scheme_fatal("internal error: missing primitive");
}

/* Binds every primitive to its global name.  */
void prims_init(void)
{
	for (int i = 0; i < nprims; i++) {
		value_t s = intern_c(prims[i].name);
		REF_STORE(s, 1, MKPRIM(i));
	}
	prim_apply = find_prim("apply");
	prim_cons = find_prim("cons");
	prim_list = find_prim("list");
	prim_append = find_prim("append");
	prim_list_to_vector = find_prim("list->vector");
}
