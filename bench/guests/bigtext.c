/* bigtext: a large program that runs briefly.
 *
 * Exercises what a database or a compiler does when it is started for a
 * short job: a lot of code, most of it executed only a handful of times.
 * 2048 generated functions (written by codegen.awk and linked in: 0.7 MB
 * of RV64GC code, the ELF's .text is 1 MB; 0.9 MB of RV64IM), each
 * different: straight-line 64-bit arithmetic on four locals, small loops,
 * if/else, switch statements (jump tables), loads and stores of a global
 * array, and calls to other functions (up to two deep).  A dispatcher
 * calls every function once per pass through a table of function
 * pointers, in an order that changes from pass to pass.
 *
 * Size argument: E, the length of the run in eighths of a pass: E x 256
 * calls (default 64 = 8 passes, about 0.3 s under qemu-riscv64, most of
 * it translating code rather than running it).  Small size: 2, a quarter
 * of the functions (and those they call), ~0.05 s under qemu-riscv64.
 *
 * Self-check: the same functions are also generated as a table of
 * operations (bt_code), which a small interpreter here runs: the
 * interpreted calls must give the same result and leave the same global
 * array as the compiled ones.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint64_t rotl64(uint64_t x, int k)
{
	return x << k | x >> (64 - k);
}

/* The generated half (codegen.awk, mode bigtext), linked in. */
#define NFUNC 2048
#define NGLOBAL 64
typedef uint64_t (*bt_fn)(uint64_t, uint64_t, int);
extern const uint32_t bt_nfunc, bt_nglobal;
extern const bt_fn bt_table[NFUNC]; /* the functions */
extern uint64_t bt_g[NGLOBAL]; /* the global array they use */
extern const uint64_t bt_pool[256]; /* constants of the operations */
extern const uint32_t bt_start[NFUNC + 1]; /* function f's operations start at bt_code[bt_start[f]] */
extern const uint32_t bt_code[]; /* the operations */

/* The operation kinds of codegen.awk. */
enum {
	K_ADD, K_SUB, K_XOR, K_MUL, K_XSHR, K_ASHL, K_ROTX, K_BYTE, K_LTINC,
	K_CLASS, K_EQSEL, K_SHIN,
	K_GLD, K_GST, K_LOOP, K_IF, K_SWITCH, K_CALL,
};
#define SRC_IMM 6
#define SRC_X 7

/* ---- the reference: an interpreter of bt_code ---- */

static uint64_t interp_call(uint32_t f, uint64_t x, uint64_t y, int depth);

/* Runs the operations from p to end on the registers r: a, b, c, d in
 * r[0..3], the loop index in r[SRC_X]. */
static void interp_block(const uint32_t *p, const uint32_t *end, uint64_t r[8], int depth)
{
	while (p < end) {
		uint32_t w = *p++;
		unsigned kind = w & 31, dst = (w >> 5) & 7, src = (w >> 8) & 7, k = (w >> 11) & 63;
		unsigned imm = (w >> 17) & 255, extra = w >> 25;
		uint64_t s = src == SRC_IMM ? bt_pool[imm] : r[src];
		switch (kind) {
		case K_ADD: r[dst] += s; break;
		case K_SUB: r[dst] -= s; break;
		case K_XOR: r[dst] ^= s; break;
		case K_MUL: r[dst] *= s | 1; break;
		case K_XSHR: r[dst] ^= s >> k; break;
		case K_ASHL: r[dst] += s << k; break;
		case K_ROTX: r[dst] = rotl64(r[dst], (int)k) ^ s; break;
		case K_BYTE: r[dst] += (s >> k) & 255; break;
		case K_LTINC: r[dst] += r[dst] < s; break;
		case K_GLD: r[dst] += bt_g[imm]; break;
		case K_GST: bt_g[imm] ^= r[src]; break;
		case K_LOOP: {
			uint64_t n = (r[src] & 3) + k;
			for (r[SRC_X] = 0; r[SRC_X] < n; r[SRC_X]++)
				interp_block(p, p + imm, r, depth);
			p += imm;
			break;
		}
		case K_IF:
			if ((r[src] >> k) & 1)
				interp_block(p, p + imm, r, depth);
			else
				interp_block(p + imm, p + imm + extra, r, depth);
			p += imm + extra;
			break;
		case K_SWITCH: {
			const uint32_t *len = p, *q = p + k;
			uint64_t sel = r[src] % k;
			for (uint64_t c = 0; c < sel; c++)
				q += len[c];
			interp_block(q, q + len[sel], r, depth);
			for (uint64_t c = sel; c < k; c++)
				q += len[c];
			p = q;
			break;
		}
		case K_CALL: {
			uint32_t f = *p++;
			if (depth > 0 && ((r[extra] >> k) & 1))
				r[dst] ^= interp_call(f, r[src], r[imm], depth - 1);
			break;
		}
		default:
			printf("FAIL: bad operation %08x\n", (unsigned)w);
			exit(1);
		}
	}
}

