/*
 * oracle: one RISC-V floating-point instruction per input line -> its
 * result bits and fflags, executed for real (under qemu-riscv64).
 *
 * Input lines:  <mnemonic> <rm 0..4> <a> [<b> [<c>]]   (hex operands)
 * Output lines: <result hex> <fflags hex>
 *
 * Each instruction is written with its rounding mode static in the
 * encoding, so there is one asm statement per (instruction, rm); the
 * macros below stamp them out. fflags is cleared right before the
 * instruction and read right after, inside the same asm statement, so the
 * compiler cannot schedule other floating-point work in between. Singles
 * are loaded with fmv.w.x, which NaN-boxes them, and read back with
 * fmv.x.w (masked: it sign-extends). Conversions that binutils refuses to
 * take an rm for (fcvt.d.w, fcvt.d.wu, fcvt.d.s: always exact) are
 * written with .insn so the rm field is still the one under test.
 *
 * Build: riscv64-linux-gnu-gcc -O2 -static -o oracle oracle.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;
typedef void (*fn)(u64 a, u64 b, u64 c, u64 *r, u64 *f);

#define PRE "csrw fflags, zero\n\t"
#define POST "\n\tfrflags %1\n\t"
#define OUT(insn) : "=&r"(res), "=&r"(fl) : "r"(a), "r"(b), "r"(c) : "ft0", "ft1", "ft2", "ft3"); \
	*r = res; *f = fl; }
#define HEAD(id) static void id(u64 a, u64 b, u64 c, u64 *r, u64 *f) { u64 res, fl; __asm__ volatile(

/* Operand shapes. D/S: double/single operands; X: integer register. */
#define D2(id, insn, rm) HEAD(id) "fmv.d.x ft0, %2\n\tfmv.d.x ft1, %3\n\t" PRE insn " ft2, ft0, ft1" rm POST "fmv.x.d %0, ft2" OUT()
#define D1(id, insn, rm) HEAD(id) "fmv.d.x ft0, %2\n\t" PRE insn " ft2, ft0" rm POST "fmv.x.d %0, ft2" OUT()
#define D3(id, insn, rm) HEAD(id) "fmv.d.x ft0, %2\n\tfmv.d.x ft1, %3\n\tfmv.d.x ft3, %4\n\t" PRE insn " ft2, ft0, ft1, ft3" rm POST "fmv.x.d %0, ft2" OUT()
#define D2X(id, insn, rm) HEAD(id) "fmv.d.x ft0, %2\n\tfmv.d.x ft1, %3\n\t" PRE insn " %0, ft0, ft1" rm POST OUT()
#define D1X(id, insn, rm) HEAD(id) "fmv.d.x ft0, %2\n\t" PRE insn " %0, ft0" rm POST OUT()
#define XD(id, insn, rm) HEAD(id) PRE insn " ft2, %2" rm POST "fmv.x.d %0, ft2" OUT()
#define S2(id, insn, rm) HEAD(id) "fmv.w.x ft0, %2\n\tfmv.w.x ft1, %3\n\t" PRE insn " ft2, ft0, ft1" rm POST "fmv.x.w %0, ft2" OUT()
#define S1(id, insn, rm) HEAD(id) "fmv.w.x ft0, %2\n\t" PRE insn " ft2, ft0" rm POST "fmv.x.w %0, ft2" OUT()
#define S3(id, insn, rm) HEAD(id) "fmv.w.x ft0, %2\n\tfmv.w.x ft1, %3\n\tfmv.w.x ft3, %4\n\t" PRE insn " ft2, ft0, ft1, ft3" rm POST "fmv.x.w %0, ft2" OUT()
#define S2X(id, insn, rm) HEAD(id) "fmv.w.x ft0, %2\n\tfmv.w.x ft1, %3\n\t" PRE insn " %0, ft0, ft1" rm POST OUT()
#define S1X(id, insn, rm) HEAD(id) "fmv.w.x ft0, %2\n\t" PRE insn " %0, ft0" rm POST OUT()
#define XS(id, insn, rm) HEAD(id) PRE insn " ft2, %2" rm POST "fmv.x.w %0, ft2" OUT()
#define SD(id, insn, rm) HEAD(id) "fmv.w.x ft0, %2\n\t" PRE insn " ft2, ft0" rm POST "fmv.x.d %0, ft2" OUT()
#define DS(id, insn, rm) HEAD(id) "fmv.d.x ft0, %2\n\t" PRE insn " ft2, ft0" rm POST "fmv.x.w %0, ft2" OUT()
/* The .insn forms: insn is "opcode, " and rm is the funct3 digit. */
#define XDI(id, enc, rm) HEAD(id) PRE ".insn r 0x53, " rm ", " enc POST "fmv.x.d %0, ft2" OUT()
#define SDI(id, enc, rm) HEAD(id) "fmv.w.x ft0, %2\n\t" PRE ".insn r 0x53, " rm ", " enc POST "fmv.x.d %0, ft2" OUT()

