/* SPDX-License-Identifier: MIT */
#include "signals.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SIG_MAX 64          /* the kernel's _NSIG */
#define SIG_FIRST_RT 32     /* the kernel's first real-time signal */

/* signal(7)'s default actions of the standard signals (1..31). */
static const unsigned char default_action[SIG_FIRST_RT] = {
	[SIGHUP] = SIG_ACTION_TERM, [SIGINT] = SIG_ACTION_TERM, [SIGQUIT] = SIG_ACTION_CORE,
	[SIGILL] = SIG_ACTION_CORE, [SIGTRAP] = SIG_ACTION_CORE, [SIGABRT] = SIG_ACTION_CORE,
	[SIGBUS] = SIG_ACTION_CORE, [SIGFPE] = SIG_ACTION_CORE, [SIGKILL] = SIG_ACTION_TERM,
	[SIGUSR1] = SIG_ACTION_TERM, [SIGSEGV] = SIG_ACTION_CORE, [SIGUSR2] = SIG_ACTION_TERM,
	[SIGPIPE] = SIG_ACTION_TERM, [SIGALRM] = SIG_ACTION_TERM, [SIGTERM] = SIG_ACTION_TERM,
	[SIGSTKFLT] = SIG_ACTION_TERM, [SIGCHLD] = SIG_ACTION_IGNORE, [SIGCONT] = SIG_ACTION_CONT,
	[SIGSTOP] = SIG_ACTION_STOP, [SIGTSTP] = SIG_ACTION_STOP, [SIGTTIN] = SIG_ACTION_STOP,
	[SIGTTOU] = SIG_ACTION_STOP, [SIGURG] = SIG_ACTION_IGNORE, [SIGXCPU] = SIG_ACTION_CORE,
	[SIGXFSZ] = SIG_ACTION_CORE, [SIGVTALRM] = SIG_ACTION_TERM, [SIGPROF] = SIG_ACTION_TERM,
	[SIGWINCH] = SIG_ACTION_IGNORE, [SIGIO] = SIG_ACTION_TERM, [SIGPWR] = SIG_ACTION_TERM,
	[SIGSYS] = SIG_ACTION_CORE,
};

/* The signals watched however the program handles them: the CPU's faults
 * and abort(). */
static const int crash_signals[] = { SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS };

const char *sig_name(int sig, char *buf, size_t size)
{
	const char *abbrev = sig > 0 && sig < SIG_FIRST_RT ? sigabbrev_np(sig) : NULL;

	if (abbrev)
		snprintf(buf, size, "SIG%s", abbrev);
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		snprintf(buf, size, sig == SIGRTMIN ? "SIGRTMIN" : "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, size, "SIG%d", sig);
	return buf;
}

/* S as a decimal number from MIN to MAX, or -1. */
static int small_number(const char *s, int min, int max)
{
	int v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > SIG_MAX)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v >= min && v <= max ? v : -1;
}

int sig_parse(const char *s, int *sig)
{
	int v = small_number(s, 1, SIG_MAX);

	if (v < 0) {
		if (!strncasecmp(s, "SIG", 3))
			s += 3;
		for (v = 1; v < SIG_FIRST_RT; v++) {
			const char *abbrev = sigabbrev_np(v);

			if (abbrev && !strcasecmp(s, abbrev))
				break;
		}
		if (v == SIG_FIRST_RT) {
			int k = strncasecmp(s, "RTMIN", 5) ? -1 : !s[5] ? 0 :
				s[5] == '+' ? small_number(s + 6, 0, SIG_MAX) : -1;

			v = k < 0 ? -1 : SIGRTMIN + k;
		}
		if (v < 1 || v > SIGRTMAX)
			return -1;
	}
	*sig = v;
	return 0;
}

/* si_code names (asm-generic/siginfo.h): of every signal, then per signal. */
struct code_name {
	int sig;                /* 0: any signal */
	int code;
	const char *name;
};

