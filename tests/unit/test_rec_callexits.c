/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/exits: the exits found in functions of this very
 * program written in assembly (so their shape does not depend on the
 * compiler): several returns, direct and conditional tail calls, a
 * conditional jump to the function's own entry, a switch's jump table and a
 * tail call through a register, a tail call through memory, a part split
 * off the function (NAME.cold), and the refusals (no exit, an exit with an
 * operand-size prefix, a symbol of size 0); then rec_callexit_leaves on
 * sampled registers (a jump taken or not, a target inside or outside, a
 * target read from this process's memory); and the return sites of the
 * direct calls of a function with tail calls (callsites.h).
 */
#include <asm/perf_regs.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "callexits.h"
#include "unit.h"

__asm__(
	".text\n"
	".globl ex_other\n.type ex_other,@function\n"
	"ex_other: ret\n.size ex_other, .-ex_other\n"

	/* two returns */
	".globl ex_multi\n.type ex_multi,@function\n"
	"ex_multi: test %edi,%edi\n je 1f\n mov $1,%eax\n ret\n"
	"1: xor %eax,%eax\n ret\n.size ex_multi, .-ex_multi\n"

	/* a conditional tail call, an internal jump, a tail call */
	".globl ex_tail\n.type ex_tail,@function\n"
	"ex_tail: test %edi,%edi\n jne ex_other\n jmp 2f\n nop\n2: jmp ex_other\n"
	".size ex_tail, .-ex_tail\n"

	/* a loop to its own entry (a tail call of itself), then a return */
	".globl ex_self\n.type ex_self,@function\n"
	"ex_self: dec %edi\n jnz ex_self\n ret\n.size ex_self, .-ex_self\n"

	/* a switch through a table (jmp *%rax stays inside), a tail call
	 * through %rsi, one through memory at 8(%rdx) */
	".globl ex_ind\n.type ex_ind,@function\n"
	"ex_ind: cmp $1,%edi\n ja 3f\n lea 4f(%rip),%rax\n movslq (%rax,%rdi,4),%rcx\n"
	" add %rcx,%rax\n jmp *%rax\n"
	"5: ret\n6: jmp *%rsi\n3: jmp *8(%rdx)\n"
	".size ex_ind, .-ex_ind\n"
	".section .rodata\n.p2align 2\n4: .long 5b-4b, 6b-4b\n.text\n"

	/* a part split off: the jump to it stays in the function, its return leaves */
	".globl ex_part\n.type ex_part,@function\n"
	"ex_part: test %edi,%edi\n jne ex_part.cold\n ret\n.size ex_part, .-ex_part\n"
	".type ex_part.cold,@function\n"
	"ex_part.cold: xor %eax,%eax\n ret\n.size ex_part.cold, .-ex_part.cold\n"

	/* never leaves */
	".globl ex_never\n.type ex_never,@function\n"
	"ex_never: nop\n7: jmp 7b\n.size ex_never, .-ex_never\n"

	/* retw: a return the kernel's uprobes refuse to probe */
	".globl ex_retw\n.type ex_retw,@function\n"
	"ex_retw: .byte 0x66, 0xc3\n.size ex_retw, .-ex_retw\n"

	/* the direct calls of ex_tail (callsites.h): two with a return site, one
	 * as the last instruction (no return), one followed by ud2 (not
	 * probeable); and one of ex_multi */
	".globl ex_caller1\n.type ex_caller1,@function\n"
	"ex_caller1: call ex_tail\n nop\n call ex_multi\n ret\n.size ex_caller1, .-ex_caller1\n"
	".globl ex_caller2\n.type ex_caller2,@function\n"
	"ex_caller2: push %rbx\n call ex_tail\n pop %rbx\n ret\n call ex_tail\n"
	".size ex_caller2, .-ex_caller2\n"
	".globl ex_caller3\n.type ex_caller3,@function\n"
	"ex_caller3: call ex_tail\n ud2\n.size ex_caller3, .-ex_caller3\n"

	/* no size */
	".globl ex_nosize\n.type ex_nosize,@function\n"
	"ex_nosize: ret\n");

void ex_other(void), ex_multi(void), ex_tail(void), ex_self(void), ex_ind(void),
	ex_part(void), ex_never(void), ex_retw(void), ex_nosize(void), ex_caller1(void),
	ex_caller2(void), ex_caller3(void);

static char self[4096];

/* The link-time address of function NAME of this program. */
static uint64_t addr_of(const char *name)
{
	struct rec_sym s;

	CHECK_INT_EQ(rec_elf_lookup(self, name, &s), 0);
	return s.value;
}

/* Finds the exits of NAME into X; returns rec_callexits_find's result. */
static int find(const char *name, struct rec_callexits *x, char *why, size_t size)
{
	return rec_callexits_find(self, self, addr_of(name), x, why, size);
}

/* The kinds of X's exits and their offsets from the function, "RET+3 JMP+9". */
static const char *shape(const struct rec_callexits *x, char *buf, size_t size)
{
	static const char *const kinds[] = { "RET", "JMP", "JCC", "JMP_IND" };
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < x->n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s%s+%u", i ? " " : "",
					x->exit[i].part ? "part:" : "", kinds[x->exit[i].kind],
					(unsigned)(x->exit[i].vaddr - x->code[x->exit[i].part ? 1 : 0].start));
	return buf;
}

