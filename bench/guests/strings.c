/* strings: text processing with the C string library.
 *
 * Exercises byte loads and compares, short data-dependent loops and library
 * string routines.  Text is generated in documents of up to 20000 words
 * (strcat/strlen/memcpy appends, sprintf for numbers); each document is
 * searched with strstr and strchr, tokenized, counted in a chained hash
 * table of words (strcmp on collisions, malloc'd keys, freed after each
 * document) and merged into a global table; the distinct words are ranked
 * with qsort/strcmp and used to build new strings (strcpy/strcat/sprintf).
 *
 * Size argument: N, the total number of words (default 1500000).  Small
 * size: 4000 (~0.02 s under qemu-riscv64).
 *
 * Self-check: the tokenizer must find exactly the generated words; the
 * counts must sum to N; for every document an independent count (sort
 * the words with qsort/strcmp, count runs) must give the same number of
 * distinct words and, looked up with bsearch, the same count for every
 * word; the strstr counts must match a naive byte-by-byte search.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng = 2463534242u;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (p == NULL) {
		printf("strings: out of memory\n");
		exit(2);
	}
	return p;
}

/* ---- text generation ---- */

#define VOCAB 3000

static const char *const syllables[] = {
	"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "qua",
	"bri", "sto", "an", "el", "or", "um", "ix", "dra", "pe", "fu",
};
#define NSYL (sizeof syllables / sizeof syllables[0])

static char *vocab[VOCAB];

static void make_vocab(void)
{
	char buf[32];
	for (int i = 0; i < VOCAB; i++) {
		int nsyl = 1 + (int)(next_rand() % 4);
		buf[0] = 0;
		for (int k = 0; k < nsyl; k++)
			strcat(buf, syllables[next_rand() % NSYL]);
		if (next_rand() % 10 == 0) /* some capitalised words */
			buf[0] = (char)(buf[0] - 'a' + 'A');
		vocab[i] = xmalloc(strlen(buf) + 1);
		strcpy(vocab[i], buf);
	}
}

struct text {
	char *buf;
	size_t len, cap;
};

static void append(struct text *t, const char *s)
{
	size_t n = strlen(s);
	if (t->len + n + 1 > t->cap) {
		size_t cap = t->cap * 2 + n + 1;
		char *nb = xmalloc(cap);
		memcpy(nb, t->buf, t->len);
		free(t->buf);
		t->buf = nb;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n + 1);
	t->len += n;
}

static void make_text(struct text *t, long nwords)
{
	char num[24];
	t->cap = 1024;
	t->len = 0;
	t->buf = xmalloc(t->cap);
	t->buf[0] = 0;
	for (long i = 0; i < nwords; i++) {
		if (i % 50 == 49) {
			sprintf(num, "%u", (unsigned)(next_rand() % 100000));
			append(t, num);
		} else {
			/* Skewed choice: small indices are much more frequent. */
			uint32_t r = next_rand();
			uint32_t range = 1 + (r >> 8) % VOCAB;
			append(t, vocab[(r & 0xff) * 7919u % range]);
		}
		if (i % 12 == 11)
			append(t, (i % 120 == 119) ? ".\n" : ". ");
		else if (i % 7 == 3)
			append(t, ", ");
		else
			append(t, " ");
	}
}

/* ---- tokenizer ---- */

static int is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static char lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* Lower-cases the text in place, ends each word with a NUL (the separator
   byte after it is overwritten) and stores a pointer to each word. */
static long tokenize(char *s, char **words, long max, long *sentences,
		     long *lines)
{
	long n = 0;
	*sentences = 0;
	*lines = 0;
	while (*s) {
		while (*s && !is_word_char(*s)) {
			if (*s == '.')
				(*sentences)++;
			else if (*s == '\n')
				(*lines)++;
			s++;
		}
		if (!*s)
			break;
		char *w = s;
		while (is_word_char(*s)) {
			*s = lower(*s);
			s++;
		}
		if (n < max)
			words[n] = w;
		n++;
		if (*s) {
			/* The separator becomes the terminator; account for
			   what it was first. */
			if (*s == '.')
				(*sentences)++;
			else if (*s == '\n')
				(*lines)++;
			*s++ = 0;
		}
	}
	return n;
}

