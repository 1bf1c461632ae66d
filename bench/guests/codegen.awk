# codegen.awk: mode (bigtext or fsm) -> the generated half of that guest,
# a C translation unit on standard output, which the Makefile compiles
# straight from the pipe and links with NAME.c's object.
#
#   awk -v mode=bigtext -f codegen.awk | cc -x c -c -o bigtext.gen.o -
#   awk -v mode=fsm -f codegen.awk | ...
#
# Each guest's code is generated once, as a list of operations, and written
# out twice from that list: as C (the code under test, which the guest's
# compiler turns into machine code) and as a table of 32-bit words (the
# reference, which a small interpreter in NAME.c runs).  The two must
# compute the same thing; the guest checks that they do.
#
# bigtext: 2048 functions of straight-line 64-bit arithmetic on four
# locals, with small loops, if/else, switch statements, loads and stores of
# a global array and calls to other functions (bounded by a depth
# argument), and a table of pointers to them all for the guest's
# dispatcher: 2.8 MB of C, 0.7 MB of RV64GC code.
#
# fsm: one function, a loop over input bytes around a switch on the state
# (64 cases), each case a long straight-line block of 32-bit operations on
# six accumulators and the input byte (byte-class tests written as
# arithmetic, so the block has no branches) ending in a data-dependent
# choice of the next state, the way a lexer generator's output looks.
#
# The output depends only on the mode: a fixed seed, and arithmetic on
# integers below 2^47, which every awk does exactly in its doubles (no
# bitwise functions, which POSIX awk lacks; 32-bit words are built by
# multiplication and printed in decimal).  So the guests' build is
# reproducible: mawk, gawk and gawk --posix write the same bytes.
#
# An operation is one word of the table:
#   bits 0-4 kind, 5-7 dst, 8-10 src, 11-16 k, 17-24 imm, 25-31 extra
# and dst = dst OP src for the ALU kinds (src may be a register, a constant
# from the pool, the loop index or the input byte).  The kinds (NAME.c has
# the same list):
#   0 ADD    d += s
#   1 SUB    d -= s
#   2 XOR    d ^= s
#   3 MUL    d *= s | 1
#   4 XSHR   d ^= s >> k
#   5 ASHL   d += s << k
#   6 ROTX   d = rotl(d, k) ^ s
#   7 BYTE   d += (s >> k) & 255
#   8 LTINC  d += d < s
#   fsm: tests of the input byte ch, without branches
#   9 CLASS  d += (ch - imm) < extra
#   10 EQSEL d ^= -(ch == imm) & s
#   11 SHIN  d = (d << k) | (ch & ((1 << k) - 1))
#   bigtext: structure
#   12 GLD    d += g[imm]
#   13 GST    g[imm] ^= s
#   14 LOOP   repeat the next imm words (r[src] & 3) + k times
#   15 IF     if ((r[src] >> k) & 1) the next imm words, else the extra words after them
#   16 SWITCH r[src] % k selects one of k blocks; k words of block lengths follow
#   17 CALL   if depth > 0 and (r[extra] >> k) & 1: d ^= f(r[src], r[imm], depth - 1);
#             the next word is f
# Sources beyond the registers: 6 a constant from the pool (imm), 7 X (the
# loop index in bigtext, the input byte in fsm).

BEGIN {
	K_ADD = 0; K_SUB = 1; K_XOR = 2; K_MUL = 3; K_XSHR = 4; K_ASHL = 5; K_ROTX = 6; K_BYTE = 7; K_LTINC = 8
	K_CLASS = 9; K_EQSEL = 10; K_SHIN = 11
	K_GLD = 12; K_GST = 13; K_LOOP = 14; K_IF = 15; K_SWITCH = 16; K_CALL = 17
	SRC_IMM = 6; SRC_X = 7
	POOL = 256
	ntab = 0
	if (mode == "bigtext")
		bigtext()
	else if (mode == "fsm")
		fsm()
	else {
		print "usage: awk -v mode=bigtext|fsm -f codegen.awk" > "/dev/stderr"
		exit 2
	}
}

# ---- numbers ----

# L'Ecuyer's combined generator (CACM 1988): 1 .. 2147483562.  Every
# product is below 2^47.
function rnd(	z) {
	s1 = (s1 * 40014) % 2147483563
	s2 = (s2 * 40692) % 2147483399
	z = s1 - s2
	if (z < 1)
		z += 2147483562
	return z
}

