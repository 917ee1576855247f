/* SPDX-License-Identifier: MIT */
#include "demangle.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

/* libiberty's auto style: Rust (legacy _ZN...17h<hash>E and v0 _R...) first,
 * then the Itanium C++ ABI; with the parameter lists, as perf and c++filt. */
#define STYLE (DMGL_PARAMS | DMGL_ANSI)

/* Demangles NAME with libiberty's OPTIONS into OUT. Returns whether it was mangled. */
static bool demangle_as(const char *name, int options, char *out, size_t size)
{
	char *d = NULL;

	if (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R'))
		d = cplus_demangle(name, options);
	snprintf(out, size, "%s", d ? d : name);
	free(d);
	return d != NULL;
}

bool rec_demangle(const char *name, char *out, size_t size)
{
	return demangle_as(name, STYLE, out, size);
}

/* Whether S ends in a Rust legacy hash "::h" and 16 hex digits. */
static bool has_legacy_hash(const char *s)
{
	size_t n = strlen(s);

	if (n < 19 || memcmp(s + n - 19, "::h", 3))
		return false;
	for (size_t i = n - 16; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Whether S holds a Rust v0 crate disambiguator: an identifier followed by
 * "[" hex digits "]" ("mycrate[5f3a]::f"). */
static bool has_v0_hash(const char *s)
{
	for (const char *p = strchr(s, '['); p; p = strchr(p + 1, '[')) {
		size_t k = strspn(p + 1, "0123456789abcdef");

		if (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_') && k && p[1 + k] == ']')
			return true;
	}
	return false;
}

/* Whether WANTED carries a Rust hash, legacy or v0. */
static bool has_hash(const char *wanted)
{
	return has_legacy_hash(wanted) || has_v0_hash(wanted);
}

bool rec_demangle_hashed(const char *name, char *out, size_t size)
{
	char plain[1024];

	demangle_as(name, STYLE | DMGL_VERBOSE, out, size);
	rec_demangle(name, plain, sizeof(plain));
	return has_hash(out) && strcmp(out, plain);
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

bool rec_demangled_matches(const char *symbol, const char *demangled, const char *wanted)
{
	char verbose[1024];
	size_t base;

	/* a Rust name with its hash names the one function of that hash */
	if (has_hash(wanted)) {
		demangle_as(symbol, STYLE | DMGL_VERBOSE, verbose, sizeof(verbose));
		demangled = verbose;
	}
	if (!strcmp(demangled, wanted))
		return true;
	if (strchr(wanted, '('))
		return false;
	base = rec_demangled_base_len(demangled);
	return base == strlen(wanted) && !strncmp(demangled, wanted, base);
}
