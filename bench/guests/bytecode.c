/* bytecode: a small stack-machine interpreter.
 *
 * Exercises the classic interpreter loop: fetch an opcode, dispatch through
 * a dense switch (an indirect jump through a jump table), manipulate an
 * operand stack in memory.  Branchy and hard to predict; the guest's hot
 * path is one indirect jump with ~35 targets.  Three bytecode programs,
 * assembled at start-up by a tiny assembler with labels:
 *   collatz  total and maximum Collatz path lengths for 1..N
 *   fib      recursive Fibonacci (CALL/RET with frames), summed
 *   primes   a sieve in the VM's data memory, counting primes
 *
 * Size argument: N (default 15000): collatz runs over 1..N, fib sums
 * fib((i + 20) % 25) for i < N/100 + 1, the sieve runs up to 50 N.  Each
 * part is about a third of the work.  Small size: 50 (~0.02 s under
 * qemu-riscv64).  The VM is slow under qemu (an indirect jump per VM
 * instruction): about 10x the native time, where other guests see 2-5x.
 *
 * Self-check: each program's result is computed again directly in C and
 * must agree.  The number of VM instructions executed is printed as well.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum op {
	HALT, PUSH, POP, DUP, SWAP, OVER,
	LOAD, STORE, INC,
	GLOAD, GSTORE, ALOAD, ASTORE,
	ADD, SUB, MUL, DIV, MOD, AND, OR, XOR, SHL, SHR, NEG,
	LT, LE, EQ, NE, GT, GE,
	JMP, JZ, JNZ,
	CALL, ENTER, RET,
};

/* ---- assembler ---- */

#define MAXCODE 4096
#define MAXLABEL 64

static int32_t code[MAXCODE];
static int ncode;
static int label_pos[MAXLABEL];
static int fixup_at[MAXCODE], fixup_label[MAXCODE], nfixup;

static void emit(int32_t w)
{
	if (ncode == MAXCODE) {
		printf("bytecode: program too big\n");
		exit(2);
	}
	code[ncode++] = w;
}

static void op0(enum op o)
{
	emit(o);
}

static void op1(enum op o, int32_t arg)
{
	emit(o);
	emit(arg);
}

/* Branch or call to a label, resolved by resolve_labels(). */
static void opl(enum op o, int label)
{
	emit(o);
	fixup_at[nfixup] = ncode;
	fixup_label[nfixup++] = label;
	emit(-1);
}

static void here(int label)
{
	label_pos[label] = ncode;
}

static void resolve_labels(void)
{
	for (int i = 0; i < nfixup; i++)
		code[fixup_at[i]] = label_pos[fixup_label[i]];
	nfixup = 0;
}

/* ---- machine ---- */

#define STACK 4096
#define FRAMES 1024

static int64_t *mem;	/* data memory */
static int64_t memsize;
static uint64_t executed; /* instructions executed, all runs */

static void vm_fault(const char *what, int pc)
{
	printf("FAIL: VM %s at pc %d\n", what, pc);
	exit(1);
}

