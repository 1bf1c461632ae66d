/* lz: an LZ77 byte-oriented compressor and decompressor, in the manner of
 * LZ4, over generated text.
 *
 * Exercises what fast compressors do: unaligned 32-bit loads, a
 * multiplicative hash of the next four bytes into a table of recent
 * positions, match extension byte by byte, a search step that grows over
 * incompressible data, and a byte-oriented output format; and in the
 * decompressor, token decoding, length runs, literal copies and
 * overlapping match copies (8 bytes at a time when the offset allows,
 * else byte by byte).  Two compression levels: fast (one candidate, the
 * latest position with the same hash) and chained (a hash chain over the
 * 64 KiB window, up to 32 candidates, the longest match wins).
 *
 * The format: a sequence is a token byte (literal count in the high
 * nibble, match length - 4 in the low one; 15 means more, in further
 * bytes of 255 and a last byte below 255), the literals, the match offset
 * (2 bytes, little-endian, 1..65535) and the match length's extra bytes.
 * The last sequence has only literals.
 *
 * Size argument: S, the amount of input in KiB (default 6144 = 6 MiB).
 * Small size: 32 (~0.02 s under qemu-riscv64).
 *
 * Self-check: the output of both levels must decompress to the input
 * exactly, through a decoder that checks every length and offset against
 * its buffers, and the decoder must refuse the output without its last
 * byte; the chained level must not compress worse than the fast one.  Prints the compressed sizes and checksums of the compressed data.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MINMATCH 4
#define MAXOFF 65535
#define HBITS 14
#define WINDOW 65536
#define DEPTH 32

static uint32_t read32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint32_t hash4(const uint8_t *p)
{
	return (read32(p) * 2654435761u) >> (32 - HBITS);
}

/* Writes a length's extra bytes (n >= 15 was written as 15). */
static uint8_t *put_len(uint8_t *op, size_t n)
{
	for (n -= 15; n >= 255; n -= 255)
		*op++ = 255;
	*op++ = (uint8_t)n;
	return op;
}

/* Writes one sequence: the literals [lit, lit + nlit), then a match of
 * mlen bytes at offset off (mlen 0: the last sequence, no match). */
static uint8_t *put_seq(uint8_t *op, const uint8_t *lit, size_t nlit, size_t off, size_t mlen)
{
	uint8_t *token = op++;
	size_t ml = mlen ? mlen - MINMATCH : 0;
	*token = (uint8_t)((nlit < 15 ? nlit : 15) << 4 | (ml < 15 ? ml : 15));
	if (nlit >= 15)
		op = put_len(op, nlit);
	memcpy(op, lit, nlit);
	op += nlit;
	if (mlen) {
		*op++ = (uint8_t)off;
		*op++ = (uint8_t)(off >> 8);
		if (ml >= 15)
			op = put_len(op, ml);
	}
	return op;
}

/* The most the compressed form of n bytes can take. */
static size_t bound(size_t n)
{
	return n + n / 255 + 16;
}

static uint32_t head[1 << HBITS];
static uint32_t chain[WINDOW];

/* Compresses in[0..n) to out; returns the compressed size.  chained
 * selects the level.  Positions are stored + 1, so 0 means none. */
static size_t compress(const uint8_t *in, size_t n, uint8_t *out, int chained)
{
	const uint8_t *ip = in, *anchor = in, *end = in + n;
	const uint8_t *limit = n > MINMATCH + 8 ? end - MINMATCH - 8 : in; /* no match starts after this */
	uint8_t *op = out;
	uint32_t misses = 0;
	memset(head, 0, sizeof head);
	while (ip < limit) {
		uint32_t pos = (uint32_t)(ip - in), h = hash4(ip);
		const uint8_t *best = NULL;
		size_t blen = 0;
		uint32_t cand = head[h];
		if (chained)
			chain[pos % WINDOW] = cand;
		head[h] = pos + 1;
		for (int d = 0; cand && d < (chained ? DEPTH : 1); d++) {
			const uint8_t *ref = in + cand - 1;
			if (ip - ref > MAXOFF)
				break;
			if (read32(ref) == read32(ip)) {
				size_t len = MINMATCH;
				while (ip + len < end && ref[len] == ip[len])
					len++;
				if (len > blen) {
					blen = len;
					best = ref;
				}
			}
			if (!chained)
				break;
			uint32_t next = chain[(cand - 1) % WINDOW];
			if (next >= cand)
				break; /* that slot has been reused since */
			cand = next;
		}
		if (!best) {
			/* Over data that does not repeat, look less often. */
			ip += 1 + (misses++ >> 6);
			continue;
		}
		misses = 0;
		/* Extend backwards over the pending literals. */
		while (ip > anchor && best > in && ip[-1] == best[-1]) {
			ip--;
			best--;
			blen++;
		}
		op = put_seq(op, anchor, (size_t)(ip - anchor), (size_t)(ip - best), blen);
		/* Enter the positions the match covers, so later data finds them. */
		const uint8_t *stop = ip + blen;
		for (const uint8_t *p = ip + 1; p < stop && p < limit; p++) {
			uint32_t hp = hash4(p), pp = (uint32_t)(p - in);
			if (chained)
				chain[pp % WINDOW] = head[hp];
			if (chained || p + 2 >= stop)
				head[hp] = pp + 1;
		}
		ip = anchor = stop;
	}
	return (size_t)(put_seq(op, anchor, (size_t)(end - anchor), 0, 0) - out);
}

