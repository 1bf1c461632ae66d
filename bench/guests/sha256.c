/* sha256: SHA-256 (FIPS 180-4) of generated data.
 *
 * Exercises 32-bit arithmetic on 64-bit registers: rotates built from
 * shifts and ors, xor/and/not mixes, additions that must wrap at 32 bits,
 * big-endian loads, and a streaming API with buffering of partial blocks.
 *
 * Size argument: S, the amount of data hashed in KiB (default 49152 = 48
 * MiB; the data is hashed twice, with different chunkings).  Small size:
 * 384 (~0.02 s under qemu-riscv64).
 *
 * Self-check: the FIPS/NIST test vectors ("", "abc", the 448-bit and
 * 896-bit messages; and one million 'a' when S >= 1024); the generated data
 * hashed in one stream of 4 KiB pieces must give the same digest as the
 * same data (generated again) fed in pieces of 1..257 bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sha256 {
	uint32_t h[8];
	uint8_t buf[64];
	uint64_t len; /* bytes hashed so far */
	unsigned fill; /* bytes in buf */
};

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const uint8_t *p)
{
	uint32_t w[64];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
	uint32_t e = h[4], f = h[5], g = h[6], hh = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t S1 = ror(e, 6) ^ ror(e, 11) ^ ror(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = hh + S1 + ch + K[i] + w[i];
		uint32_t S0 = ror(a, 2) ^ ror(a, 13) ^ ror(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
		uint32_t t2 = S0 + maj;
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

static void sha_init(struct sha256 *s)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372,
					0xa54ff53a, 0x510e527f, 0x9b05688c,
					0x1f83d9ab, 0x5be0cd19 };
	memcpy(s->h, iv, sizeof iv);
	s->len = 0;
	s->fill = 0;
}

static void sha_update(struct sha256 *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	s->len += n;
	if (s->fill > 0) {
		while (n > 0 && s->fill < 64) {
			s->buf[s->fill++] = *p++;
			n--;
		}
		if (s->fill < 64)
			return;
		compress(s->h, s->buf);
		s->fill = 0;
	}
	while (n >= 64) {
		compress(s->h, p);
		p += 64;
		n -= 64;
	}
	while (n > 0) {
		s->buf[s->fill++] = *p++;
		n--;
	}
}

static void sha_final(struct sha256 *s, uint8_t out[32])
{
	uint64_t bits = s->len * 8;
	uint8_t pad[72];
	size_t padlen = (s->fill < 56) ? 56 - s->fill : 120 - s->fill;
	memset(pad, 0, sizeof pad);
	pad[0] = 0x80;
	for (int i = 0; i < 8; i++)
		pad[padlen + i] = (uint8_t)(bits >> (56 - 8 * i));
	sha_update(s, pad, padlen + 8);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
}

static void to_hex(const uint8_t d[32], char out[65])
{
	static const char digits[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[64] = 0;
}

static int check_vector(const char *msg, size_t repeat, const char *want)
{
	struct sha256 s;
	uint8_t d[32];
	char hex[65];
	sha_init(&s);
	for (size_t i = 0; i < repeat; i++)
		sha_update(&s, msg, strlen(msg));
	sha_final(&s, d);
	to_hex(d, hex);
	if (strcmp(hex, want) != 0) {
		printf("FAIL: test vector (%lu x \"%.20s\"): %s\n", (unsigned long)repeat, msg, hex);
		return 0;
	}
	return 1;
}

#define CHUNK 65536
#define SEED 0x2545f491u

static uint32_t rng = SEED;

static void fill(uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		rng = rng * 1103515245u + 12345u;
		buf[i] = (uint8_t)(rng >> 16);
	}
}

int main(int argc, char **argv)
{
	long kib = 49152;
	if (argc > 1)
		kib = atol(argv[1]);
	if (kib < 1 || kib > 1024L * 1024) {
		printf("sha256: size must be 1..1048576 (KiB)\n");
		return 2;
	}

	int ok = 1;
	ok &= check_vector("", 1,
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	ok &= check_vector("abc", 1,
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ok &= check_vector("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	ok &= check_vector("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
			   "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu", 1,
		"cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	if (kib >= 1024)
		ok &= check_vector("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
				   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
				   10000,
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

	/* The data is generated in 64 KiB chunks, twice from the same seed,
	   so memory stays small whatever the size. */
	size_t total = (size_t)kib * 1024;
	uint8_t *data = malloc(CHUNK);
	if (data == NULL) {
		printf("sha256: out of memory\n");
		return 2;
	}

	struct sha256 s1, s2;
	uint8_t d1[32], d2[32];
	char hex1[65], hex2[65];

	rng = SEED;
	sha_init(&s1);
	for (size_t done = 0; done < total; done += CHUNK) {
		size_t n = total - done < CHUNK ? total - done : CHUNK;
		fill(data, n);
		for (size_t off = 0; off < n; off += 4096)
			sha_update(&s1, data + off, n - off < 4096 ? n - off : 4096);
	}
	sha_final(&s1, d1);

	rng = SEED;
	sha_init(&s2);
	size_t piece = 1;
	for (size_t done = 0; done < total; done += CHUNK) {
		size_t n = total - done < CHUNK ? total - done : CHUNK;
		fill(data, n);
		for (size_t off = 0; off < n;) {
			size_t m = piece < n - off ? piece : n - off;
			sha_update(&s2, data + off, m);
			off += m;
			piece = piece % 257 + 1;
		}
	}
	sha_final(&s2, d2);

	to_hex(d1, hex1);
	to_hex(d2, hex2);
	printf("sha256 size=%ld KiB\n", kib);
	printf("digest=%s\n", hex1);
	if (strcmp(hex1, hex2) != 0) {
		printf("FAIL: chunked digest differs: %s\n", hex2);
		ok = 0;
	}

	/* A short hash chain: digest of the digest, 1000 times. */
	uint8_t d[32];
	memcpy(d, d1, 32);
	for (int i = 0; i < 1000; i++) {
		struct sha256 s;
		sha_init(&s);
		sha_update(&s, d, 32);
		sha_final(&s, d);
	}
	to_hex(d, hex1);
	printf("chain=%s\n", hex1);

	free(data);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
