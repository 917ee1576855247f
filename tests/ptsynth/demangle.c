/* SPDX-License-Identifier: MIT */
/* demangle: __cxa_demangle (libstdc++) minus the parameters (see demangle.h). */
#include "demangle.h"

#include <stdlib.h>
#include <string.h>

/* The C++ ABI's demangler (libstdc++, extern "C"). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/*
 * Removes the outermost parameter list "(...)" that ends the function part
 * of S, and the qualifiers after it; keeps a " [clone ...]" suffix.
 */
static void strip_params(char *s)
{
	char *end = s + strlen(s), *clone = strstr(s, " [clone");
	char *p, *close = NULL;
	int depth = 0;

	if (clone)
		end = clone;
	for (p = end; p > s; p--)
		if (p[-1] == ')') {
			close = p - 1;
			break;
		}
	if (!close)
		return;
	for (p = close; p >= s; p--) {
		if (*p == ')')
			depth++;
		else if (*p == '(' && --depth == 0)
			break;
	}
	if (p <= s)
		return;
	memmove(p, end, strlen(end) + 1);
}

char *ps_demangle(const char *name)
{
	int status = -1;
	char *d;

	if (strncmp(name, "_Z", 2))
		return strdup(name);
	d = __cxa_demangle(name, NULL, NULL, &status);
	if (!d || status)
		return strdup(name);
	strip_params(d);
	return d;
}