# A number in [lo, hi].
function between(lo, hi) {
	return lo + rnd() % (hi - lo + 1)
}

# Hexadecimal of the 16-bit parts h3 h2 h1 h0 (high first), without
# leading zeros.
function hex(h3, h2, h1, h0,	s) {
	s = sprintf("%04x%04x%04x%04x", h3, h2, h1, h0)
	sub(/^0+/, "", s)
	return s == "" ? "0" : s
}

# The constant pool: a quarter small (fits an immediate), a quarter 32-bit,
# the rest 64-bit (in fsm, 32-bit).  pool[i] is its C literal.
function make_pool(bits,	i, h3, h2, h1, h0) {
	for (i = 0; i < POOL; i++) {
		h3 = rnd() % 65536; h2 = rnd() % 65536; h1 = rnd() % 65536; h0 = rnd() % 65536
		if (i % 4 == 0) {
			h3 = h2 = h1 = 0
			h0 %= 2048
		} else if (i % 4 == 1 || bits == 32)
			h3 = h2 = 0
		pool[i] = bits == 64 ? "UINT64_C(0x" hex(h3, h2, h1, h0) ")" : "0x" hex(h3, h2, h1, h0) "u"
	}
}

# ---- operations ----

# The table: tab[0 .. ntab-1], printed at the end.
function put(w) {
	tab[ntab] = w
	return ntab++
}

function word(kind, dst, src, k, imm, extra) {
	return kind + dst * 32 + src * 256 + k * 2048 + imm * 131072 + extra * 33554432
}

function indent(n,	s) {
	s = ""
	while (n-- > 0)
		s = s "\t"
	return s
}

# The operation in o_kind, o_dst, o_src, o_k, o_imm, o_extra.
function o_put() {
	put(word(o_kind, o_dst, o_src, o_k, o_imm, o_extra))
}

function source() {
	if (o_src == SRC_IMM)
		return pool[o_imm]
	if (o_src == SRC_X)
		return xname
	return reg[o_src]
}

# Prints the ALU or byte-test operation o as a C statement.
function emit_alu(ind,	d, s) {
	d = reg[o_dst]
	s = source()
	printf "%s", indent(ind)
	if (o_kind == K_ADD) printf "%s += %s", d, s
	else if (o_kind == K_SUB) printf "%s -= %s", d, s
	else if (o_kind == K_XOR) printf "%s ^= %s", d, s
	else if (o_kind == K_MUL) printf "%s *= (%s | 1)", d, s
	else if (o_kind == K_XSHR) printf "%s ^= (%s >> %d)", d, s, o_k
	else if (o_kind == K_ASHL) printf "%s += (%s << %d)", d, s, o_k
	else if (o_kind == K_ROTX) printf "%s = rotl%d(%s, %d) ^ %s", d, bits, d, o_k, s
	else if (o_kind == K_BYTE) printf "%s += ((%s >> %d) & 255)", d, s, o_k
	else if (o_kind == K_LTINC) printf "%s += (%s < %s)", d, d, s
	else if (o_kind == K_CLASS) printf "%s += ((uint32_t)(ch - %d) < %d)", d, o_imm, o_extra
	else if (o_kind == K_EQSEL) printf "%s ^= (-(uint32_t)(ch == %d) & %s)", d, o_imm, s
	else if (o_kind == K_SHIN) printf "%s = (%s << %d) | (ch & %d)", d, d, o_k, 2 ^ o_k - 1
	else {
		print "codegen.awk: kind " o_kind > "/dev/stderr"
		exit 1
	}
	printf ";\n"
}

# A random ALU operation on nregs registers into o; with_x allows the X
# source (the loop index, or the input byte).  A constant or X source
# takes only the kinds that do not shift it out of existence, and d -= d,
# d ^= d, d += d < d (constants) are avoided.
function rand_alu(nregs, with_x,	r) {
	o_dst = between(0, nregs - 1)
	o_k = between(1, bits - 1)
	o_imm = between(0, POOL - 1)
	o_extra = 0
	r = between(0, 9)
	if (r < 3) {
		o_src = SRC_IMM
		o_kind = for_imm[between(0, 5)]
	} else if (r < 5 && with_x) {
		o_src = SRC_X
		o_kind = for_x[between(0, 5)]
	} else {
		o_src = between(0, nregs - 1)
		o_kind = between(K_ADD, K_LTINC)
		if (o_src == o_dst && (o_kind == K_SUB || o_kind == K_XOR || o_kind == K_LTINC))
			o_kind = K_MUL
	}
}

