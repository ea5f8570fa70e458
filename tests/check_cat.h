/* SPDX-License-Identifier: MIT */
#ifndef CHECK_CAT_H
#define CHECK_CAT_H

/*
 * What the cat suites (check_cat, check_cat_files) share. The golden
 * files (cat_golden.c): the small and the big inputs (NULL-ended), a path
 * of tests/golden/DIR/NAME (malloc'd), and a list's inputs concatenated
 * (malloc'd, *len bytes): what cat reads from a stream.
 */
#include <stddef.h>

extern const char *const small_inputs[], *const big_inputs[];
char *golden_path(const char *dir, const char *name);
char *golden_joined(const char *const *names, size_t *len);

/*
 * Each strategy forced in turn, and each formatting scanner; the writer's
 * thread (fastio.h) from the first byte with the default scanner.
 */
static const char *const forced[][3] = {
    {NULL, NULL, NULL},
    {"FASTIO_DISABLE=oneread", "FASTIO_FORCE=thread", NULL},
    {"FASTIO_DISABLE=oneread,copy_file_range,splice,sendfile",
     "FASTIO_CAT_SCAN=8", NULL},
    {"FASTIO_DISABLE=all", "FASTIO_CAT_SCAN=16", NULL},
};
#define NFORCED (int)(sizeof forced / sizeof forced[0])

#endif
