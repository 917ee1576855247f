/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the trigger grammar (record/trigspec), the demangler
 * (record/demangle) and the source lines (record/lineaddr), against this test
 * program itself: it is built with -g, and holds C functions whose symbol
 * names are the mangled names of C++ functions (an asm label), so that the
 * demangled forms are checked without a C++ compiler; the same way Rust
 * functions in Rust's legacy (_ZN...17h<hash>E) and v0 (_R...) manglings,
 * each path twice with another hash (two versions of a crate).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "demangle.h"
#include "elfsym.h"
#include "lineaddr.h"
#include "symbols.h"
#include "trigspec.h"
#include "unit.h"
#include "unit_self.h"

/* app::Store::load(int), and two overloads of app::Store::save */
__attribute__((noinline)) int store_load(int x) __asm__("_ZN3app5Store4loadEi");
__attribute__((noinline)) int store_load(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}
__attribute__((noinline)) int store_save_i(int x) __asm__("_ZN3app5Store4saveEi");
__attribute__((noinline)) int store_save_i(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 2;
}
__attribute__((noinline)) int store_save_d(double x) __asm__("_ZN3app5Store4saveEd");
__attribute__((noinline)) int store_save_d(double x)
{
	__asm__ volatile("" : "+x"(x));
	return (int)x + 3;
}

/* Rust: mycrate::store::load (legacy) and mycrate::store::flush (v0), twice each */
#define RUST_FN(fn, sym, k)                                          \
	__attribute__((noinline)) int fn(int x) __asm__(sym);        \
	__attribute__((noinline)) int fn(int x)                      \
	{                                                            \
		__asm__ volatile("" : "+r"(x));                      \
		return x + k;                                        \
	}
RUST_FN(rust_load_a, "_ZN7mycrate5store4load17h0123456789abcdefE", 4)
RUST_FN(rust_load_b, "_ZN7mycrate5store4load17hfedcba9876543210E", 5)
RUST_FN(rust_flush_a, "_RNvNtCs1234_7mycrate5store5flush", 6)
RUST_FN(rust_flush_b, "_RNvNtCs5678_7mycrate5store5flush", 7)

/* A function with a known line; the line before it has no code. */
static const unsigned probe_line = __LINE__ + 4;
__attribute__((noinline)) int trigspec_probe(int x);
__attribute__((noinline)) int trigspec_probe(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x * 5;
}

/* A function of known instructions: a 5-byte mov $0,%eax at +0, a nop at
 * +5, a ret at +6; then 2 bytes in no function symbol. */
__asm__(".text\n"
	".globl insn_probe\n"
	".type insn_probe, @function\n"
	"insn_probe:\n"
	"\tmovl $0x0, %eax\n"
	"\tnop\n"
	"\tret\n"
	".size insn_probe, .-insn_probe\n"
	"\tnop\n"
	"\tnop\n");
int insn_probe(void);

__attribute__((noinline)) void magic_trace_stop_indicator(void);
__attribute__((noinline)) void magic_trace_stop_indicator(void)
{
	__asm__ volatile("" ::: "memory");
}

static int resolve(const char *spec, struct rec_trigger_loc *loc, char *why, size_t size)
{
	return rec_trigspec_resolve(spec, unit_self_exe(), getpid(), loc, why, size);
}

/* perf's name of functions the converter names apart (issue 24): Rust
 * instances by hash, C static functions by file */
static void perf_names(void)
{
	static const struct {
		const char *name, *perf;
	} rows[] = {
		{ "main::crunch::h0123456789abcdef", "main::crunch" },
		{ "mycrate[3c1c0]::store[5f]::f", "mycrate::store::f" },
		{ "main[235e3519f142be8b]::crunch::<u32>", "main::crunch::<u32>" },
		{ "helper [a.c]", "helper" },
		{ "helper [global]", "helper" },
		{ "main::crunch", NULL },
		{ "main::crunch::h0123", NULL },        /* no 16 hex digits */
		{ "Foo::operator[]", NULL },
		{ "app::load(int)", NULL },
		{ "f [clone .cold]", NULL },            /* a space: no file */
		{ "x[zz]::f", NULL },                   /* no hex */
	};
	char out[64];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK_INT_EQ(demangled_perf_name(rows[i].name, out, sizeof(out)), rows[i].perf != NULL);
		CHECK_STR_EQ(out, rows[i].perf ? rows[i].perf : rows[i].name);
	}
}

