/* listproc: linked-list processing, in the manner of the list kernel of
 * embedded CPU benchmarks.
 *
 * Exercises pointer chasing over a small linked list of records that
 * lives in a static pool (no malloc): finds by key and by value, list
 * reversal, removal and reinsertion of a record at another position, and
 * a bottom-up merge sort of the list through a comparator pointer (an
 * indirect call per comparison) by one of three orders in turn (value,
 * key, a key computed from both), with a CRC-16 of what each step found.
 * The list has 200 records with keys from 0 to 63 (so many are equal and
 * the sort's stability matters) and 16-bit values, some of which change
 * each iteration.
 *
 * Size argument: N, the number of iterations (default 12000).  Small
 * size: 60 (~0.02 s under qemu-riscv64).
 *
 * Self-check: every step is done again on a plain array copy of the
 * records (index scans, an array reversal, memmove, and for the sort a
 * stable LSD radix sort on the order's key), with a bitwise CRC-16 where
 * the list uses a table; the CRCs and the final order must agree, and both CRC-16
 * implementations must give the standard check value (CRC-16/CCITT-FALSE
 * of "123456789" is 29b1).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODES 200
#define KEYS 64
#define FINDS 4

struct node {
	struct node *next;
	uint16_t key;
	uint16_t value;
	uint16_t id;
};

static struct node pool[NODES];

typedef int (*node_cmp)(const struct node *, const struct node *);

static int mixed(unsigned key, unsigned value)
{
	return (int)(((value * 31u) ^ (key << 9) ^ (value >> 5)) & 0x3fff);
}

static int by_value(const struct node *a, const struct node *b)
{
	return (int)a->value - (int)b->value;
}

static int by_key(const struct node *a, const struct node *b)
{
	return (int)a->key - (int)b->key;
}

static int by_mixed(const struct node *a, const struct node *b)
{
	return mixed(a->key, a->value) - mixed(b->key, b->value);
}

/* ---- CRC-16/CCITT-FALSE (polynomial 1021, initial ffff, MSB first) ---- */

static uint16_t crc_table[256];

static void make_crc_table(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint16_t c = (uint16_t)(i << 8);
		for (int k = 0; k < 8; k++)
			c = c & 0x8000 ? (uint16_t)(c << 1 ^ 0x1021) : (uint16_t)(c << 1);
		crc_table[i] = c;
	}
}

static uint16_t crc_byte(uint16_t crc, unsigned b)
{
	return (uint16_t)(crc << 8 ^ crc_table[(crc >> 8 ^ b) & 255]);
}

/* The same, a bit at a time. */
static uint16_t crc_byte_bits(uint16_t crc, unsigned b)
{
	for (int k = 7; k >= 0; k--) {
		unsigned bit = ((crc >> 15) ^ (b >> k)) & 1;
		crc = (uint16_t)(crc << 1);
		if (bit)
			crc ^= 0x1021;
	}
	return crc;
}

/* A 16-bit word into the CRC, high byte first. */
static uint16_t crc_word(uint16_t crc, unsigned w)
{
	return crc_byte(crc_byte(crc, w >> 8 & 255), w & 255);
}

static uint16_t crc_word_bits(uint16_t crc, unsigned w)
{
	return crc_byte_bits(crc_byte_bits(crc, w >> 8 & 255), w & 255);
}

/* ---- the list ---- */

/* Position of the first record with the key, or -1. */
static int find_key(const struct node *l, unsigned key)
{
	for (int pos = 0; l; l = l->next, pos++)
		if (l->key == key)
			return pos;
	return -1;
}

/* The first record with the value, or NULL. */
static struct node *find_value(struct node *l, unsigned value)
{
	while (l && l->value != value)
		l = l->next;
	return l;
}

static struct node *reverse(struct node *l)
{
	struct node *r = NULL;
	while (l) {
		struct node *next = l->next;
		l->next = r;
		r = l;
		l = next;
	}
	return r;
}

