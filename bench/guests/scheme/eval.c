/* eval.c: the compiler (data -> node trees) and the evaluator (node tree
   + environment frame -> value).

   The compiler resolves every variable at compile time: a local is a
   (depth, slot) pair in the chain of heap frames, a global is its symbol,
   whose value slot is the variable.  A frame holds a lambda's parameters
   and the variables of the internal defines of its body (let and letrec
   likewise), so no lookup by name happens at run time.  Derived forms
   (let*, cond, when, unless, do, quasiquote) are rewritten into core
   forms first; named let becomes a letrec frame holding the loop closure.

   The evaluator is one function, eval(), a loop around a switch on the
   node's opcode.  Whatever is in tail position (if branches, the last
   form of a body, the body of a called closure, apply) continues the loop
   with a new node and environment, so tail calls do not grow the C stack;
   operands and arguments recurse into eval().  Recursion depth is bounded
   by CHECK_STACK ("recursion too deep"). */
#include <string.h>

#include "scheme.h"

enum op {
	OP_CONST,  /* a: the value */
	OP_LREF0,  /* x: slot in the current frame */
	OP_LREF1,  /* x: slot in the parent frame */
	OP_LREF,   /* x: depth, y: slot */
	OP_GREF,   /* a: symbol */
	OP_LSET,   /* a: value node; x: depth, y: slot */
	OP_GSET,   /* a: value node, b: symbol */
	OP_GDEF,   /* a: value node, b: symbol */
	OP_IF,     /* a: test, b: then, c: else */
	OP_LAMBDA, /* a: body, b: name or #f; x: required parameters,
		      y: frame slots << 1 | has rest parameter */
	OP_SEQ,    /* a: vector of nodes (two or more) */
	OP_AND,    /* a: vector of nodes (two or more) */
	OP_OR,     /* a: vector of nodes (two or more) */
	OP_LET,    /* a: vector of init nodes, b: body; x: frame slots */
	OP_LETREC, /* a: vector of init nodes, b: body; x: frame slots */
	OP_CASE,   /* a: key, b: list of (datums . node), c: else node */
	OP_CALL,   /* a: operator, b: vector of argument nodes (or ()); x: argc */
};

/* Keyword symbols by KW_* number (a heap vector, one root).  */
static value_t keywords;

static const char *const keyword_names[NKW] = {
	[KW_QUOTE] = "quote", [KW_QUASIQUOTE] = "quasiquote",
	[KW_UNQUOTE] = "unquote", [KW_UNQUOTE_SPLICING] = "unquote-splicing",
	[KW_LAMBDA] = "lambda", [KW_DEFINE] = "define", [KW_IF] = "if",
	[KW_SET] = "set!", [KW_BEGIN] = "begin", [KW_LET] = "let",
	[KW_LETSTAR] = "let*", [KW_LETREC] = "letrec",
	[KW_LETRECSTAR] = "letrec*", [KW_COND] = "cond", [KW_CASE] = "case",
	[KW_AND] = "and", [KW_OR] = "or", [KW_WHEN] = "when",
	[KW_UNLESS] = "unless", [KW_DO] = "do", [KW_ELSE] = "else",
	[KW_ARROW] = "=>", [KW_DOT3] = "...",
};

#define KW(k) SLOT(keywords, k)

void eval_init(void)
{
	gc_root(&keywords);
	keywords = make_vector(NKW, FALSE_V);
	for (int k = 1; k < NKW; k++) {
		value_t s = intern_c(keyword_names[k]);
		SYM_KEYWORD(s) = (uint64_t)k;
		REF_STORE(keywords, k, s);
	}
}

/* ---- syntax helpers ---- */

static _Noreturn void bad_syntax(value_t x)
{
	error1("bad syntax", x);
}

static value_t list2(value_t a, value_t b)
{
	GC_PUSH(&a);
	value_t r = cons(b, NIL);
	r = cons(a, r);
	GC_POP(1);
	return r;
}

static value_t list3(value_t a, value_t b, value_t c)
{
	GC_PUSH(&a);
	value_t r = list2(b, c);
	r = cons(a, r);
	GC_POP(1);
	return r;
}

static value_t list4(value_t a, value_t b, value_t c, value_t d)
{
	GC_PUSH(&a);
	value_t r = list3(b, c, d);
	r = cons(a, r);
	GC_POP(1);
	return r;
}

static value_t mk(enum op op, value_t a, value_t b, value_t c, uint64_t x, uint64_t y)
{
	GC_PUSH(&a);
	GC_PUSH(&b);
	GC_PUSH(&c);
	value_t n = gc_alloc(TYPE_NODE, 3, 6);
	GC_POP(3);
	REF_STORE(n, 0, a);
	REF_STORE(n, 1, b);
	REF_STORE(n, 2, c);
	NODE_OP(n) = op;
	NODE_X(n) = x;
	NODE_Y(n) = y;
	return n;
}

static value_t mk_const(value_t v)
{
	return mk(OP_CONST, v, 0, 0, 0, 0);
}