/* Runs from pc until HALT; returns the top of the stack. */
static int64_t run(int pc)
{
	int64_t stack[STACK];
	int ret_pc[FRAMES], ret_fp[FRAMES];
	int sp = 0, fp = 0, depth = 0;
	uint64_t count = 0;
	int64_t a, b;

	for (;;) {
		int op = code[pc++];
		count++;
		switch (op) {
		case HALT:
			executed += count;
			return sp > 0 ? stack[sp - 1] : 0;
		case PUSH:
			stack[sp++] = code[pc++];
			break;
		case POP:
			sp--;
			break;
		case DUP:
			stack[sp] = stack[sp - 1];
			sp++;
			break;
		case SWAP:
			a = stack[sp - 1];
			stack[sp - 1] = stack[sp - 2];
			stack[sp - 2] = a;
			break;
		case OVER:
			stack[sp] = stack[sp - 2];
			sp++;
			break;
		case LOAD:
			stack[sp++] = stack[fp + code[pc++]];
			break;
		case STORE:
			stack[fp + code[pc++]] = stack[--sp];
			break;
		case INC:
			stack[fp + code[pc++]]++;
			break;
		case GLOAD:
			stack[sp++] = mem[code[pc++]];
			break;
		case GSTORE:
			mem[code[pc++]] = stack[--sp];
			break;
		case ALOAD:
			a = stack[sp - 1];
			if (a < 0 || a >= memsize)
				vm_fault("load out of bounds", pc - 1);
			stack[sp - 1] = mem[a];
			break;
		case ASTORE: /* value addr ASTORE */
			a = stack[--sp];
			if (a < 0 || a >= memsize)
				vm_fault("store out of bounds", pc - 1);
			mem[a] = stack[--sp];
			break;
#define BINOP(name, expr)                \
	case name:                       \
		b = stack[--sp];         \
		a = stack[sp - 1];       \
		stack[sp - 1] = (expr);  \
		break;
		BINOP(ADD, (int64_t)((uint64_t)a + (uint64_t)b))
		BINOP(SUB, (int64_t)((uint64_t)a - (uint64_t)b))
		BINOP(MUL, (int64_t)((uint64_t)a * (uint64_t)b))
		BINOP(AND, a & b)
		BINOP(OR, a | b)
		BINOP(XOR, a ^ b)
		BINOP(SHL, (int64_t)((uint64_t)a << (b & 63)))
		BINOP(SHR, (int64_t)((uint64_t)a >> (b & 63)))
		BINOP(LT, a < b)
		BINOP(LE, a <= b)
		BINOP(EQ, a == b)
		BINOP(NE, a != b)
		BINOP(GT, a > b)
		BINOP(GE, a >= b)
		case DIV:
		case MOD:
			b = stack[--sp];
			a = stack[sp - 1];
			if (b == 0)
				vm_fault("division by zero", pc - 1);
			stack[sp - 1] = op == DIV ? a / b : a % b;
			break;
		case NEG:
			stack[sp - 1] = (int64_t)(0 - (uint64_t)stack[sp - 1]);
			break;
		case JMP:
			pc = code[pc];
			break;
		case JZ:
			pc = stack[--sp] == 0 ? code[pc] : pc + 1;
			break;
		case JNZ:
			pc = stack[--sp] != 0 ? code[pc] : pc + 1;
			break;
		case CALL: /* CALL target nargs: args are on the stack */
			if (depth == FRAMES)
				vm_fault("call stack overflow", pc - 1);
			ret_pc[depth] = pc + 2;
			ret_fp[depth++] = fp;
			fp = sp - code[pc + 1];
			pc = code[pc];
			break;
		case ENTER: /* ENTER n: n more zeroed locals */
			for (int i = code[pc++]; i > 0; i--)
				stack[sp++] = 0;
			if (sp > STACK - 64)
				vm_fault("stack overflow", pc - 2);
			break;
		case RET: /* result on top; drop the frame */
			a = stack[sp - 1];
			sp = fp;
			stack[sp++] = a;
			fp = ret_fp[--depth];
			pc = ret_pc[depth];
			break;
		default:
			vm_fault("bad opcode", pc - 1);
		}
	}
}

/* ---- programs ---- */

/* collatz(n): returns the total of the path lengths of 1..n and stores
   the longest in mem[0].  Locals: 0 n, 1 i, 2 x, 3 steps, 4 total. */
