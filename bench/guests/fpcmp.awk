# fpcmp.awk: compares two outputs of a floating-point guest, allowing for
# rounding noise.  Usage: awk -f fpcmp.awk A B; exit status 0 when they
# match, 1 (with the first differing pair of lines) when not.
#
# A native x86-64 build computes what the RISC-V build does, but without
# fused multiply-adds and with another libm, so the last digits of its
# results may differ.  The outputs must have the same lines and the same
# words (split at blanks and at the characters ( ) [ ] , = :).  Two words
# that differ must both be numbers with the same suffix (e.g. "+8.06i")
# that agree to 1e-4 (relative), or are both below 1e-5 in magnitude (the
# size of a rounding error: several lines print error estimates).
# Anything else must be identical; hexadecimal floating point (%a) reads
# as the number 0 followed by its digits as a suffix ("0x1.8p+1"), so it
# must match exactly.

function num_prefix(w) {
	if (match(w, /^[-+]?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?/))
		return RLENGTH
	return 0
}

function abs(x) {
	return x < 0 ? -x : x
}

function word_ok(x, y,   lx, ly, u, v, m) {
	if (x == y)
		return 1
	lx = num_prefix(x)
	ly = num_prefix(y)
	if (lx == 0 || ly == 0 || substr(x, lx + 1) != substr(y, ly + 1))
		return 0
	u = substr(x, 1, lx) + 0
	v = substr(y, 1, ly) + 0
	m = abs(u) > abs(v) ? abs(u) : abs(v)
	return abs(u - v) <= 1e-4 * m || m < 1e-5
}

function line_ok(x, y,   n, m, i, xs, ys) {
	gsub(/[()\[\],=:]/, " ", x)
	gsub(/[()\[\],=:]/, " ", y)
	n = split(x, xs)
	m = split(y, ys)
	if (n != m)
		return 0
	for (i = 1; i <= n; i++)
		if (!word_ok(xs[i], ys[i]))
			return 0
	return 1
}

FNR == NR { a[FNR] = $0; na = FNR; next }
{ b[FNR] = $0; nb = FNR }
END {
	n = na > nb ? na : nb
	for (i = 1; i <= n; i++)
		if (i > na || i > nb || !line_ok(a[i], b[i])) {
			printf "fpcmp: line %d differs:\n< %s\n> %s\n", i, a[i], b[i]
			exit 1
		}
}