static const struct code_name code_names[] = {
	{ 0, 0, "SI_USER" }, { 0, 0x80, "SI_KERNEL" }, { 0, -1, "SI_QUEUE" },
	{ 0, -2, "SI_TIMER" }, { 0, -3, "SI_MESGQ" }, { 0, -4, "SI_ASYNCIO" },
	{ 0, -5, "SI_SIGIO" }, { 0, -6, "SI_TKILL" }, { 0, -7, "SI_DETHREAD" },
	{ 0, -60, "SI_ASYNCNL" },
	{ SIGILL, 1, "ILL_ILLOPC" }, { SIGILL, 2, "ILL_ILLOPN" }, { SIGILL, 3, "ILL_ILLADR" },
	{ SIGILL, 4, "ILL_ILLTRP" }, { SIGILL, 5, "ILL_PRVOPC" }, { SIGILL, 6, "ILL_PRVREG" },
	{ SIGILL, 7, "ILL_COPROC" }, { SIGILL, 8, "ILL_BADSTK" }, { SIGILL, 9, "ILL_BADIADDR" },
	{ SIGFPE, 1, "FPE_INTDIV" }, { SIGFPE, 2, "FPE_INTOVF" }, { SIGFPE, 3, "FPE_FLTDIV" },
	{ SIGFPE, 4, "FPE_FLTOVF" }, { SIGFPE, 5, "FPE_FLTUND" }, { SIGFPE, 6, "FPE_FLTRES" },
	{ SIGFPE, 7, "FPE_FLTINV" }, { SIGFPE, 8, "FPE_FLTSUB" }, { SIGFPE, 14, "FPE_FLTUNK" },
	{ SIGFPE, 15, "FPE_CONDTRAP" },
	{ SIGSEGV, 1, "SEGV_MAPERR" }, { SIGSEGV, 2, "SEGV_ACCERR" }, { SIGSEGV, 3, "SEGV_BNDERR" },
	{ SIGSEGV, 4, "SEGV_PKUERR" }, { SIGSEGV, 5, "SEGV_ACCADI" }, { SIGSEGV, 6, "SEGV_ADIDERR" },
	{ SIGSEGV, 7, "SEGV_ADIPERR" }, { SIGSEGV, 8, "SEGV_MTEAERR" }, { SIGSEGV, 9, "SEGV_MTESERR" },
	{ SIGSEGV, 10, "SEGV_CPERR" },
	{ SIGBUS, 1, "BUS_ADRALN" }, { SIGBUS, 2, "BUS_ADRERR" }, { SIGBUS, 3, "BUS_OBJERR" },
	{ SIGBUS, 4, "BUS_MCEERR_AR" }, { SIGBUS, 5, "BUS_MCEERR_AO" },
	{ SIGTRAP, 1, "TRAP_BRKPT" }, { SIGTRAP, 2, "TRAP_TRACE" }, { SIGTRAP, 3, "TRAP_BRANCH" },
	{ SIGTRAP, 4, "TRAP_HWBKPT" }, { SIGTRAP, 5, "TRAP_UNK" }, { SIGTRAP, 6, "TRAP_PERF" },
	{ SIGCHLD, 1, "CLD_EXITED" }, { SIGCHLD, 2, "CLD_KILLED" }, { SIGCHLD, 3, "CLD_DUMPED" },
	{ SIGCHLD, 4, "CLD_TRAPPED" }, { SIGCHLD, 5, "CLD_STOPPED" }, { SIGCHLD, 6, "CLD_CONTINUED" },
	{ SIGSYS, 1, "SYS_SECCOMP" }, { SIGSYS, 2, "SYS_USER_DISPATCH" },
};

const char *sig_code_name(int sig, int code)
{
	for (size_t i = 0; i < sizeof(code_names) / sizeof(code_names[0]); i++)
		if (code_names[i].code == code &&
		    (code_names[i].sig == sig || (!code_names[i].sig && (code <= 0 || code == 0x80))))
			return code_names[i].name;
	return NULL;
}

enum sig_action sig_default_action(int sig)
{
	if (sig > 0 && sig < SIG_FIRST_RT)
		return (enum sig_action)default_action[sig];
	return SIG_ACTION_TERM;
}

bool sig_fatal_by_default(int sig)
{
	enum sig_action a = sig_default_action(sig);

	return sig > 0 && sig <= SIG_MAX && (a == SIG_ACTION_TERM || a == SIG_ACTION_CORE);
}

bool sig_delivered_as_kill(int sig)
{
	return sig != SIGKILL && sig > 0 && sig <= SIG_MAX &&
	       sig_default_action(sig) == SIG_ACTION_TERM;
}

static bool is_crash_signal(int sig)
{
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		if (crash_signals[i] == sig)
			return true;
	return false;
}

bool sig_is_crash(int sig, int code)
{
	return sig != SIGABRT && is_crash_signal(sig) && code > 0;
}

bool sig_has_fault_addr(int sig, int code)
{
	return (sig == SIGSEGV || sig == SIGBUS) && code > 0 && code != 0x80;
}