function kind_lists(	t, i) {
	split("0 1 2 3 6 8", t)     # ADD SUB XOR MUL ROTX LTINC
	for (i = 0; i < 6; i++)
		for_imm[i] = t[i + 1] + 0
	split("0 1 2 3 5 6", t)     # ADD SUB XOR MUL ASHL ROTX
	for (i = 0; i < 6; i++)
		for_x[i] = t[i + 1] + 0
}

# Prints words a table of n entries from arr, 8 to a line, in decimal.
function print_table(decl, arr, n,	i) {
	printf "\n%s = {", decl
	for (i = 0; i < n; i++)
		printf "%s%.0f,", i % 8 ? " " : "\n\t", arr[i]
	printf "\n};\n"
}

# ---- bigtext ----

# A block of n ALU operations (with stores of globals when stores is set):
# into the table, and as C.
function bt_alu_block(n, ind, stores,	i) {
	for (i = 0; i < n; i++) {
		if (stores && between(0, 7) == 0) {
			o_kind = K_GST; o_dst = 0; o_src = between(0, 3); o_k = 0; o_imm = between(0, NGLOBAL - 1); o_extra = 0
			o_put()
			printf "%sbt_g[%d] ^= %s;\n", indent(ind), o_imm, reg[o_src]
			continue
		}
		rand_alu(4, 0)
		o_put()
		emit_alu(ind)
	}
}

function bt_function(f,	k1, k2, calls, stmts, s, r, n, i, at, start, nt, ne, then_len, ncases, lens, c, target, cond) {
	k1 = between(0, POOL - 1)
	k2 = between(0, POOL - 1)
	put(k1 + k2 * 256)
	printf "\nuint64_t bt_f%d(uint64_t x, uint64_t y, int depth)\n{\n", f
	printf "\tuint64_t a = x, b = y, c = x ^ %s, d = y + %s;\n", pool[k1], pool[k2]
	calls = 0
	stmts = between(3, 8)
	for (s = 0; s < stmts; s++) {
		r = between(0, 99)
		if (r < 45) {
			bt_alu_block(between(2, 6), 1, 0)
		} else if (r < 55) {
			o_kind = K_GLD; o_dst = between(0, 3); o_src = 0; o_k = 0; o_imm = between(0, NGLOBAL - 1); o_extra = 0
			o_put()
			printf "\t%s += bt_g[%d];\n", reg[o_dst], o_imm
			o_kind = K_GST; o_dst = 0; o_src = between(0, 3); o_imm = between(0, NGLOBAL - 1)
			o_put()
			printf "\tbt_g[%d] ^= %s;\n", o_imm, reg[o_src]
		} else if (r < 67) {
			# a small loop, one to seven times round
			n = between(2, 5)
			o_kind = K_LOOP; o_dst = 0; o_src = between(0, 3); o_k = between(1, 4); o_imm = n; o_extra = 0
			o_put()
			printf "\tfor (uint64_t i = 0, n = (%s & 3) + %d; i < n; i++) {\n", reg[o_src], o_k
			for (i = 0; i < n; i++) {
				rand_alu(4, 1)
				o_put()
				emit_alu(2)
			}
			printf "\t}\n"
		} else if (r < 80) {
			nt = between(2, 7)
			ne = between(1, 6)
			cond = between(0, 3)
			c = between(0, 63)
			at = put(0)
			printf "\tif ((%s >> %d) & 1) {\n", reg[cond], c
			start = ntab
			bt_alu_block(nt, 2, 1)
			then_len = ntab - start
			printf "\t} else {\n"
			start = ntab
			bt_alu_block(ne, 2, 1)
			printf "\t}\n"
			tab[at] = word(K_IF, 0, cond, c, then_len, ntab - start)
		} else if (r < 90) {
			ncases = between(3, 8)
			cond = between(0, 3)
			put(word(K_SWITCH, 0, cond, ncases, 0, 0))
			lens = ntab
			for (c = 0; c < ncases; c++)
				put(0)
			printf "\tswitch (%s %% %d) {\n", reg[cond], ncases
			for (c = 0; c < ncases; c++) {
				printf "\tcase %d:\n", c
				start = ntab
				bt_alu_block(between(1, 5), 2, 1)
				tab[lens + c] = ntab - start
				printf "\t\tbreak;\n"
			}
			printf "\t}\n"
		} else if (calls < 2) {
			calls++
			target = between(0, NFUNC - 1)
			o_kind = K_CALL; o_dst = between(0, 3); o_src = between(0, 3); o_k = between(0, 63)
			o_imm = between(0, 3); o_extra = between(0, 3)
			o_put()
			put(target)
			printf "\tif (depth > 0 && ((%s >> %d) & 1))\n\t\t%s ^= bt_f%d(%s, %s, depth - 1);\n", \
				reg[o_extra], o_k, reg[o_dst], target, reg[o_src], reg[o_imm]
		} else {
			bt_alu_block(between(2, 6), 1, 0)
		}
	}
	if (calls == 0)
		printf "\t(void)depth;\n"
	printf "\treturn (a ^ rotl64(b, 17)) + (c ^ (d >> 3));\n}\n"
}

