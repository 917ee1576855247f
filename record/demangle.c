/* SPDX-License-Identifier: MIT */
#include "demangle.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libstdc++'s demangler (<cxxabi.h>: abi::__cxa_demangle, C linkage). Returns
 * a malloc'ed string, or NULL with *STATUS -2 when NAME is not mangled. */
char *__cxa_demangle(const char *name, char *buf, size_t *len, int *status);

/* Drops a Rust legacy hash "::h" + 16 hex digits from the end of S. */
static void drop_rust_hash(char *s)
{
	size_t n = strlen(s);

	if (n < 19 || memcmp(s + n - 19, "::h", 3))
		return;
	for (size_t i = n - 16; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return;
	s[n - 19] = '\0';
}

bool rec_demangle(const char *name, char *out, size_t size)
{
	int status = -1;
	char *d = NULL;

	if (name[0] == '_' && name[1] == 'Z')
		d = __cxa_demangle(name, NULL, NULL, &status);
	if (!d || status) {
		free(d);
		snprintf(out, size, "%s", name);
		return false;
	}
	drop_rust_hash(d);
	snprintf(out, size, "%s", d);
	free(d);
	return true;
}

size_t rec_demangled_base_len(const char *s)
{
	size_t n = strlen(s);
	size_t end = n;
	int depth = 0;

	/* the parameter list is the last parenthesised group at the top level */
	while (end > 0 && s[end - 1] != ')')
		end--;
	if (!end)
		return n;
	for (size_t i = end; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return n;
}

bool rec_demangled_matches(const char *demangled, const char *wanted)
{
	size_t base;

	if (!strcmp(demangled, wanted))
		return true;
	if (strchr(wanted, '('))
		return false;
	base = rec_demangled_base_len(demangled);
	return base == strlen(wanted) && !strncmp(demangled, wanted, base);
}
