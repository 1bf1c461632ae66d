/* crc32: CRC-32 (IEEE 802.3, as in zlib/PNG) over generated data.
 *
 * Exercises byte-oriented bit twiddling: table lookups indexed by
 * (crc ^ byte) & 0xff, shifts and xors; a slicing-by-8 variant with eight
 * tables and 64-bit loads; a bit-at-a-time variant with data-dependent
 * branches; and the xorshift generator that produces the data.
 *
 * Size argument: S, the amount of data in KiB (default 196608 = 192 MiB;
 * generated in 64 KiB chunks, so memory stays small).  Small size: 1024
 * (~0.02 s under qemu-riscv64).
 *
 * Self-check: the byte-table CRC and the slicing-by-8 CRC of the whole data
 * must agree; the bitwise CRC of the first chunk must agree with the table
 * CRC of that chunk; and the check values CRC-32("123456789") = cbf43926
 * and CRC-32C("123456789") = e3069283 are verified (the latter with a
 * bitwise Castagnoli CRC).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLY 0xedb88320u  /* CRC-32, reflected */
#define POLYC 0x82f63b78u /* CRC-32C (Castagnoli), reflected */
#define CHUNK 65536

static uint32_t table[8][256];

static void make_tables(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ POLY : c >> 1;
		table[0][i] = c;
	}
	for (int t = 1; t < 8; t++)
		for (int i = 0; i < 256; i++)
			table[t][i] = (table[t - 1][i] >> 8) ^
				      table[0][table[t - 1][i] & 0xff];
}

/* All three take and return the CRC register (pre/post inversion done by
   the caller), so they can be chained over chunks. */
static uint32_t crc_bytewise(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--)
		crc = (crc >> 8) ^ table[0][(crc ^ *p++) & 0xff];
	return crc;
}

static uint32_t crc_slice8(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n >= 8) {
		/* Assemble little-endian words byte by byte: portable and
		   independent of the alignment of p. */
		uint32_t lo = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
			      (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 |
			      (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		lo ^= crc;
		crc = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^
		      table[5][(lo >> 16) & 0xff] ^ table[4][lo >> 24] ^
		      table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
		      table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
		p += 8;
		n -= 8;
	}
	return crc_bytewise(crc, p, n);
}

static uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t n,
			    uint32_t poly)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++) {
			if (crc & 1)
				crc = (crc >> 1) ^ poly;
			else
				crc >>= 1;
		}
	}
	return crc;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static void fill(uint8_t *buf, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		rng ^= rng << 13;
		rng ^= rng >> 7;
		rng ^= rng << 17;
		uint64_t v = rng;
		for (int k = 0; k < 8 && i + k < n; k++) {
			/* Skew the distribution a little: runs of zeros too. */
			buf[i + k] = (v & 0x700) == 0 ? 0 : (uint8_t)v;
			v >>= 8;
		}
	}
}

int main(int argc, char **argv)
{
	long kib = 196608;
	if (argc > 1)
		kib = atol(argv[1]);
	if (kib < 1 || kib > 16L * 1024 * 1024) {
		printf("crc32: size must be 1..16777216 (KiB)\n");
		return 2;
	}

	make_tables();
	int ok = 1;

	const char *check = "123456789";
	uint32_t c1 = ~crc_bytewise(~0u, (const uint8_t *)check, 9);
	uint32_t c2 = ~crc_slice8(~0u, (const uint8_t *)check, 9);
	uint32_t c3 = ~crc_bitwise(~0u, (const uint8_t *)check, 9, POLYC);
	if (c1 != 0xcbf43926u || c2 != 0xcbf43926u || c3 != 0xe3069283u) {
		printf("FAIL: check values %08x %08x %08x\n", (unsigned)c1,
		       (unsigned)c2, (unsigned)c3);
		ok = 0;
	}

	uint8_t *buf = malloc(CHUNK);
	if (buf == NULL) {
		printf("crc32: out of memory\n");
		return 2;
	}
	uint64_t total = (uint64_t)kib * 1024;
	uint32_t ca = ~0u, cb = ~0u;
	uint32_t chunk_crc_xor = 0;
	uint64_t done = 0;
	int first = 1;
	while (done < total) {
		/* Odd-sized chunks: the slicing loop sees every tail length. */
		size_t n = CHUNK - (size_t)(done / CHUNK % 7);
		if (n > total - done)
			n = (size_t)(total - done);
		fill(buf, n);
		ca = crc_bytewise(ca, buf, n);
		cb = crc_slice8(cb, buf, n);
		uint32_t whole = ~crc_slice8(~0u, buf, n);
		chunk_crc_xor ^= whole;
		if (first) {
			uint32_t bw = ~crc_bitwise(~0u, buf, n, POLY);
			if (bw != whole) {
				printf("FAIL: bitwise crc of first chunk %08x != %08x\n",
				       (unsigned)bw, (unsigned)whole);
				ok = 0;
			}
			first = 0;
		}
		done += n;
	}
	ca = ~ca;
	cb = ~cb;

	printf("crc32 size=%ld KiB\n", kib);
	printf("crc=%08x chunks_xor=%08x\n", (unsigned)ca, (unsigned)chunk_crc_xor);
	if (ca != cb) {
		printf("FAIL: bytewise %08x != slicing-by-8 %08x\n", (unsigned)ca,
		       (unsigned)cb);
		ok = 0;
	}
	free(buf);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