static int64_t syntax_length(value_t x)
{
	int64_t n = list_length(x);
	if (n < 0)
		bad_syntax(x);
	return n;
}

/* Finds sym in the scope (a list of frames, each a list of symbols):
   1 and depth, slot if local; 0 if global. */
static int lookup(value_t sym, value_t scope, uint64_t *depth, uint64_t *slot)
{
	for (uint64_t d = 0; scope != NIL; scope = CDR(scope), d++) {
		uint64_t i = 1;
		for (value_t f = CAR(scope); f != NIL; f = CDR(f), i++) {
			if (CAR(f) == sym) {
				*depth = d;
				*slot = i;
				return 1;
			}
		}
	}
	return 0;
}

static value_t compile(value_t x, value_t scope);

/* ---- bodies ---- */

/* The frame a body runs in: vars followed by the names of the body's
   internal defines, pushed onto scope.  (Walking pointers into rooted
   structures need no roots of their own: objects never move.) */
static value_t body_scope(value_t body, value_t vars, value_t scope)
{
	value_t names = NIL, tail = 0, name = 0;
	GC_PUSH(&body);
	GC_PUSH(&vars);
	GC_PUSH(&scope);
	GC_PUSH(&names);
	for (value_t v = vars; v != NIL; v = CDR(v)) {
		value_t p = cons(CAR(v), NIL);
		if (tail == 0)
			names = p;
		else
			REF_STORE(tail, 1, p);
		tail = p;
	}
	for (value_t b = body; IS_PAIR(b); b = CDR(b)) {
		value_t form = CAR(b);
		if (!IS_PAIR(form) || CAR(form) != KW(KW_DEFINE))
			continue;
		if (!IS_PAIR(CDR(form)))
			bad_syntax(form);
		name = CAR(CDR(form));
		if (IS_PAIR(name)) /* (define (f . args) ...) */
			name = CAR(name);
		if (!IS_SYMBOL(name))
			bad_syntax(form);
		int seen = 0;
		for (value_t q = names; q != NIL; q = CDR(q))
			seen |= CAR(q) == name;
		if (seen)
			continue;
		value_t p = cons(name, NIL);
		if (tail == 0)
			names = p;
		else
			REF_STORE(tail, 1, p);
		tail = p;
	}
	value_t r = cons(names, scope);
	GC_POP(4);
	return r;
}

/* A sequence of forms -> one node (UNSPEC if empty).  */
static value_t compile_seq(value_t forms, value_t scope)
{
	int64_t n = syntax_length(forms);
	if (n == 0)
		return mk_const(UNSPEC);
	if (n == 1)
		return compile(CAR(forms), scope);
	value_t v = 0, node = 0;
	GC_PUSH(&forms);
	GC_PUSH(&scope);
	GC_PUSH(&v);
	v = make_vector((uint64_t)n, 0);
	for (int64_t i = 0; i < n; i++, forms = CDR(forms)) {
		node = compile(CAR(forms), scope);
		REF_STORE(v, i, node);
	}
	node = mk(OP_SEQ, v, 0, 0, 0, 0);
	GC_POP(3);
	return node;
}

/* Compiles the nodes of a list of expressions into a vector.  */
static value_t compile_vector(value_t xs, value_t scope)
{
	int64_t n = syntax_length(xs);
	value_t v = 0, node;
	GC_PUSH(&xs);
	GC_PUSH(&scope);
	GC_PUSH(&v);
	v = make_vector((uint64_t)n, 0);
	for (int64_t i = 0; i < n; i++, xs = CDR(xs)) {
		node = compile(CAR(xs), scope);
		REF_STORE(v, i, node);
	}
	GC_POP(3);
	return v;
}

static value_t compile_lambda(value_t params, value_t body, value_t scope, value_t name)
{
	value_t vars = NIL, tail = 0, node = 0;
	GC_PUSH(&params);
	GC_PUSH(&body);
	GC_PUSH(&scope);
	GC_PUSH(&name);
	GC_PUSH(&vars);
	uint64_t nreq = 0;
	int rest = 0;
	value_t p = params;
	for (;;) {
		value_t sym;
		if (IS_PAIR(p)) {
			sym = CAR(p);
			nreq++;
		} else if (p == NIL) {
			break;
		} else {
			sym = p;
			rest = 1;
		}
		if (!IS_SYMBOL(sym))
			bad_syntax(params);
		value_t c = cons(sym, NIL);
		if (tail == 0)
			vars = c;
		else
			REF_STORE(tail, 1, c);
		tail = c;
		if (rest)
			break;
		/* params is rooted, p is reachable from it. */
		p = CDR(p);
	}
	if (syntax_length(body) == 0)
		bad_syntax(body);
	scope = body_scope(body, vars, scope);
	uint64_t nslots = (uint64_t)list_length(CAR(scope));
	node = compile_seq(body, scope);
	node = mk(OP_LAMBDA, node, name, 0, nreq, nslots << 1 | (uint64_t)rest);
	GC_POP(5);
	return node;
}

/* ---- special forms ---- */