static void demangling(void)
{
	char out[256];

	CHECK(demangle_name("_ZN3app5Store4loadEi", out, sizeof(out)));
	CHECK_STR_EQ(out, "app::Store::load(int)");
	CHECK(!demangle_name("main", out, sizeof(out)));
	CHECK_STR_EQ(out, "main");
	CHECK(!demangle_name("_Zbogus", out, sizeof(out)));
	CHECK_STR_EQ(out, "_Zbogus");
	/* Rust's legacy mangling: the hash is dropped */
	CHECK(demangle_name("_ZN4core3fmt5write17h0123456789abcdefE", out, sizeof(out)));
	CHECK_STR_EQ(out, "core::fmt::write");
	/* as perf names frames: no parameters, no template function's return
	 * type (issue 24: "int accumulate_sq<int>" split its measured calls) */
	CHECK(demangle_frame_name("_Z13accumulate_sqIiET_RKSt6vectorIS0_SaIS0_EE", out, sizeof(out)));
	CHECK_STR_EQ(out, "accumulate_sq<int>");
	CHECK(demangle_frame_name("_ZNK3app5Store4loadEi", out, sizeof(out)));
	CHECK_STR_EQ(out, "app::Store::load");
	CHECK(demangle_frame_name("_ZN4core3fmt5write17h0123456789abcdefE", out, sizeof(out)));
	CHECK_STR_EQ(out, "core::fmt::write");
	CHECK(!demangle_frame_name("main", out, sizeof(out)));
	CHECK_STR_EQ(out, "main");
	CHECK_INT_EQ(demangled_base_len("app::Store::load(int) const"), 16);
	CHECK_INT_EQ(demangled_base_len("app::X::operator()(int)"), 18);
	CHECK_INT_EQ(demangled_base_len("main"), 4);
	/* a parenthesised scope is no parameter list (the converter and stats
	 * show "(anonymous namespace)::f" so) */
	CHECK_INT_EQ(demangled_base_len("(anonymous namespace)::f"), 24);
	CHECK_INT_EQ(demangled_base_len("(anonymous namespace)::f(int)"), 24);
	CHECK(demangled_matches("_ZN3app5Store4loadEi", "app::Store::load(int)",
				    "app::Store::load"));
	CHECK(demangled_matches("_ZN3app5Store4loadEi", "app::Store::load(int)",
				    "app::Store::load(int)"));
	CHECK(!demangled_matches("_ZN3app5Store4loadEi", "app::Store::load(int)",
				     "app::Store::load(long)"));
	CHECK(!demangled_matches("_ZN3app5Store6loaderEi", "app::Store::loader(int)",
				     "app::Store::load"));
	CHECK(!demangled_matches("_ZN3app5Store4loadEi", "app::Store::load(int)",
				     "Store::load"));
	/* a template function: with its return type or as perf names it */
	CHECK(demangled_matches("_Z3tsqIiET_S0_", "int tsq<int>(int)", "int tsq<int>"));
	CHECK(demangled_matches("_Z3tsqIiET_S0_", "int tsq<int>(int)", "tsq<int>"));
	CHECK(!demangled_matches("_Z3tsqIiET_S0_", "int tsq<int>(int)", "sq<int>"));
	CHECK(!demangled_matches("_Z3tsqIiET_S0_", "int tsq<int>(int)", "tsq<double>"));
	/* Rust's v0 mangling; with a hash, only the function of that hash matches */
	CHECK(demangle_name("_RNvNtCs1234_7mycrate5store5flush", out, sizeof(out)));
	CHECK_STR_EQ(out, "mycrate::store::flush");
	CHECK(demangle_name("_RINvNtCs1234_7mycrate5store4scanlEB4_", out, sizeof(out)));
	CHECK_STR_EQ(out, "mycrate::store::scan::<i32>");
	CHECK(demangled_matches("_RNvNtCs1234_7mycrate5store5flush", "mycrate::store::flush",
				    "mycrate[3c1c0]::store::flush"));
	CHECK(!demangled_matches("_RNvNtCs5678_7mycrate5store5flush", "mycrate::store::flush",
				     "mycrate[3c1c0]::store::flush"));
	CHECK(demangled_matches("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write",
				    "core::fmt::write::h0123456789abcdef"));
	CHECK(!demangled_matches("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write",
				     "core::fmt::write::h0123456789abcde0"));
	perf_names();
}