/* ---- hash table ---- */

struct entry {
	struct entry *next;
	char *word;
	long count;
};

#define NBUCKETS 4096

struct table {
	struct entry *buckets[NBUCKETS];
	long ndistinct;
};

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void count_word(struct table *t, const char *w, long times)
{
	uint32_t h = hash_str(w) & (NBUCKETS - 1);
	for (struct entry *e = t->buckets[h]; e != NULL; e = e->next)
		if (strcmp(e->word, w) == 0) {
			e->count += times;
			return;
		}
	struct entry *e = xmalloc(sizeof *e);
	e->word = xmalloc(strlen(w) + 1);
	strcpy(e->word, w);
	e->count = times;
	e->next = t->buckets[h];
	t->buckets[h] = e;
	t->ndistinct++;
}

/* Returns the entries in an array (to be freed by the caller). */
static struct entry **entries(const struct table *t, long *total)
{
	struct entry **all = xmalloc(sizeof(struct entry *) * (size_t)(t->ndistinct + 1));
	long k = 0;
	*total = 0;
	for (int b = 0; b < NBUCKETS; b++)
		for (struct entry *e = t->buckets[b]; e != NULL; e = e->next) {
			all[k++] = e;
			*total += e->count;
		}
	return all;
}

static void clear(struct table *t)
{
	for (int b = 0; b < NBUCKETS; b++) {
		struct entry *e = t->buckets[b];
		while (e != NULL) {
			struct entry *next = e->next;
			free(e->word);
			free(e);
			e = next;
		}
		t->buckets[b] = NULL;
	}
	t->ndistinct = 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a;
	const struct entry *y = *(struct entry *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->word, y->word);
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- searching ---- */

static long count_strstr(const char *text, const char *pat)
{
	long n = 0;
	for (const char *p = strstr(text, pat); p != NULL; p = strstr(p + 1, pat))
		n++;
	return n;
}

static long count_naive(const char *text, size_t len, const char *pat)
{
	size_t m = strlen(pat);
	long n = 0;
	for (size_t i = 0; i + m <= len; i++) {
		size_t k = 0;
		while (k < m && text[i + k] == pat[k])
			k++;
		n += (k == m);
	}
	return n;
}

static int ok = 1;

/* Checks a document's word table against an independent count: sort the
   words themselves, count the runs, and look every table entry up with
   bsearch.  Sorts `words` in place. */
static void check_counts(const struct table *doc, char **words, long n)
{
	qsort(words, (size_t)n, sizeof(char *), cmp_strp);
	long runs = 0;
	for (long i = 0; i < n; i++)
		if (i == 0 || strcmp(words[i - 1], words[i]) != 0)
			runs++;
	if (runs != doc->ndistinct) {
		printf("FAIL: %ld distinct words by sorting, %ld by hashing\n", runs,
		       doc->ndistinct);
		ok = 0;
		return;
	}
	for (int b = 0; b < NBUCKETS; b++)
		for (struct entry *e = doc->buckets[b]; e != NULL; e = e->next) {
			const char *w = e->word;
			char **hit = bsearch(&w, words, (size_t)n, sizeof(char *),
					     cmp_strp);
			if (hit == NULL) {
				printf("FAIL: \"%s\" not found by bsearch\n", w);
				ok = 0;
				return;
			}
			/* Extend to the whole run of equal words. */
			char **lo = hit, **hi = hit;
			while (lo > words && strcmp(lo[-1], w) == 0)
				lo--;
			while (hi + 1 < words + n && strcmp(hi[1], w) == 0)
				hi++;
			if (hi - lo + 1 != e->count) {
				printf("FAIL: \"%s\" counted %ld, sorted run %ld\n", w,
				       e->count, (long)(hi - lo + 1));
				ok = 0;
				return;
			}
		}
}

#define DOC_WORDS 20000
#define NPAT 7

int main(int argc, char **argv)
{
	long n = 1500000;
	if (argc > 1)
		n = atol(argv[1]);
	if (n < 1 || n > 100000000) {
		printf("strings: size must be 1..100000000\n");
		return 2;
	}

	static const char *const patterns[NPAT] = { "kalo", "mi ne", "Qua", ". ",
						    "7", "zeze", "orum" };
	static struct table doc, global;
	long found[NPAT] = { 0 };
	long sentences = 0, lines = 0, ndocs = 0, first_comma = -1;
	unsigned long text_bytes = 0;
	char **words = xmalloc(sizeof(char *) * DOC_WORDS);

	make_vocab();
	for (long done = 0; done < n; done += DOC_WORDS) {
		long nd = n - done < DOC_WORDS ? n - done : DOC_WORDS;
		struct text t;
		make_text(&t, nd);
		text_bytes += t.len;
		ndocs++;

		/* Search the original text (tokenizing modifies it). */
		for (int i = 0; i < NPAT; i++) {
			long c = count_strstr(t.buf, patterns[i]);
			if (c != count_naive(t.buf, t.len, patterns[i])) {
				printf("FAIL: strstr count for \"%s\"\n", patterns[i]);
				ok = 0;
			}
			found[i] += c;
		}
		if (first_comma < 0) {
			const char *comma = strchr(t.buf, ',');
			first_comma = comma ? (long)(comma - t.buf) : -1;
		}

		long s, l;
		long nw = tokenize(t.buf, words, nd, &s, &l);
		if (nw != nd) {
			printf("FAIL: tokenizer found %ld words, want %ld\n", nw, nd);
			return 1;
		}
		sentences += s;
		lines += l;
		for (long i = 0; i < nd; i++)
			count_word(&doc, words[i], 1);
		check_counts(&doc, words, nd);

		/* Merge the document's counts into the global table. */
		long total;
		struct entry **de = entries(&doc, &total);
		if (total != nd) {
			printf("FAIL: document counts sum to %ld\n", total);
			ok = 0;
		}
		for (long i = 0; i < doc.ndistinct; i++)
			count_word(&global, de[i]->word, de[i]->count);
		free(de);
		clear(&doc);
		free(t.buf);
	}

	/* Rank all distinct words. */
	long total;
	struct entry **all = entries(&global, &total);
	long ndistinct = global.ndistinct;
	qsort(all, (size_t)ndistinct, sizeof *all, cmp_entry);
	if (total != n) {
		printf("FAIL: word counts sum to %ld\n", total);
		ok = 0;
	}

	/* Build a report string of the top words: "word=count;..." and a
	   string of reversed words; hash both. */
	size_t cap = 64 * 100 + 1;
	char *report = xmalloc(cap);
	char *rev = xmalloc(cap);
	report[0] = rev[0] = 0;
	long top = ndistinct < 100 ? ndistinct : 100;
	long palindromes = 0;
	for (long i = 0; i < top; i++) {
		char item[64], r[40];
		sprintf(item, "%.30s=%ld;", all[i]->word, all[i]->count);
		strcat(report, item);
		size_t len = strlen(all[i]->word);
		if (len > 39)
			len = 39;
		for (size_t j = 0; j < len; j++)
			r[j] = all[i]->word[len - 1 - j];
		r[len] = 0;
		if (strncmp(r, all[i]->word, len) == 0)
			palindromes++;
		strcat(rev, r);
		strcat(rev, " ");
	}

	printf("strings n=%ld: %ld documents, %lu bytes, %ld sentences, %ld lines\n",
	       n, ndocs, text_bytes, sentences, lines);
	printf("distinct words: %ld, first comma at %ld\n", ndistinct, first_comma);
	printf("top:");
	for (long i = 0; i < top && i < 5; i++)
		printf(" %s(%ld)", all[i]->word, all[i]->count);
	printf("\n");
	printf("found:");
	for (int i = 0; i < NPAT; i++)
		printf(" \"%s\"=%ld", patterns[i], found[i]);
	printf("\n");
	printf("report: %lu bytes, hash %08x; reversed hash %08x; palindromes %ld\n",
	       (unsigned long)strlen(report), (unsigned)hash_str(report),
	       (unsigned)hash_str(rev), palindromes);

	free(rev);
	free(report);
	free(all);
	free(words);
	clear(&global);
	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
