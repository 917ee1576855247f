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
/* perf's names of frames: no DMGL_PARAMS (no parameter list, no template
 * function's return type, no clone's suffix) */
#define FRAME_STYLE DMGL_ANSI

/* NAME demangled with libiberty's OPTIONS (malloc'ed), or NULL when it is
 * no C++ or Rust symbol (or out of memory). */
static char *demangled_with(const char *name, int options)
{
	if (name[0] == '_' && (name[1] == 'Z' || name[1] == 'R'))
		return cplus_demangle(name, options);
	return NULL;
}

/* Demangles NAME with libiberty's OPTIONS into OUT. Returns whether it was mangled. */
static bool demangle_as(const char *name, int options, char *out, size_t size)
{
	char *d = demangled_with(name, options);

	snprintf(out, size, "%s", d ? d : name);
	free(d);
	return d != NULL;
}

bool demangle_name(const char *name, char *out, size_t size)
{
	return demangle_as(name, STYLE, out, size);
}

bool demangle_frame_name(const char *name, char *out, size_t size)
{
	return demangle_as(name, FRAME_STYLE, out, size);
}

char *demangle_frame_dup(const char *name)
{
	char *d = demangled_with(name, FRAME_STYLE);

	return d ? d : strdup(name);
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

/* The length of S without a C static function's source file: " [FILE]"
 * at its end (FILE without spaces or brackets). */
static size_t unscoped_len(const char *s)
{
	size_t n = strlen(s), k;

	if (n < 4 || s[n - 1] != ']')
		return n;
	k = n - 1;
	while (k > 0 && !strchr(" []", s[k - 1]))
		k--;
	return k >= 2 && k < n - 1 && s[k - 1] == '[' && s[k - 2] == ' ' ? k - 2 : n;
}

bool demangled_perf_name(const char *s, char *out, size_t size)
{
	size_t n = unscoped_len(s), o = 0;

	if (n == strlen(s) && !has_hash(s)) {
		snprintf(out, size, "%s", s);
		return false;
	}
	if (has_legacy_hash(s))
		n -= 19;
	for (size_t i = 0; i < n && o + 1 < size; i++) {
		size_t k = s[i] == '[' ? strspn(s + i + 1, "0123456789abcdef") : 0;

		/* a v0 crate disambiguator: "[hex]" after an identifier */
		if (k && i && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_') &&
		    s[i + 1 + k] == ']') {
			i += k + 1;
			continue;
		}
		out[o++] = s[i];
	}
	if (size)
		out[o] = '\0';
	return true;
}

bool demangle_hashed(const char *name, char *out, size_t size)
{
	char plain[1024];

	demangle_as(name, STYLE | DMGL_VERBOSE, out, size);
	demangle_name(name, plain, sizeof(plain));
	return has_hash(out) && strcmp(out, plain);
}

size_t demangled_base_len(const char *s)
{
	size_t n = strlen(s);
	size_t end = n;
	int depth = 0;

	/* the parameter list is the last parenthesised group at the top level,
	 * followed by qualifiers only: not a scope ("(anonymous namespace)::f") */
	while (end > 0 && s[end - 1] != ')')
		end--;
	if (!end || strstr(s + end, "::"))
		return n;
	for (size_t i = end; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return n;
}

size_t symbol_unversioned_len(const char *s, size_t len)
{
	const char *at = len ? memchr(s, '@', len) : NULL;

	if (!at || ((size_t)(s + len - at) == 4 && !memcmp(at, "@plt", 4)))
		return len;
	return (size_t)(at - s);
}

bool symbol_version_matches(const char *sym, size_t len, const char *wanted, size_t wlen)
{
	size_t v = symbol_unversioned_len(sym, len), w = symbol_unversioned_len(wanted, wlen);

	if (len == wlen && !memcmp(sym, wanted, len))
		return true;
	if (v < len && w < wlen)
		return false;	/* two versions, not the same */
	return (v < len || w < wlen) && v == w && !memcmp(sym, wanted, v);
}

bool demangled_matches(const char *symbol, const char *demangled, const char *wanted)
{
	char verbose[1024], frame[1024];
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
	base = demangled_base_len(demangled);
	if (base == strlen(wanted) && !strncmp(demangled, wanted, base))
		return true;
	/* a template function's name without its return type, as perf has it
	 * (demangled again only when WANTED is in DEMANGLED) */
	return strstr(demangled, wanted) && demangle_frame_name(symbol, frame, sizeof(frame)) &&
	       !strcmp(frame, wanted);
}

unsigned edit_distance(const char *a, const char *b)
{
	unsigned row[256], i, j, la = (unsigned)strlen(a), lb = (unsigned)strlen(b);

	if (la > 254)
		la = 254;
	if (lb > 254)
		lb = 254;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned up = row[j], best;

			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb] > 255 ? 255 : row[lb];
}

void demangled_suggest(struct demangled_suggest *sg, const char *demangled)
{
	char name[DEMANGLED_SUGGEST_LEN], wanted[DEMANGLED_SUGGEST_LEN];
	size_t len = strchr(sg->wanted, '(') ? strlen(demangled) : demangled_base_len(demangled);
	unsigned score;
	int i, pos;

	/* compared as the user wrote it: without parameters unless given, and
	 * then with them where the name has some; suggested whole (new-user
	 * check 16: "[unknown @ 0x133b (/bin/app)]" was offered cut, as
	 * "[unknown @ 0x133b ") */
	if (strlen(demangled) >= sizeof(name))
		return;
	memcpy(name, demangled, len);
	name[len] = '\0';
	snprintf(wanted, sizeof(wanted), "%.*s", (int)(demangled_base_len(name) == len ?
		 demangled_base_len(sg->wanted) : strlen(sg->wanted)), sg->wanted);
	/* names containing the wanted one (or contained in it) rank first */
	if (strstr(name, wanted) || strstr(wanted, name))
		score = (unsigned)abs((int)strlen(name) - (int)strlen(wanted));
	else
		score = 1000 + edit_distance(wanted, name);
	for (i = 0; i < sg->n; i++)
		if (!strcmp(sg->out[i], demangled))
			return;
	for (pos = sg->n; pos > 0 && sg->score[pos - 1] > score; pos--)
		;
	if (pos >= sg->max)
		return;
	if (sg->n < sg->max)
		sg->n++;
	for (i = sg->n - 1; i > pos; i--) {
		memcpy(sg->out[i], sg->out[i - 1], DEMANGLED_SUGGEST_LEN);
		sg->score[i] = sg->score[i - 1];
	}
	snprintf(sg->out[pos], DEMANGLED_SUGGEST_LEN, "%s", demangled);
	sg->score[pos] = score;
}

int demangled_suggest_end(struct demangled_suggest *sg, bool keep_one)
{
	/* drop far-fetched names: more than half the name changed */
	while (sg->n > (keep_one ? 1 : 0) && sg->score[sg->n - 1] >= 1000 &&
	       sg->score[sg->n - 1] - 1000 > (unsigned)strlen(sg->wanted) / 2 + 1)
		sg->n--;
	return sg->n;
}
