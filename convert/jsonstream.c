/* SPDX-License-Identifier: MIT */
/*
 * One pass over the bytes (see jsonstream.h). Each byte goes to the
 * document's tokener, to the current element's tokener, or nowhere (the
 * white space and commas between elements: the document sees "[]"); bytes
 * bound for the same place go in one call.
 */
#include "jsonstream.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 65536
#define KEY_MAX 32              /* bytes of a root key kept to compare */

enum route { TO_DOC, TO_ELEM, NOWHERE };

/* Where the scanner is in the streamed array. */
enum array_at { A_FIRST, A_AFTER, A_COMMA };

struct js {
	const struct jsonstream_ops *ops;
	struct json_tokener *doc, *elem;
	struct json_object *root;
	struct jsonstream_error *e;
	int depth;              /* of the next byte */
	bool in_string, escape;
	char key[KEY_MAX];      /* a string of the root object being read */
	size_t keylen;          /* KEY_MAX + 1: longer, no key of ours */
	bool key_string;        /* the string being read is at depth 1 */
	bool key_ended;         /* such a string just ended: a key if ':' comes */
	bool want_array;        /* after OPS->key's ':' */
	int array_depth;        /* inside the array: its elements' depth; else 0 */
	enum array_at at;
	bool in_elem;
	size_t nelems;
	size_t doc_values;      /* '{', '[' and ',' outside strings: of the document */
	size_t elem_values;     /* ... of the current element */
	size_t doc_bytes;       /* bytes of the document (the array's elements not) */
	size_t elem_bytes;      /* ... of the current element */
	size_t string_bytes;    /* of the string being read, its quotes not */
	size_t line;            /* of the next byte */
	bool ended;             /* the document's last bracket was read */
	int rc;                 /* 0 while reading */
};

static int refuse(struct js *s, size_t line, const char *what)
{
	s->e->line = line;
	snprintf(s->e->what, sizeof(s->e->what), "%s", what);
	s->rc = -1;
	return -1;
}

/* Feeds N bytes at P (from line LINE) to the document's or the element's
 * tokener; an element completed is handed over (LAST: these bytes end it).
 * Returns 0 or s->rc. */
