/* SPDX-License-Identifier: MIT */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fastio.h"
#include "sys.h"
#include "tune.h"

static const char *const strategy_names[FIO_STRATEGY_COUNT] = {
    [FIO_WRITE] = "write",
    [FIO_VMSPLICE] = "vmsplice",
    [FIO_TEE] = "tee",
    [FIO_SPLICE] = "splice",
    [FIO_COPY_FILE_RANGE] = "copy_file_range",
    [FIO_SENDFILE] = "sendfile",
    [FIO_READFILE] = "readfile",
    [FIO_PAGES] = "pages",
    [FIO_HOT] = "hot",
};

/* The library's only mutable state; fio_reset() restores it for tests. */
static unsigned disabled;

const char *
fio_strategy_name(enum fio_strategy s)
{
	if ((unsigned)s >= FIO_STRATEGY_COUNT)
		return "?";
	return strategy_names[s];
}

int
fio_enabled(enum fio_strategy s)
{
	if (s == FIO_WRITE)
		return 1;
	return (unsigned)s < FIO_STRATEGY_COUNT && !(disabled & 1u << s);
}

void
fio_reset(void)
{
	disabled = 0;
}

static int
disable_one(const char *name, size_t len)
{
	unsigned s;

	if (len == 3 && memcmp(name, "all", 3) == 0) {
		disabled = ~0u;
		return 0;
	}
	for (s = 0; s < FIO_STRATEGY_COUNT; s++)
		if (strlen(strategy_names[s]) == len &&
		    memcmp(strategy_names[s], name, len) == 0) {
			disabled |= 1u << s;
			return 0;
		}
	return -1;
}

int
fio_disable(const char *list)
{
	int rc = 0;
	size_t len;

	while (*list != '\0') {
		len = strcspn(list, ",");
		if (len > 0 && disable_one(list, len) < 0)
			rc = -1;
		list += len;
		if (*list == ',')
			list++;
	}
	if (rc < 0)
		errno = EINVAL;
	return rc;
}

int
fio_init(void)
{
	const char *list = getenv("FASTIO_DISABLE");

	return list ? fio_disable(list) : 0;
}

int
fio_vote_count(struct fio_vote *v, unsigned calls)
{
	if (v->rounds >= FIO_HOT_PROBE)
		return 0;
	v->bites += calls >= FIO_HOT_BITE;
	return ++v->rounds == FIO_HOT_PROBE && 2 * v->bites >= FIO_HOT_PROBE;
}