static value_t compile_define(value_t x, value_t scope)
{
	int64_t n = syntax_length(x);
	if (n < 2)
		bad_syntax(x);
	value_t target = CAR(CDR(x)), name, value = 0;
	GC_PUSH(&x);
	GC_PUSH(&scope);
	GC_PUSH(&value);
	if (IS_PAIR(target)) {
		name = CAR(target);
		if (!IS_SYMBOL(name))
			bad_syntax(x);
		value = compile_lambda(CDR(target), CDR(CDR(x)), scope, name);
	} else {
		name = target;
		if (!IS_SYMBOL(name) || n > 3)
			bad_syntax(x);
		if (n == 3) {
			value_t e = CAR(CDR(CDR(x)));
			if (IS_PAIR(e) && CAR(e) == KW(KW_LAMBDA) && IS_PAIR(CDR(e)) &&
			    !lookup(KW(KW_LAMBDA), scope, &(uint64_t){ 0 }, &(uint64_t){ 0 }))
				value = compile_lambda(CAR(CDR(e)), CDR(CDR(e)), scope, name);
			else
				value = compile(e, scope);
		} else {
			value = mk_const(UNSPEC);
		}
	}
	/* x is rooted and name is reachable from it.  */
	value_t node;
	if (scope == NIL) {
		node = mk(OP_GDEF, value, name, 0, 0, 0);
	} else {
		uint64_t depth, slot;
		if (!lookup(name, scope, &depth, &slot) || depth != 0)
			error1("define: not at the start of a body", x);
		node = mk(OP_LSET, value, 0, 0, 0, slot);
	}
	GC_POP(3);
	return node;
}

/* Appends a fresh pair holding v to the list (*head, *tail).  */
static void append1(value_t *head, value_t *tail, value_t v)
{
	value_t c = cons(v, NIL);
	if (*tail == 0)
		*head = c;
	else
		REF_STORE(*tail, 1, c);
	*tail = c;
}

static value_t compile_let(value_t x, value_t scope)
{
	if (syntax_length(x) < 3)
		bad_syntax(x);
	value_t bindings = CAR(CDR(x)), body = CDR(CDR(x)), loop_name = 0;
	if (IS_SYMBOL(bindings)) {
		if (syntax_length(x) < 4)
			bad_syntax(x);
		loop_name = bindings;
		bindings = CAR(body);
		body = CDR(body);
	}
	value_t names = NIL, inits = NIL, tail_n = 0, tail_i = 0;
	value_t node = 0, args = 0, lscope = 0;
	GC_PUSH(&x);
	GC_PUSH(&scope);
	GC_PUSH(&names);
	GC_PUSH(&inits);
	GC_PUSH(&node);
	GC_PUSH(&args);
	GC_PUSH(&lscope);
	syntax_length(bindings);
	for (value_t b = bindings; b != NIL; b = CDR(b)) {
		value_t bd = CAR(b);
		if (!IS_PAIR(bd) || !IS_SYMBOL(CAR(bd)) || syntax_length(bd) > 2)
			bad_syntax(x);
		append1(&names, &tail_n, CAR(bd));
		append1(&inits, &tail_i, CDR(bd) == NIL ? UNSPEC : CAR(CDR(bd)));
	}
	args = compile_vector(inits, scope);
	if (loop_name) {
		/* ((letrec ((name (lambda names body...))) name) inits...)  */
		lscope = cons(loop_name, NIL);
		lscope = cons(lscope, scope);
		node = compile_lambda(names, body, lscope, loop_name);
		lscope = make_vector(1, node);
		node = mk(OP_LREF0, 0, 0, 0, 1, 0);
		node = mk(OP_LETREC, lscope, node, 0, 1, 0);
		node = mk(OP_CALL, node, args, 0, (uint64_t)list_length(inits), 0);
	} else {
		lscope = body_scope(body, names, scope);
		uint64_t nslots = (uint64_t)list_length(CAR(lscope));
		node = compile_seq(body, lscope);
		node = mk(OP_LET, args, node, 0, nslots, 0);
	}
	GC_POP(7);
	return node;
}

static value_t compile_letrec(value_t x, value_t scope)
{
	if (syntax_length(x) < 3)
		bad_syntax(x);
	value_t bindings = CAR(CDR(x)), body = CDR(CDR(x));
	value_t names = NIL, inits = NIL, tail_n = 0, tail_i = 0;
	value_t node = 0, args = 0;
	GC_PUSH(&x);
	GC_PUSH(&scope);
	GC_PUSH(&names);
	GC_PUSH(&inits);
	GC_PUSH(&node);
	GC_PUSH(&args);
	syntax_length(bindings);
	for (value_t b = bindings; b != NIL; b = CDR(b)) {
		value_t bd = CAR(b);
		if (!IS_PAIR(bd) || !IS_SYMBOL(CAR(bd)) || syntax_length(bd) != 2)
			bad_syntax(x);
		append1(&names, &tail_n, CAR(bd));
		append1(&inits, &tail_i, CAR(CDR(bd)));
	}
	/* Inits and body share one frame: names, then body defines.  */
	scope = body_scope(body, names, scope);
	uint64_t nslots = (uint64_t)list_length(CAR(scope));
	int64_t ninit = list_length(inits);
	args = make_vector((uint64_t)ninit, 0);
	value_t in = inits, nm = names;
	for (int64_t i = 0; i < ninit; i++, in = CDR(in), nm = CDR(nm)) {
		value_t e = CAR(in);
		if (IS_PAIR(e) && CAR(e) == KW(KW_LAMBDA) && IS_PAIR(CDR(e)))
			node = compile_lambda(CAR(CDR(e)), CDR(CDR(e)), scope, CAR(nm));
		else
			node = compile(e, scope);
		REF_STORE(args, i, node);
	}
	node = compile_seq(body, scope);
	node = mk(OP_LETREC, args, node, 0, nslots, 0);
	GC_POP(6);
	return node;
}

