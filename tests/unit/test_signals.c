/* SPDX-License-Identifier: MIT */
/* common/signals: names, si_code names, default actions, the kernel filter,
 * the signals ignored at start. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "signals.h"
#include "unit.h"

static void names_round_trip(void)
{
	char buf[SIG_NAME_MAX];
	int sig = 0;

	CHECK_STR_EQ(sig_name(SIGSEGV, buf, sizeof(buf)), "SIGSEGV");
	CHECK_STR_EQ(sig_name(SIGRTMIN + 2, buf, sizeof(buf)), "SIGRTMIN+2");
	CHECK_STR_EQ(sig_name(99, buf, sizeof(buf)), "SIG99");
	for (int s = 1; s <= SIGRTMAX; s++) {
		sig_name(s, buf, sizeof(buf));
		if (s < SIGRTMIN && !sigabbrev_np(s))
			continue;   /* 32, 33: glibc's own */
		CHECK_INT_EQ(sig_parse(buf, &sig), 0);
		CHECK_INT_EQ(sig, s);
	}
	CHECK_INT_EQ(sig_parse("segv", &sig), 0);
	CHECK_INT_EQ(sig, SIGSEGV);
	CHECK_INT_EQ(sig_parse("USR1", &sig), 0);
	CHECK_INT_EQ(sig, SIGUSR1);
	CHECK_INT_EQ(sig_parse("9", &sig), 0);
	CHECK_INT_EQ(sig, SIGKILL);
	CHECK_INT_EQ(sig_parse("RTMIN", &sig), 0);
	CHECK_INT_EQ(sig, SIGRTMIN);
	CHECK_INT_EQ(sig_parse("", &sig), -1);
	CHECK_INT_EQ(sig_parse("0", &sig), -1);
	CHECK_INT_EQ(sig_parse("65", &sig), -1);
	CHECK_INT_EQ(sig_parse("SIGFOO", &sig), -1);
	CHECK_INT_EQ(sig_parse("RTMIN+99", &sig), -1);
	CHECK_INT_EQ(sig_parse("11x", &sig), -1);
}

static void code_names(void)
{
	CHECK_STR_EQ(sig_code_name(SIGSEGV, 1), "SEGV_MAPERR");
	CHECK_STR_EQ(sig_code_name(SIGSEGV, 2), "SEGV_ACCERR");
	CHECK_STR_EQ(sig_code_name(SIGBUS, 2), "BUS_ADRERR");
	CHECK_STR_EQ(sig_code_name(SIGFPE, 1), "FPE_INTDIV");
	CHECK_STR_EQ(sig_code_name(SIGILL, 2), "ILL_ILLOPN");
	CHECK_STR_EQ(sig_code_name(SIGABRT, -6), "SI_TKILL");
	CHECK_STR_EQ(sig_code_name(SIGKILL, 0), "SI_USER");
	CHECK_STR_EQ(sig_code_name(SIGSEGV, 0x80), "SI_KERNEL");
	CHECK(sig_code_name(SIGSEGV, 77) == NULL);
	CHECK(sig_code_name(SIGUSR1, 1) == NULL);   /* no codes of its own */
}

/* signal(7): a crash is the CPU's fault of the program's own instruction,
 * never a signal a process sent (kill -SEGV); abort() is no crash. */
static void kinds(void)
{
	CHECK(sig_is_crash(SIGSEGV, 1));
	CHECK(sig_is_crash(SIGSEGV, 0x80));   /* a general protection fault */
	CHECK(sig_is_crash(SIGFPE, 1));
	CHECK(!sig_is_crash(SIGSEGV, 0));     /* kill -SEGV */
	CHECK(!sig_is_crash(SIGSEGV, -6));    /* raise(SIGSEGV) */
	CHECK(!sig_is_crash(SIGABRT, -6));
	CHECK(!sig_is_crash(SIGKILL, 0));
	CHECK(sig_has_fault_addr(SIGSEGV, 1) && sig_has_fault_addr(SIGBUS, 2));
	CHECK(!sig_has_fault_addr(SIGSEGV, 0x80) && !sig_has_fault_addr(SIGFPE, 1));
	CHECK_INT_EQ(sig_default_action(SIGSEGV), SIG_ACTION_CORE);
	CHECK_INT_EQ(sig_default_action(SIGTERM), SIG_ACTION_TERM);
	CHECK_INT_EQ(sig_default_action(SIGCHLD), SIG_ACTION_IGNORE);
	CHECK_INT_EQ(sig_default_action(SIGTSTP), SIG_ACTION_STOP);
	CHECK_INT_EQ(sig_default_action(SIGRTMIN), SIG_ACTION_TERM);
	CHECK(sig_fatal_by_default(SIGKILL) && sig_fatal_by_default(SIGUSR1));
	CHECK(!sig_fatal_by_default(SIGWINCH) && !sig_fatal_by_default(SIGCONT));
}

