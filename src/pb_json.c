/* SPDX-License-Identifier: MIT */
/*
 * The one JSON writer of pipebench: a line written as it goes, commas
 * and quoting done here and nowhere else.
 */
#include "config.h"

#include "pipebench.h"

static void
text(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

void
pb_json_open(struct pb_json *j, FILE *f)
{
	j->f = f;
	j->first = 1;
	fputc('{', f);
}

/* A comma unless first, then "key": (nothing for an array's element). */
void
pb_json_key(struct pb_json *j, const char *key)
{
	if (!j->first)
		fputc(',', j->f);
	j->first = 0;
	if (key != NULL) {
		text(j->f, key);
		fputc(':', j->f);
	}
}

void
pb_json_string(struct pb_json *j, const char *key, const char *s)
{
	pb_json_key(j, key);
	text(j->f, s);
}

void
pb_json_u64(struct pb_json *j, const char *key, uint64_t v)
{
	pb_json_key(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void
pb_json_real(struct pb_json *j, const char *key, double v, int decimals)
{
	pb_json_key(j, key);
	fprintf(j->f, "%.*f", decimals, v);
}

void
pb_json_bool(struct pb_json *j, const char *key, int v)
{
	pb_json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

/* Open an object ('{') or array ('['), as a member or an element. */
void
pb_json_begin(struct pb_json *j, const char *key, char bracket)
{
	pb_json_key(j, key);
	fputc(bracket, j->f);
	j->first = 1;
}

void
pb_json_end(struct pb_json *j, char bracket)
{
	fputc(bracket, j->f);
	j->first = 0;
}

void
pb_json_close(struct pb_json *j)
{
	fputs("}\n", j->f);
}