/* Unlinks the record at position pos (which exists) and returns it. */
static struct node *remove_at(struct node **head, int pos)
{
	struct node **p = head;
	while (pos-- > 0)
		p = &(*p)->next;
	struct node *n = *p;
	*p = n->next;
	n->next = NULL;
	return n;
}

/* Links n in at position pos (0 .. length). */
static void insert_at(struct node **head, struct node *n, int pos)
{
	struct node **p = head;
	while (pos-- > 0)
		p = &(*p)->next;
	n->next = *p;
	*p = n;
}

/* Bottom-up merge sort, stable: merges neighbouring sorted runs of width
 * 1, 2, 4, ... until one run is left. */
static struct node *sort_list(struct node *l, node_cmp cmp)
{
	for (int width = 1;; width *= 2) {
		struct node *rest = l, *head = NULL, **tail = &head;
		int merges = 0;
		while (rest) {
			struct node *a = rest, *b = rest;
			int na = 0, nb = width;
			while (na < width && b) {
				b = b->next;
				na++;
			}
			merges++;
			while (na > 0 || (nb > 0 && b)) {
				struct node *take;
				if (na == 0 || (nb > 0 && b && cmp(b, a) < 0)) {
					take = b;
					b = b->next;
					nb--;
				} else {
					take = a;
					a = a->next;
					na--;
				}
				*tail = take;
				tail = &take->next;
			}
			rest = b;
		}
		*tail = NULL;
		l = head;
		if (merges <= 1)
			return l;
	}
}

/* ---- the array copy ---- */

struct rec {
	uint16_t key, value, id;
};

static struct rec arr[NODES], tmp[NODES];

/* The sort key of a record in each order: below 1 << 14. */
static unsigned arr_key(int order, const struct rec *r)
{
	switch (order) {
	case 0: return r->value;
	case 1: return r->key;
	default: return (unsigned)mixed(r->key, r->value);
	}
}

/* Stable LSD radix sort of arr by the order's key, 7 bits at a time,
 * through tmp. */
static void arr_sort(int order)
{
	for (int shift = 0; shift < 14; shift += 7) {
		int start[129] = {0};
		for (int i = 0; i < NODES; i++)
			start[(arr_key(order, &arr[i]) >> shift & 127) + 1]++;
		for (int d = 0; d < 128; d++)
			start[d + 1] += start[d];
		for (int i = 0; i < NODES; i++)
			tmp[start[arr_key(order, &arr[i]) >> shift & 127]++] = arr[i];
		memcpy(arr, tmp, sizeof arr);
	}
}

/* ---- the iterations ---- */

/* What iteration it looks for and changes, the same on both sides. */
static unsigned key_of(long it, int q) { return (unsigned)((it * 7 + q * 37) % KEYS); }
static unsigned value_of(long it, int q) { return (unsigned)((it * 2654435761u + (unsigned)q * 40503u) >> 7) & 0x3ff; }
static int remove_pos(long it) { return (int)((it * 13) % NODES); }
static int insert_pos(long it) { return (int)((it * 29 + 5) % NODES); }
static unsigned new_value(unsigned v, long it) { return (v * 75u + (unsigned)it) & 0x3ff; }

static const node_cmp orders[3] = {by_value, by_key, by_mixed};

static uint16_t run_list(long iters, struct node **headp)
{
	struct node *head = NULL;
	for (int i = NODES - 1; i >= 0; i--) {
		pool[i].id = (uint16_t)i;
		pool[i].key = (uint16_t)((i * 7919u) % KEYS);
		pool[i].value = (uint16_t)((i * 40503u) >> 3 & 0x3ff);
		pool[i].next = head;
		head = &pool[i];
	}
	uint16_t crc = 0xffff;
	for (long it = 0; it < iters; it++) {
		for (int q = 0; q < FINDS; q++) {
			crc = crc_word(crc, (unsigned)find_key(head, key_of(it, q)) & 0xffff);
			struct node *n = find_value(head, value_of(it, q));
			crc = crc_word(crc, n ? n->id : 0xffff);
		}
		head = reverse(head);
		struct node *n = remove_at(&head, remove_pos(it));
		n->value = (uint16_t)new_value(n->value, it);
		insert_at(&head, n, insert_pos(it));
		head = sort_list(head, orders[it % 3]);
		/* the first records after the sort */
		n = head;
		for (int k = 0; k < 4; k++, n = n->next)
			crc = crc_word(crc, n->id);
	}
	*headp = head;
	return crc;
}