static void expect_shape(const char *name, const char *want)
{
	struct rec_callexits x;
	char why[512], buf[256];
	int err = find(name, &x, why, sizeof(why));

	CHECK_INT_EQ(err, 0);
	if (err) {
		printf("  %s: %s\n", name, why);
		return;
	}
	CHECK_STR_EQ(shape(&x, buf, sizeof(buf)), want);
	rec_callexits_free(&x);
}

static void exits_shapes(void)
{
	expect_shape("ex_multi", "RET+9 RET+12");
	/* jne ex_other (JCC), jmp 2f stays inside, jmp ex_other (JMP) */
	expect_shape("ex_tail", "JCC+2 JMP+7");
	expect_shape("ex_self", "JCC+2 RET+4");
	/* every indirect jump may leave; the sample tells */
	expect_shape("ex_ind", "JMP_IND+19 RET+21 JMP_IND+22 JMP_IND+24");
	expect_shape("ex_part", "RET+4 part:RET+2");
}

static void exits_refused(void)
{
	struct rec_callexits x;
	char why[512];

	/* no exit: its calls may still end at a catch (the caller decides) */
	CHECK_INT_EQ(find("ex_never", &x, why, sizeof(why)), -ENOENT);
	CHECK(strstr(why, "ex_never has no return and no jump out of it: its calls end only "
		      "when an exception (or a longjmp) leaves it, or never") != NULL);
	CHECK_INT_EQ(x.n, 0);
	rec_callexits_free(&x);
	CHECK_INT_EQ(find("ex_retw", &x, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "operand-size prefix, which the kernel's uprobes cannot probe") != NULL);
	CHECK_INT_EQ(find("ex_nosize", &x, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "found ex_nosize of size 0") != NULL);
	/* not a function's start */
	CHECK_INT_EQ(rec_callexits_find(self, self, addr_of("ex_multi") + 2, &x, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "around it") != NULL);
}

/* The exit of X at offset OFF from the function's start. */
static const struct rec_callexit *exit_at(const struct rec_callexits *x, uint64_t off)
{
	for (int i = 0; i < x->n; i++)
		if (x->exit[i].vaddr == x->entry + off)
			return &x->exit[i];
	return NULL;
}

