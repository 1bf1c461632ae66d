/* read.c: the reader: source text -> data (fixnums, symbols, strings,
   characters, booleans, lists, vectors; ' ` , ,@ abbreviations; comments
   ; #| |# #;).  A syntax error is a Scheme error. */
#include <string.h>

#include "scheme.h"

static value_t sym_quote, sym_quasiquote, sym_unquote, sym_unquote_splicing;
static int roots_done;

static _Noreturn void syntax_error(const char *what)
{
	scheme_fatal(what);
}

static int delimiter(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
	       c == '(' || c == ')' || c == '"' || c == ';' || c == '\'' ||
	       c == '`' || c == ',';
}

static int peek(struct reader *r)
{
	return r->p < r->end ? *r->p : -1;
}

/* Skips white space and comments.  */
static void skip(struct reader *r)
{
	for (;;) {
		int c = peek(r);
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
			r->p++;
		} else if (c == ';') {
			while (r->p < r->end && *r->p != '\n')
				r->p++;
		} else if (c == '#' && r->p + 1 < r->end && r->p[1] == '|') {
			int depth = 1;
			r->p += 2;
			while (depth > 0) {
				if (r->p + 1 >= r->end)
					syntax_error("read: unterminated #| comment");
				if (r->p[0] == '|' && r->p[1] == '#') {
					depth--;
					r->p += 2;
				} else if (r->p[0] == '#' && r->p[1] == '|') {
					depth++;
					r->p += 2;
				} else {
					r->p++;
				}
			}
		} else if (c == '#' && r->p + 1 < r->end && r->p[1] == ';') {
			r->p += 2;
			if (read_datum(r) == EOF_V)
				syntax_error("read: end of input after #;");
		} else {
			return;
		}
	}
}

/* Parses [s, s + n) as an integer in `radix`; 0 if it is not one.  */
int parse_integer(const unsigned char *s, uint64_t n, int radix, int64_t *out)
{
	uint64_t i = 0;
	int neg = 0;
	if (n > 0 && (s[0] == '+' || s[0] == '-')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == n)
		return 0;
	uint64_t limit = neg ? (uint64_t)1 << 62 : ((uint64_t)1 << 62) - 1;
	uint64_t v = 0;
	for (; i < n; i++) {
		int c = s[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'z')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'Z')
			d = c - 'A' + 10;
		else
			return 0;
		if (d >= radix)
			return 0;
		if (v > (limit - (uint64_t)d) / (uint64_t)radix)
			return -1; /* too large for a fixnum */
		v = v * (uint64_t)radix + (uint64_t)d;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 1;
}

static value_t read_atom(struct reader *r)
{
	const unsigned char *s = r->p;
	while (r->p < r->end && !delimiter(*r->p))
		r->p++;
	uint64_t n = (uint64_t)(r->p - s);
	int64_t v;
	int k = parse_integer(s, n, 10, &v);
	if (k > 0)
		return FIXNUM(v);
	if (k < 0)
		syntax_error("read: integer too large");
	return intern(s, n);
}

static const struct {
	const char *name;
	int code;
} char_names[] = {
	{ "space", ' ' }, { "newline", '\n' }, { "tab", '\t' },
	{ "nul", 0 }, { "null", 0 }, { "return", '\r' }, { "linefeed", '\n' },
	{ "alarm", 7 }, { "backspace", 8 }, { "delete", 127 },
	{ "escape", 27 },
};

static value_t read_seq(struct reader *r, int dotted, const char *eof);

static value_t read_hash(struct reader *r)
{
	r->p++; /* '#' */
	int c = peek(r);
	if (c == '\\') {
		r->p++;
		if (r->p >= r->end)
			syntax_error("read: end of input in a character");
		const unsigned char *s = r->p++;
		while (r->p < r->end && !delimiter(*r->p))
			r->p++;
		uint64_t n = (uint64_t)(r->p - s);
		if (n == 1)
			return MKCHAR(s[0]);
		for (size_t i = 0; i < sizeof char_names / sizeof char_names[0]; i++)
			if (strlen(char_names[i].name) == n &&
			    memcmp(char_names[i].name, s, n) == 0)
				return MKCHAR(char_names[i].code);
		int64_t v;
		if (s[0] == 'x' && parse_integer(s + 1, n - 1, 16, &v) > 0 &&
		    v >= 0 && v < 256)
			return MKCHAR(v);
		syntax_error("read: unknown character name");
	}
	if (c == '(') {
		r->p++;
		value_t l = read_seq(r, 0, "read: end of input in a vector");
		GC_PUSH(&l);
		int64_t n = list_length(l);
		value_t v = make_vector((uint64_t)n, 0);
		GC_POP(1);
		for (int64_t i = 0; i < n; i++, l = CDR(l))
			REF_STORE(v, i, CAR(l));
		return v;
	}
	const unsigned char *s = r->p;
	while (r->p < r->end && !delimiter(*r->p))
		r->p++;
	uint64_t n = (uint64_t)(r->p - s);
	if ((n == 1 && s[0] == 't') || (n == 4 && memcmp(s, "true", 4) == 0))
		return TRUE_V;
	if ((n == 1 && s[0] == 'f') || (n == 5 && memcmp(s, "false", 5) == 0))
		return FALSE_V;
	syntax_error("read: bad # syntax");
}