/* Rust functions by their demangled names: without the hash both versions
 * are listed, none taken; with it, that one. */
static void rust_names(void)
{
	struct rec_trigger_loc loc;
	char why[2048];

	CHECK_INT_EQ(resolve("mycrate::store::load::h0123456789abcdef", &loc, why, sizeof(why)), 0);
	CHECK_STR_EQ(loc.symbol, "_ZN7mycrate5store4load17h0123456789abcdefE");
	CHECK_INT_EQ(resolve("symbol:mycrate::store::load::hfedcba9876543210", &loc, why,
			     sizeof(why)), 0);
	CHECK_STR_EQ(loc.symbol, "_ZN7mycrate5store4load17hfedcba9876543210E");
	CHECK_INT_EQ(resolve("mycrate[128aac]::store::flush", &loc, why, sizeof(why)), 0);
	CHECK_STR_EQ(loc.symbol, "_RNvNtCs5678_7mycrate5store5flush");
	CHECK_INT_EQ(resolve("mycrate::store::flush", &loc, why, sizeof(why)), -EINVAL);
	/* each with its hash (a v0 crate disambiguator), which picks one */
	CHECK(strstr(why, "found 2: mycrate[") && strstr(why, "]::store::flush (_RNvNtCs1234_7mycrate5store5flush"));
	CHECK(strstr(why, "give one with its hash (mycrate["));
	CHECK_INT_EQ(resolve("mycrate::store::load", &loc, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "_ZN7mycrate5store4load17hfedcba9876543210E"));
	CHECK_INT_EQ(resolve("mycrate::store::flsh", &loc, why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "closest: mycrate::store::flush"));
}