function bigtext(	f, i) {
	s1 = 1649845345; s2 = 1952805748 # "bigt", "ext1"
	bits = 64
	NFUNC = 2048
	NGLOBAL = 64
	split("a b c d", t)
	for (i = 0; i < 4; i++)
		reg[i] = t[i + 1]
	xname = "i"
	kind_lists()
	make_pool(64)
	print "/* Generated by codegen.awk (mode bigtext) for bigtext.c: do not edit. */"
	print ""
	print "#include <stdint.h>"
	print ""
	print "static inline uint64_t rotl64(uint64_t x, int k)\n{\n\treturn x << k | x >> (64 - k);\n}"
	print ""
	printf "const uint32_t bt_nfunc = %d, bt_nglobal = %d;\n", NFUNC, NGLOBAL
	printf "uint64_t bt_g[%d];\n\n", NGLOBAL
	for (f = 0; f < NFUNC; f++)
		printf "uint64_t bt_f%d(uint64_t x, uint64_t y, int depth);\n", f
	for (f = 0; f < NFUNC; f++) {
		start[f] = ntab
		bt_function(f)
	}
	start[NFUNC] = ntab
	print "\ntypedef uint64_t (*bt_fn)(uint64_t, uint64_t, int);"
	printf "\nconst bt_fn bt_table[%d] = {", NFUNC
	for (f = 0; f < NFUNC; f++)
		printf "%sbt_f%d,", f % 8 ? " " : "\n\t", f
	printf "\n};\n"
	printf "\nconst uint64_t bt_pool[%d] = {", POOL
	for (i = 0; i < POOL; i++)
		printf "%s%s,", i % 4 ? " " : "\n\t", pool[i]
	printf "\n};\n"
	printf "\n/* The functions as operations (see bigtext.c): function f is\n"
	printf " * bt_code[bt_start[f]] up to bt_code[bt_start[f + 1]]. */"
	print_table(sprintf("const uint32_t bt_start[%d]", NFUNC + 1), start, NFUNC + 1)
	print_table(sprintf("const uint32_t bt_code[%d]", ntab), tab, ntab)
}

# ---- fsm ----