static value_t read_string(struct reader *r)
{
	r->p++; /* '"' */
	/* First pass: the length after escapes.  */
	uint64_t n = 0;
	const unsigned char *q = r->p;
	for (;; n++) {
		if (q >= r->end)
			syntax_error("read: end of input in a string");
		if (*q == '"')
			break;
		if (*q == '\\') {
			q++;
			if (q >= r->end)
				syntax_error("read: end of input in a string");
		}
		q++;
	}
	value_t s = make_string(NULL, n);
	unsigned char *b = STR_BYTES(s);
	for (uint64_t i = 0; i < n; i++) {
		int c = *r->p++;
		if (c == '\\') {
			c = *r->p++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = 7; break;
			case '0': c = 0; break;
			case '"': case '\\': break;
			default: syntax_error("read: unknown string escape");
			}
		}
		b[i] = (unsigned char)c;
	}
	r->p++; /* '"' */
	return s;
}

value_t read_datum(struct reader *r)
{
	if (!roots_done) {
		roots_done = 1;
		gc_root(&sym_quote);
		gc_root(&sym_quasiquote);
		gc_root(&sym_unquote);
		gc_root(&sym_unquote_splicing);
		sym_quote = intern_c("quote");
		sym_quasiquote = intern_c("quasiquote");
		sym_unquote = intern_c("unquote");
		sym_unquote_splicing = intern_c("unquote-splicing");
	}
	CHECK_STACK();
	skip(r);
	int c = peek(r);
	if (c < 0)
		return EOF_V;
	if (c == ')')
		syntax_error("read: unexpected )");
	if (c == '"')
		return read_string(r);
	if (c == '#' && r->p + 1 < r->end && (!delimiter(r->p[1]) || r->p[1] == '('))
		return read_hash(r);
	if (c == '\'' || c == '`' || c == ',') {
		value_t sym = sym_quote;
		r->p++;
		if (c == '`')
			sym = sym_quasiquote;
		else if (c == ',' && peek(r) == '@') {
			r->p++;
			sym = sym_unquote_splicing;
		} else if (c == ',')
			sym = sym_unquote;
		value_t x = read_datum(r);
		if (x == EOF_V)
			syntax_error("read: end of input after a quote");
		x = cons(x, NIL);
		return cons(sym, x);
	}
	if (c != '(')
		return read_atom(r);
	r->p++;
	return read_seq(r, 1, "read: end of input in a list");
}

/* read_seq: the data after an opening '(' (of a list or a vector) up to
   its ')', as a list.  With dotted, `. x` before the ')' makes x the last
   cdr.  eof is the error for input that ends first.  */
static value_t read_seq(struct reader *r, int dotted, const char *eof)
{
	value_t l = NIL, tail = 0, x = 0;
	GC_PUSH(&l);
	GC_PUSH(&x);
	for (;;) {
		skip(r);
		int c = peek(r);
		if (c < 0)
			syntax_error(eof);
		if (c == ')') {
			r->p++;
			break;
		}
		if (dotted && c == '.' && r->p + 1 < r->end && delimiter(r->p[1])) {
			if (tail == 0)
				syntax_error("read: bad dotted list");
			r->p++;
			x = read_datum(r);
			if (x == EOF_V)
				syntax_error(eof);
			REF_STORE(tail, 1, x);
			skip(r);
			if (peek(r) != ')')
				syntax_error("read: bad dotted list");
			r->p++;
			break;
		}
		x = read_datum(r);
		if (x == EOF_V)
			syntax_error(eof);
		x = cons(x, NIL);
		if (tail == 0)
			l = x;
		else
			REF_STORE(tail, 1, x);
		tail = x;
	}
	GC_POP(2);
	return l;
}
