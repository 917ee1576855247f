/* SPDX-License-Identifier: MIT */
/*
 * elfsym: function symbols of an ELF file, read with libelf from .symtab and
 * .dynsym (System V gABI, "Symbol Table"; STT_FUNC and STT_GNU_IFUNC entries
 * that are defined). Gives what a trigger needs: the symbol's link-time
 * address and its file offset (st_value - p_vaddr + p_offset of the PT_LOAD
 * segment that holds it), plus close names for a helpful error.
 */
#ifndef SNAPTRACE_REC_ELFSYM_H
#define SNAPTRACE_REC_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Errors beyond negative errno values. */
enum {
	REC_ELF_ENOTELF = -2001,   /* not an ELF file */
	REC_ELF_ENOSYMS = -2002,   /* no .symtab and no .dynsym function symbol */
	REC_ELF_ENOSYM = -2003,    /* no function of that name */
	REC_ELF_ENOLOAD = -2004,   /* the address is in no PT_LOAD segment */
	REC_ELF_ENOTEXEC = -2005,  /* the address is in no executable PT_LOAD segment */
};

struct rec_sym {
	char name[256];        /* the symbol as in the file (mangled) */
	char demangled[1024];  /* demangle_name(name): NAME itself for a C name */
	uint64_t value;        /* st_value: link-time virtual address */
	uint64_t size;         /* st_size, bytes */
	uint64_t file_offset;  /* offset of the first instruction in the file */
	bool pie;              /* ET_DYN: runtime address = load bias + value */
	bool entry;            /* VALUE is the first instruction of function NAME
	                        * (always for a function; rec_elf_addr: the address
	                        * is where the function holding it starts) */
	uint64_t func_value;   /* rec_elf_addr: st_value of the function holding
	                        * VALUE (0 when none does); else VALUE */
	bool unnamed;          /* a function of a file without symbols, known from its
	                        * unwind table (.eh_frame_hdr): NAME "" */
	uint16_t machine;      /* e_machine of the file (EM_X86_64, ...) */
	uint64_t jumped_start; /* rec_elf_addr: VALUE is in no function but in a part
	                        * of one that a jump enters (a stripped file's
	                        * unwind table: fdetab_is_entry()), which starts
	                        * here; 0: not */
	char jumped_cfa[80];   /* its CFA rule there against an entry's, in words
	                        * (fdetab_cfa_words()) */
};

/*
 * Calls FN(S, ARG) for every defined function symbol of PATH (.symtab and
 * .dynsym, so a function may come twice, at the same value), S filled in
 * full; stops when FN returns non-zero and returns that value. Returns 0
 * after all, REC_ELF_ENOSYMS, REC_ELF_ENOTELF or a negative errno.
 */
int rec_elf_functions(const char *path, int (*fn)(const struct rec_sym *s, void *arg),
		      void *arg);

/*
 * Finds the functions of PATH that NAME names: by their symbol name exactly
 * or, when none is, by the demangled name with or without the parameter
 * list (demangled_matches), where a cold part (F.cold, never called) is
 * matched only by its own full name; when none is, the clones gcc made of the
 * function NAME names (rec_elf_clone_base: "f.isra.0", "f(int) [clone
 * .constprop.0]"), whose calls are the function's as the source has them.
 * One entry per address: up to MAX into OUT.
 * Returns how many functions match (may exceed MAX; 0: none), or an error
 * as rec_elf_lookup.
 */
int rec_elf_find(const char *path, const char *name, struct rec_sym *out, int max);

/*
 * Whether the ELF file PATH throws, catches or passes C++ exceptions: it names
 * (defines or imports) the C++ ABI's throw, catch or personality routine, or
 * the unwinder's. False when it does not or cannot be read.
 */
bool rec_elf_cxx_exceptions(const char *path);

/*
 * Looks up function NAME (its symbol name exactly) in the ELF file PATH. Fills *S.
 * Returns 0, REC_ELF_ENOSYM, REC_ELF_ENOSYMS, REC_ELF_ENOTELF,
 * REC_ELF_ENOLOAD, or a negative errno from open().
 */
int rec_elf_lookup(const char *path, const char *name, struct rec_sym *s);

/*
 * Describes link-time address VADDR of PATH, which must be code (in an
 * executable PT_LOAD segment): its file offset and, when a function contains
 * it, that function's name, size and start (else name "", func_value 0). An
 * address in no function symbol of a file without .symtab (stripped: none,
 * or .dynsym alone) is in a function of its unwind table (.eh_frame_hdr:
 * each to the end of its FDE): UNNAMED, name "". Fills *S.
 * Returns 0, REC_ELF_ENOTEXEC, REC_ELF_ENOLOAD, REC_ELF_ENOTELF or a negative errno.
 */