# Transition tests: one word each,
#   bits 0-1 type (0 byte class, 1 byte equal, 2 accumulator bit), 2-4 reg,
#   5-9 k, 10-17 lo, 18-25 range, 26-31 target.
function fsm_state(s,	n, i, r, c, ntests, t, type, rg, k, lo, range, target, def) {
	printf "\t\tcase %d:\n", s
	n = between(24, 56)
	put(n)
	for (i = 0; i < n; i++) {
		r = between(0, 9)
		if (r < 6)
			rand_alu(6, 1)
		else {
			o_dst = between(0, 5); o_src = between(0, 5); o_k = 0; o_imm = 0; o_extra = 0
			if (r < 8) {
				c = between(0, nclasses - 1)
				o_kind = K_CLASS
				o_imm = class_lo[c]
				o_extra = class_range[c]
			} else if (r < 9) {
				o_kind = K_EQSEL
				o_imm = common[between(0, ncommon - 1)]
			} else {
				o_kind = K_SHIN
				o_k = between(1, 8)
			}
		}
		o_put()
		emit_alu(3)
	}
	ntests = between(1, 3)
	put(ntests)
	for (t = 0; t < ntests; t++) {
		type = between(0, 9) < 5 ? 0 : between(0, 1) ? 1 : 2
		rg = between(0, 5)
		k = between(0, 31)
		lo = range = 0
		target = between(0, NSTATES - 1)
		printf "\t\t\t%sif (", t ? "else " : ""
		if (type == 0) {
			c = between(0, nclasses - 1)
			lo = class_lo[c]
			range = class_range[c]
			printf "(uint32_t)(ch - %d) < %d", lo, range
		} else if (type == 1) {
			lo = common[between(0, ncommon - 1)]
			printf "ch == %d", lo
		} else
			printf "(%s >> %d) & 1", reg[rg], k
		printf ")\n\t\t\t\tstate = %d;\n", target
		put(type + rg * 4 + k * 32 + lo * 1024 + range * 262144 + target * 67108864)
	}
	def = between(0, NSTATES - 1)
	put(def)
	printf "\t\t\telse\n\t\t\t\tstate = %d;\n\t\t\tbreak;\n", def
}

function fsm(	s, i) {
	s1 = 1718840621; s2 = 1734700593 # "fsm-", "gen1"
	bits = 32
	NSTATES = 64
	split("a b c d e f", t)
	for (i = 0; i < 6; i++)
		reg[i] = t[i + 1]
	xname = "ch"
	kind_lists()
	# Byte classes of text: digits, lower case, upper case, blank,
	# punctuation, control characters, bytes above 127, a-f.
	split("48 97 65 32 33 58 91 0 128 97", t)
	split("10 26 26 1 15 7 6 32 127 6", u)
	nclasses = 10
	for (i = 0; i < nclasses; i++) {
		class_lo[i] = t[i + 1] + 0
		class_range[i] = u[i + 1] + 0
	}
	# Common bytes: " eatoinsrhl.,\n0123(){};=-_"
	ncommon = split("32 101 97 116 111 105 110 115 114 104 108 46 44 10 48 49 50 51 40 41 123 125 59 61 45 95", t)
	for (i = 0; i < ncommon; i++)
		common[i] = t[i + 1] + 0
	make_pool(32)
	print "/* Generated by codegen.awk (mode fsm) for fsm.c: do not edit. */"
	print ""
	print "#include <stddef.h>"
	print "#include <stdint.h>"
	print ""
	print "static inline uint32_t rotl32(uint32_t x, int k)\n{\n\treturn x << k | x >> (32 - k);\n}"
	print ""
	printf "const uint32_t fsm_nstates = %d;\n\n", NSTATES
	print "/* The machine, compiled: runs m (accumulators m[0..5], state m[6]) over"
	print " * the n bytes at p. */"
	print "void fsm_run(uint32_t m[7], const uint8_t *p, size_t n)\n{"
	print "\tuint32_t a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], state = m[6];"
	print "\tfor (size_t i = 0; i < n; i++) {\n\t\tuint32_t ch = p[i];\n\t\tswitch (state) {"
	for (s = 0; s < NSTATES; s++) {
		start[s] = ntab
		fsm_state(s)
	}
	print "\t\t}\n\t}"
	print "\tm[0] = a;\n\tm[1] = b;\n\tm[2] = c;\n\tm[3] = d;\n\tm[4] = e;\n\tm[5] = f;\n\tm[6] = state;\n}"
	printf "\nconst uint32_t fsm_pool[%d] = {", POOL
	for (i = 0; i < POOL; i++)
		printf "%s%s,", i % 6 ? " " : "\n\t", pool[i]
	printf "\n};\n"
	printf "\n/* The machine as operations and transition tests (see fsm.c): state s\n"
	printf " * starts at fsm_code[fsm_start[s]]. */"
	print_table(sprintf("const uint32_t fsm_start[%d]", NSTATES), start, NSTATES)
	print_table(sprintf("const uint32_t fsm_code[%d]", ntab), tab, ntab)
}
