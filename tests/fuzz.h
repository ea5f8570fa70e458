/* SPDX-License-Identifier: MIT */
#ifndef FUZZ_H
#define FUZZ_H

/*
 * Differential fuzz harnesses: the program's own code (compiled in from
 * src/) against a deliberately simple reference written here. Each
 * fuzz_*_one() decodes one input, runs both, and returns 0 when they
 * agree, else -1 with the first difference in why[]. libFuzzer drives
 * them through `make fuzz` (fuzz_main.c); check_fuzz replays the committed
 * corpus and a fixed pseudo-random series in `make check`.
 */

#include <stddef.h>
#include <stdint.h>

/* cat's formatting options, as the letters set them. */
struct cat_opts {
	int n, b, s, E, T, v;
};

/* scan: 8 (portable loops), 16 (the general loop), 32 (AVX2) or 0 (best). */
struct cat_run {
	struct cat_opts opt;
	int scan;
	uint64_t first_line; /* the number -n gives the first line */
	size_t out_cap;	     /* cat's output buffer, > CATFMT_SLACK */
	uint64_t seed;	     /* cuts the input into reads and files */
};

/*
 * in[0..len) formatted by cat's engine (cut into reads as r->seed
 * decides) and by the reference; both malloc()ed, length in *out_len.
 */
char *fuzz_cat_engine(const struct cat_run *r, const unsigned char *in,
		      size_t len, size_t *out_len);
char *fuzz_cat_reference(const struct cat_run *r, const unsigned char *in,
			 size_t len, size_t *out_len);
/* Both of the above; 0 if they agree, else -1 and why[] says where. */
int fuzz_cat_run(const struct cat_run *r, const unsigned char *in, size_t len,
		 char *why, size_t why_size);
int fuzz_cat_one(const uint8_t *data, size_t size, char *why, size_t why_size);
int fuzz_expect_one(const uint8_t *data, size_t size, char *why,
		    size_t why_size);

/* splitmix64: cheap, and any seed (0 too) gives a good stream. */
static inline uint64_t
fuzz_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* A chunk length in [1, left]: mostly small, sometimes around 64-byte
 * blocks, sometimes everything left. */
static inline size_t
fuzz_chunk(uint64_t *s, size_t left)
{
	uint64_t r = fuzz_rand(s);
	size_t n;

	switch (r & 7) {
	case 0:
	case 1:
		n = 1 + (r >> 8) % 8;
		break;
	case 2:
	case 3:
		n = 1 + (r >> 8) % 200;
		break;
	case 4:
		n = 64 * (1 + (r >> 8) % 8) + (r >> 20) % 3 - 1;
		break;
	case 5:
		n = 1 + (r >> 8) % 5000;
		break;
	default:
		n = left;
	}
	return n < left ? n : left;
}

#endif