static int asm_collatz(void)
{
	enum { L_OUTER, L_INNER, L_EVEN, L_NEXT, L_NOMAX, L_DONE };
	int entry = ncode;
	op1(ENTER, 4);
	op1(PUSH, 1);
	op1(STORE, 1);
	here(L_OUTER);
	op1(LOAD, 1);
	op1(LOAD, 0);
	op0(GT);
	opl(JNZ, L_DONE);
	op1(LOAD, 1);
	op1(STORE, 2);
	op1(PUSH, 0);
	op1(STORE, 3);
	here(L_INNER);
	op1(LOAD, 2);
	op1(PUSH, 1);
	op0(EQ);
	opl(JNZ, L_NEXT);
	op1(INC, 3);
	op1(LOAD, 2);
	op1(PUSH, 1);
	op0(AND);
	opl(JZ, L_EVEN);
	op1(LOAD, 2); /* x = 3x + 1 */
	op0(DUP);
	op0(DUP);
	op0(ADD);
	op0(ADD);
	op1(PUSH, 1);
	op0(ADD);
	op1(STORE, 2);
	opl(JMP, L_INNER);
	here(L_EVEN);
	op1(LOAD, 2); /* x = x >> 1 */
	op1(PUSH, 1);
	op0(SHR);
	op1(STORE, 2);
	opl(JMP, L_INNER);
	here(L_NEXT);
	op1(LOAD, 4);
	op1(LOAD, 3);
	op0(ADD);
	op1(STORE, 4);
	op1(LOAD, 3);
	op1(GLOAD, 0);
	op0(LE);
	opl(JNZ, L_NOMAX);
	op1(LOAD, 3);
	op1(GSTORE, 0);
	here(L_NOMAX);
	op1(INC, 1);
	opl(JMP, L_OUTER);
	here(L_DONE);
	op1(LOAD, 4);
	op0(RET);
	resolve_labels();
	return entry;
}

/* fib(n) = n < 2 ? n : fib(n-1) + fib(n-2); fibsum(m) = sum over i < m of
   fib((i + 20) % 25).  Locals of fibsum: 0 m, 1 i, 2 acc. */
static int asm_fib(int *fibsum_entry)
{
	enum { L_FIB, L_REC, L_LOOP, L_END };
	int entry = ncode;
	here(L_FIB);
	op1(LOAD, 0);
	op1(PUSH, 2);
	op0(LT);
	opl(JZ, L_REC);
	op1(LOAD, 0);
	op0(RET);
	here(L_REC);
	op1(LOAD, 0);
	op1(PUSH, 1);
	op0(SUB);
	opl(CALL, L_FIB);
	emit(1);
	op1(LOAD, 0);
	op1(PUSH, 2);
	op0(SUB);
	opl(CALL, L_FIB);
	emit(1);
	op0(ADD);
	op0(RET);

	*fibsum_entry = ncode;
	op1(ENTER, 2);
	here(L_LOOP);
	op1(LOAD, 1);
	op1(LOAD, 0);
	op0(LT);
	opl(JZ, L_END);
	op1(LOAD, 1);
	op1(PUSH, 20);
	op0(ADD);
	op1(PUSH, 25);
	op0(MOD);
	opl(CALL, L_FIB);
	emit(1);
	op1(LOAD, 2);
	op0(ADD);
	op1(STORE, 2);
	op1(INC, 1);
	opl(JMP, L_LOOP);
	here(L_END);
	op1(LOAD, 2);
	op0(RET);
	resolve_labels();
	return entry;
}

/* primes(lim): sieve over mem[16 .. 16+lim], returns the number of
   primes <= lim.  Locals: 0 lim, 1 i, 2 j, 3 count. */
static int asm_primes(void)
{
	enum { L_I, L_SKIP, L_J, L_JEND, L_C, L_NOTP, L_END };
	int entry = ncode;
	op1(ENTER, 3);
	op1(PUSH, 2);
	op1(STORE, 1);
	here(L_I); /* for i = 2; i*i <= lim; i++ */
	op1(LOAD, 1);
	op0(DUP);
	op0(MUL);
	op1(LOAD, 0);
	op0(LE);
	opl(JZ, L_JEND);
	op1(LOAD, 1); /* if mem[16+i] != 0: composite, skip */
	op1(PUSH, 16);
	op0(ADD);
	op0(ALOAD);
	opl(JNZ, L_SKIP);
	op1(LOAD, 1); /* for j = i*i; j <= lim; j += i: mem[16+j] = 1 */
	op0(DUP);
	op0(MUL);
	op1(STORE, 2);
	here(L_J);
	op1(LOAD, 2);
	op1(LOAD, 0);
	op0(LE);
	opl(JZ, L_SKIP);
	op1(PUSH, 1);
	op1(LOAD, 2);
	op1(PUSH, 16);
	op0(ADD);
	op0(ASTORE);
	op1(LOAD, 2);
	op1(LOAD, 1);
	op0(ADD);
	op1(STORE, 2);
	opl(JMP, L_J);
	here(L_SKIP);
	op1(INC, 1);
	opl(JMP, L_I);
	here(L_JEND); /* count: for i = 2; i <= lim; i++ */
	op1(PUSH, 2);
	op1(STORE, 1);
	here(L_C);
	op1(LOAD, 1);
	op1(LOAD, 0);
	op0(LE);
	opl(JZ, L_END);
	op1(LOAD, 1);
	op1(PUSH, 16);
	op0(ADD);
	op0(ALOAD);
	opl(JNZ, L_NOTP);
	op1(INC, 3);
	here(L_NOTP);
	op1(INC, 1);
	opl(JMP, L_C);
	here(L_END);
	op1(LOAD, 3);
	op0(RET);
	resolve_labels();
	return entry;
}