/* The forms with a function name: symbol:, bare, demangled, several. */
static void function_forms(void)
{
	struct rec_trigger_loc loc;
	struct rec_sym s;
	char why[2048];

	CHECK_INT_EQ(rec_elf_lookup(unit_self_exe(), "trigspec_probe", &s), 0);
	CHECK_INT_EQ(resolve("symbol:trigspec_probe", &loc, why, sizeof(why)), 0);
	CHECK_U64_EQ(loc.vaddr, s.value);
	CHECK_STR_EQ(loc.symbol, "trigspec_probe");
	CHECK(loc.in_main);
	CHECK_INT_EQ(resolve("trigspec_probe", &loc, why, sizeof(why)), 0);
	CHECK_U64_EQ(loc.vaddr, s.value);

	CHECK_INT_EQ(rec_elf_lookup(unit_self_exe(), "_ZN3app5Store4loadEi", &s), 0);
	CHECK_INT_EQ(resolve("app::Store::load", &loc, why, sizeof(why)), 0);
	CHECK_U64_EQ(loc.vaddr, s.value);
	CHECK_STR_EQ(loc.symbol, "_ZN3app5Store4loadEi");
	CHECK_INT_EQ(resolve("symbol:app::Store::load(int)", &loc, why, sizeof(why)), 0);
	CHECK_U64_EQ(loc.vaddr, s.value);
	CHECK_INT_EQ(resolve("symbol:_ZN3app5Store4loadEi", &loc, why, sizeof(why)), 0);
	CHECK_U64_EQ(loc.vaddr, s.value);

	/* several: listed, none taken */
	CHECK_INT_EQ(resolve("app::Store::save", &loc, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "found 2"));
	CHECK(strstr(why, "app::Store::save(int)"));
	CHECK(strstr(why, "app::Store::save(double)"));
	CHECK_INT_EQ(resolve("app::Store::save(double)", &loc, why, sizeof(why)), 0);
	CHECK_INT_EQ(rec_elf_lookup(unit_self_exe(), "_ZN3app5Store4saveEd", &s), 0);
	CHECK_U64_EQ(loc.vaddr, s.value);

	/* missing: the closest demangled names */
	CHECK_INT_EQ(resolve("app::Store::lod", &loc, why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "tried 'app::Store::lod' as a symbol"));
	CHECK(strstr(why, "closest: app::Store::load"));
	CHECK_INT_EQ(resolve("symbol:trigspec_prob", &loc, why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "closest: trigspec_probe"));
	CHECK_INT_EQ(resolve("symbol:", &loc, why, sizeof(why)), -EINVAL);
	CHECK_INT_EQ(store_load(1) + store_save_i(1) + store_save_d(1) + trigspec_probe(1), 14);
}

static void line_forms(void)
{
	struct rec_trigger_loc loc;
	struct rec_sym s;
	char why[2048], spec[256];
	uint64_t a;

	CHECK_INT_EQ(rec_elf_lookup(unit_self_exe(), "trigspec_probe", &s), 0);
	CHECK_INT_EQ(rec_srcline_find(unit_self_exe(), "test_rec_trigspec.c", probe_line, 0, &a, NULL, 0), 0);
	CHECK(a >= s.value && a < s.value + s.size);
	snprintf(spec, sizeof(spec), "line:test_rec_trigspec.c:%u", probe_line);
	CHECK_INT_EQ(resolve(spec, &loc, why, sizeof(why)), 0);
	CHECK_U64_EQ(loc.vaddr, a);
	CHECK_STR_EQ(loc.symbol, "trigspec_probe");
	CHECK(loc.file_offset > 0);
	/* a longer path suffix, and the bare form */
	snprintf(spec, sizeof(spec), "unit/test_rec_trigspec.c:%u", probe_line);
	CHECK_INT_EQ(resolve(spec, &loc, why, sizeof(why)), 0);
	CHECK_U64_EQ(loc.vaddr, a);
	/* no such column; no code on the line before; no such file */
	snprintf(spec, sizeof(spec), "line:test_rec_trigspec.c:%u:999", probe_line);
	CHECK_INT_EQ(resolve(spec, &loc, why, sizeof(why)), -ENOENT);
	snprintf(spec, sizeof(spec), "line:test_rec_trigspec.c:%u", probe_line - 4);
	CHECK_INT_EQ(resolve(spec, &loc, why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "expected code at test_rec_trigspec.c:"));
	CHECK(strstr(why, "the next line with code"));
	CHECK_INT_EQ(resolve("line:no_such_file.c:10", &loc, why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "expected a source file 'no_such_file.c'"));
	CHECK(strstr(why, "nor in its"));
	/* est_rec_trigspec.c is not test_rec_trigspec.c */
	CHECK_INT_EQ(rec_srcline_find(unit_self_exe(), "est_rec_trigspec.c", probe_line, 0, &a, NULL, 0),
		     -ENOENT);
	CHECK_INT_EQ(resolve("line:x.c", &loc, why, sizeof(why)), -EINVAL);
	CHECK_INT_EQ(resolve("line:x.c:0", &loc, why, sizeof(why)), -EINVAL);
	CHECK_INT_EQ(rec_srcline_find("/nonexistent", "x.c", 1, 0, &a, NULL, 0), -ENOENT);
}

