/* SPDX-License-Identifier: MIT */
/*
 * parse: one line of `perf script` text into a struct conv_line, with no copy
 * (every string is a span into the line). The grammar inverted is perf's:
 * tools/perf/builtin-script.c (process_event, the -F fields), and
 * tools/perf/util/trace-event-scripting.c perf_sample__sprintf_flags() with
 * its sample_flags[] table for the branch flags. Facts on the variants met
 * across perf versions are in docs/design.md "perf script grammar".
 *
 * Line kinds:
 *   branch     [COMM] PID/TID TIME: [PERIOD] [EVENT:MODS:] FLAGS FROM => TO
 *   sample     [COMM] PID/TID TIME: [PERIOD] EVENT:MODS: [[ADDR [SYM] [(DSO)]] IP SYM+OFF (DSO)]
 *              (a call chain follows on TAB-indented lines when recorded;
 *              ADDR is perf's addr column, printed when -F has addr: the
 *              data address, resolved for page faults)
 *   chain      \t IP SYM+OFF (DSO)           (one call-chain entry)
 *   aux        a psb, cbr, pwre, pwrx, exstop, mwait, ptwrite... event line,
 *              or a side-band record without control flow (FORK, COMM)
 *   error      " instruction trace error type T [time S.N ]cpu C pid P tid T
 *               ip 0xIP code N: MESSAGE"
 *   switch     [COMM] PID/TID TIME: PERF_RECORD_SWITCH[_CPU_WIDE] IN|OUT [preempt]
 *              [next|prev pid/tid: P/T]   (perf script --show-switch-events;
 *              perf's perf_event__fprintf_switch())
 *   exit       [COMM] PID/TID TIME: PERF_RECORD_EXIT(P:T):(PP:PT)   (the thread
 *              PID/TID exited; perf script --show-task-events, perf's
 *              perf_event__fprintf_task(); its FORK and COMM records are aux)
 *   blank      the empty line ending a call chain
 * A sample of sched:sched_switch also has its tracepoint text read (the
 * `trace` field, perf's sched_switch format): "prev_comm=C prev_pid=P
 * prev_prio=N prev_state=S ==> next_comm=C next_pid=P next_prio=N".
 * where FROM and TO are "IP [SYM[+0xOFF]] [(DSO)]".
 */
#ifndef SNAPTRACE_CONVERT_PARSE_H
#define SNAPTRACE_CONVERT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Branch flags: what perf's flag names say (bit per name). */
enum conv_flag {
	CONV_F_CALL = 1u << 0,
	CONV_F_RETURN = 1u << 1,
	CONV_F_JCC = 1u << 2,
	CONV_F_JMP = 1u << 3,
	CONV_F_INT = 1u << 4,
	CONV_F_IRET = 1u << 5,
	CONV_F_SYSCALL = 1u << 6,
	CONV_F_SYSRET = 1u << 7,
	CONV_F_ASYNC = 1u << 8,
	CONV_F_HW_INT = 1u << 9,
	CONV_F_TX_ABORT = 1u << 10,
	CONV_F_TRACE_BEGIN = 1u << 11,  /* "tr strt" */
	CONV_F_TRACE_END = 1u << 12,    /* "tr end" */
	CONV_F_VMENTRY = 1u << 13,
	CONV_F_VMEXIT = 1u << 14,
	CONV_F_BRANCH_MISS = 1u << 15,  /* "br miss" */
	CONV_F_IN_TX = 1u << 16,        /* "(x)": inside a TSX transaction */
};

/* What a call/return-like branch does to the stack. */
/* The longest line accepted, bytes (1 MiB: a perf script line is a few
 * hundred; a C++ name of 64 KiB makes one of 128 KiB). The fuzz build
 * (tests/fuzz/build.mk) makes it small, so that its inputs reach it. */
/* The longest comm perf prints: the kernel's TASK_COMM_LEN (16) less its
 * NUL, which a COMM record and /proc's name both keep to. Any process may
 * choose its comm (prctl PR_SET_NAME), a newline included: see
 * docs/design.md "Threat model". */
#define CONV_COMM_MAX 15

#ifndef CONV_LINE_MAX
#define CONV_LINE_MAX (1u << 20)
#endif

/* The latest time accepted in any input (perf script text, the dlfilter's
 * records, record.json), ns: 2^62 - 1 (146 years; perf's clocks count from
 * boot or 1970); 2^62 and later are refused. Every time written is an
 * input time plus at most CONV_TS_MAX (a sample's period is cut to it), so
 * it stays below 2^63, FXT's limit as Perfetto reads it. */
#define CONV_TS_MAX ((UINT64_C(1) << 62) - 1)

#define CONV_F_PUSH (CONV_F_CALL | CONV_F_INT | CONV_F_SYSCALL | CONV_F_HW_INT | CONV_F_VMENTRY)
#define CONV_F_POP (CONV_F_RETURN | CONV_F_IRET | CONV_F_SYSRET | CONV_F_VMEXIT)

/* A span of the line: LEN bytes at S, not NUL-terminated. */
struct conv_span {
	const char *s;
	uint32_t len;
};

/* One code location: "IP [SYM[+0xOFF]] [(DSO)]". */
struct conv_func;

