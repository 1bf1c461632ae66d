/* bintree: allocate, walk and free many binary trees.
 *
 * Exercises malloc/free (picolibc's allocator and, below it, sbrk/brk),
 * pointer chasing through heap nodes, and recursion.  Like the classic
 * "binary-trees" benchmark: one long-lived tree stays allocated while
 * many short-lived trees of various depths are built, checked and freed.
 * Then the long-lived tree is turned into a linked list in place
 * (in-order), walked, and freed node by node.
 *
 * Size argument: D, the maximum tree depth (default 15; each step up
 * doubles the work and the memory, 2^(D+1) nodes for the biggest trees).
 * Small size: 9 (~0.02 s under qemu-riscv64).
 *
 * Self-check: with heap numbering (root 1, children 2k and 2k+1) a full
 * tree of depth d has M = 2^(d+1) - 1 nodes whose keys sum to M(M+1)/2;
 * every walk must give exactly these counts and sums.  The list made from
 * the long-lived tree must hold the keys in in-order sequence, which is
 * checked against an independent computation of the in-order successor.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct node {
	struct node *left, *right;
	uint64_t key;
};

static struct node *new_node(uint64_t key)
{
	struct node *p = malloc(sizeof *p);
	if (p == NULL) {
		printf("bintree: out of memory\n");
		exit(2);
	}
	p->left = p->right = NULL;
	p->key = key;
	return p;
}

static struct node *build(int depth, uint64_t key)
{
	struct node *p = new_node(key);
	if (depth > 0) {
		p->left = build(depth - 1, 2 * key);
		p->right = build(depth - 1, 2 * key + 1);
	}
	return p;
}

/* Returns the node count and adds the keys to *sum. */
static uint64_t walk(const struct node *p, uint64_t *sum)
{
	uint64_t count = 0;
	while (p != NULL) { /* recurse left, loop right */
		count++;
		*sum += p->key;
		count += walk(p->left, sum);
		p = p->right;
	}
	return count;
}

static void free_tree(struct node *p)
{
	while (p != NULL) {
		struct node *r = p->right;
		free_tree(p->left);
		free(p);
		p = r;
	}
}

/* Flatten in order: returns the head of a list linked through ->right.
   *tail receives the last node. */
static struct node *flatten(struct node *p, struct node **tail)
{
	struct node *head = p, *t = p;
	if (p->left != NULL) {
		struct node *lt;
		head = flatten(p->left, &lt);
		lt->right = p;
		p->left = NULL;
	}
	if (p->right != NULL) {
		struct node *rt;
		p->right = flatten(p->right, &rt);
		t = rt;
	}
	*tail = t;
	return head;
}

static int ok = 1;

static void expect_full(const char *what, int depth, uint64_t trees,
			uint64_t count, uint64_t sum)
{
	uint64_t m = ((uint64_t)1 << (depth + 1)) - 1;
	if (count != trees * m || sum != trees * (m * (m + 1) / 2)) {
		printf("FAIL: %s depth %d: count %llu sum %llu\n", what, depth,
		       (unsigned long long)count, (unsigned long long)sum);
		ok = 0;
	}
}

/* In-order successor of key k in a full heap-numbered tree of depth d
   (keys 1 .. 2^(d+1)-1), or 0 for the last one. */
static uint64_t inorder_next(uint64_t k, int d)
{
	uint64_t last_level = (uint64_t)1 << d;
	if (k < last_level) {
		/* Has a right child: go right once, then left to the bottom. */
		k = 2 * k + 1;
		while (k < last_level)
			k = 2 * k;
		return k;
	}
	/* A leaf: climb while we are a right child, then one more step. */
	while (k & 1)
		k >>= 1;
	return k >> 1;
}

int main(int argc, char **argv)
{
	int max_depth = 15;
	if (argc > 1)
		max_depth = atoi(argv[1]);
	if (max_depth < 4 || max_depth > 24) {
		printf("bintree: size must be 4..24\n");
		return 2;
	}
	const int min_depth = 4;
	uint64_t sum, count;

	/* A stretch tree, one deeper than the rest. */
	struct node *t = build(max_depth + 1, 1);
	sum = 0;
	count = walk(t, &sum);
	printf("stretch tree of depth %d: %llu nodes\n", max_depth + 1,
	       (unsigned long long)count);
	expect_full("stretch", max_depth + 1, 1, count, sum);
	free_tree(t);

	struct node *long_lived = build(max_depth, 1);

	for (int d = min_depth; d <= max_depth; d += 2) {
		uint64_t iters = (uint64_t)1 << (max_depth - d + min_depth);
		sum = 0;
		count = 0;
		for (uint64_t i = 0; i < iters; i++) {
			t = build(d, 1);
			count += walk(t, &sum);
			free_tree(t);
		}
		printf("%llu trees of depth %d: %llu nodes, key sum %llu\n",
		       (unsigned long long)iters, d, (unsigned long long)count,
		       (unsigned long long)sum);
		expect_full("short-lived", d, iters, count, sum);
	}

	sum = 0;
	count = walk(long_lived, &sum);
	printf("long lived tree of depth %d: %llu nodes\n", max_depth,
	       (unsigned long long)count);
	expect_full("long-lived", max_depth, 1, count, sum);

	/* Tree to list, in place; walk it; free it front to back. */
	struct node *tail;
	struct node *list = flatten(long_lived, &tail);
	uint64_t want = 1;
	while (want < ((uint64_t)1 << max_depth))
		want *= 2; /* leftmost leaf */
	uint64_t n = 0, weighted = 0;
	for (struct node *p = list; p != NULL; p = p->right) {
		if (p->left != NULL || p->key != want) {
			printf("FAIL: list element %llu has key %llu, want %llu\n",
			       (unsigned long long)n, (unsigned long long)p->key,
			       (unsigned long long)want);
			ok = 0;
			break;
		}
		n++;
		weighted += n * p->key;
		want = inorder_next(p->key, max_depth);
	}
	if (ok && (want != 0 || tail->right != NULL)) {
		printf("FAIL: list ends early\n");
		ok = 0;
	}
	printf("in-order list: %llu nodes, weighted sum %llu\n",
	       (unsigned long long)n, (unsigned long long)weighted);
	while (list != NULL) {
		struct node *next = list->right;
		free(list);
		list = next;
	}

	if (!ok)
		return 1;
	printf("check ok\n");
	return 0;
}