/* (let* ((a 1) (b 2)) body...) -> (let ((a 1)) (let* ((b 2)) body...)) */
static value_t rewrite_letstar(value_t x)
{
	if (syntax_length(x) < 3)
		bad_syntax(x);
	value_t bindings = CAR(CDR(x));
	syntax_length(bindings);
	if (bindings == NIL || CDR(bindings) == NIL)
		return cons(KW(KW_LET), CDR(x));
	value_t inner = 0, r;
	GC_PUSH(&x);
	GC_PUSH(&inner);
	inner = cons(CDR(bindings), CDR(CDR(x)));
	inner = cons(KW(KW_LETSTAR), inner);
	inner = cons(inner, NIL);
	r = cons(CAR(bindings), NIL);
	r = cons(r, inner);
	r = cons(KW(KW_LET), r);
	GC_POP(2);
	return r;
}

/* cond clauses -> nested if, or, let (for =>).  */
static value_t rewrite_cond(value_t clauses)
{
	if (clauses == NIL)
		return cons(KW(KW_BEGIN), NIL);
	if (!IS_PAIR(clauses) || !IS_PAIR(CAR(clauses)))
		bad_syntax(clauses);
	value_t clause = CAR(clauses), rest = 0, r = 0;
	syntax_length(clause);
	if (CAR(clause) == KW(KW_ELSE))
		return cons(KW(KW_BEGIN), CDR(clause));
	GC_PUSH(&clauses);
	GC_PUSH(&rest);
	GC_PUSH(&r);
	rest = rewrite_cond(CDR(clauses));
	if (CDR(clause) == NIL) {
		r = list3(KW(KW_OR), CAR(clause), rest);
	} else if (CAR(CDR(clause)) == KW(KW_ARROW)) {
		if (syntax_length(clause) != 3)
			bad_syntax(clause);
		value_t t = uninterned("cond-value");
		GC_PUSH(&t);
		r = list2(CAR(CDR(CDR(clause))), t);        /* (f t) */
		r = list4(KW(KW_IF), t, r, rest);           /* (if t (f t) rest) */
		rest = list2(t, CAR(clause));               /* (t test) */
		rest = cons(rest, NIL);
		r = list3(KW(KW_LET), rest, r);
		GC_POP(1);
	} else {
		r = cons(KW(KW_BEGIN), CDR(clause));
		r = list4(KW(KW_IF), CAR(clause), r, rest);
	}
	GC_POP(3);
	return r;
}

static value_t compile_case(value_t x, value_t scope)
{
	if (syntax_length(x) < 2)
		bad_syntax(x);
	value_t key = 0, clauses = NIL, tail = 0, els = 0, node = 0;
	GC_PUSH(&x);
	GC_PUSH(&scope);
	GC_PUSH(&key);
	GC_PUSH(&clauses);
	GC_PUSH(&els);
	GC_PUSH(&node);
	key = compile(CAR(CDR(x)), scope);
	for (value_t c = CDR(CDR(x)); c != NIL; c = CDR(c)) {
		value_t clause = CAR(c);
		if (!IS_PAIR(clause) || syntax_length(clause) < 1)
			bad_syntax(x);
		if (CAR(clause) == KW(KW_ELSE)) {
			els = compile_seq(CDR(clause), scope);
			break;
		}
		if (list_length(CAR(clause)) < 0)
			bad_syntax(x);
		node = compile_seq(CDR(clause), scope);
		node = cons(CAR(clause), node);
		append1(&clauses, &tail, node);
	}
	if (els == 0)
		els = mk_const(UNSPEC);
	node = mk(OP_CASE, key, clauses, els, 0, 0);
	GC_POP(6);
	return node;
}

/* (do ((var init step)...) (test res...) body...) ->
   (let loop ((var init)...)
     (if test (begin res...) (begin body... (loop step...))))  */
