/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer's entry for one harness, named by -DFUZZ_ONE=fuzz_*_one
 * (make fuzz): a difference from the reference is a crash, so libFuzzer
 * keeps the input and the build fails.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[1024];

	if (FUZZ_ONE(data, size, why, sizeof why) < 0) {
		fprintf(stderr, "%s\n", why);
		abort();
	}
	return 0;
}