int rec_elf_addr(const char *path, uint64_t vaddr, struct rec_sym *s);

/*
 * Calls FN(S, ARG) for every function of PATH's unwind table (.eh_frame_hdr,
 * without its PLT sections') whose start no function symbol holds, when PATH
 * has no .symtab (stripped: none, or .dynsym alone; fdetab_has_symtab(), the
 * rule the converter's names of frames follow): S unnamed, name "", its
 * start, size and file offset. Returns as rec_elf_functions: 0 after all (and
 * without calling FN when PATH has a .symtab, or function symbols and no
 * unwind table); REC_ELF_ENOSYMS when it has neither.
 */
int rec_elf_unnamed_functions(const char *path, int (*fn)(const struct rec_sym *s, void *arg),
			      void *arg);

/* The code of one function (rec_elf_code). */
struct rec_func_code {
	uint64_t vaddr;        /* link-time address of its first instruction */
	uint64_t file_offset;  /* its offset in the file */
	const uint8_t *code;   /* its bytes (borrowed for the call; past the end of the
			        * file read as zeros) */
	size_t size;           /* bytes */
};

/*
 * Calls FN(C, ARG) with the code of every function of the ELF file PATH
 * that lies in an executable segment: its function symbols (.symtab and
 * .dynsym, so a function may come twice) and, in a file without .symtab,
 * the functions of its unwind table (.eh_frame_hdr) no symbol holds
 * (rec_elf_unnamed_functions()). A function larger than
 * REC_ELF_CODE_MAX bytes is skipped (memory stays bounded). Stops when FN
 * returns non-zero and returns that value. Returns 0 after all,
 * REC_ELF_ENOSYMS (neither table), REC_ELF_ENOTELF, -ENOMEM, -EIO or the
 * negative errno of open().
 */
#define REC_ELF_CODE_MAX (16u << 20)
int rec_elf_code(const char *path, int (*fn)(const struct rec_func_code *c, void *arg),
		 void *arg);

/* A name for the function S describes in messages: its symbol, else
 * "the function at 0xSTART" (unnamed), into BUF. */
const char *rec_sym_label(const struct rec_sym *s, char *buf, size_t size);

/*
 * Whether DEMANGLED (a symbol demangled: demangle_name) is a clone gcc made of
 * a function, entered by calls as the function is: a C name with a suffix of
 * ".isra", ".constprop", ".part", ".lto_priv" and their numbers ("load.isra.0",
 * "f.constprop.0.isra.0"), a C++ one with " [clone .SUFFIX]" groups alike; not
 * a cold part (".cold": jumps enter it, never a call). When it is, writes the
 * name of the function it was made of ("load", "app::Store::load(int)") into
 * OUT (SIZE bytes, truncated to fit) and returns true.
 */
bool rec_elf_clone_base(const char *demangled, char *out, size_t size);

/*
 * Whether S (from a '.') is the suffix gcc gives a part it split off a
 * function: ".cold", ".part.N", ".cold.N", ".part.N.cold"...
 */
bool rec_elf_part_suffix(const char *s);

/* Whether symbol NAME is a part split off some function (a '.' begins a
 * part suffix, rec_elf_part_suffix). */
bool rec_elf_is_part(const char *name);

/*
 * Writes up to MAX demangled function names of PATH that are closest to
 * NAME (edit distance on the demangled name, without its parameter list
 * when NAME has none; names containing NAME first) into OUT, MAX rows of
 * 128 bytes.
 * Returns how many were written (0..MAX) or a negative error as above.
 */
int rec_elf_suggest(const char *path, const char *name, char (*out)[128], int max);

/*
 * Measures the code of the x86-64 ELF file PATH that sets up a frame pointer:
 * *TOTAL is the size in bytes of its functions of 16 bytes or more (.symtab
 * and .dynsym; in a file without .symtab, also the functions of
 * .eh_frame_hdr no symbol holds),
 * *WITH the size of those among them whose first 32 bytes hold
 * mov %rsp,%rbp, as gcc and clang emit with -fno-omit-frame-pointer.
 * Returns 0, REC_ELF_ENOSYMS, REC_ELF_ENOTELF (also for another machine) or
 * a negative errno.
 */
int rec_elf_frame_pointers(const char *path, uint64_t *with, uint64_t *total);

/* A message for an error returned by this module (or strerror for errno). */
const char *rec_elf_strerror(int err);

/* Returns the negative errno ERR stands for: -ENOEXEC for REC_ELF_ENOTELF,
 * -EINVAL for the other REC_ELF_* errors, ERR itself for an errno. */
int rec_elf_errno(int err);

#endif
