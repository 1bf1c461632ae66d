/* fsm: a generated state machine with huge basic blocks.
 *
 * Exercises the code that lexer and protocol-decoder generators write: a
 * loop over input bytes around a switch on the state (a jump table with
 * 64 targets), each case one long straight-line block (24 to 56
 * operations on six 32-bit accumulators and the input byte, byte-class
 * tests written as arithmetic, so no branches) that ends in a
 * data-dependent choice of the next state (tests of the byte's class, of
 * the byte itself, or of an accumulator bit).  The machine is generated
 * (written by codegen.awk and linked in), 28 KB of RV64GC code.  The
 * input is generated text: words, numbers, punctuation, blank lines and
 * a little binary noise.
 *
 * Size argument: S, the amount of input in KiB (default 8192 = 8 MiB).
 * Small size: 16 (~0.02 s under qemu-riscv64).
 *
 * Self-check: the same machine is also generated as a table of
 * operations and transition tests (fsm_code), which a small interpreter
 * here runs.  The input is processed in chunks of 4 KiB; the interpreter
 * runs every sixteenth chunk and the last one again from the state the
 * compiled machine started it in, and must end in the same state with
 * the same accumulators (so the final result is checked, and the
 * interpreter's time stays below the compiled machine's).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The generated half (codegen.awk, mode fsm), linked in.  A machine is
 * uint32_t m[MSIZE]: the accumulators m[0..5], the state m[STATE]. */
#define NSTATES 64
#define MSIZE 7
#define STATE 6
extern const uint32_t fsm_nstates;
void fsm_run(uint32_t m[MSIZE], const uint8_t *p, size_t n); /* compiled */
extern const uint32_t fsm_pool[256]; /* constants of the operations */
extern const uint32_t fsm_start[NSTATES]; /* state s starts at fsm_code[fsm_start[s]] */
extern const uint32_t fsm_code[]; /* operations and transition tests */

static inline uint32_t rotl32(uint32_t x, int k)
{
	return x << k | x >> (32 - k);
}

/* The operation kinds of codegen.awk that fsm uses. */
enum {
	K_ADD, K_SUB, K_XOR, K_MUL, K_XSHR, K_ASHL, K_ROTX, K_BYTE, K_LTINC,
	K_CLASS, K_EQSEL, K_SHIN,
};
#define SRC_IMM 6
#define SRC_X 7
enum { T_CLASS, T_EQ, T_BIT };

/* ---- the reference: an interpreter of fsm_code ---- */

static void fsm_ref(uint32_t m[MSIZE], const uint8_t *p, size_t n)
{
	uint32_t r[8] = {0}, state = m[STATE];
	memcpy(r, m, 6 * sizeof m[0]);
	for (size_t i = 0; i < n; i++) {
		uint32_t ch = p[i];
		r[SRC_X] = ch;
		const uint32_t *q = fsm_code + fsm_start[state];
		for (uint32_t nops = *q++; nops > 0; nops--) {
			uint32_t w = *q++;
			unsigned kind = w & 31, dst = (w >> 5) & 7, src = (w >> 8) & 7, k = (w >> 11) & 63;
			unsigned imm = (w >> 17) & 255, extra = w >> 25;
			uint32_t s = src == SRC_IMM ? fsm_pool[imm] : r[src];
			switch (kind) {
			case K_ADD: r[dst] += s; break;
			case K_SUB: r[dst] -= s; break;
			case K_XOR: r[dst] ^= s; break;
			case K_MUL: r[dst] *= s | 1; break;
			case K_XSHR: r[dst] ^= s >> k; break;
			case K_ASHL: r[dst] += s << k; break;
			case K_ROTX: r[dst] = rotl32(r[dst], (int)k) ^ s; break;
			case K_BYTE: r[dst] += (s >> k) & 255; break;
			case K_LTINC: r[dst] += r[dst] < s; break;
			case K_CLASS: r[dst] += ch - imm < extra; break;
			case K_EQSEL: r[dst] ^= ch == imm ? s : 0; break;
			case K_SHIN: r[dst] = r[dst] << k | (ch & ((1u << k) - 1)); break;
			default:
				printf("FAIL: bad operation %08x in state %u\n", (unsigned)w, (unsigned)state);
				exit(1);
			}
		}
		uint32_t ntests = *q++, next = q[ntests];
		for (uint32_t t = 0; t < ntests; t++) {
			uint32_t w = q[t], reg = (w >> 2) & 7, k = (w >> 5) & 31, lo = (w >> 10) & 255, range = (w >> 18) & 255;
			int hit = (w & 3) == T_CLASS ? ch - lo < range : (w & 3) == T_EQ ? ch == lo : (r[reg] >> k) & 1;
			if (hit) {
				next = w >> 26;
				break;
			}
		}
		state = next;
	}
	memcpy(m, r, 6 * sizeof m[0]);
	m[STATE] = state;
}