static void exits_leaves(void)
{
	struct rec_callexits x;
	uint64_t regs[REC_CALLEXIT_NREGS] = { 0 }, bias = 0x555500000000ull, e, table[2];
	const struct rec_callexit *jcc, *jtab, *jreg, *jmem, *ret;
	char why[512];

	/* a conditional tail call: taken when ZF is clear (jne) */
	CHECK_INT_EQ(find("ex_tail", &x, why, sizeof(why)), 0);
	jcc = exit_at(&x, 2);
	CHECK(jcc && jcc->kind == REC_CALLEXIT_JCC);
	if (jcc) {
		CHECK(jcc->regs & (1ull << PERF_REG_X86_FLAGS));
		regs[PERF_REG_X86_FLAGS] = 0x246;   /* ZF set: not taken */
		CHECK(!rec_callexit_leaves(&x, jcc, getpid(), jcc->vaddr + bias, regs));
		regs[PERF_REG_X86_FLAGS] = 0x206;
		CHECK(rec_callexit_leaves(&x, jcc, getpid(), jcc->vaddr + bias, regs));
	}
	rec_callexits_free(&x);

	CHECK_INT_EQ(find("ex_ind", &x, why, sizeof(why)), 0);
	e = x.entry;
	jtab = exit_at(&x, 19);
	ret = exit_at(&x, 21);
	jreg = exit_at(&x, 22);
	jmem = exit_at(&x, 24);
	CHECK(jtab && ret && jreg && jmem);
	if (jtab && ret && jreg && jmem) {
		CHECK_U64_EQ(jtab->regs, 1ull << PERF_REG_X86_AX);
		CHECK_U64_EQ(jreg->regs, 1ull << PERF_REG_X86_SI);
		CHECK_U64_EQ(jmem->regs, 1ull << PERF_REG_X86_DX);
		CHECK(rec_callexit_leaves(&x, ret, getpid(), ret->vaddr + bias, regs));
		/* the table's target: inside; elsewhere: a tail call */
		regs[PERF_REG_X86_AX] = e + 21 + bias;
		CHECK(!rec_callexit_leaves(&x, jtab, getpid(), jtab->vaddr + bias, regs));
		regs[PERF_REG_X86_AX] = e + 0x100000 + bias;
		CHECK(rec_callexit_leaves(&x, jtab, getpid(), jtab->vaddr + bias, regs));
		/* to its own entry: a new call */
		regs[PERF_REG_X86_SI] = e + bias;
		CHECK(rec_callexit_leaves(&x, jreg, getpid(), jreg->vaddr + bias, regs));
		regs[PERF_REG_X86_SI] = e + 22 + bias;
		CHECK(!rec_callexit_leaves(&x, jreg, getpid(), jreg->vaddr + bias, regs));
		/* through memory: this process's table[1] at 8(%rdx) */
		regs[PERF_REG_X86_DX] = (uint64_t)(uintptr_t)table;
		table[1] = e + 21 + bias;
		CHECK(!rec_callexit_leaves(&x, jmem, getpid(), jmem->vaddr + bias, regs));
		table[1] = e - 16 + bias;
		CHECK(rec_callexit_leaves(&x, jmem, getpid(), jmem->vaddr + bias, regs));
		/* unreadable: counted as leaving */
		regs[PERF_REG_X86_DX] = 8;
		CHECK(rec_callexit_leaves(&x, jmem, getpid(), jmem->vaddr + bias, regs));
	}
	rec_callexits_free(&x);
}

/* The return sites of a function with tail calls: the instruction after each
 * direct call of it that returns there and can be probed, in address
 * order; none for a function without tail calls. */
static void exits_sites(void)
{
	struct rec_callexits x;
	char why[512];

	CHECK_INT_EQ(find("ex_tail", &x, why, sizeof(why)), 0);
	CHECK_INT_EQ(x.sites.n, 2);
	CHECK_U64_EQ(x.sites.site[0].vaddr, addr_of("ex_caller1") + 5);
	CHECK_U64_EQ(x.sites.site[1].vaddr, addr_of("ex_caller2") + 6);
	CHECK_U64_EQ(x.sites.site[1].vaddr - x.sites.site[0].vaddr,
		     x.sites.site[1].file_offset - x.sites.site[0].file_offset);
	CHECK(rec_callsite_is(&x.sites, 2, addr_of("ex_caller2") + 6));
	CHECK(!rec_callsite_is(&x.sites, 1, addr_of("ex_caller2") + 6));
	CHECK(!rec_callsite_is(&x.sites, 2, addr_of("ex_caller2") + 5));
	CHECK_INT_EQ(x.sites.unprobed, 1);
	CHECK(!x.sites.more);
	rec_callexits_free(&x);
	CHECK_INT_EQ(find("ex_multi", &x, why, sizeof(why)), 0);
	CHECK_INT_EQ(x.sites.n, 0);
	rec_callexits_free(&x);
}

int main(void)
{
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n <= 0)
		return 1;
	self[n] = 0;
	UNIT_RUN(exits_shapes);
	UNIT_RUN(exits_refused);
	UNIT_RUN(exits_leaves);
	UNIT_RUN(exits_sites);
	return unit_exit();
}
