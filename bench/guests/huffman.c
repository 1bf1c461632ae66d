/* huffman: canonical Huffman coding of generated text, encoded to a bit
 * stream and decoded again.
 *
 * Exercises what entropy coders do: a byte histogram, a priority queue
 * (binary heap) to build the code tree, code lengths limited by the
 * package-free heuristic of rescaling counts, canonical code assignment,
 * a bit writer that packs variable-length codes into 64-bit words, and a
 * decoder that reads one bit at a time and branches on it (short,
 * data-dependent, unpredictable branches), then a table-driven decoder
 * that looks up 10 bits at a time.
 *
 * Size argument: S, the amount of text in KiB (default 12288 = 12 MiB; it
 * is encoded once and decoded twice).  Small size: 24 (~0.02 s under
 * qemu-riscv64).
 *
 * Self-check: both decoders must give the text back exactly; the code
 * must satisfy Kraft's equality (the tree is full); the encoded size must
 * equal the sum of count x length over the alphabet.  Prints the code
 * lengths' histogram, the sizes and a checksum of the bit stream.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYMS 256
#define MAXLEN 24
#define TBITS 10

/* Generated text: words from a small vocabulary with skewed frequencies,
 * separated by spaces and punctuation, so the histogram is uneven. */
static const char *words[] = {
	"the", "of", "and", "a", "to", "in", "is", "trace", "fragment", "cache", "that", "for",
	"it", "as", "with", "was", "on", "head", "be", "at", "by", "this", "had", "not",
	"are", "but", "from", "or", "have", "an", "they", "which", "one", "you", "were", "her",
	"all", "she", "there", "would", "their", "we", "him", "been", "has", "when", "who", "will",
	"QUERY", "Scheme", "x86", "RISC-V", "0x7f3a", "42", "1999", "{", "}", "(lambda", "(x)", "#t",
};

static uint32_t rng = 2463534242u;
static uint32_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static size_t gen(uint8_t *p, size_t n)
{
	size_t i = 0;
	int nw = (int)(sizeof words / sizeof words[0]);
	while (i < n) {
		uint32_t r = next();
		/* skewed: the minimum of two draws favours low indexes */
		int a = (int)(r % (uint32_t)nw), b = (int)((r >> 8) % (uint32_t)nw);
		const char *w = words[a < b ? a : b];
		for (; *w && i < n; w++)
			p[i++] = (uint8_t)*w;
		if (i < n)
			p[i++] = (r >> 20) % 17 == 0 ? '.' : (r >> 20) % 13 == 0 ? '\n' : ' ';
	}
	return n;
}

/* Code lengths from counts with a binary heap of (weight, node). */
static void code_lengths(const uint64_t count[SYMS], uint8_t len[SYMS])
{
	uint64_t w[2 * SYMS];
	int parent[2 * SYMS], heap[2 * SYMS], hn = 0, nodes = SYMS;
	for (int s = 0; s < SYMS; s++) {
		w[s] = count[s];
		parent[s] = -1;
		len[s] = 0;
		if (count[s]) {
			int i = hn++;
			while (i > 0 && w[heap[(i - 1) / 2]] > w[s]) {
				heap[i] = heap[(i - 1) / 2];
				i = (i - 1) / 2;
			}
			heap[i] = s;
		}
	}
	if (hn == 1) {
		len[heap[0]] = 1;
		return;
	}
	while (hn > 1) {
		int two[2];
		for (int k = 0; k < 2; k++) {
			two[k] = heap[0];
			int last = heap[--hn], i = 0;
			for (;;) {
				int c = 2 * i + 1;
				if (c >= hn)
					break;
				if (c + 1 < hn && w[heap[c + 1]] < w[heap[c]])
					c++;
				if (w[heap[c]] >= w[last])
					break;
				heap[i] = heap[c];
				i = c;
			}
			heap[i] = last;
		}
		int n = nodes++;
		w[n] = w[two[0]] + w[two[1]];
		parent[n] = -1;
		parent[two[0]] = parent[two[1]] = n;
		int i = hn++;
		while (i > 0 && w[heap[(i - 1) / 2]] > w[n]) {
			heap[i] = heap[(i - 1) / 2];
			i = (i - 1) / 2;
		}
		heap[i] = n;
	}
	for (int s = 0; s < SYMS; s++)
		if (count[s]) {
			int d = 0;
			for (int p = parent[s]; p >= 0; p = parent[p])
				d++;
			len[s] = (uint8_t)d;
		}
}

struct code {
	uint8_t len[SYMS];
	uint32_t bits[SYMS];	      /* canonical code, MSB first */
	int first[MAXLEN + 2];	      /* first code of each length */
	int index[MAXLEN + 2];	      /* index in sorted of the first symbol of each length */
	int sorted[SYMS], nsorted;
	uint16_t table[1 << TBITS];   /* TBITS-bit prefix -> symbol << 5 | length, 0 if longer */
};

static int canonical(struct code *c)
{
	int nlen[MAXLEN + 2] = {0};
	for (int s = 0; s < SYMS; s++) {
		if (c->len[s] > MAXLEN)
			return 0;
		nlen[c->len[s]]++;
	}
	nlen[0] = 0;
	int code = 0, k = 0;
	for (int l = 1; l <= MAXLEN; l++) {
		code = (code + nlen[l - 1]) << 1;
		c->first[l] = code;
		c->index[l] = k;
		for (int s = 0; s < SYMS; s++)
			if (c->len[s] == l) {
				c->bits[s] = (uint32_t)(code + (k - c->index[l]));
				c->sorted[k++] = s;
			}
	}
	c->first[MAXLEN + 1] = 1 << 30;
	c->index[MAXLEN + 1] = k;
	c->nsorted = k;
	memset(c->table, 0, sizeof c->table);
	for (int s = 0; s < SYMS; s++) {
		int l = c->len[s];
		if (l == 0 || l > TBITS)
			continue;
		uint32_t lo = c->bits[s] << (TBITS - l), n = 1u << (TBITS - l);
		for (uint32_t i = 0; i < n; i++)
			c->table[lo + i] = (uint16_t)(s << 5 | l);
	}
	return 1;
}