const char *sig_deliver_filter(int trigger, char *buf, size_t size)
{
	size_t n = 0;
	bool first = true;

#define PUT(...) (n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, __VA_ARGS__))
	for (size_t i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		PUT("%ssig == %d", i ? " || " : "", crash_signals[i]);
	if (trigger > 0 && !is_crash_signal(trigger))
		PUT(" || sig == %d", trigger);
	PUT(" || (sa_handler == 0 && (");
	for (int sig = 1; sig < SIG_FIRST_RT; sig++) {
		if (!sig_fatal_by_default(sig) || is_crash_signal(sig))
			continue;
		PUT("%ssig == %d", first ? "" : " || ", sig);
		first = false;
	}
	PUT(" || sig >= %d))", SIG_FIRST_RT);
#undef PUT
	return buf;
}

bool sig_watched(int sig, unsigned long handler, int trigger)
{
	return is_crash_signal(sig) || (trigger > 0 && sig == trigger) ||
	       (handler == 0 && sig_fatal_by_default(sig));
}

const char *sig_ending_text(const struct sig_ending *e, char *buf, size_t size)
{
	char name[SIG_NAME_MAX];
	const char *code = e->has_code ? sig_code_name(e->sig, e->code) : NULL;
	size_t n = 0;

#define PUT(...) (n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, __VA_ARGS__))
	if (!size)
		return buf;
	buf[0] = '\0';
	if (e->by_stop) {
		PUT("was killed by %s, which stopped the recording too", sig_name(e->sig, name,
										   sizeof(name)));
		return buf;
	}
	if (e->exited)
		PUT("exited with status %d", e->status);
	else if (!e->sig)
		PUT("ended (its exit status is unknown)");
	if (!e->sig)
		return buf;
	PUT("%s%s", e->exited ? " after handling " : "was killed by ", sig_name(e->sig, name,
										    sizeof(name)));
	if (e->cause || code || e->has_addr) {
		PUT(" (%s", e->cause ? e->cause : code ? code : "");
		if (e->has_addr)
			PUT("%saddress 0x%" PRIx64, e->cause || code ? ", " : "", e->addr);
		PUT(")");
	}
	if (e->sender_pid)
		PUT(" from process %" PRId64 "%s%s%s", e->sender_pid, e->sender_comm ? " (" : "",
		    e->sender_comm ? e->sender_comm : "", e->sender_comm ? ")" : "");
	if (e->where)
		PUT(" in %s%s%s", e->where, e->inside ? ", inside " : "", e->inside ? e->inside : "");
	else if (e->has_ip && !e->sender_pid)
		PUT(" at ip 0x%" PRIx64, e->ip);
	if (e->tid)
		PUT(", thread %" PRId64 "%s", e->tid, e->tid_unrecorded ? " (not recorded: its "
		    "stack is not in the trace; " SIG_UNRECORDED_HINT ")" : "");
	if (e->core_known && e->core)
		PUT(", core dumped");
#undef PUT
	return buf;
}

/* Bit SIG - 1: signal SIG was ignored at start; NOTED once read. */
static uint64_t ignored_at_start;
static volatile sig_atomic_t noted;

void sig_note_start(void)
{
	struct sigaction old;

	if (noted)
		return;
	for (int sig = 1; sig <= SIG_MAX; sig++)
		if (!sigaction(sig, NULL, &old) && old.sa_handler == SIG_IGN)
			ignored_at_start |= UINT64_C(1) << (sig - 1);
	noted = 1;
}

bool sig_ignored_at_start(int sig)
{
	sig_note_start();
	return sig > 0 && sig <= SIG_MAX && (ignored_at_start >> (sig - 1) & 1);
}

#define SIG_STOPS_ITEM(sig) sig,
const int sig_stops[] = { SIG_STOPS(SIG_STOPS_ITEM) };
const size_t sig_nstops = sizeof(sig_stops) / sizeof(sig_stops[0]);

int sig_stop_pending(void)
{
	sigset_t set;

	if (sigpending(&set))
		return 0;
	for (size_t i = 0; i < sig_nstops; i++)
		if (sigismember(&set, sig_stops[i]))
			return sig_stops[i];
	return 0;
}

sigset_t *sig_not_ignored(const int *sigs, size_t n, sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < n; i++)
		if (!sig_ignored_at_start(sigs[i]))
			sigaddset(set, sigs[i]);
	return set;
}