static uint64_t interp_call(uint32_t f, uint64_t x, uint64_t y, int depth)
{
	const uint32_t *p = bt_code + bt_start[f], *end = bt_code + bt_start[f + 1];
	uint64_t r[8] = {0};
	r[0] = x;
	r[1] = y;
	r[2] = x ^ bt_pool[*p & 255];
	r[3] = y + bt_pool[(*p >> 8) & 255];
	interp_block(p + 1, end, r, depth);
	return (r[0] ^ rotl64(r[1], 17)) + (r[2] ^ (r[3] >> 3));
}

/* ---- the dispatcher ---- */

/* Call j of the run is to function (i * STRIDE + p * 389) mod NFUNC, for
 * pass p = j / NFUNC and i = j mod NFUNC: each function once per pass
 * (STRIDE is odd, NFUNC a power of 2), in another order each pass, at
 * depth 1 in even passes and 2 in odd ones. */
#define STRIDE 1237u

static uint64_t run(uint64_t calls, int compiled)
{
	uint64_t acc = 0x243f6a8885a308d3u;
	for (uint32_t i = 0; i < NGLOBAL; i++)
		bt_g[i] = i * 0x9e3779b97f4a7c15u;
	for (uint64_t j = 0; j < calls; j++) {
		uint64_t p = j / NFUNC;
		uint32_t i = (uint32_t)(j % NFUNC), f = (i * STRIDE + (uint32_t)p * 389u) % NFUNC;
		int depth = 1 + (int)(p & 1);
		uint64_t x = acc + i, y = p << 32 | f;
		uint64_t v = compiled ? bt_table[f](x, y, depth) : interp_call(f, x, y, depth);
		acc = rotl64(acc, 5) ^ v;
	}
	return acc;
}

static uint64_t global_hash(void)
{
	uint64_t h = 0;
	for (int i = 0; i < NGLOBAL; i++)
		h = rotl64(h, 7) ^ bt_g[i];
	return h;
}

int main(int argc, char **argv)
{
	long eighths = 64;
	if (argc > 1)
		eighths = atol(argv[1]);
	if (eighths < 1 || eighths > 1000000) {
		printf("bigtext: size must be 1..1000000\n");
		return 2;
	}
	if (bt_nfunc != NFUNC || bt_nglobal != NGLOBAL) {
		printf("FAIL: the generated code has %u functions and %u globals\n", (unsigned)bt_nfunc,
		       (unsigned)bt_nglobal);
		return 1;
	}
	uint64_t calls = (uint64_t)eighths * (NFUNC / 8);

	uint64_t acc = run(calls, 1), gh = global_hash();
	uint64_t ref = run(calls, 0), rgh = global_hash();

	printf("bigtext: %d functions, %llu calls (%ld/8 passes)\n", NFUNC, (unsigned long long)calls, eighths);
	printf("result %016llx, globals %016llx\n", (unsigned long long)acc, (unsigned long long)gh);
	if (acc != ref || gh != rgh) {
		printf("FAIL: interpreted: result %016llx, globals %016llx\n", (unsigned long long)ref,
		       (unsigned long long)rgh);
		return 1;
	}
	printf("check ok\n");
	return 0;
}
