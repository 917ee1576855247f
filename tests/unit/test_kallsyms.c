/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of convert/kallsyms: the lines of a kallsyms table perf needs
 * to name a set of kernel addresses as it names them from the whole table
 * (docs/design.md "Kernel symbols"), on a table written here.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "kallsyms.h"
#include "unit.h"

/* A table as /proc/kallsyms prints it: aliases at one address, data
 * symbols between functions, a module's functions last. */
static const char table[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81000100 t early_fn\n"
	"ffffffff81000200 T __schedule\n"
	"ffffffff81000200 T __schedule_alias\n"
	"ffffffff81000300 d sched_data\n"
	"ffffffff81000380 r sched_rodata\n"
	"ffffffff81000400 T schedule\n"
	"ffffffff81000500 W weak_fn\n"
	"ffffffff81000600 T do_syscall_64\n"
	"ffffffff81000700 T last_core\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n"
	"ffffffffc0001100 t mod_next\t[mymod]\n";

/* The selection for ADDRS (N) into a string (the caller frees it). */
static char *selected(const uint64_t *addrs, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	struct kallsyms_table t;

	CHECK(f != NULL);
	if (!f)
		return NULL;
	CHECK_INT_EQ(kallsyms_table_parse(table, sizeof(table) - 1, &t), 0);
	CHECK_INT_EQ(kallsyms_select(&t, addrs, n, f), 0);
	kallsyms_table_free(&t);
	fclose(f);
	return buf;
}

/* An address inside a function: the function with its aliases, every line
 * up to the next text symbol (perf's D and B among them) and that one; the
 * reference symbols always. */
static void window_of_an_address(void)
{
	uint64_t a[] = { 0xffffffff81000210ull };
	char *s = selected(a, 1);

	CHECK_STR_EQ(s, "ffffffff81000000 T _stext\n"
			"ffffffff81000000 T _text\n"
			"ffffffff81000200 T __schedule\n"
			"ffffffff81000200 T __schedule_alias\n"
			"ffffffff81000300 d sched_data\n"
			"ffffffff81000380 r sched_rodata\n"
			"ffffffff81000400 T schedule\n");
	free(s);
}

/* An address at a symbol's start, one in a weak function, one in a
 * module (its suffix kept), one past the last symbol: windows merge, the
 * table's order is kept. */
static void several_addresses(void)
{
	uint64_t a[] = { 0xffffffff81000400ull, 0xffffffff81000510ull, 0xffffffffc0001010ull,
			 0xffffffffc0002000ull };
	char *s = selected(a, 4);

	CHECK_STR_EQ(s, "ffffffff81000000 T _stext\n"
			"ffffffff81000000 T _text\n"
			"ffffffff81000400 T schedule\n"
			"ffffffff81000500 W weak_fn\n"
			"ffffffff81000600 T do_syscall_64\n"
			"ffffffffc0001000 t mod_fn\t[mymod]\n"
			"ffffffffc0001100 t mod_next\t[mymod]\n");
	free(s);
}

/* An address below every symbol: everything up to the first. */
static void below_the_first(void)
{
	uint64_t a[] = { 0xffffffff80000000ull };
	char *s = selected(a, 1);

	CHECK_STR_EQ(s, "ffffffff81000000 T _stext\n"
			"ffffffff81000000 T _text\n"
			"ffffffff81000000 T startup_64\n");
	free(s);
}

/* Another user's recording with nothing kept: an empty table for perf
 * (it names no kernel address), removed with the copy. */
static void untrusted_empty(void)
{
	struct kallsyms_copy k;
	struct stat st;
	char path[sizeof(k.path)];

	CHECK_INT_EQ(kallsyms_copy_untrusted("/nonexistent/perf.data", NULL, &k), 0);
	CHECK(!stat(k.path, &st) && S_ISREG(st.st_mode) && st.st_size == 0);
	snprintf(path, sizeof(path), "%s", k.path);
	CHECK(strstr(path, "/proc/self/fd/") == path);
	kallsyms_copy_free(&k);
	CHECK(k.path[0] == 0 && k.dir.fd < 0);
}

int main(void)
{
	UNIT_RUN(window_of_an_address);
	UNIT_RUN(several_addresses);
	UNIT_RUN(below_the_first);
	UNIT_RUN(untrusted_empty);
	return unit_exit();
}
