/* SPDX-License-Identifier: MIT */
/*
 * --pipeline's operands, split into stages. argv lists end at a lone |
 * and run as they are. A command line (which the shell has read first:
 * pipeline.c, syntax_ok()) is split where bash would split it: at a | of
 * the top level, outside quotes, $(...), `...`, ${...}, ( ), { },
 * [[ ]], if/case/loop compounds and comments, so that each stage is a
 * command bash -c runs as bash would have run it in the pipeline. `a |&
 * b` is `a 2>&1 | b`, as bash has it; a leading `!` negates the
 * pipeline's status. What would make the line more than one pipeline
 * (&&, ||, ;, &, a newline) is refused, named, before anything runs: a
 * list's parts do not share pipes, and metering one pipeline is the
 * job. So is a here-document, whose lines would follow the pipeline's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pipebench.h"
#include "prog.h"

#define DEPTH 64

struct lex {
	const char *s, *start; /* the line; the current stage's start */
	char ctx[DEPTH];       /* the open contexts: ' " ` ( $ { [ ([[) and
				* the compounds: i (if), c (case), l (a loop) */
	int depth;
	int bare; /* nothing but blanks and comments since the stage began */
	int compound; /* the stage opened a compound at its top level */
	struct pb_pipeline *pl;
};

static int
refuse(const char *what)
{
	prog_warn(0, "--pipeline: %s", what);
	return -1;
}

static int
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Whether p begins a word: the line's start, or after a blank or an
 * operator. */
static int
word_start(const char *s, const char *p)
{
	return p == s || blank(p[-1]) || strchr(";&|()", p[-1]) != NULL;
}

/* A stage of text from..to, its blanks trimmed, and suffix after it. */
static int
add_stage(struct pb_pipeline *pl, const char *from, const char *to,
	  const char *suffix)
{
	size_t len, extra = strlen(suffix);
	char *text;

	while (from < to && blank(*from))
		from++;
	while (to > from && blank(to[-1]))
		to--;
	if (from == to)
		return refuse("a stage is empty");
	if (pl->n == PB_MAX_STAGES)
		return refuse("more than 64 stages");
	len = (size_t)(to - from);
	text = malloc(len + extra + 1);
	if (text == NULL)
		return refuse("memory exhausted");
	memcpy(text, from, len);
	memcpy(text + len, suffix, extra + 1);
	pl->stage[pl->n++].text = text;
	return 0;
}

/* Whether p is where a command starts: a compound's word counts there. */
static int
command_start(const char *s, const char *p)
{
	static const char *const words[] = {
	    "then", "do", "else", "elif", "if", "while", "until", "!", "{"};
	const char *q = p - 1, *w;
	size_t i;

	while (q >= s && (*q == ' ' || *q == '\t'))
		q--;
	if (q < s || strchr(";|&(\n", *q) != NULL)
		return 1;
	for (w = q; w > s && !blank(w[-1]) && strchr(";|&(", w[-1]) == NULL;
	     w--)
		;
	for (i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == (size_t)(q - w + 1) &&
		    strncmp(w, words[i], (size_t)(q - w + 1)) == 0)
			return 1;
	return 0;
}

/* The reserved word at p, if it opens or closes a compound: its
 * context letter, upper case for one that closes; 0 if none. */
static char
compound(const char *s, const char *p)
{
	static const struct {
		const char *word;
		char ctx;
	} words[] = {{"if", 'i'},    {"fi", 'I'},     {"case", 'c'},
		     {"esac", 'C'},  {"for", 'l'},    {"while", 'l'},
		     {"until", 'l'}, {"select", 'l'}, {"done", 'L'}};
	size_t i, n;

	if (!command_start(s, p))
		return 0;
	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		n = strlen(words[i].word);
		if (strncmp(p, words[i].word, n) == 0 &&
		    (p[n] == '\0' || blank(p[n]) || strchr(";&|()", p[n])))
			return words[i].ctx;
	}
	return 0;
}