static uint16_t run_array(long iters)
{
	for (int i = 0; i < NODES; i++) {
		arr[i].id = (uint16_t)i;
		arr[i].key = (uint16_t)((i * 7919u) % KEYS);
		arr[i].value = (uint16_t)((i * 40503u) >> 3 & 0x3ff);
	}
	uint16_t crc = 0xffff;
	for (long it = 0; it < iters; it++) {
		for (int q = 0; q < FINDS; q++) {
			int pos = -1;
			for (int i = 0; i < NODES && pos < 0; i++)
				if (arr[i].key == key_of(it, q))
					pos = i;
			crc = crc_word_bits(crc, (unsigned)pos & 0xffff);
			unsigned id = 0xffff;
			for (int i = 0; i < NODES && id == 0xffff; i++)
				if (arr[i].value == value_of(it, q))
					id = arr[i].id;
			crc = crc_word_bits(crc, id);
		}
		for (int i = 0, j = NODES - 1; i < j; i++, j--) {
			struct rec t = arr[i];
			arr[i] = arr[j];
			arr[j] = t;
		}
		int from = remove_pos(it), to = insert_pos(it);
		struct rec r = arr[from];
		memmove(&arr[from], &arr[from + 1], (size_t)(NODES - 1 - from) * sizeof r);
		r.value = (uint16_t)new_value(r.value, it);
		memmove(&arr[to + 1], &arr[to], (size_t)(NODES - 1 - to) * sizeof r);
		arr[to] = r;
		arr_sort((int)(it % 3));
		for (int k = 0; k < 4; k++)
			crc = crc_word_bits(crc, arr[k].id);
	}
	return crc;
}

int main(int argc, char **argv)
{
	long iters = 12000;
	if (argc > 1)
		iters = atol(argv[1]);
	if (iters < 1 || iters > 100000000) {
		printf("listproc: size must be 1..100000000\n");
		return 2;
	}
	make_crc_table();
	int ok = 1;
	uint16_t check = 0xffff, check_bits = 0xffff;
	for (const char *s = "123456789"; *s; s++) {
		check = crc_byte(check, (uint8_t)*s);
		check_bits = crc_byte_bits(check_bits, (uint8_t)*s);
	}
	if (check != 0x29b1 || check_bits != 0x29b1) {
		printf("FAIL: CRC-16 of \"123456789\": table %04x, bitwise %04x, want 29b1\n", (unsigned)check,
		       (unsigned)check_bits);
		ok = 0;
	}

	struct node *head;
	uint16_t crc = run_list(iters, &head);
	uint16_t want = run_array(iters);
	uint32_t sum = 0;
	int pos = 0;
	for (struct node *n = head; n; n = n->next, pos++) {
		if (pos >= NODES || n->id != arr[pos].id || n->key != arr[pos].key || n->value != arr[pos].value) {
			printf("FAIL: list and array differ at position %d\n", pos);
			ok = 0;
			break;
		}
		sum = sum * 31 + n->value;
	}
	printf("listproc: %d records, %ld iterations\n", NODES, iters);
	printf("crc %04x, first record %u (key %u, value %u), values hash %08x\n", (unsigned)crc, (unsigned)head->id,
	       (unsigned)head->key, (unsigned)head->value, (unsigned)sum);
	if (crc != want) {
		printf("FAIL: the array copy gives crc %04x\n", (unsigned)want);
		ok = 0;
	}
	if (pos != NODES && ok) {
		printf("FAIL: the list has %d records\n", pos);
		ok = 0;
	}
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