static void other_forms(void)
{
	struct rec_trigger_loc loc;
	struct rec_sym s;
	char why[2048], spec[64];

	/* "." and no spec: the stop indicator */
	CHECK_INT_EQ(resolve(".", &loc, why, sizeof(why)), 0);
	CHECK_STR_EQ(loc.spec, "magic_trace_stop_indicator");
	CHECK_INT_EQ(resolve(NULL, &loc, why, sizeof(why)), 0);
	CHECK_STR_EQ(loc.symbol, "magic_trace_stop_indicator");
	/* addresses: addr:, and a bare word that is no symbol */
	CHECK_INT_EQ(rec_elf_lookup(unit_self_exe(), "trigspec_probe", &s), 0);
	snprintf(spec, sizeof(spec), "addr:0x%llx", (unsigned long long)s.value);
	CHECK_INT_EQ(resolve(spec, &loc, why, sizeof(why)), 0);
	CHECK_STR_EQ(loc.symbol, "trigspec_probe");
	CHECK_INT_EQ(rec_elf_lookup(unit_self_exe(), "insn_probe", &s), 0);
	snprintf(spec, sizeof(spec), "0x%llx", (unsigned long long)s.value + 5);
	CHECK_INT_EQ(resolve(spec, &loc, why, sizeof(why)), 0);
	CHECK_U64_EQ(loc.vaddr, s.value + 5);
	CHECK_U64_EQ(loc.file_offset, s.file_offset + 5);
	CHECK_INT_EQ(resolve("zz_not_anything", &loc, why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "not a FILE:LINE nor an address"));
	/* LIB:NAME, with a demangled name too; never confused with NS::NAME */
	CHECK_INT_EQ(resolve("libc:malloc", &loc, why, sizeof(why)), 0);
	CHECK(strstr(loc.file, "libc"));
	CHECK(!loc.in_main);
	CHECK_INT_EQ(resolve("libstdc++:std::terminate", &loc, why, sizeof(why)), 0);
	CHECK(strstr(loc.file, "libstdc++"));
	CHECK_STR_EQ(loc.symbol, "_ZSt9terminatev");
	CHECK_INT_EQ(resolve("libnosuch:f", &loc, why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "expected a shared library 'libnosuch'"));
	CHECK_INT_EQ(resolve("std::nosuch", &loc, why, sizeof(why)), -ENOENT);
	CHECK(!strstr(why, "shared library"));
	/* "?": not on a terminal, a usage error that says so */
	CHECK(freopen("/dev/null", "r", stdin) != NULL);
	CHECK_INT_EQ(resolve("?", &loc, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "expected a terminal"));
	CHECK_INT_EQ(resolve("none", &loc, why, sizeof(why)), REC_TRIGSPEC_NONE);
	magic_trace_stop_indicator();
}

/* Every probe address is an instruction start: inside one (the new user's
 * addr: on the last byte of a mov) is a usage error naming the instruction
 * and the starts around it; starts, function entries and line: rows pass;
 * an address in no function symbol is refused. */