static int
push(struct lex *l, char c)
{
	if (l->depth == DEPTH)
		return refuse("nested too deep");
	/* A subshell, a group or a compound: a shell runs the stage. */
	if (l->depth == 0 && strchr("({[icl", c) != NULL)
		l->compound = 1;
	l->ctx[l->depth++] = c;
	return 0;
}

static char
top(const struct lex *l)
{
	return l->depth > 0 ? l->ctx[l->depth - 1] : 0;
}

/*
 * At the top level, an operator: | ends a stage, |& too with its
 * standard error; the others are refused. Returns the characters it took
 * (0: not an operator), or -1.
 */
static int
operator(struct lex *l, const char *p)
{
	char prev = p > l->s ? p[-1] : 0;

	if (*p == '|' && prev == '>') /* >| : a redirection */
		return 0;
	if (*p == '&' && (prev == '>' || prev == '<' || p[1] == '>'))
		return 0; /* >&, <&, &> : redirections */
	if (*p == '|' && p[1] == '|')
		return refuse("'||' makes a list of pipelines; give one "
			      "pipeline, or the list as a stage (bash -c)");
	if (*p == '&' && p[1] == '&')
		return refuse("'&&' makes a list of pipelines; give one "
			      "pipeline, or the list as a stage (bash -c)");
	if (*p == '&')
		return refuse("'&' runs a command in the background; give "
			      "one pipeline");
	if (*p == ';')
		return refuse("';' makes a list of pipelines; give one "
			      "pipeline, or the list as a stage (bash -c)");
	if (*p == '|') {
		if (add_stage(l->pl, l->start, p, p[1] == '&' ? " 2>&1" : "") <
		    0)
			return -1;
		l->pl->stage[l->pl->n - 1].compound = l->compound;
		l->start = p + (p[1] == '&' ? 2 : 1);
		l->bare = 1;
		l->compound = 0;
		return p[1] == '&' ? 2 : 1;
	}
	if (*p == '\n') {
		/* After a | (and its comments) it goes on; elsewhere it would
		 * end the pipeline, unless nothing but blanks and comments
		 * follow. */
		const char *q;

		if (l->bare)
			return 1;
		for (q = p; *q != '\0'; q++) {
			if (*q == '#' && word_start(l->s, q))
				q += strcspn(q, "\n") - 1;
			else if (!blank(*q))
				break;
		}
		if (*q == '\0')
			return 1;
		return refuse("a newline ends the pipeline; give one "
			      "pipeline");
	}
	if (*p == '<' && p[1] == '<' && p[2] != '<' && prev != '<')
		return refuse("a here-document (<<) takes the lines after "
			      "the pipeline's; give its text as a here-string "
			      "(<<<) or a file");
	return 0;
}

/* Whether p holds the word w, at a word's start and end. */
static int
word_at(const char *s, const char *p, const char *w)
{
	size_t n = strlen(w);

	return word_start(s, p) && strncmp(p, w, n) == 0 &&
	       (p[n] == '\0' || blank(p[n]) || strchr(";&|()", p[n]) != NULL);
}