struct conv_loc {
	uint64_t ip;
	struct conv_span sym;   /* len 0: no symbol ([unknown] or column absent) */
	struct conv_span dso;   /* len 0: column absent; "[unknown]" kept as is */
	uint64_t symoff;        /* bytes from the symbol's start */
	bool has_symoff;
	bool has_symtext;       /* a symbol column was printed (even "[unknown]") */
	const struct conv_func *func;  /* (sym, dso) interned by a reader that knew it
				        * (binstream.c); NULL: the driver interns it */
};

enum conv_line_kind {
	CONV_LINE_BLANK,
	CONV_LINE_BRANCH,
	CONV_LINE_SAMPLE,
	CONV_LINE_CHAIN,
	CONV_LINE_AUX,
	CONV_LINE_ERROR,
	CONV_LINE_SWITCH,         /* a context switch record (side-band) */
	CONV_LINE_EXIT,           /* a thread's exit record (side-band) */
	CONV_LINE_UNKNOWN_FLAG,   /* a branch line with a flag we do not know */
	CONV_LINE_BAD,            /* anything else */
	CONV_LINE_TOO_LONG,       /* longer than CONV_LINE_MAX: no perf script line is */
};

/* The fields of a sched:sched_switch sample's tracepoint text. Spans point
 * into the line. */
struct conv_sched_switch {
	bool valid;               /* every field below was read */
	struct conv_span prev_comm, prev_state, next_comm;
	int64_t prev_pid, prev_prio, next_pid, next_prio;
};

/* The fields of a signal:signal_deliver sample's tracepoint text ("sig=11
 * errno=0 code=1 sa_handler=0 sa_flags=0"). */
struct conv_signal_deliver {
	bool valid;               /* every field below was read */
	int64_t sig, err, code;
	struct conv_span handler, flags;   /* sa_handler, sa_flags: hex, as perf prints them */
};

struct conv_line {
	enum conv_line_kind kind;
	struct conv_span text;  /* the whole line */
	struct conv_span comm;  /* len 0 when absent */
	int64_t pid, tid;       /* pid = tid when only one is printed */
	bool has_time;
	uint64_t ts;            /* ns */
	uint8_t time_digits;    /* the header's time: its fraction digits (9 with perf
				 * script --ns); 0 when the time is not a header's */
	bool has_period;
	uint64_t period;
	struct conv_span event; /* "branches", "cpu-clock", "cbr": without its mods and
				 * perf's generic /TERMS/ ("branch-misses/period=50/u"
				 * is "branch-misses"); len 0 if absent */
	bool unwound;           /* the event's /TERMS/ (left out of EVENT) ask
				 * call-graph=dwarf: perf unwound the user part of its
				 * call chain from a copy of the stack */
	uint32_t flags;         /* enum conv_flag bits; branch lines only */
	struct conv_loc from;   /* branch: source; sample/chain: the ip */
	struct conv_loc to;     /* branch: target; sample: the addr column (has_addr) */
	bool has_loc;           /* sample: an inline IP was printed */
	bool has_addr;          /* sample: an addr column came before the IP */
	struct conv_span message;  /* error: MESSAGE; unknown flag: the flag word */
	uint32_t cbr_mhz;       /* aux "cbr": frequency in MHz, 0 if none */
	bool cr_joined;         /* bad: a CR inside, then a whole line (CR-only line ends) */
	bool switch_out;        /* switch: OUT (else IN) */
	bool switch_preempt;    /* switch: OUT preempt (the thread was still runnable) */
	struct conv_span cut_key;  /* a tracepoint's comm (prev_comm=, next_comm=) ran to the
				    * line's end, where a newline in the name cut it: the key
				    * of the field after it ("next_pid="), which a next line
				    * holds after the name's rest; len 0 otherwise */
	uint8_t cut_room;       /* cut_key: the bytes of the name the next lines may hold */
	struct conv_sched_switch sched;  /* sample of sched:sched_switch */
	struct conv_signal_deliver signal;  /* sample of signal:signal_deliver */
};

/*
 * Parses the LEN bytes of one line at S (no newline) into *L, which is
 * valid as long as the line's bytes are. Never fails: a line it cannot read
 * comes back as CONV_LINE_BAD (or CONV_LINE_UNKNOWN_FLAG with the word in
 * L->message; CONV_LINE_TOO_LONG past CONV_LINE_MAX bytes: a reader may
 * pass the first part of a longer line, any part past CONV_LINE_MAX); the
 * caller counts and reports it.
 */
void conv_parse_line(const char *s, size_t len, struct conv_line *l);

/*
 * Parses one line of `perf evlist -F` (LEN bytes at S, no newline): "EVENT:
 * sample_freq=N" (N samples per second) or "EVENT: sample_period=N" (one
 * sample every N counts of the event). Returns true with *EVENT the event's
 * name as conv_line.event gives it (pointing into S), *N (> 0) and *FREQ
 * (N is a frequency); false for any other line.
 */
bool conv_parse_evlist_line(const char *s, size_t len, struct conv_span *event, uint64_t *n,
			    bool *freq);

/* Returns true when spans A and B hold the same bytes. */
static inline bool conv_span_eq(struct conv_span a, struct conv_span b)
{
	return a.len == b.len && (a.len == 0 || __builtin_memcmp(a.s, b.s, a.len) == 0);
}

#endif