static value_t rewrite_do(value_t x)
{
	if (syntax_length(x) < 3 || !IS_PAIR(CAR(CDR(CDR(x)))))
		bad_syntax(x);
	value_t loop = 0, binds = NIL, steps = NIL, tb = 0, ts = 0, r = 0;
	GC_PUSH(&x);
	GC_PUSH(&loop);
	GC_PUSH(&binds);
	GC_PUSH(&steps);
	GC_PUSH(&r);
	loop = uninterned("do-loop");
	value_t specs = CAR(CDR(x));
	syntax_length(specs);
	for (value_t s = specs; s != NIL; s = CDR(s)) {
		value_t spec = CAR(s);
		int64_t n = IS_PAIR(spec) ? syntax_length(spec) : 0;
		if (n < 2 || n > 3 || !IS_SYMBOL(CAR(spec)))
			bad_syntax(x);
		r = list2(CAR(spec), CAR(CDR(spec)));
		append1(&binds, &tb, r);
		append1(&steps, &ts, n == 3 ? CAR(CDR(CDR(spec))) : CAR(spec));
	}
	value_t test = CAR(CDR(CDR(x)));
	steps = cons(loop, steps);                        /* (loop step...) */
	steps = cons(steps, NIL);
	r = CDR(CDR(CDR(x)));                             /* body... */
	syntax_length(r);
	/* body... (loop step...): copy the body, then the call.  */
	value_t seq = NIL, st = 0;
	GC_PUSH(&seq);
	for (value_t b = r; b != NIL; b = CDR(b))
		append1(&seq, &st, CAR(b));
	if (st == 0)
		seq = steps;
	else
		REF_STORE(st, 1, steps);
	seq = cons(KW(KW_BEGIN), seq);
	r = cons(KW(KW_BEGIN), CDR(test));
	r = list4(KW(KW_IF), CAR(test), r, seq);
	r = list4(KW(KW_LET), loop, binds, r);
	GC_POP(6);
	return r;
}

/* Quasiquote template -> constructor expression.  Operators are quoted
   primitives, so redefining list or append does not change `.  */
static value_t qq(value_t t)
{
	if (IS_VECTOR(t)) {
		value_t l = NIL, tail = 0, r = 0, op;
		GC_PUSH(&t);
		GC_PUSH(&l);
		GC_PUSH(&r);
		for (uint64_t i = 0; i < VEC_LEN(t); i++)
			append1(&l, &tail, SLOT(t, i));
		r = qq(l);
		op = list2(KW(KW_QUOTE), MKPRIM(prim_list_to_vector));
		r = list2(op, r);
		GC_POP(3);
		return r;
	}
	if (!IS_PAIR(t))
		return list2(KW(KW_QUOTE), t);
	if (CAR(t) == KW(KW_UNQUOTE)) {
		if (syntax_length(t) != 2)
			bad_syntax(t);
		return CAR(CDR(t));
	}
	value_t a = 0, d = 0, r;
	GC_PUSH(&t);
	GC_PUSH(&a);
	GC_PUSH(&d);
	d = qq(CDR(t));
	value_t head = CAR(t);
	int prim = prim_cons;
	if (IS_PAIR(head) && CAR(head) == KW(KW_UNQUOTE_SPLICING)) {
		if (syntax_length(head) != 2)
			bad_syntax(head);
		a = CAR(CDR(head));
		prim = prim_append;
	} else {
		a = qq(head);
	}
	r = list2(KW(KW_QUOTE), MKPRIM(prim));
	r = list3(r, a, d);
	GC_POP(3);
	return r;
}

/* ---- the compiler ---- */

static value_t compile_call(value_t x, value_t scope)
{
	int64_t argc = syntax_length(x) - 1;
	value_t fn = 0, args = NIL, node;
	GC_PUSH(&x);
	GC_PUSH(&scope);
	GC_PUSH(&fn);
	GC_PUSH(&args);
	fn = compile(CAR(x), scope);
	if (argc > 0)
		args = compile_vector(CDR(x), scope);
	node = mk(OP_CALL, fn, args, 0, (uint64_t)argc, 0);
	GC_POP(4);
	return node;
}

/* A vector of two or more nodes for and/or.  */
static value_t compile_andor(enum op op, value_t x, value_t scope, value_t empty)
{
	int64_t n = syntax_length(x) - 1;
	if (n == 0)
		return mk_const(empty);
	if (n == 1)
		return compile(CAR(CDR(x)), scope);
	value_t v = compile_vector(CDR(x), scope);
	return mk(op, v, 0, 0, 0, 0);
}