static void instruction_starts(void)
{
	struct rec_trigger_loc loc;
	struct rec_sym s;
	char why[2048], spec[64], want[512];
	unsigned long long v;

	CHECK_INT_EQ(insn_probe(), 0);
	CHECK_INT_EQ(rec_elf_lookup(unit_self_exe(), "insn_probe", &s), 0);
	CHECK_U64_EQ(s.size, 7);
	v = (unsigned long long)s.value;
	for (unsigned off = 1; off <= 4; off++) {
		snprintf(spec, sizeof(spec), "addr:0x%llx", v + off);
		CHECK_INT_EQ(resolve(spec, &loc, why, sizeof(why)), -EINVAL);
		snprintf(want, sizeof(want), "0x%llx is inside the instruction at 0x%llx "
			 "(insn_probe+0x0, 5 bytes): a probe there would corrupt it; "
			 "instruction starts nearby: 0x%llx, 0x%llx", v + off, v, v, v + 5);
		CHECK_STR_EQ(why, want);
	}
	for (unsigned off = 0; off <= 6; off += off ? 1 : 5) {
		snprintf(spec, sizeof(spec), "addr:0x%llx", v + off);
		CHECK_INT_EQ(resolve(spec, &loc, why, sizeof(why)), 0);
		CHECK_U64_EQ(loc.vaddr, v + off);
		CHECK_STR_EQ(loc.symbol, "insn_probe");
		CHECK_STR_EQ(why, "");
	}
	CHECK_INT_EQ(resolve("symbol:insn_probe", &loc, why, sizeof(why)), 0);
	CHECK(loc.entry);
	/* past the symbol's size: no function holds it */
	snprintf(spec, sizeof(spec), "addr:0x%llx", v + 7);
	CHECK_INT_EQ(resolve(spec, &loc, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "inside a function symbol (or, in a file without .symtab, a function of "
		     "its unwind table), found none holding it"));
	/* a line: row of compiled C: its address is an instruction start */
	snprintf(spec, sizeof(spec), "line:test_rec_trigspec.c:%u", probe_line);
	CHECK_INT_EQ(resolve(spec, &loc, why, sizeof(why)), 0);
	CHECK_STR_EQ(loc.symbol, "trigspec_probe");
	CHECK_STR_EQ(why, "");
}

static void symbol_listing(void)
{
	char why[512], *buf = NULL, pid[32];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int n;

	n = rec_symbols_list(f, unit_self_exe(), "app::store::", why, sizeof(why));
	fclose(f);
	CHECK_INT_EQ(n, 3);
	CHECK(buf && strstr(buf, "app::Store::load(int)\t_ZN3app5Store4loadEi\t/"));
	CHECK(buf && strstr(buf, "app::Store::save(double)\t_ZN3app5Store4saveEd\t"));
	free(buf);
	/* Rust names demangled (without the hash), beside their symbols */
	f = open_memstream(&buf, &len);
	n = rec_symbols_list(f, unit_self_exe(), "mycrate::", why, sizeof(why));
	fclose(f);
	CHECK_INT_EQ(n, 4);
	CHECK(buf && strstr(buf, "mycrate::store::flush\t_RNvNtCs5678_7mycrate5store5flush\t/"));
	CHECK(buf && strstr(buf, "mycrate::store::load\t_ZN7mycrate5store4load17h0123456789abcdefE\t/"));
	free(buf);
	/* a process: its libraries too */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	f = open_memstream(&buf, &len);
	n = rec_symbols_list(f, pid, "malloc", why, sizeof(why));
	fclose(f);
	CHECK(n >= 1);
	CHECK(buf && strstr(buf, "\tmalloc\t") && strstr(buf, "libc"));
	free(buf);
	/* a library file (not executable: no program lookup applies) */
	f = open_memstream(&buf, &len);
	n = rec_symbols_list(f, "/lib/x86_64-linux-gnu/libm.so.6", "cosf", why, sizeof(why));
	fclose(f);
	CHECK(n >= 1);
	CHECK(buf && strstr(buf, "cosf\tcosf\t/") && strstr(buf, "libm.so.6\t0x"));
	free(buf);
	f = open_memstream(&buf, &len);
	CHECK_INT_EQ(rec_symbols_list(f, "/nonexistent/prog", NULL, why, sizeof(why)), -ENOENT);
	fclose(f);
	free(buf);
	CHECK(strstr(why, "expected a process id or an ELF file"));
}

int main(void)
{
	UNIT_RUN(demangling);
	UNIT_RUN(function_forms);
	UNIT_RUN(rust_names);
	UNIT_RUN(line_forms);
	UNIT_RUN(other_forms);
	UNIT_RUN(instruction_starts);
	UNIT_RUN(symbol_listing);
	return unit_exit();
}