static int feed(struct js *s, enum route to, const char *p, size_t n, size_t line, bool last)
{
	struct json_tokener *tok = to == TO_DOC ? s->doc : s->elem;
	struct json_object *o;
	enum json_tokener_error err;

	if (to == NOWHERE || !n || !tok)
		return 0;
	o = json_tokener_parse_ex(tok, p, (int)n);
	err = json_tokener_get_error(tok);
	if (!o && err != json_tokener_continue) {
		size_t end = json_tokener_get_parse_end(tok);

		for (size_t i = 0; i < end && i < n; i++)
			line += p[i] == '\n';
		return refuse(s, line, json_tokener_error_desc(err));
	}
	if (!o && last)
		return refuse(s, line, "an element that does not end where its brackets do");
	if (!o)
		return 0;
	if (to == TO_DOC) {
		s->root = o;
		return 0;
	}
	json_tokener_reset(s->elem);
	if (s->ops->elem)
		s->rc = s->ops->elem(s->ops->arg, o, s->nelems);
	json_object_put(o);
	return s->rc;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Between two elements of the array (depth array_depth, not in one): where
 * byte C goes, or -1 after refusing it. */
static int between(struct js *s, char c)
{
	char what[48];

	if (is_space(c))
		return NOWHERE;
	if (c == ',' && s->at == A_AFTER) {
		s->at = A_COMMA;
		return NOWHERE;
	}
	if (c == '{' && s->at != A_AFTER) {
		s->in_elem = true;
		s->depth++;
		return TO_ELEM;
	}
	if (c == ']' && s->at != A_COMMA) {
		s->array_depth = 0;
		s->depth--;
		return TO_DOC;
	}
	snprintf(what, sizeof(what), "'%c' at %s[%zu] (an object expected)", c, s->ops->key,
		 s->nelems);
	return refuse(s, s->line, what);
}

/* Updates the string state for byte C of a string (its bytes as written,
 * escapes too, counted). */
static void string_byte(struct js *s, char c)
{
	if (s->escape) {
		s->escape = false;
	} else if (c == '\\') {
		s->escape = true;
	} else if (c == '"') {
		s->in_string = false;
		s->key_ended = s->key_string;
		return;
	}
	s->string_bytes++;
	if (s->key_string && s->keylen < KEY_MAX)
		s->key[s->keylen] = c;
	if (s->key_string && s->keylen <= KEY_MAX)
		s->keylen++;
}

/* Outside strings and elements: the document's byte C. */
static void doc_byte(struct js *s, char c)
{
	bool key_ended = s->key_ended;

	if (is_space(c))
		return;
	s->key_ended = false;
	if (c == '"') {
		s->in_string = true;
		s->string_bytes = 0;
		s->key_string = s->depth == 1;
		s->keylen = 0;
	} else if (c == ':') {
		s->want_array = key_ended && s->depth == 1 && s->keylen == strlen(s->ops->key) &&
				!memcmp(s->key, s->ops->key, s->keylen);
		return;
	} else if (c == '{' || c == '[') {
		if (c == '[' && s->want_array) {
			s->array_depth = s->depth + 1;
			s->at = A_FIRST;
		}
		s->depth++;
	} else if (c == '}' || c == ']') {
		s->ended = --s->depth == 0;
	}
	s->want_array = false;
}

/* Refuses "WHAT outside "KEY"" (DOC) or "WHAT in KEY[N]" (the element
 * being read). Returns -1. */
static int refuse_in(struct js *s, bool doc, const char *what)
{
	char text[sizeof(s->e->what)];

	if (doc)
		snprintf(text, sizeof(text), "%s outside \"%s\"", what, s->ops->key);
	else
		snprintf(text, sizeof(text), "%s in %s[%zu]", what, s->ops->key, s->nelems);
	return refuse(s, s->line, text);
}

/* Counts byte C (outside strings) of the document (DOC) or of an element
 * towards its bound of values (jsonstream.h). Returns 0 or s->rc. */
static int count_value(struct js *s, char c, bool doc)
{
	size_t *n = doc ? &s->doc_values : &s->elem_values;
	char what[48];

	if ((c != ',' && c != '{' && c != '[') || ++*n <= JSONSTREAM_VALUES_MAX)
		return 0;
	snprintf(what, sizeof(what), "more than %d values", JSONSTREAM_VALUES_MAX);
	return refuse_in(s, doc, what);
}

/* Counts a byte going TO the document's or the element's tokener, and one
 * of the string being read, towards their bounds in bytes (jsonstream.h).
 * Returns 0 or s->rc. */
static int count_bytes(struct js *s, enum route to)
{
	size_t *n = to == TO_DOC ? &s->doc_bytes : &s->elem_bytes;
	char what[64];

	if (to == NOWHERE)
		return 0;
	if (s->in_string && s->string_bytes > JSONSTREAM_STRING_MAX) {
		snprintf(what, sizeof(what), "a string longer than %d bytes",
			 JSONSTREAM_STRING_MAX);
		return refuse_in(s, to == TO_DOC, what);
	}
	if (++*n <= JSONSTREAM_PART_MAX)
		return 0;
	snprintf(what, sizeof(what), "more than %d bytes", JSONSTREAM_PART_MAX);
	return refuse_in(s, to == TO_DOC, what);
}

/* Scans N bytes at P. Returns 0 or s->rc. */
static int scan(struct js *s, const char *p, size_t n)
{
	size_t from = 0, from_line = s->line;
	enum route cur = NOWHERE;

	for (size_t i = 0; i < n; i++) {
		char c = p[i];
		enum route to;

		if (s->ended) {
			if (!is_space(c))
				return refuse(s, s->line, "text after the document");
			to = NOWHERE;
		} else if (s->in_string) {
			string_byte(s, c);
			to = s->in_elem ? TO_ELEM : TO_DOC;
		} else if (s->in_elem) {
			to = TO_ELEM;
			if (count_value(s, c, false))
				return s->rc;
			if (c == '"') {
				s->in_string = true;
				s->string_bytes = 0;
				s->key_string = false;
			} else if (c == '{' || c == '[') {
				s->depth++;
			} else if ((c == '}' || c == ']') && --s->depth == s->array_depth) {
				s->in_elem = false;
				s->at = A_AFTER;
				/* this byte ends the element: hand it over now */
				if (cur != TO_ELEM) {
					if (feed(s, cur, p + from, i - from, from_line, false))
						return s->rc;
					from = i;
					from_line = s->line;
				}
				if (feed(s, TO_ELEM, p + from, i + 1 - from, from_line, true))
					return s->rc;
				s->nelems++;
				from = i + 1;
				from_line = s->line;
				cur = NOWHERE;
				continue;
			}
		} else if (s->array_depth && s->depth == s->array_depth) {
			int r = between(s, c);

			if (r < 0)
				return s->rc;
			to = (enum route)r;
			s->elem_values = s->in_elem;	/* an element's '{' */
			s->elem_bytes = 0;
		} else {
			if (count_value(s, c, true))
				return s->rc;
			doc_byte(s, c);
			to = TO_DOC;
		}
		if (count_bytes(s, to))
			return s->rc;
		if (to != cur) {
			if (feed(s, cur, p + from, i - from, from_line, false))
				return s->rc;
			from = i;
			from_line = s->line;
			cur = to;
		}
		s->line += c == '\n';
	}
	return feed(s, cur, p + from, n - from, from_line, false);
}

int jsonstream_read(int fd, size_t max, const struct jsonstream_ops *ops,
		    struct json_object **doc, size_t *nelems, struct jsonstream_error *e)
{
	struct js s = { .ops = ops, .e = e, .line = 1 };
	char buf[CHUNK];
	uint64_t off = 0;
	int rc = 0;

	if (doc)
		*doc = NULL;
	if (nelems)
		*nelems = 0;
	memset(e, 0, sizeof(*e));
	s.doc = ops->doc ? json_tokener_new() : NULL;
	s.elem = ops->elem ? json_tokener_new() : NULL;
	if ((ops->doc && !s.doc) || (ops->elem && !s.elem)) {
		errno = ENOMEM;
		rc = -2;
		goto out;
	}
	for (;;) {
		ssize_t r = pread(fd, buf, sizeof(buf), (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = -2;
			goto out;
		}
		if (r == 0)
			break;
		if (off + (uint64_t)r > max) {
			char what[64];

			snprintf(what, sizeof(what), "more than %zu MiB", max >> 20);
			rc = refuse(&s, s.line, what);
			goto out;
		}
		off += (uint64_t)r;
		rc = scan(&s, buf, (size_t)r);
		if (rc)
			goto out;
	}
	if (!s.ended || (ops->doc && !s.root)) {
		rc = refuse(&s, s.line, "the end of the file (cut short?)");
		goto out;
	}
	if (nelems)
		*nelems = s.nelems;
	if (doc) {
		*doc = s.root;
		s.root = NULL;
	}
out:
	json_object_put(s.root);
	if (s.doc)
		json_tokener_free(s.doc);
	if (s.elem)
		json_tokener_free(s.elem);
	return rc;
}