static value_t compile_form(int kw, value_t x, value_t scope)
{
	int64_t n = syntax_length(x);
	value_t r = 0, node;
	switch (kw) {
	case KW_QUOTE:
		if (n != 2)
			bad_syntax(x);
		return mk_const(CAR(CDR(x)));
	case KW_QUASIQUOTE:
		if (n != 2)
			bad_syntax(x);
		GC_PUSH(&scope);
		r = qq(CAR(CDR(x)));
		node = compile(r, scope);
		GC_POP(1);
		return node;
	case KW_LAMBDA:
		if (n < 3)
			bad_syntax(x);
		return compile_lambda(CAR(CDR(x)), CDR(CDR(x)), scope, FALSE_V);
	case KW_DEFINE:
		return compile_define(x, scope);
	case KW_IF: {
		if (n != 3 && n != 4)
			bad_syntax(x);
		value_t a = 0, b = 0, c = 0;
		GC_PUSH(&x);
		GC_PUSH(&scope);
		GC_PUSH(&a);
		GC_PUSH(&b);
		a = compile(CAR(CDR(x)), scope);
		b = compile(CAR(CDR(CDR(x))), scope);
		c = n == 4 ? compile(CAR(CDR(CDR(CDR(x)))), scope) : mk_const(UNSPEC);
		node = mk(OP_IF, a, b, c, 0, 0);
		GC_POP(4);
		return node;
	}
	case KW_SET: {
		if (n != 3 || !IS_SYMBOL(CAR(CDR(x))))
			bad_syntax(x);
		GC_PUSH(&x);
		GC_PUSH(&scope);
		value_t v = compile(CAR(CDR(CDR(x))), scope);
		uint64_t depth, slot;
		if (lookup(CAR(CDR(x)), scope, &depth, &slot))
			node = mk(OP_LSET, v, 0, 0, depth, slot);
		else
			node = mk(OP_GSET, v, CAR(CDR(x)), 0, 0, 0);
		GC_POP(2);
		return node;
	}
	case KW_BEGIN:
		return compile_seq(CDR(x), scope);
	case KW_LET:
		return compile_let(x, scope);
	case KW_LETSTAR:
		GC_PUSH(&scope);
		r = rewrite_letstar(x);
		node = compile(r, scope);
		GC_POP(1);
		return node;
	case KW_LETREC:
	case KW_LETRECSTAR:
		return compile_letrec(x, scope);
	case KW_COND:
		GC_PUSH(&scope);
		r = rewrite_cond(CDR(x));
		node = compile(r, scope);
		GC_POP(1);
		return node;
	case KW_CASE:
		return compile_case(x, scope);
	case KW_AND:
		return compile_andor(OP_AND, x, scope, TRUE_V);
	case KW_OR:
		return compile_andor(OP_OR, x, scope, FALSE_V);
	case KW_WHEN:
	case KW_UNLESS:
		if (n < 2)
			bad_syntax(x);
		GC_PUSH(&x);
		GC_PUSH(&scope);
		GC_PUSH(&r);
		r = cons(KW(KW_BEGIN), CDR(CDR(x)));
		if (kw == KW_WHEN) {
			r = list3(KW(KW_IF), CAR(CDR(x)), r);
		} else {
			node = cons(KW(KW_BEGIN), NIL);
			r = list4(KW(KW_IF), CAR(CDR(x)), node, r);
		}
		node = compile(r, scope);
		GC_POP(3);
		return node;
	case KW_DO:
		GC_PUSH(&scope);
		r = rewrite_do(x);
		node = compile(r, scope);
		GC_POP(1);
		return node;
	default:
		bad_syntax(x);
	}
}

static value_t compile(value_t x, value_t scope)
{
	CHECK_STACK();
	uint64_t depth, slot;
	if (IS_SYMBOL(x)) {
		if (!lookup(x, scope, &depth, &slot)) {
			if (SYM_KEYWORD(x) != KW_NONE)
				bad_syntax(x);
			return mk(OP_GREF, x, 0, 0, 0, 0);
		}
		if (depth == 0)
			return mk(OP_LREF0, 0, 0, 0, slot, 0);
		if (depth == 1)
			return mk(OP_LREF1, 0, 0, 0, slot, 0);
		return mk(OP_LREF, 0, 0, 0, depth, slot);
	}
	if (!IS_PAIR(x)) {
		if (x == NIL)
			bad_syntax(x);
		return mk_const(x);
	}
	value_t head = CAR(x);
	if (IS_SYMBOL(head) && SYM_KEYWORD(head) != KW_NONE &&
	    !lookup(head, scope, &depth, &slot))
		return compile_form((int)SYM_KEYWORD(head), x, scope);
	return compile_call(x, scope);
}

value_t compile_toplevel(value_t x)
{
	return compile(x, NIL);
}

/* ---- the evaluator ---- */

static _Noreturn void arity_error(value_t fn, uint64_t argc)
{
	(void)argc;
	error1("wrong number of arguments", fn);
}

/* The value of a node that needs no evaluation (constant or variable);
   0 if it needs eval(). */
static inline value_t quick(value_t n, value_t env)
{
	value_t v;
	switch (NODE_OP(n)) {
	case OP_CONST:
		return NODE_A(n);
	case OP_LREF0:
		return SLOT(env, NODE_X(n));
	case OP_LREF1:
		return SLOT(SLOT(env, 0), NODE_X(n));
	case OP_GREF:
		v = SYM_VALUE(NODE_A(n));
		return v == UNBOUND ? 0 : v;
	default:
		return 0;
	}
}

static inline value_t EVAL(value_t n, value_t env)
{
	value_t q = quick(n, env);
	return q != 0 ? q : eval(n, env);
}