static int
parse_line(struct pb_pipeline *pl, const char *s)
{
	struct lex l = {s, s, {0}, 0, 1, 0, pl};
	const char *p;
	char c;
	int k;

	/* `! a | b`: bash negates the whole pipeline's status. */
	for (p = s; blank(*p); p++)
		;
	if (*p == '!' && blank(p[1])) {
		pl->negate = 1;
		l.start = p + 1;
	}
	for (p = l.start; *p != '\0'; p++) {
		c = top(&l);
		if (c == 0 && !blank(*p) && *p != '#')
			l.bare = 0;
		if (c == '\'') {
			if (*p == '\'')
				l.depth--;
			continue;
		}
		if (*p == '\\') {
			if (p[1] == '\0')
				return refuse("a trailing backslash");
			p++;
			continue;
		}
		if (c == '"' && *p == '"') {
			l.depth--;
			continue;
		}
		if (c == '`' && *p == '`') {
			l.depth--;
			continue;
		}
		if (*p == '$' && (p[1] == '(' || p[1] == '{')) {
			k = l.compound; /* $( ) is a word's, not a compound */
			if (push(&l, p[1] == '(' ? '(' : '$') < 0)
				return -1;
			l.compound = k;
			p++;
			continue;
		}
		if (*p == '`' || (c != '"' && (*p == '"' || *p == '\''))) {
			if (push(&l, *p) < 0)
				return -1;
			continue;
		}
		if (c == '"' || c == '`')
			continue;
		if (c == '$') {
			if (*p == '}')
				l.depth--;
			continue;
		}
		/* Outside quotes: a comment runs to the line's end. */
		if (*p == '#' && word_start(s, p)) {
			while (p[1] != '\0' && p[1] != '\n')
				p++;
			continue;
		}
		/* [[ ]]: its || and && are tests, not lists. */
		if (c == '[' && word_at(s, p, "]]")) {
			l.depth--;
			p++;
			continue;
		}
		if (c == '[')
			continue;
		if (word_at(s, p, "[[") && command_start(s, p)) {
			if (push(&l, '[') < 0)
				return -1;
			p++;
			continue;
		}
		k = word_start(s, p) ? compound(s, p) : 0;
		if (k >= 'a') {
			if (push(&l, (char)k) < 0)
				return -1;
		} else if (k != 0 && c == k - 'A' + 'a') {
			l.depth--;
		} else if (*p == '(') {
			if (push(&l, '(') < 0)
				return -1;
		} else if (*p == ')' && c == '(') {
			l.depth--;
		} else if (*p == ')' && c == 0) {
			return refuse("unbalanced parentheses");
		} else if (*p == '{' && word_start(s, p) && blank(p[1])) {
			if (push(&l, '{') < 0)
				return -1;
		} else if (*p == '}' && c == '{' && word_start(s, p)) {
			l.depth--;
		} else if (c == 0 && (k = operator(&l, p)) != 0) {
			if (k < 0)
				return -1;
			p += k - 1;
		}
	}
	if (l.depth > 0)
		return refuse(
		    top(&l) == '\'' || top(&l) == '"'
			? "unbalanced quotes"
			: "unbalanced parentheses, braces or backquotes");
	if (add_stage(pl, l.start, p, "") < 0)
		return -1;
	pl->stage[pl->n - 1].compound = l.compound;
	return 0;
}

/* The words of argv[from..to) joined by spaces, for the table. */
static char *
joined(char **argv, int from, int to)
{
	size_t len = 1, k;
	char *text, *p;
	int i;

	for (i = from; i < to; i++)
		len += strlen(argv[i]) + 1;
	text = p = malloc(len);
	if (text == NULL)
		return NULL;
	for (i = from; i < to; i++) {
		if (i > from)
			*p++ = ' ';
		k = strlen(argv[i]);
		memcpy(p, argv[i], k);
		p += k;
	}
	*p = '\0';
	return text;
}

/* argv lists, each stage ending at a lone "|": run as they are. */
static int
split_argv(struct pb_pipeline *pl, char **argv, int argc)
{
	int i, first = 0;

	for (i = 0; i <= argc; i++) {
		if (i < argc && strcmp(argv[i], "|") != 0)
			continue;
		if (i == first)
			return refuse("a stage is empty");
		if (pl->n == PB_MAX_STAGES)
			return refuse("more than 64 stages");
		pl->stage[pl->n].argv = argv + first;
		pl->stage[pl->n].text = joined(argv, first, i);
		if (pl->stage[pl->n].text == NULL)
			return refuse("memory exhausted");
		if (i < argc)
			argv[i] = NULL; /* the stage's argv ends there */
		pl->n++;
		first = i + 1;
	}
	return 0;
}

int
pb_pipeline_parse(struct pb_pipeline *pl, char **argv, int argc)
{
	int rc =
	    argc == 1 ? parse_line(pl, argv[0]) : split_argv(pl, argv, argc);

	if (rc == 0 && pl->n == 1)
		rc = refuse("a pipeline has two stages or more; for one "
			    "command, use --exec");
	return rc;
}