/* The signals the kernel delivers as a SIGKILL when unhandled: signal(7)'s
 * "Term" ones (kernel/signal.c complete_signal(): fatal, no core dump). */
static void delivered_as_kill(void)
{
	static const int as_kill[] = { SIGHUP, SIGINT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM,
				       SIGTERM, SIGSTKFLT, SIGVTALRM, SIGPROF, SIGIO, SIGPWR };
	static const int not[] = { SIGKILL, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
				   SIGSEGV, SIGXCPU, SIGXFSZ, SIGSYS, SIGCHLD, SIGCONT, SIGSTOP,
				   SIGTSTP, SIGWINCH, SIGURG, 0, 65 };

	for (size_t i = 0; i < sizeof(as_kill) / sizeof(as_kill[0]); i++)
		CHECK(sig_delivered_as_kill(as_kill[i]));
	for (size_t i = 0; i < sizeof(not) / sizeof(not[0]); i++)
		CHECK(!sig_delivered_as_kill(not[i]));
	CHECK(sig_delivered_as_kill(SIGRTMIN) && sig_delivered_as_kill(SIGRTMAX));
}

/* The kernel filter and the recorder's own check say the same. */
static void filter_and_watched(void)
{
	char f[512];

	sig_deliver_filter(0, f, sizeof(f));
	CHECK(strstr(f, "sig == 6 ||"));
	CHECK(!strstr(f, "sig == 17"));                 /* SIGCHLD: ignored by default */
	CHECK(strstr(f, "(sa_handler == 0 && (sig == 1 || sig == 2 || sig == 3 || sig == 9 "));
	CHECK(strstr(f, "|| sig >= 32))"));
	CHECK(sig_watched(SIGSEGV, 0x1234, 0));          /* handled: still a crash */
	CHECK(sig_watched(SIGKILL, 0, 0));
	CHECK(!sig_watched(SIGUSR1, 0x1234, 0));         /* handled, not asked for */
	CHECK(sig_watched(SIGUSR1, 0x1234, SIGUSR1));
	CHECK(!sig_watched(SIGCHLD, 0, 0));
	sig_deliver_filter(SIGUSR1, f, sizeof(f));
	CHECK(strstr(f, "sig == 31 || sig == 10 || (sa_handler"));
	sig_deliver_filter(SIGSEGV, f, sizeof(f));       /* already watched: once */
	CHECK(strstr(f, "sig == 31 || (sa_handler"));
	CHECK(strlen(sig_deliver_filter(SIGRTMIN + 5, f, sizeof(f))) < sizeof(f) - 1);
}

/* What was ignored when the program started is what sig_ignored_at_start()
 * answers ever after, whatever the program sets later; sig_not_ignored()
 * keeps the others. In a child that notes first, as a main() does. */
static void ignored_at_start(void)
{
	static const int sigs[] = { SIGINT, SIGHUP, SIGPIPE };
	pid_t pid = fork();
	int status = -1;

	CHECK(pid >= 0);
	if (pid == 0) {
		sigset_t set;
		bool ok;

		signal(SIGHUP, SIG_IGN);
		signal(SIGINT, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sig_note_start();
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_IGN);
		sig_note_start();	/* again: changes nothing */
		sig_not_ignored(sigs, 3, &set);
		ok = sig_ignored_at_start(SIGHUP) && !sig_ignored_at_start(SIGINT) &&
		     !sig_ignored_at_start(SIGPIPE) && !sig_ignored_at_start(0) &&
		     !sig_ignored_at_start(65) && sigismember(&set, SIGINT) &&
		     !sigismember(&set, SIGHUP) && sigismember(&set, SIGPIPE);
		_exit(ok ? 0 : 1);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK_INT_EQ(status, 0);
}

int main(void)
{
	UNIT_RUN(names_round_trip);
	UNIT_RUN(code_names);
	UNIT_RUN(kinds);
	UNIT_RUN(delivered_as_kill);
	UNIT_RUN(filter_and_watched);
	UNIT_RUN(ignored_at_start);
	return unit_exit();
}