/* One function per rounding mode, and the table row naming them. */
#define RM5(SHAPE, id, insn) \
	SHAPE(id##_0, insn, ", rne") SHAPE(id##_1, insn, ", rtz") SHAPE(id##_2, insn, ", rdn") \
	SHAPE(id##_3, insn, ", rup") SHAPE(id##_4, insn, ", rmm")
#define RM5I(SHAPE, id, enc) \
	SHAPE(id##_0, enc, "0") SHAPE(id##_1, enc, "1") SHAPE(id##_2, enc, "2") \
	SHAPE(id##_3, enc, "3") SHAPE(id##_4, enc, "4")
#define NORM(SHAPE, id, insn) SHAPE(id, insn, "")
#define ROW5(id, name) {name, {id##_0, id##_1, id##_2, id##_3, id##_4}},
#define ROW1(id, name) {name, {id, id, id, id, id}},

RM5(D2, faddd, "fadd.d") RM5(D2, fsubd, "fsub.d") RM5(D2, fmuld, "fmul.d") RM5(D2, fdivd, "fdiv.d")
RM5(D1, fsqrtd, "fsqrt.d")
RM5(D3, fmaddd, "fmadd.d") RM5(D3, fmsubd, "fmsub.d") RM5(D3, fnmsubd, "fnmsub.d") RM5(D3, fnmaddd, "fnmadd.d")
NORM(D2, fmind, "fmin.d") NORM(D2, fmaxd, "fmax.d")
NORM(D2X, feqd, "feq.d") NORM(D2X, fltd, "flt.d") NORM(D2X, fled, "fle.d") NORM(D1X, fclassd, "fclass.d")
RM5(D1X, fcvtwd, "fcvt.w.d") RM5(D1X, fcvtwud, "fcvt.wu.d") RM5(D1X, fcvtld, "fcvt.l.d") RM5(D1X, fcvtlud, "fcvt.lu.d")
RM5I(XDI, fcvtdw, "0x69, ft2, %2, x0") RM5I(XDI, fcvtdwu, "0x69, ft2, %2, x1")
RM5(XD, fcvtdl, "fcvt.d.l") RM5(XD, fcvtdlu, "fcvt.d.lu")
RM5(DS, fcvtsd, "fcvt.s.d") RM5I(SDI, fcvtds, "0x21, ft2, ft0, f0")

RM5(S2, fadds, "fadd.s") RM5(S2, fsubs, "fsub.s") RM5(S2, fmuls, "fmul.s") RM5(S2, fdivs, "fdiv.s")
RM5(S1, fsqrts, "fsqrt.s")
RM5(S3, fmadds, "fmadd.s") RM5(S3, fmsubs, "fmsub.s") RM5(S3, fnmsubs, "fnmsub.s") RM5(S3, fnmadds, "fnmadd.s")
NORM(S2, fmins, "fmin.s") NORM(S2, fmaxs, "fmax.s")
NORM(S2X, feqs, "feq.s") NORM(S2X, flts, "flt.s") NORM(S2X, fles, "fle.s") NORM(S1X, fclasss, "fclass.s")
RM5(S1X, fcvtws, "fcvt.w.s") RM5(S1X, fcvtwus, "fcvt.wu.s") RM5(S1X, fcvtls, "fcvt.l.s") RM5(S1X, fcvtlus, "fcvt.lu.s")
RM5(XS, fcvtsw, "fcvt.s.w") RM5(XS, fcvtswu, "fcvt.s.wu") RM5(XS, fcvtsl, "fcvt.s.l") RM5(XS, fcvtslu, "fcvt.s.lu")

/* Results of these are single bit patterns: fmv.x.w sign-extended them. */
static const char *single_result[] = {
	"fadd.s", "fsub.s", "fmul.s", "fdiv.s", "fsqrt.s", "fmadd.s", "fmsub.s", "fnmsub.s",
	"fnmadd.s", "fmin.s", "fmax.s", "fcvt.s.w", "fcvt.s.wu", "fcvt.s.l", "fcvt.s.lu", "fcvt.s.d", 0,
};

static const struct {
	const char *name;
	fn f[5];
} ops[] = {
	ROW5(faddd, "fadd.d") ROW5(fsubd, "fsub.d") ROW5(fmuld, "fmul.d") ROW5(fdivd, "fdiv.d")
	ROW5(fsqrtd, "fsqrt.d")
	ROW5(fmaddd, "fmadd.d") ROW5(fmsubd, "fmsub.d") ROW5(fnmsubd, "fnmsub.d") ROW5(fnmaddd, "fnmadd.d")
	ROW1(fmind, "fmin.d") ROW1(fmaxd, "fmax.d")
	ROW1(feqd, "feq.d") ROW1(fltd, "flt.d") ROW1(fled, "fle.d") ROW1(fclassd, "fclass.d")
	ROW5(fcvtwd, "fcvt.w.d") ROW5(fcvtwud, "fcvt.wu.d") ROW5(fcvtld, "fcvt.l.d") ROW5(fcvtlud, "fcvt.lu.d")
	ROW5(fcvtdw, "fcvt.d.w") ROW5(fcvtdwu, "fcvt.d.wu") ROW5(fcvtdl, "fcvt.d.l") ROW5(fcvtdlu, "fcvt.d.lu")
	ROW5(fcvtsd, "fcvt.s.d") ROW5(fcvtds, "fcvt.d.s")
	ROW5(fadds, "fadd.s") ROW5(fsubs, "fsub.s") ROW5(fmuls, "fmul.s") ROW5(fdivs, "fdiv.s")
	ROW5(fsqrts, "fsqrt.s")
	ROW5(fmadds, "fmadd.s") ROW5(fmsubs, "fmsub.s") ROW5(fnmsubs, "fnmsub.s") ROW5(fnmadds, "fnmadd.s")
	ROW1(fmins, "fmin.s") ROW1(fmaxs, "fmax.s")
	ROW1(feqs, "feq.s") ROW1(flts, "flt.s") ROW1(fles, "fle.s") ROW1(fclasss, "fclass.s")
	ROW5(fcvtws, "fcvt.w.s") ROW5(fcvtwus, "fcvt.wu.s") ROW5(fcvtls, "fcvt.l.s") ROW5(fcvtlus, "fcvt.lu.s")
	ROW5(fcvtsw, "fcvt.s.w") ROW5(fcvtswu, "fcvt.s.wu") ROW5(fcvtsl, "fcvt.s.l") ROW5(fcvtslu, "fcvt.s.lu")
	{0, {0}},
};

int main(void) {
	char line[256], name[32];
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
	while (fgets(line, sizeof line, stdin)) {
		char *p = line;
		u64 arg[3] = {0, 0, 0};
		size_t n = strcspn(p, " \n");
		if (n == 0 || n >= sizeof name) {
			fprintf(stderr, "bad line: %s", line);
			return 1;
		}
		memcpy(name, p, n);
		name[n] = 0;
		p += n;
		long rm = strtol(p, &p, 10);
		for (int i = 0; i < 3 && *p && *p != '\n'; i++)
			arg[i] = strtoull(p, &p, 16);
		int k;
		for (k = 0; ops[k].name && strcmp(ops[k].name, name); k++)
			;
		if (!ops[k].name || rm < 0 || rm > 4) {
			fprintf(stderr, "unknown op or rm: %s", line);
			return 1;
		}
		u64 r, f;
		ops[k].f[rm](arg[0], arg[1], arg[2], &r, &f);
		for (int i = 0; single_result[i]; i++)
			if (!strcmp(single_result[i], name))
				r &= 0xffffffffu;
		printf("%llx %llx\n", (unsigned long long)r, (unsigned long long)f);
	}
	return 0;
}