/* Calls function `entry` with one argument, from a tiny stub. */
static int64_t call1(int entry, int64_t arg)
{
	int stub = ncode;
	op1(PUSH, (int32_t)arg);
	emit(CALL);
	emit(entry);
	emit(1);
	op0(HALT);
	int64_t r = run(stub);
	ncode = stub; /* drop the stub */
	return r;
}

/* ---- the same computations in C ---- */

static int64_t c_collatz(int64_t n, int64_t *longest)
{
	int64_t total = 0;
	*longest = 0;
	for (int64_t i = 1; i <= n; i++) {
		uint64_t x = (uint64_t)i;
		int64_t steps = 0;
		while (x != 1) {
			x = (x & 1) ? 3 * x + 1 : x / 2;
			steps++;
		}
		total += steps;
		if (steps > *longest)
			*longest = steps;
	}
	return total;
}

static int64_t c_fibsum(int64_t m)
{
	int64_t fib[25];
	fib[0] = 0;
	fib[1] = 1;
	for (int i = 2; i < 25; i++)
		fib[i] = fib[i - 1] + fib[i - 2];
	int64_t s = 0;
	for (int64_t i = 0; i < m; i++)
		s += fib[(i + 20) % 25];
	return s;
}

static int64_t c_primes(int64_t lim)
{
	int64_t count = 0;
	for (int64_t k = 2; k <= lim; k++) {
		int prime = 1;
		for (int64_t d = 2; d * d <= k; d++)
			if (k % d == 0) {
				prime = 0;
				break;
			}
		count += prime;
	}
	return count;
}

int main(int argc, char **argv)
{
	long n = 15000;
	if (argc > 1)
		n = atol(argv[1]);
	if (n < 1 || n > 10000000) {
		printf("bytecode: size must be 1..10000000\n");
		return 2;
	}

	int collatz = asm_collatz();
	int fibsum;
	asm_fib(&fibsum);
	int primes = asm_primes();

	int64_t lim = 50 * (int64_t)n;
	int64_t m = n / 100 + 1;
	memsize = 16 + lim + 1;
	mem = calloc((size_t)memsize, sizeof(int64_t));
	if (mem == NULL) {
		printf("bytecode: out of memory\n");
		return 2;
	}

	int64_t total = call1(collatz, n);
	int64_t longest = mem[0];
	int64_t fs = call1(fibsum, m);
	int64_t np = call1(primes, lim);

	printf("bytecode n=%ld, %d words of code\n", n, ncode);
	printf("collatz(1..%ld): total %lld, longest %lld\n", n, (long long)total,
	       (long long)longest);
	printf("fibsum(%lld) = %lld\n", (long long)m, (long long)fs);
	printf("primes <= %lld: %lld\n", (long long)lim, (long long)np);
	printf("vm instructions: %llu\n", (unsigned long long)executed);

	int ok = 1;
	int64_t want_longest;
	int64_t want_total = c_collatz(n, &want_longest);
	if (total != want_total || longest != want_longest) {
		printf("FAIL: collatz should be %lld, %lld\n", (long long)want_total,
		       (long long)want_longest);
		ok = 0;
	}
	if (fs != c_fibsum(m)) {
		printf("FAIL: fibsum should be %lld\n", (long long)c_fibsum(m));
		ok = 0;
	}
	int64_t want_np = c_primes(lim);
	if (np != want_np) {
		printf("FAIL: prime count should be %lld\n", (long long)want_np);
		ok = 0;
	}
	free(mem);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
