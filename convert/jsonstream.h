/* SPDX-License-Identifier: MIT */
/*
 * jsonstream: a JSON document read from a file in pieces of 64 KiB, parsed
 * by json-c's tokener, with one top-level array (a record.json's "hits")
 * handed over an element at a time: the document's tree holds that array
 * empty, so memory does not grow with its elements. A byte scanner (strings
 * and their escapes, brackets) finds where the array and each element start
 * and end; json-c parses every byte it is given (the elements, and the rest
 * of the document), so a malformed document is refused as json-c refuses it.
 * json-c's tree takes about 70 bytes a value ("0," is two bytes of the
 * file: a record.json of 60 MiB of them once held 2.2 GiB of the
 * converter's memory): the document outside the array, and each element,
 * may hold at most JSONSTREAM_VALUES_MAX values (counted as its '{', '['
 * and ',' outside strings; snaptrace-record's reports hold far fewer) and
 * JSONSTREAM_PART_MAX bytes, and each string at most JSONSTREAM_STRING_MAX
 * bytes as written between its quotes (a string holds its bytes in json-c's
 * tree, and twice while its tokener reads it: a record.json of 200 MiB whose
 * one comm was one string once held 412 MB of the converter's memory). The
 * longest string snaptrace-record writes is an argument of a command line
 * (the kernel's MAX_ARG_STRLEN, 128 KiB), escaped; the document outside
 * "hits" holds two command lines (each at most the kernel's ARG_MAX, 2 MiB
 * with the default stack limit) and a few hundred bytes a thread.
 */
#ifndef SNAPTRACE_CONVERT_JSONSTREAM_H
#define SNAPTRACE_CONVERT_JSONSTREAM_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define JSONSTREAM_VALUES_MAX (1 << 20)
#define JSONSTREAM_STRING_MAX (1 << 20)
#define JSONSTREAM_PART_MAX (64 << 20)

/* What jsonstream_read() parses and hands over. */
struct jsonstream_ops {
	const char *key;        /* the top-level member whose array is streamed */
	/* Called with each element of that array (NULL: the elements are only
	 * scanned, not parsed) and its index; the element is freed after the
	 * call. A non-zero return stops the read and is returned. Elements
	 * must be objects. */
	int (*elem)(void *arg, struct json_object *e, size_t index);
	void *arg;
	bool doc;               /* parse the rest of the document (else only scan it) */
};

/* Why jsonstream_read() refused the document. */
struct jsonstream_error {
	size_t line;            /* 1-based line where it went wrong */
	char what[96];          /* "found ..." text: json-c's word, or the scanner's */
};

/*
 * Reads the JSON document in FD from offset 0 (at most MAX bytes), calling
 * OPS->elem for each element of the top-level array OPS->key. With OPS->doc,
 * *DOC is the document (that array empty; the caller puts it). *NELEMS
 * (may be NULL) is how many elements the array had. Returns 0; OPS->elem's
 * non-zero return; -1 for a document that is not JSON, cut short, longer
 * than MAX, past one of the bounds above, or an element that is not an
 * object (*E says where and what);
 * -2 on a read error or out of memory (errno kept).
 */
int jsonstream_read(int fd, size_t max, const struct jsonstream_ops *ops,
		    struct json_object **doc, size_t *nelems, struct jsonstream_error *e);

#endif
