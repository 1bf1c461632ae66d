/* fpack: a small LZ77 file compressor, the guest that reads and writes
   files.

     fpack IN OUT

   Reads the file IN (openat, fstat, read into an anonymous mmap), packs
   it with LZ77 (3-byte hash, 4 KiB window) into an output buffer that
   grows with mremap, writes OUT (a 16-byte header and the packed body
   with writev, then the header's checksum patched with pwrite64),
   reopens OUT, reads it back with pread64, unpacks it and compares the
   CRC-32 of the result with the input's.  Prints the sizes and
   checksums; exits 0 when the round trip is exact, 1 when it is not and
   2 for a usage or I/O error (the message names the call and -errno).

   Packed format: "FPK1", u32 input size, u32 CRC-32 of the input, u32
   0; then tokens: a byte c < 128 is followed by c+1 literal bytes; a byte
   c >= 128 is a match of length (c-128)+3 at distance d+1, where d is the
   next two bytes, little-endian. */
#include <stdio.h>
#include <string.h>
#include "../rt/linux.h"

#define WINDOW 4096
#define MAXMATCH 130
#define HBITS 12

static unsigned crc_table[256];

static void crc_init(void)
{
	for (unsigned i = 0; i < 256; i++) {
		unsigned c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

static unsigned crc32(const unsigned char *p, long n)
{
	unsigned c = 0xffffffffu;
	for (long i = 0; i < n; i++)
		c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

static void fail(const char *what, long r)
{
	printf("error: %s: %ld\n", what, r);
	fflush(stdout);
	sys1(93, 2);
}

/* out is an anonymous mapping that grows (mremap) as the packer fills it. */
static unsigned char *out;
static long out_len, out_cap;

static void put(unsigned char c)
{
	if (out_len == out_cap) {
		long cap = out_cap * 2;
		long r = sys4(NR_mremap, out, out_cap, cap, L_MREMAP_MAYMOVE);
		if (r < 0 && r > -4096)
			fail("mremap", r);
		out = (unsigned char *)r;
		out_cap = cap;
	}
	out[out_len++] = c;
}

static void pack(const unsigned char *in, long n)
{
	static long head[1 << HBITS];
	for (int i = 0; i < (1 << HBITS); i++)
		head[i] = -1;
	long lit = 0; /* start of the pending literal run */
	long i = 0;
	while (i < n) {
		long best = 0, dist = 0;
		if (i + 3 <= n) {
			unsigned h = ((in[i] << 8) ^ (in[i + 1] << 4) ^ in[i + 2]) & ((1 << HBITS) - 1);
			long j = head[h];
			head[h] = i;
			if (j >= 0 && i - j <= WINDOW) {
				long k = 0;
				while (k < MAXMATCH && i + k < n && in[j + k] == in[i + k])
					k++;
				if (k >= 3)
					best = k, dist = i - j;
			}
		}
		if (best == 0 && i - lit < 128) {
			i++;
			continue;
		}
		while (lit < i) { /* flush literals, at most 128 at a time */
			long c = i - lit < 128 ? i - lit : 128;
			put((unsigned char)(c - 1));
			for (long k = 0; k < c; k++)
				put(in[lit + k]);
			lit += c;
		}
		if (best) {
			put((unsigned char)(128 + best - 3));
			put((unsigned char)((dist - 1) & 0xff));
			put((unsigned char)((dist - 1) >> 8));
			i += best;
			lit = i;
		}
	}
	while (lit < n) {
		long c = n - lit < 128 ? n - lit : 128;
		put((unsigned char)(c - 1));
		for (long k = 0; k < c; k++)
			put(in[lit + k]);
		lit += c;
	}
}

static long unpack(const unsigned char *p, long n, unsigned char *dst, long cap)
{
	long o = 0;
	for (long i = 0; i < n;) {
		unsigned c = p[i++];
		if (c < 128) {
			if (i + c + 1 > n || o + c + 1 > cap)
				return -1;
			memcpy(dst + o, p + i, c + 1);
			i += c + 1;
			o += c + 1;
		} else {
			if (i + 2 > n)
				return -1;
			long len = c - 128 + 3, d = (p[i] | p[i + 1] << 8) + 1;
			i += 2;
			if (d > o || o + len > cap)
				return -1;
			for (long k = 0; k < len; k++, o++)
				dst[o] = dst[o - d];
		}
	}
	return o;
}

static void *map(long n)
{
	long r = sys6(NR_mmap, 0, n ? n : 1, L_PROT_READ | L_PROT_WRITE, L_MAP_PRIVATE | L_MAP_ANONYMOUS, -1, 0);
	if (r < 0 && r > -4096)
		fail("mmap", r);
	return (void *)r;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		printf("usage: fpack IN OUT\n");
		return 2;
	}
	crc_init();
	long fd = sys4(NR_openat, L_AT_FDCWD, argv[1], L_O_RDONLY, 0);
	if (fd < 0)
		fail("openat IN", fd);
	struct l_stat st;
	long r = sys2(NR_fstat, fd, &st);
	if (r < 0)
		fail("fstat", r);
	long n = st.size;
	unsigned char *in = map(n);
	for (long got = 0; got < n; got += r) {
		r = sys3(NR_read, fd, in + got, n - got);
		if (r <= 0)
			fail("read", r);
	}
	sys1(NR_close, fd);
	unsigned crc = crc32(in, n);
	printf("%s: %ld bytes, crc32 %08x\n", "in", n, crc);

	out_cap = 4096;
	out = map(out_cap);
	pack(in, n);

	long ofd = sys4(NR_openat, L_AT_FDCWD, argv[2], L_O_WRONLY | L_O_CREAT | L_O_TRUNC, 0644);
	if (ofd < 0)
		fail("openat OUT", ofd);
	unsigned hdr[4] = { 0x314b5046, (unsigned)n, 0, 0 }; /* "FPK1" */
	struct l_iovec iov[2] = { { hdr, sizeof hdr }, { out, (unsigned long)out_len } };
	r = sys3(NR_writev, ofd, iov, 2);
	if (r != (long)sizeof hdr + out_len)
		fail("writev", r);
	r = sys4(NR_pwrite64, ofd, &crc, 4, 8);
	if (r != 4)
		fail("pwrite64", r);
	sys1(NR_close, ofd);
	printf("packed: %ld bytes\n", (long)sizeof hdr + out_len);

	/* Read the file back and unpack it. */
	fd = sys4(NR_openat, L_AT_FDCWD, argv[2], L_O_RDONLY, 0);
	if (fd < 0)
		fail("reopen OUT", fd);
	long size = sys3(NR_lseek, fd, 0, L_SEEK_END);
	unsigned char *packed = map(size);
	for (long got = 0; got < size; got += r) {
		r = sys4(NR_pread64, fd, packed + got, size - got, got);
		if (r <= 0)
			fail("pread64", r);
	}
	sys1(NR_close, fd);
	unsigned h[4];
	memcpy(h, packed, sizeof h);
	unsigned char *back = map(h[1]);
	long m = unpack(packed + 16, size - 16, back, h[1]);
	unsigned crc2 = m < 0 ? 0 : crc32(back, m);
	printf("unpacked: %ld bytes, crc32 %08x, header crc32 %08x\n", m, crc2, h[2]);
	sys2(NR_munmap, back, h[1] ? h[1] : 1);
	sys2(NR_munmap, packed, size);
	sys2(NR_munmap, out, out_cap);
	sys2(NR_munmap, in, n ? n : 1);
	if (h[0] != 0x314b5046 || m != n || crc2 != crc || h[2] != crc) {
		printf("FAIL: round trip differs\n");
		return 1;
	}
	printf("round trip ok\n");
	return 0;
}