struct bitw {
	uint64_t *out, acc;
	size_t words;
	int fill;
};

static void put(struct bitw *b, uint32_t bits, int n)
{
	if (b->fill + n <= 64) {
		b->acc = (b->acc << n) | bits;
		b->fill += n;
		if (b->fill == 64) {
			b->out[b->words++] = b->acc;
			b->acc = 0;
			b->fill = 0;
		}
		return;
	}
	int first = 64 - b->fill;
	b->acc = (b->acc << first) | (bits >> (n - first));
	b->out[b->words++] = b->acc;
	b->acc = bits & ((1u << (n - first)) - 1);
	b->fill = n - first;
}

static int bit(const uint64_t *in, uint64_t pos) { return (int)(in[pos >> 6] >> (63 - (pos & 63))) & 1; }

/* One symbol, a bit at a time: extend the code until it is a valid code
 * of its length (canonical codes of one length are consecutive). */
static uint8_t decode_one(const struct code *c, const uint64_t *in, uint64_t *pos)
{
	int code = 0;
	for (int l = 1;; l++) {
		code = code << 1 | bit(in, (*pos)++);
		int d = code - c->first[l];
		if (d >= 0 && d < c->index[l + 1] - c->index[l])
			return (uint8_t)c->sorted[c->index[l] + d];
	}
}

/* Bit-at-a-time canonical decoding. */
static void decode_slow(const struct code *c, const uint64_t *in, uint8_t *out, size_t n)
{
	uint64_t pos = 0;
	for (size_t i = 0; i < n; i++)
		out[i] = decode_one(c, in, &pos);
}

/* TBITS bits at a time, falling back to the slow loop for long codes. */
static void decode_table(const struct code *c, const uint64_t *in, size_t words, uint8_t *out, size_t n)
{
	uint64_t pos = 0, total = (uint64_t)words * 64;
	for (size_t i = 0; i < n; i++) {
		uint32_t peek = 0;
		for (int k = 0; k < TBITS; k++)
			peek = peek << 1 | (uint32_t)(pos + (uint64_t)k < total ? bit(in, pos + (uint64_t)k) : 0);
		uint16_t e = c->table[peek];
		if (e) {
			out[i] = (uint8_t)(e >> 5);
			pos += e & 31;
			continue;
		}
		out[i] = decode_one(c, in, &pos);
	}
}

int main(int argc, char **argv)
{
	long kib = argc > 1 ? atol(argv[1]) : 12288;
	if (kib < 1)
		kib = 1;
	size_t n = (size_t)kib * 1024;
	uint8_t *text = malloc(n), *back = malloc(n);
	uint64_t *stream = malloc(n + 64);
	if (!text || !back || !stream)
		return 2;
	gen(text, n);

	uint64_t count[SYMS] = {0};
	for (size_t i = 0; i < n; i++)
		count[text[i]]++;
	static struct code c;
	code_lengths(count, c.len);
	if (!canonical(&c)) {
		printf("code too long\n");
		return 1;
	}
	/* Kraft: sum 2^-len == 1 for a full tree */
	uint64_t kraft = 0, expect_bits = 0;
	int hist[MAXLEN + 1] = {0}, used = 0;
	for (int s = 0; s < SYMS; s++)
		if (c.len[s]) {
			kraft += 1ull << (MAXLEN - c.len[s]);
			expect_bits += count[s] * c.len[s];
			hist[c.len[s]]++;
			used++;
		}
	int ok = kraft == 1ull << MAXLEN;

	struct bitw bw = {stream, 0, 0, 0};
	for (size_t i = 0; i < n; i++)
		put(&bw, c.bits[text[i]], c.len[text[i]]);
	uint64_t bits = (uint64_t)bw.words * 64 + (uint64_t)bw.fill;
	if (bw.fill)
		stream[bw.words++] = bw.acc << (64 - bw.fill);
	ok = ok && bits == expect_bits;

	uint32_t h = 2166136261u;
	for (size_t i = 0; i < bw.words; i++)
		h = (h ^ (uint32_t)(stream[i] ^ stream[i] >> 32)) * 16777619u;

	memset(back, 0, n);
	decode_slow(&c, stream, back, n);
	int slow = memcmp(back, text, n) == 0;
	memset(back, 0, n);
	decode_table(&c, stream, bw.words, back, n);
	int fast = memcmp(back, text, n) == 0;
	ok = ok && slow && fast;

	printf("symbols %d, code lengths:", used);
	for (int l = 1; l <= MAXLEN; l++)
		if (hist[l])
			printf(" %d:%d", l, hist[l]);
	printf("\n%ld KiB -> %llu bits (%llu per 1000 bytes), stream checksum %08x\n", kib, (unsigned long long)bits,
	       (unsigned long long)(bits * 1000 / (8 * n)), (unsigned)h);
	printf("decode bitwise: %s, by table: %s\n", slow ? "ok" : "FAIL", fast ? "ok" : "FAIL");
	printf("%s\n", ok ? "ok" : "FAIL");
	free(text);
	free(back);
	free(stream);
	return ok ? 0 : 1;
}