/* Binds a list of arguments to closure fn: its new frame.  */
static value_t bind_list(value_t fn, value_t args)
{
	value_t lam = CLO_LAMBDA(fn);
	uint64_t nreq = NODE_X(lam), y = NODE_Y(lam);
	int64_t argc = list_length(args);
	if (argc < 0)
		error1("apply: not a list", args);
	if ((uint64_t)argc < nreq || (!(y & 1) && (uint64_t)argc > nreq))
		arity_error(fn, (uint64_t)argc);
	GC_PUSH(&fn);
	GC_PUSH(&args);
	value_t frame = make_frame(y >> 1, CLO_ENV(fn));
	GC_PUSH(&frame);
	for (uint64_t i = 0; i < nreq; i++, args = CDR(args))
		REF_STORE(frame, 1 + i, CAR(args));
	if (y & 1) {
		/* The rest list is fresh, as if the arguments had been spread. */
		value_t head = NIL, tail = 0;
		GC_PUSH(&head);
		for (; args != NIL; args = CDR(args))
			append1(&head, &tail, CAR(args));
		REF_STORE(frame, 1 + nreq, head);
		GC_POP(1);
	}
	GC_POP(3);
	return frame;
}

#define MAX_INLINE_ARGS 8

value_t eval(value_t node, value_t env)
{
	value_t fn = 0, frame = 0, tmp = 0, result;
	GC_PUSH(&node);
	GC_PUSH(&env);
	GC_PUSH(&fn);
	GC_PUSH(&frame);
	GC_PUSH(&tmp);
#ifdef GC_DEBUG
	uint64_t saved_top = gc_shadow_top;
#endif
	CHECK_STACK();
loop:
	switch ((enum op)NODE_OP(node)) {
	case OP_CONST:
		result = NODE_A(node);
		break;
	case OP_LREF0:
		result = SLOT(env, NODE_X(node));
		break;
	case OP_LREF1:
		result = SLOT(SLOT(env, 0), NODE_X(node));
		break;
	case OP_LREF: {
		value_t e = env;
		for (uint64_t d = NODE_X(node); d > 0; d--)
			e = SLOT(e, 0);
		result = SLOT(e, NODE_Y(node));
		break;
	}
	case OP_GREF:
		result = SYM_VALUE(NODE_A(node));
		if (result == UNBOUND)
			error1("unbound variable", NODE_A(node));
		break;
	case OP_LSET: {
		tmp = EVAL(NODE_A(node), env);
		value_t e = env;
		for (uint64_t d = NODE_X(node); d > 0; d--)
			e = SLOT(e, 0);
		REF_STORE(e, NODE_Y(node), tmp);
		result = UNSPEC;
		break;
	}
	case OP_GSET:
		tmp = EVAL(NODE_A(node), env);
		if (SYM_VALUE(NODE_B(node)) == UNBOUND)
			error1("set!: unbound variable", NODE_B(node));
		REF_STORE(NODE_B(node), 1, tmp);
		result = UNSPEC;
		break;
	case OP_GDEF:
		tmp = EVAL(NODE_A(node), env);
		REF_STORE(NODE_B(node), 1, tmp);
		result = UNSPEC;
		break;
	case OP_IF:
		tmp = EVAL(NODE_A(node), env);
		node = tmp != FALSE_V ? NODE_B(node) : NODE_C(node);
		goto loop;
	case OP_LAMBDA:
		result = gc_alloc(TYPE_CLOSURE, 2, 2);
		REF_STORE(result, 0, node);
		REF_STORE(result, 1, env);
		break;
	case OP_SEQ: {
		uint64_t n = VEC_LEN(NODE_A(node));
		for (uint64_t i = 0; i + 1 < n; i++)
			eval(SLOT(NODE_A(node), i), env);
		node = SLOT(NODE_A(node), n - 1);
		goto loop;
	}
	case OP_AND:
	case OP_OR: {
		uint64_t n = VEC_LEN(NODE_A(node));
		int is_and = NODE_OP(node) == OP_AND;
		for (uint64_t i = 0; i + 1 < n; i++) {
			tmp = EVAL(SLOT(NODE_A(node), i), env);
			if ((tmp == FALSE_V) == is_and) {
				result = tmp;
				goto done;
			}
		}
		node = SLOT(NODE_A(node), n - 1);
		goto loop;
	}
	case OP_LET: {
		uint64_t n = VEC_LEN(NODE_A(node));
		frame = make_frame(NODE_X(node), env);
		for (uint64_t i = 0; i < n; i++) {
			tmp = EVAL(SLOT(NODE_A(node), i), env);
			REF_STORE(frame, 1 + i, tmp);
		}
		env = frame;
		node = NODE_B(node);
		goto loop;
	}
	case OP_LETREC: {
		uint64_t n = VEC_LEN(NODE_A(node));
		env = make_frame(NODE_X(node), env);
		for (uint64_t i = 0; i < n; i++) {
			tmp = EVAL(SLOT(NODE_A(node), i), env);
			REF_STORE(env, 1 + i, tmp);
		}
		node = NODE_B(node);
		goto loop;
	}
	case OP_CASE:
		tmp = EVAL(NODE_A(node), env);
		for (value_t c = NODE_B(node); c != NIL; c = CDR(c))
			for (value_t d = CAR(CAR(c)); d != NIL; d = CDR(d))
				if (CAR(d) == tmp) {
					node = CDR(CAR(c));
					goto loop;
				}
		node = NODE_C(node);
		goto loop;
	case OP_CALL: {
		uint64_t argc = NODE_X(node);
		fn = EVAL(NODE_A(node), env);
		if (IS_CLOSURE(fn)) {
			value_t lam = CLO_LAMBDA(fn);
			uint64_t nreq = NODE_X(lam), y = NODE_Y(lam);
			if (argc < nreq || (!(y & 1) && argc > nreq))
				arity_error(fn, argc);
			frame = make_frame(y >> 1, CLO_ENV(fn));
			uint64_t i = 0;
			for (; i < nreq; i++) {
				tmp = EVAL(SLOT(NODE_B(node), i), env);
				REF_STORE(frame, 1 + i, tmp);
			}
			if (y & 1) {
				/* The rest list hangs off the frame, so only its
				   tail needs a local. */
				value_t tail = 0;
				REF_STORE(frame, 1 + nreq, NIL);
				for (; i < argc; i++) {
					tmp = EVAL(SLOT(NODE_B(node), i), env);
					tmp = cons(tmp, NIL);
					if (tail == 0)
						REF_STORE(frame, 1 + nreq, tmp);
					else
						REF_STORE(tail, 1, tmp);
					tail = tmp;
				}
			}
			env = frame;
			node = NODE_A(CLO_LAMBDA(fn));
			goto loop;
		}
		if (!IS_PRIM(fn))
			error1("not a procedure", fn);
		const struct prim *p = &prims[PRIMIDX(fn)];
		if ((int64_t)argc < p->min || (p->max >= 0 && (int64_t)argc > p->max))
			arity_error(fn, argc);
		if (argc > MAX_INLINE_ARGS) {
			/* Many arguments: a heap vector holds them.  */
			tmp = make_vector(argc, 0);
			for (uint64_t i = 0; i < argc; i++) {
				value_t v = EVAL(SLOT(NODE_B(node), i), env);
				REF_STORE(tmp, i, v);
			}
			if (PRIMIDX(fn) != prim_apply) {
				result = p->fn((int)argc, &SLOT(tmp, 0));
				break;
			}
			frame = tmp;
		} else {
			value_t av[MAX_INLINE_ARGS];
			for (uint64_t i = 0; i < argc; i++) {
				av[i] = EVAL(SLOT(NODE_B(node), i), env);
				GC_PUSH(&av[i]);
			}
			if (PRIMIDX(fn) != prim_apply) {
				result = p->fn((int)argc, av);
				GC_POP(argc);
				break;
			}
			frame = make_vector(argc, 0);
			for (uint64_t i = 0; i < argc; i++)
				REF_STORE(frame, i, av[i]);
			GC_POP(argc);
		}
		/* apply: frame is the vector (f a ... list).  */
		fn = SLOT(frame, 0);
		tmp = SLOT(frame, argc - 1);
		if (list_length(tmp) < 0)
			error1("apply: not a list", tmp);
		for (uint64_t i = argc - 1; i > 1; i--)
			tmp = cons(SLOT(frame, i - 1), tmp);
		goto apply_list;
	}
	default:
		scheme_fatal("internal error: bad node");
	}
	goto done;

apply_list:
	/* Call fn with the argument list tmp, in tail position.  */
	if (IS_CLOSURE(fn)) {
		env = bind_list(fn, tmp);
		node = NODE_A(CLO_LAMBDA(fn));
		goto loop;
	}
	if (!IS_PRIM(fn))
		error1("not a procedure", fn);
	{
		int64_t argc = list_length(tmp);
		const struct prim *p = &prims[PRIMIDX(fn)];
		if (argc < p->min || (p->max >= 0 && argc > p->max))
			arity_error(fn, (uint64_t)argc);
		if (PRIMIDX(fn) == prim_apply) {
			/* (apply apply f a ... list) */
			fn = CAR(tmp);
			frame = prims[prim_list_to_vector].fn(1, &tmp);
			argc = (int64_t)VEC_LEN(frame);
			tmp = SLOT(frame, argc - 1);
			if (list_length(tmp) < 0)
				error1("apply: not a list", tmp);
			for (int64_t i = argc - 1; i > 1; i--)
				tmp = cons(SLOT(frame, i - 1), tmp);
			goto apply_list;
		}
		frame = prims[prim_list_to_vector].fn(1, &tmp);
		result = p->fn((int)argc, &SLOT(frame, 0));
	}
done:
#ifdef GC_DEBUG
	GC_BALANCE(saved_top);
#endif
	GC_POP(5);
	return result;
}

void load_text(const unsigned char *text, uint64_t len)
{
	struct reader r = { text, text + len };
	value_t x = 0;
	GC_PUSH(&x);
	for (;;) {
		x = read_datum(&r);
		if (x == EOF_V)
			break;
		x = compile_toplevel(x);
		eval(x, 0);
	}
	GC_POP(1);
}
