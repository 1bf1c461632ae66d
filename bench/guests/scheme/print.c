/* print.c: the printer: `write` (machine-readable) and `display` forms of
   any value.  Output is deterministic: procedures print by name, never by
   address.  Recursion goes down car and vector elements only (lists are
   walked in a loop), under the stack check. */
#include "scheme.h"

static void put_fixnum(FILE *f, int64_t n)
{
	char buf[24];
	int i = sizeof buf;
	uint64_t u = n < 0 ? -(uint64_t)n : (uint64_t)n;
	do {
		buf[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u != 0);
	if (n < 0)
		buf[--i] = '-';
	fwrite(buf + i, 1, sizeof buf - i, f);
}

static void put_string(FILE *f, value_t s, int write)
{
	const unsigned char *b = STR_BYTES(s);
	uint64_t n = STR_LEN(s);
	if (!write) {
		fwrite(b, 1, n, f);
		return;
	}
	fputc('"', f);
	for (uint64_t i = 0; i < n; i++) {
		int c = b[i];
		switch (c) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		default: fputc(c, f);
		}
	}
	fputc('"', f);
}

static void put_char(FILE *f, int c, int write)
{
	if (!write) {
		fputc(c, f);
		return;
	}
	switch (c) {
	case ' ': fputs("#\\space", f); return;
	case '\n': fputs("#\\newline", f); return;
	case '\t': fputs("#\\tab", f); return;
	case 0: fputs("#\\null", f); return;
	}
	if (c > ' ' && c < 127) {
		fputs("#\\", f);
		fputc(c, f);
		return;
	}
	static const char hex[] = "0123456789abcdef";
	fputs("#\\x", f);
	fputc(hex[(c >> 4) & 15], f);
	fputc(hex[c & 15], f);
}

static void put_proc_name(FILE *f, const char *kind, value_t name)
{
	fputs("#<", f);
	fputs(kind, f);
	if (IS_SYMBOL(name)) {
		fputc(' ', f);
		put_string(f, SYM_NAME(name), 0);
	}
	fputc('>', f);
}

void print_value(FILE *f, value_t v, int write)
{
	CHECK_STACK();
	if (IS_FIXNUM(v)) {
		put_fixnum(f, FIXVAL(v));
		return;
	}
	if (IS_CHAR(v)) {
		put_char(f, CHARVAL(v), write);
		return;
	}
	if (IS_PRIM(v)) {
		fputs("#<primitive ", f);
		fputs(prims[PRIMIDX(v)].name, f);
		fputc('>', f);
		return;
	}
	if (!IS_REF(v)) {
		const char *s = "#<no value>";
		if (v == FALSE_V)
			s = "#f";
		else if (v == TRUE_V)
			s = "#t";
		else if (v == NIL)
			s = "()";
		else if (v == UNSPEC)
			s = "#<unspecified>";
		else if (v == EOF_V)
			s = "#<eof>";
		else if (v == UNBOUND)
			s = "#<unbound>";
		fputs(s, f);
		return;
	}
	switch (TYPE_OF(v)) {
	case TYPE_PAIR:
		fputc('(', f);
		for (;;) {
			print_value(f, CAR(v), write);
			v = CDR(v);
			if (!IS_PAIR(v))
				break;
			fputc(' ', f);
		}
		if (v != NIL) {
			fputs(" . ", f);
			print_value(f, v, write);
		}
		fputc(')', f);
		return;
	case TYPE_SYMBOL:
		put_string(f, SYM_NAME(v), 0);
		return;
	case TYPE_STRING:
		put_string(f, v, write);
		return;
	case TYPE_VECTOR:
		fputs("#(", f);
		for (uint64_t i = 0; i < VEC_LEN(v); i++) {
			if (i > 0)
				fputc(' ', f);
			print_value(f, SLOT(v, i), write);
		}
		fputc(')', f);
		return;
	case TYPE_CLOSURE:
		put_proc_name(f, "procedure", NODE_B(CLO_LAMBDA(v)));
		return;
	case TYPE_FRAME:
		fputs("#<frame>", f);
		return;
	case TYPE_NODE:
		fputs("#<node>", f);
		return;
	default:
		fputs("#<free>", f);
		return;
	}
}