/* Reads a length's extra bytes; returns 0 when the input ends first. */
static int get_len(const uint8_t **ipp, const uint8_t *iend, size_t *n)
{
	const uint8_t *ip = *ipp;
	uint8_t b;
	do {
		if (ip >= iend)
			return 0;
		b = *ip++;
		*n += b;
	} while (b == 255);
	*ipp = ip;
	return 1;
}

/* Decompresses in[0..n) into out, which has room for cap bytes; returns
 * the decompressed size, or -1 for malformed input. */
static long decompress(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
	const uint8_t *ip = in, *iend = in + n;
	uint8_t *op = out, *oend = out + cap;
	while (ip < iend) {
		unsigned token = *ip++;
		size_t nlit = token >> 4, mlen = token & 15;
		if (nlit == 15 && !get_len(&ip, iend, &nlit))
			return -1;
		if (nlit > (size_t)(iend - ip) || nlit > (size_t)(oend - op))
			return -1;
		memcpy(op, ip, nlit);
		ip += nlit;
		op += nlit;
		if (ip == iend)
			return (long)(op - out); /* the last sequence */
		if (iend - ip < 2)
			return -1;
		size_t off = (size_t)ip[0] | (size_t)ip[1] << 8;
		ip += 2;
		if (mlen == 15 && !get_len(&ip, iend, &mlen))
			return -1;
		mlen += MINMATCH;
		if (off == 0 || off > (size_t)(op - out) || mlen > (size_t)(oend - op))
			return -1;
		const uint8_t *ref = op - off;
		if (off >= 8 && (size_t)(oend - op) >= mlen + 8) {
			/* 8 bytes at a time: each copy reads what is written */
			for (size_t k = 0; k < mlen; k += 8)
				memcpy(op + k, ref + k, 8);
			op += mlen;
		} else {
			for (size_t k = 0; k < mlen; k++)
				op[k] = ref[k];
			op += mlen;
		}
	}
	return -1; /* no last sequence */
}

/* ---- the input ---- */

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

static const char *const words[] = {
	"the", "of", "and", "to", "a", "in", "that", "is", "was", "he", "for", "it", "with", "as", "his",
	"on", "be", "at", "by", "had", "compressor", "offset", "literal", "match", "window", "hash",
	"table", "sequence", "token", "decoder", "length", "byte", "Monday", "river", "garden", "paper",
};

/* Text: words from a skewed vocabulary, sentences, now and then a repeat
 * of an earlier stretch (a quotation, up to 200 bytes from up to 40000
 * back) and now and then random bytes. */
static void gen(uint8_t *p, size_t n)
{
	size_t i = 0;
	int nw = (int)(sizeof words / sizeof words[0]);
	while (i < n) {
		uint32_t r = next();
		if (r % 64 == 0 && i > 1000) {
			size_t len = 20 + (r >> 8) % 180, back = 200 + (r >> 16) % 40000;
			if (back > i)
				back = i;
			for (size_t k = 0; k < len && i < n; k++, i++)
				p[i] = p[i - back];
		} else if (r % 64 == 1) {
			for (size_t k = (r >> 8) % 24; k > 0 && i < n; k--)
				p[i++] = (uint8_t)next();
		} else {
			int a = (int)((r >> 6) % (uint32_t)nw), b = (int)((r >> 14) % (uint32_t)nw);
			const char *w = words[a < b ? a : b];
			if ((r >> 24) % 11 == 0 && *w >= 'a' && *w <= 'z')
				p[i++] = (uint8_t)(*w++ - 'a' + 'A'); /* capitalized */
			for (; *w && i < n; w++)
				p[i++] = (uint8_t)*w;
			if (i < n)
				p[i++] = (r >> 28) == 0 ? '.' : (r >> 28) == 1 ? ',' : (r >> 28) == 2 ? '\n' : ' ';
		}
	}
}

static uint32_t fnv(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL) {
		printf("lz: out of memory\n");
		exit(2);
	}
	return p;
}

int main(int argc, char **argv)
{
	long kib = 6144;
	if (argc > 1)
		kib = atol(argv[1]);
	if (kib < 1 || kib > 1048576) {
		printf("lz: size must be 1..1048576\n");
		return 2;
	}
	size_t n = (size_t)kib * 1024;
	uint8_t *in = xmalloc(n), *comp = xmalloc(bound(n)), *back = xmalloc(n);
	gen(in, n);
	printf("lz: %ld KiB of input, checksum %08x\n", kib, (unsigned)fnv(in, n));

	int ok = 1;
	size_t sizes[2];
	static const char *const level[] = {"fast", "chained"};
	for (int chained = 0; chained < 2; chained++) {
		size_t c = compress(in, n, comp, chained);
		sizes[chained] = c;
		memset(back, 0, n);
		long d = decompress(comp, c, back, n);
		int same = d == (long)n && memcmp(back, in, n) == 0;
		/* A truncated stream must be refused or come out short. */
		long t = decompress(comp, c - 1, back, n);
		int refused = t != (long)n;
		printf("%s: %lu bytes (%lu per 1000), checksum %08x, round trip %s\n", level[chained],
		       (unsigned long)c, (unsigned long)(c * 1000 / n), (unsigned)fnv(comp, c),
		       same && refused ? "ok" : "FAIL");
		ok = ok && same && refused;
	}
	if (sizes[1] > sizes[0]) {
		printf("FAIL: the chained level compresses worse than the fast one\n");
		ok = 0;
	}
	free(back);
	free(comp);
	free(in);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