/* ---- the input ---- */

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

static const char *const words[] = {
	"state", "token", "the", "if", "else", "return", "x", "count", "buffer", "GET", "HTTP/1.1", "Host:",
	"of", "and", "int", "while", "for", "parse", "value", "key", "a", "is", "to", "Content-Length:",
};

/* Fills p[0..n) with text: words, numbers and punctuation on lines, now
 * and then a blank line or a few random bytes. */
static void gen(uint8_t *p, size_t n)
{
	static const char punct[] = ".,;:(){}[]=+-*/\"'#<>";
	size_t i = 0;
	int nw = (int)(sizeof words / sizeof words[0]);
	while (i < n) {
		uint32_t r = next(), kind = r % 16;
		char tmp[16];
		const char *s = tmp;
		if (kind < 9)
			s = words[(r >> 4) % (uint32_t)nw];
		else if (kind < 12)
			snprintf(tmp, sizeof tmp, "%u", (unsigned)(r >> 12) % 100000u);
		else if (kind < 14) {
			tmp[0] = punct[(r >> 8) % (sizeof punct - 1)];
			tmp[1] = 0;
		} else if (kind < 15)
			s = (r >> 8) % 4 ? "\n" : "\n\n";
		else {
			int len = 1 + (int)((r >> 8) % 6);
			for (int k = 0; k < len; k++)
				tmp[k] = (char)(next() & 255);
			tmp[len] = 0;
			if (len == 1 && tmp[0] == 0)
				tmp[0] = 1;
		}
		for (; *s && i < n; s++)
			p[i++] = (uint8_t)*s;
		if (i < n && kind < 12)
			p[i++] = ' ';
	}
}

#define CHUNK 4096

int main(int argc, char **argv)
{
	long kib = 8192;
	if (argc > 1)
		kib = atol(argv[1]);
	if (kib < 4 || kib > 16777216) {
		printf("fsm: size must be 4..16777216\n");
		return 2;
	}
	if (fsm_nstates != NSTATES) {
		printf("FAIL: the generated machine has %u states\n", (unsigned)fsm_nstates);
		return 1;
	}
	size_t chunks = (size_t)kib * 1024 / CHUNK;
	static uint8_t buf[CHUNK];
	uint32_t m[MSIZE] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au, 0x510e527fu, 0x9b05688cu, 0};
	size_t checked = 0;
	uint32_t hist[NSTATES] = {0};
	for (size_t c = 0; c < chunks; c++) {
		gen(buf, CHUNK);
		uint32_t before[MSIZE];
		memcpy(before, m, sizeof m);
		fsm_run(m, buf, CHUNK);
		hist[m[STATE]]++;
		if (c % 16 == 0 || c == chunks - 1) {
			fsm_ref(before, buf, CHUNK);
			if (memcmp(before, m, sizeof m) != 0) {
				printf("FAIL: chunk %lu: compiled state %u, interpreted %u\n", (unsigned long)c,
				       (unsigned)m[STATE], (unsigned)before[STATE]);
				return 1;
			}
			checked++;
		}
	}
	int seen = 0;
	for (int s = 0; s < NSTATES; s++)
		seen += hist[s] != 0;
	printf("fsm: %d states, %ld KiB of input in %lu chunks\n", NSTATES, kib, (unsigned long)chunks);
	printf("final state %u, accumulators %08x %08x %08x %08x %08x %08x\n", (unsigned)m[STATE], (unsigned)m[0],
	       (unsigned)m[1], (unsigned)m[2], (unsigned)m[3], (unsigned)m[4], (unsigned)m[5]);
	printf("%d states seen at chunk ends; %lu chunks checked by the interpreter\n", seen, (unsigned long)checked);
	printf("check ok\n");
	return 0;
}
