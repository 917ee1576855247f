/* SPDX-License-Identifier: MIT */
/*
 * The perf script line parser. Cursor helpers take a span [p, end) and never
 * read past END; numbers are read from a pointer and a length with overflow
 * checks (after redis string2ll), so no line needs a NUL terminator.
 */
#include "parse.h"

#include <stddef.h>
#include <string.h>

/* Branch flag names as perf prints them (sample_flags[] in perf). Longer
 * phrases sharing a first word come first. */
static const struct {
	const char *name;
	uint8_t len;
	uint32_t flags;
} flag_names[] = {
	{ "call", 4, CONV_F_CALL },
	{ "return", 6, CONV_F_RETURN },
	{ "jcc", 3, CONV_F_JCC },
	{ "jmp", 3, CONV_F_JMP },
	{ "int", 3, CONV_F_INT },
	{ "iret", 4, CONV_F_IRET },
	{ "syscall", 7, CONV_F_SYSCALL },
	{ "sysret", 6, CONV_F_SYSRET },
	{ "async", 5, CONV_F_ASYNC },
	{ "hw int", 6, CONV_F_HW_INT },
	{ "tx abrt", 7, CONV_F_TX_ABORT },
	{ "tr strt", 7, CONV_F_TRACE_BEGIN },
	{ "tr end", 6, CONV_F_TRACE_END },
	{ "vmentry", 7, CONV_F_VMENTRY },
	{ "vmexit", 6, CONV_F_VMEXIT },
	{ "br miss", 7, CONV_F_BRANCH_MISS },
};

/* Events that perf's --itrace=p (and friends) synthesize beside branches:
 * they carry no control flow. */
static const struct {
	const char *name;
	uint8_t len;
} aux_events[] = {
	{ "psb", 3 }, { "cbr", 3 }, { "pwre", 4 }, { "pwrx", 4 }, { "exstop", 6 },
	{ "mwait", 5 }, { "ptwrite", 7 }, { "evt", 3 }, { "iflag", 5 },
};

static const char error_prefix[] = "instruction trace error";

/* Side-band records perf script prints with --show-switch-events and
 * --show-task-events (perf_event__fprintf_switch(), _task(), _comm()), by
 * the name that starts them: a switch, a thread's exit, and records that
 * change no time of a thread (a fork, a comm). */
enum sideband_kind { SB_SWITCH, SB_EXIT, SB_OTHER };

static const struct {
	const char *name;
	uint8_t len;
	uint8_t kind;        /* enum sideband_kind */
} sideband_records[] = {
	{ "PERF_RECORD_SWITCH_CPU_WIDE", 27, SB_SWITCH }, { "PERF_RECORD_SWITCH", 18, SB_SWITCH },
	{ "PERF_RECORD_EXIT", 16, SB_EXIT }, { "PERF_RECORD_FORK", 16, SB_OTHER },
	{ "PERF_RECORD_COMM", 16, SB_OTHER },
};

/* The fields of a tracepoint's text, in order; a comm runs up to the
 * next field's key (it may hold spaces), the others are one word. */
enum field_kind { FIELD_COMM, FIELD_WORD, FIELD_INT, FIELD_ARROW };

struct field {
	const char *key;     /* with its '=' */
	uint8_t len;
	uint8_t kind;        /* enum field_kind */
	uint8_t offset;      /* in the struct the fields go to */
};

/* sched:sched_switch (struct conv_sched_switch) */
static const struct field sched_switch_fields[] = {
	{ "prev_comm=", 10, FIELD_COMM, offsetof(struct conv_sched_switch, prev_comm) },
	{ "prev_pid=", 9, FIELD_INT, offsetof(struct conv_sched_switch, prev_pid) },
	{ "prev_prio=", 10, FIELD_INT, offsetof(struct conv_sched_switch, prev_prio) },
	{ "prev_state=", 11, FIELD_WORD, offsetof(struct conv_sched_switch, prev_state) },
	{ "==>", 3, FIELD_ARROW, 0 },
	{ "next_comm=", 10, FIELD_COMM, offsetof(struct conv_sched_switch, next_comm) },
	{ "next_pid=", 9, FIELD_INT, offsetof(struct conv_sched_switch, next_pid) },
	{ "next_prio=", 10, FIELD_INT, offsetof(struct conv_sched_switch, next_prio) },
};

/* signal:signal_deliver (struct conv_signal_deliver) */
static const struct field signal_deliver_fields[] = {
	{ "sig=", 4, FIELD_INT, offsetof(struct conv_signal_deliver, sig) },
	{ "errno=", 6, FIELD_INT, offsetof(struct conv_signal_deliver, err) },
	{ "code=", 5, FIELD_INT, offsetof(struct conv_signal_deliver, code) },
	{ "sa_handler=", 11, FIELD_WORD, offsetof(struct conv_signal_deliver, handler) },
	{ "sa_flags=", 9, FIELD_WORD, offsetof(struct conv_signal_deliver, flags) },
};

/* The tracepoints whose text is read, by event name. */
static const struct tracepoint {
	const char *event;
	uint8_t len;
	const struct field *fields;
	uint8_t nfields;
	size_t at;           /* offset of the fields' struct in struct conv_line */
} tracepoints[] = {
	{ "sched:sched_switch", 18, sched_switch_fields,
	  sizeof(sched_switch_fields) / sizeof(sched_switch_fields[0]),
	  offsetof(struct conv_line, sched) },
	{ "signal:signal_deliver", 21, signal_deliver_fields,
	  sizeof(signal_deliver_fields) / sizeof(signal_deliver_fields[0]),
	  offsetof(struct conv_line, signal) },
};

/* Byte classes, one table lookup per byte on the hot paths: C_HEX | value
 * for a hex digit, C_SPACE for a blank, 0 for anything else. */
enum { C_HEX = 0x80, C_SPACE = 0x40 };

static const uint8_t cclass[256] = {
	[' '] = C_SPACE, ['\t'] = C_SPACE, ['\r'] = C_SPACE,
	['0'] = C_HEX | 0, ['1'] = C_HEX | 1, ['2'] = C_HEX | 2, ['3'] = C_HEX | 3,
	['4'] = C_HEX | 4, ['5'] = C_HEX | 5, ['6'] = C_HEX | 6, ['7'] = C_HEX | 7,
	['8'] = C_HEX | 8, ['9'] = C_HEX | 9, ['a'] = C_HEX | 10, ['b'] = C_HEX | 11,
	['c'] = C_HEX | 12, ['d'] = C_HEX | 13, ['e'] = C_HEX | 14, ['f'] = C_HEX | 15,
	['A'] = C_HEX | 10, ['B'] = C_HEX | 11, ['C'] = C_HEX | 12, ['D'] = C_HEX | 13,
	['E'] = C_HEX | 14, ['F'] = C_HEX | 15,
};

static inline bool is_space(char c)
{
	return cclass[(uint8_t)c] == C_SPACE;
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* The value of hex digit C, or -1. */
static inline int hex_value(char c)
{
	uint8_t v = cclass[(uint8_t)c];

	return v & C_HEX ? v & 15 : -1;
}

/* Skips blanks; perf pads its columns with long runs of spaces, so words of
 * 8 bytes are stepped over, and the first non-space byte of a word is found
 * from the lowest set byte of (word ^ spaces) (little-endian loads). */
static inline __attribute__((always_inline)) const char *skip_spaces(const char *p,
								     const char *end)
{
	static const uint64_t spaces = 0x2020202020202020ull;
	uint64_t w;

	while (end - p >= 8) {
		memcpy(&w, p, 8);
		w ^= spaces;
		if (w) {
			p += __builtin_ctzll(w) >> 3;
			break;
		}
		p += 8;
	}
	while (p < end && is_space(*p))
		p++;
	return p;
}

static const char *token_end(const char *p, const char *end)
{
	while (p < end && !is_space(*p))
		p++;
	return p;
}

static struct conv_span trim(const char *p, const char *end)
{
	p = skip_spaces(p, end);
	while (end > p && is_space(end[-1]))
		end--;
	return (struct conv_span){ p, (uint32_t)(end - p) };
}

/*
 * Reads hex digits at [p, end) up to the first non-hex byte. Returns the
 * number of digits read (0: none, or more than 16, which would overflow).
 */
static size_t parse_hex(const char *p, const char *end, uint64_t *out)
{
	size_t max = (size_t)(end - p), n;
	uint64_t v = 0;
	uint8_t d;

	if (max > 17)
		max = 17;
	for (n = 0; n < max && ((d = cclass[(uint8_t)p[n]]) & C_HEX); n++)
		v = v << 4 | (d & 15);
	if (n == 17)
		return 0;
	*out = v;
	return n;
}

/* Reads the whole span [p, end) as a decimal number, optionally signed.
 * Returns false on any other byte, on overflow or when empty. */
static bool parse_dec(const char *p, const char *end, int64_t *out)
{
	bool neg = false;
	uint64_t v = 0;

	if (p < end && *p == '-') {
		neg = true;
		p++;
	}
	if (p == end || end - p > 18)	/* 18 digits cannot overflow */
		return false;
	for (; p < end; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (d > 9)
			return false;
		v = v * 10 + d;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return true;
}

/* Reads up to 18 decimal digits at [p, end) into *V, stopping at the first
 * other byte. Returns the number of digits read (0: none, or too many). */
static size_t read_digits(const char *p, const char *end, uint64_t *v)
{
	size_t n = 0, max = (size_t)(end - p);
	unsigned d;

	*v = 0;
	if (max > 19)
		max = 19;
	while (n < max && (d = (unsigned)(p[n] - '0')) <= 9) {
		*v = *v * 10 + d;
		n++;
	}
	return n == 19 ? 0 : n;
}

/* Reads "SEC.FRAC" (1 to 9 fraction digits) at [p, end) into ns. */
static bool parse_time(const char *p, const char *end, uint64_t *ns)
{
	static const uint32_t scale[10] = { 0, 100000000, 10000000, 1000000, 100000, 10000,
					    1000, 100, 10, 1 };
	uint64_t sec, frac;
	size_t n = read_digits(p, end, &sec), m;

	if (n == 0 || p + n == end || p[n] != '.' || sec > UINT64_MAX / 1000000000u - 1)
		return false;
	p += n + 1;
	m = read_digits(p, end, &frac);
	if (m == 0 || m > 9 || p + m != end)
		return false;
	*ns = sec * 1000000000u + frac * scale[m];
	return true;
}

/* Reads "PID/TID" or "TID" at [p, end). */
static bool parse_pid_tid(const char *p, const char *end, struct conv_line *l)
{
	uint64_t a, b;
	size_t n = read_digits(p, end, &a), m;

	if (n == 0 || a > INT64_MAX)
		return false;
	if (p + n == end) {
		l->pid = l->tid = (int64_t)a;
		return true;
	}
	if (p[n] != '/')
		return false;
	m = read_digits(p + n + 1, end, &b);
	if (m == 0 || p + n + 1 + m != end || b > INT64_MAX)
		return false;
	l->pid = (int64_t)a;
	l->tid = (int64_t)b;
	return true;
}

/*
 * Splits "SYM[+0xOFF] [(DSO)]" (already trimmed, after the ip) into LOC's
 * symbol, offset and dso. The dso is the last parenthesised group that is
 * preceded by a space or starts the text (so "f(int)" stays a symbol).
 */
static void parse_sym_dso(struct conv_span t, struct conv_loc *loc)
{
	const char *p = t.s, *end = t.s + t.len;

	if (end > p && end[-1] == ')') {
		int depth = 0;
		const char *q = memrchr(p, '(', (size_t)(end - p));

		/* Fast path: no ')' inside; else match the parentheses. */
		if (q && !memchr(q, ')', (size_t)(end - q - 1))) {
			depth = 0;
		} else {
			q = end;
			while (q > p) {
				q--;
				if (*q == ')')
					depth++;
				else if (*q == '(' && --depth == 0)
					break;
			}
		}
		if (depth == 0 && *q == '(' && (q == p || is_space(q[-1]))) {
			loc->dso = (struct conv_span){ q + 1, (uint32_t)(end - q - 2) };
			end = q;
			while (end > p && is_space(end[-1]))
				end--;
		}
	}
	loc->has_symtext = end > p;
	if (end - p == 9 && !memcmp(p, "[unknown]", 9))
		return;
	/* "+0xHEX" at the very end is the offset; symbols may contain '+'. */
	const char *q = end;

	while (q > p && hex_value(q[-1]) >= 0)
		q--;
	if (q < end && q - p >= 3 && q[-1] == 'x' && q[-2] == '0' && q[-3] == '+' &&
	    parse_hex(q, end, &loc->symoff) == (size_t)(end - q)) {
		loc->has_symoff = true;
		end = q - 3;
	}
	loc->sym = (struct conv_span){ p, (uint32_t)(end - p) };
}

/* Parses "IP [SYM[+0xOFF]] [(DSO)]" at [p, end). Returns false without an IP. */
static bool parse_loc(const char *p, const char *end, struct conv_loc *loc)
{
	size_t n;

	memset(loc, 0, sizeof(*loc));
	p = skip_spaces(p, end);
	n = parse_hex(p, end, &loc->ip);
	if (n == 0 || (p + n < end && !is_space(p[n])))
		return false;
	parse_sym_dso(trim(p + n, end), loc);
	return true;
}

/* Finds the "=>" between source and target: the first " =>" followed by
 * spaces and a hex digit (symbols may contain "=>"). */
static const char *find_arrow(const char *p, const char *end)
{
	const char *q = p;

	while ((q = memchr(q, '=', (size_t)(end - q))) != NULL) {
		const char *a;

		if (q + 1 == end)
			return NULL;
		q++;
		if (*q != '>' || q - 2 < p || !is_space(q[-2]))
			continue;
		a = skip_spaces(q + 1, end);
		if (a > q + 1 && a < end && hex_value(*a) >= 0)
			return q - 1;	/* parse_loc() checks the address */
	}
	return NULL;
}

/* Can a flag name start with C? */
static bool flag_start(char c)
{
	switch (c) {
	case 'a': case 'b': case 'c': case 'h': case 'i': case 'j': case 'r': case 's':
	case 't': case 'v':
		return true;
	default:
		return false;
	}
}

/* Reads the flag words at *PP. Returns false on an unknown word, which is
 * left in L->message. */
static bool parse_flags(const char **pp, const char *end, struct conv_line *l)
{
	const char *p = *pp;

	for (;;) {
		size_t i = 0;
		const char *w;

		p = skip_spaces(p, end);
		if (p == end)
			break;
		if (*p == '(') {	/* "(x)" and other per-branch marks */
			w = token_end(p, end);
			if (w - p == 3 && p[1] == 'x')
				l->flags |= CONV_F_IN_TX;
			p = w;
			continue;
		}
		if (end - p >= 4 && p[0] == 'j' && is_space(p[3])) {	/* jcc, jmp: most lines */
			if (p[1] == 'c' && p[2] == 'c') {
				l->flags |= CONV_F_JCC;
				p += 3;
				continue;
			}
			if (p[1] == 'm' && p[2] == 'p') {
				l->flags |= CONV_F_JMP;
				p += 3;
				continue;
			}
		}
		if (!flag_start(*p))
			i = sizeof(flag_names) / sizeof(flag_names[0]);
		for (; i < sizeof(flag_names) / sizeof(flag_names[0]); i++) {
			size_t n = flag_names[i].len;

			if (p[0] == flag_names[i].name[0] && (size_t)(end - p) >= n &&
			    !memcmp(p, flag_names[i].name, n) && (p + n == end || is_space(p[n])))
				break;
		}
		if (i < sizeof(flag_names) / sizeof(flag_names[0])) {
			l->flags |= flag_names[i].flags;
			p += flag_names[i].len;
			continue;
		}
		if (hex_value(*p) >= 0)
			break;	/* the source ip (parse_loc checks it): flags are over */
		w = token_end(p, end);
		l->message = (struct conv_span){ p, (uint32_t)(w - p) };
		return false;
	}
	*pp = p;
	return true;
}

static void parse_branch(const char *p, const char *end, struct conv_line *l)
{
	const char *arrow;

	l->kind = CONV_LINE_BRANCH;
	if (!parse_flags(&p, end, l)) {
		l->kind = CONV_LINE_UNKNOWN_FLAG;
		return;
	}
	arrow = find_arrow(p, end);
	if (!arrow || !parse_loc(p, arrow, &l->from) || !parse_loc(arrow + 2, end, &l->to))
		l->kind = CONV_LINE_BAD;
}

/* " instruction trace error type T [time S.N ]cpu C pid P tid T ip 0xIP code N: MSG" */
static void parse_error(const char *p, const char *end, struct conv_line *l)
{
	const char *colon;

	l->kind = CONV_LINE_BAD;
	p += sizeof(error_prefix) - 1;
	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon)
		return;
	while (p < colon) {
		const char *k, *ke, *v, *ve;
		int64_t n;

		k = skip_spaces(p, colon);
		ke = token_end(k, colon);
		v = skip_spaces(ke, colon);
		ve = token_end(v, colon);
		if (k == colon)
			break;
		if (ke - k == 4 && !memcmp(k, "time", 4)) {
			if (!parse_time(v, ve, &l->ts))
				return;
			l->has_time = true;
		} else if (ke - k == 3 && !memcmp(k, "pid", 3) && parse_dec(v, ve, &n)) {
			l->pid = n;
		} else if (ke - k == 3 && !memcmp(k, "tid", 3) && parse_dec(v, ve, &n)) {
			l->tid = n;
		} else if (ke - k == 2 && !memcmp(k, "ip", 2)) {
			if (v + 2 <= ve && v[0] == '0' && v[1] == 'x')
				v += 2;
			parse_hex(v, ve, &l->from.ip);
		}
		p = ve;
	}
	l->message = trim(colon + 1, end);
	l->kind = CONV_LINE_ERROR;
}

/* "cbr: 36 freq: 3629 MHz (450%)": the frequency in MHz. */
static uint32_t parse_cbr(const char *p, const char *end)
{
	const char *f;
	int64_t mhz;

	for (f = p; f + 5 <= end; f++) {
		if (!memcmp(f, "freq:", 5)) {
			f = skip_spaces(f + 5, end);
			if (parse_dec(f, token_end(f, end), &mhz) && mhz > 0 && mhz < UINT32_MAX)
				return (uint32_t)mhz;
			break;
		}
	}
	return 0;
}

/* perf's event terms that set how an event samples, not which event it is
 * (perf's parse-events config terms): "NAME/TERMS/" with only these is NAME. */
static const struct {
	const char *name;
	uint8_t len;
} sampling_terms[] = {
	{ "period", 6 }, { "freq", 4 }, { "overwrite", 9 }, { "no-overwrite", 12 },
	{ "call-graph", 10 }, { "stack-size", 10 }, { "max-stack", 9 }, { "inherit", 7 },
	{ "no-inherit", 10 }, { "time", 4 }, { "nr", 2 }, { "percore", 7 },
	{ "aux-output", 10 }, { "aux-sample-size", 15 },
};

/* Is [p, e) a comma-separated list of sampling_terms, each with or without
 * "=VALUE"? */
static bool only_sampling_terms(const char *p, const char *e)
{
	while (p < e) {
		const char *c = memchr(p, ',', (size_t)(e - p)), *k;
		size_t i, n = sizeof(sampling_terms) / sizeof(sampling_terms[0]);

		c = c ? c : e;
		k = memchr(p, '=', (size_t)(c - p));
		k = k ? k : c;
		for (i = 0; i < n; i++)
			if ((size_t)(k - p) == sampling_terms[i].len &&
			    !memcmp(p, sampling_terms[i].name, sampling_terms[i].len))
				break;
		if (i == n)
			return false;
		p = c + (c < e);
	}
	return true;
}

/* Are [p, e) all event modifier letters (perf's "u", "k", "ppp"...)? */
static bool only_mods(const char *p, const char *e)
{
	while (p < e && memchr("ukhHGIpPSDeWxb", *p, 14))
		p++;
	return p == e;
}

/* Event token "NAME[/TERMS/][:MODS]:" without the mods and generic terms
 * ("branches:u:" -> "branches"; "branch-misses/period=50/u:" ->
 * "branch-misses"; "sched:sched_switch:" and "cpu/event=0x3c/" stay whole). */
static struct conv_span event_name(const char *p, const char *e)
{
	const char *c = e - 1;	/* the closing ':' */
	const char *m = c, *s1, *s2;

	while (m > p && m[-1] != ':')
		m--;
	if (m > p && only_mods(m, c))
		c = m - 1;
	s1 = memchr(p, '/', (size_t)(c - p));
	s2 = s1 ? memrchr(s1 + 1, '/', (size_t)(c - s1 - 1)) : NULL;
	if (s2 && only_mods(s2 + 1, c) && only_sampling_terms(s1 + 1, s2))
		c = s1;
	return (struct conv_span){ p, (uint32_t)(c - p) };
}

/* Where the IP starts in a sample's body "[ADDR [SYM] [(DSO)]] IP ...", or
 * NULL when the body is one location (no addr column): the second of two
 * hex words at its start ("ADDR IP"), else the hex word after the first
 * ") " (the addr resolved to "SYM (DSO)", as perf prints it for page
 * faults). A body without symoff whose symbol is a hex word ("7f10 add")
 * reads as ADDR IP: perf script always prints symoff here. */
static const char *sample_ip(const char *p, const char *end)
{
	uint64_t v;
	size_t n = parse_hex(p, end, &v);
	const char *q = p + n;

	if (n == 0 || q == end || !is_space(*q))
		return NULL;
	for (;;) {
		const char *r = skip_spaces(q, end);

		n = parse_hex(r, end, &v);
		if (r > q && n && (r + n == end || is_space(r[n])))
			return r;
		q = memchr(q, ')', (size_t)(end - q));
		if (!q || ++q == end)
			return NULL;
	}
}

/* "IN|OUT [preempt] [next|prev pid/tid: P/T]" after a switch record's name. */
static void parse_switch(const char *p, const char *end, struct conv_line *l)
{
	const char *w = token_end(p, end);

	l->kind = CONV_LINE_BAD;
	if (w - p == 3 && !memcmp(p, "OUT", 3))
		l->switch_out = true;
	else if (w - p != 2 || memcmp(p, "IN", 2))
		return;
	p = skip_spaces(w, end);
	w = token_end(p, end);
	if (l->switch_out && w - p == 7 && !memcmp(p, "preempt", 7))
		l->switch_preempt = true;
	l->kind = CONV_LINE_SWITCH;
}

/* A side-band record whose name starts the token [p, te) of a line ending
 * at END (the name, then "(", ":" or the token's end): L's kind from
 * sideband_records[]. Returns false when the token names none. */
static bool parse_sideband(const char *p, const char *te, const char *end, struct conv_line *l)
{
	const char *ne = p;

	while (ne < te && *ne != '(' && *ne != ':')
		ne++;
	for (size_t i = 0; i < sizeof(sideband_records) / sizeof(sideband_records[0]); i++) {
		if (ne - p != sideband_records[i].len ||
		    memcmp(p, sideband_records[i].name, sideband_records[i].len))
			continue;
		switch (sideband_records[i].kind) {
		case SB_SWITCH:
			if (ne != te)
				return false;
			parse_switch(skip_spaces(te, end), end, l);
			break;
		case SB_EXIT:
			l->kind = CONV_LINE_EXIT;
			break;
		default:
			l->kind = CONV_LINE_AUX;	/* no control flow, no time of a thread */
			break;
		}
		return true;
	}
	return false;
}

/*
 * Reads the fields of tracepoint TP at [p, end) into its struct in L (its
 * first member, bool valid, set when all were there, in order). Returns
 * where its text ends: an inline "IP SYM (DSO)" may follow when no call
 * chain was recorded.
 */
static const char *parse_tracepoint(const struct tracepoint *tp, const char *p, const char *end,
				    struct conv_line *l)
{
	char *base = (char *)l + tp->at;
	const struct field *fields = tp->fields;

	for (size_t i = 0; i < tp->nfields; i++) {
		const char *v, *ve;
		size_t n = fields[i].len;

		p = skip_spaces(p, end);
		if ((size_t)(end - p) < n || memcmp(p, fields[i].key, n))
			return p;
		v = p + n;
		ve = token_end(v, end);
		if (fields[i].kind == FIELD_COMM && i + 1 < tp->nfields) {
			const char *next = memmem(v, (size_t)(end - v), fields[i + 1].key,
						  fields[i + 1].len);

			if (!next) {	/* a newline in the name cut the line? */
				if ((size_t)(end - v) < CONV_COMM_MAX) {
					l->cut_key = (struct conv_span){ fields[i + 1].key,
									 fields[i + 1].len };
					l->cut_room = (uint8_t)(CONV_COMM_MAX - 1 - (end - v));
				}
				return p;
			}
			ve = next;
			while (ve > v && is_space(ve[-1]))
				ve--;
		}
		switch (fields[i].kind) {
		case FIELD_COMM:
		case FIELD_WORD:
			*(struct conv_span *)(base + fields[i].offset) =
				(struct conv_span){ v, (uint32_t)(ve - v) };
			break;
		case FIELD_INT:
			if (!parse_dec(v, ve, (int64_t *)(base + fields[i].offset)))
				return p;
			break;
		case FIELD_ARROW:
			ve = v;
			break;
		}
		p = ve;
	}
	*(bool *)base = true;
	return p;
}

/* A header: "PID/TID SEC.NSEC:" after the comm. */
struct header {
	const char *comm_end;   /* where the text before the pid/tid ends */
	const char *after;      /* the byte after the time's ':' */
	uint64_t ts;
	int64_t pid, tid;
	uint8_t time_digits;    /* the time's fraction digits */
};

/* Reads into *H the header whose time's ':' is at TE, in a line starting at
 * P. Returns false when TE ends no "PID/TID SEC.NSEC" pair. */
static bool header_at(const char *p, const char *te, struct header *h)
{
	const char *t = te, *prev, *prev_end;
	struct conv_line ids;

	while (t > p && !is_space(t[-1]))
		t--;
	prev_end = t;
	while (prev_end > p && is_space(prev_end[-1]))
		prev_end--;
	prev = prev_end;
	while (prev > p && !is_space(prev[-1]))
		prev--;
	if (te - t < 3 || prev == prev_end || !is_digit(te[-1]) || !parse_time(t, te, &h->ts) ||
	    !parse_pid_tid(prev, prev_end, &ids))
		return false;
	h->comm_end = prev;
	h->after = te + 1;
	h->pid = ids.pid;
	h->tid = ids.tid;
	h->time_digits = (uint8_t)(te - (const char *)memchr(t, '.', (size_t)(te - t)) - 1);
	return true;
}

/*
 * The header of a line from P: the (space-padded) comm, which may hold
 * spaces and colons, then "PID/TID SEC.NSEC:". A comm is another process's
 * name and may read as a header itself ("1/1 1.0: 1 x:"), and so may the
 * part of it after a newline, which starts a line of its own: the header
 * is the last candidate whose comm is at most CONV_COMM_MAX bytes, which
 * no header inside the comm is (when none is that short, a text not
 * perf's, the first). Sets L's time, pid, tid, comm and time_digits.
 * Returns the byte after the time's ':', or NULL when there is none.
 */
static const char *parse_header(const char *p, const char *end, struct conv_line *l)
{
	struct header h, found = { 0 };
	const char *te;

	for (te = p; (te = memchr(te, ':', (size_t)(end - te))) != NULL; te++) {
		if (!header_at(p, te, &h))
			continue;
		if (!found.after || trim(p, h.comm_end).len <= CONV_COMM_MAX)
			found = h;
		if ((size_t)(te - p) >= CONV_COMM_MAX)
			break;	/* a later candidate's comm would hold this one's whole */
	}
	if (!found.after)
		return NULL;
	l->has_time = true;
	l->ts = found.ts;
	l->pid = found.pid;
	l->tid = found.tid;
	l->time_digits = found.time_digits;
	l->comm = trim(p, found.comm_end);
	return found.after;
}

/* The rest of a timed line, from P (after its time): the period and the
 * event, then a side-band record, a branch, an aux event or a sample. */
static void parse_body(const char *p, const char *end, struct conv_line *l)
{
	const char *t, *te;

	p = skip_spaces(p, end);
	te = token_end(p, end);
	if (p < te && parse_dec(p, te, (int64_t *)&l->period)) {
		l->has_period = true;
		p = skip_spaces(te, end);
		te = token_end(p, end);
	}
	if (p < te && *p == 'P' && parse_sideband(p, te, end, l))
		return;
	if (p < te && te[-1] == ':') {
		l->event = event_name(p, te);
		l->unwound = l->event.s + l->event.len < te && l->event.s[l->event.len] == '/' &&
			     memmem(l->event.s + l->event.len, (size_t)(te - l->event.s - l->event.len),
				    "call-graph=dwarf", 16);
		p = te;
	}
	if (l->event.len == 0 || (l->event.len == 8 && !memcmp(l->event.s, "branches", 8))) {
		parse_branch(p, end, l);
		return;
	}
	for (size_t i = 0; i < sizeof(aux_events) / sizeof(aux_events[0]); i++) {
		if (l->event.len == aux_events[i].len &&
		    !memcmp(l->event.s, aux_events[i].name, aux_events[i].len)) {
			l->kind = CONV_LINE_AUX;
			if (l->event.s[1] == 'b')	/* "cbr" */
				l->cbr_mhz = parse_cbr(p, end);
			return;
		}
	}
	l->kind = CONV_LINE_SAMPLE;
	for (size_t i = 0; i < sizeof(tracepoints) / sizeof(tracepoints[0]); i++)
		if (l->event.len == tracepoints[i].len &&
		    !memcmp(l->event.s, tracepoints[i].event, tracepoints[i].len))
			p = parse_tracepoint(&tracepoints[i], p, end, l);
	p = skip_spaces(p, end);
	if (p < end && (t = sample_ip(p, end)) != NULL)
		l->has_addr = parse_loc(p, t, &l->to);
	if (p < end)
		l->has_loc = parse_loc(l->has_addr ? t : p, end, &l->from);
}

void conv_parse_line(const char *s, size_t len, struct conv_line *l)
{
	const char *end = s + len, *p, *t, *te;

	memset(l, 0, sizeof(*l));
	if (len > CONV_LINE_MAX) {
		l->kind = CONV_LINE_TOO_LONG;
		l->text = (struct conv_span){ s, CONV_LINE_MAX };
		return;
	}
	l->text = (struct conv_span){ s, (uint32_t)len };
	p = skip_spaces(s, end);
	if (p == end) {
		l->kind = CONV_LINE_BLANK;
		return;
	}
	if (s[0] == '\t') {
		l->kind = parse_loc(p, end, &l->from) ? CONV_LINE_CHAIN : CONV_LINE_BAD;
		return;
	}
	if ((t = memchr(s, '\r', len)) && t + 1 < end) {	/* a CR inside: CR-only line ends? */
		struct conv_line next;

		te = memchr(t + 1, '\r', (size_t)(end - t - 1));
		conv_parse_line(t + 1, (size_t)((te ? te : end) - t - 1), &next);
		if (next.kind != CONV_LINE_BAD && next.kind != CONV_LINE_BLANK) {
			l->kind = CONV_LINE_BAD;
			l->cr_joined = true;
			return;
		}
	}
	if ((size_t)(end - p) > sizeof(error_prefix) &&
	    !memcmp(p, error_prefix, sizeof(error_prefix) - 1)) {
		parse_error(p, end, l);
		return;
	}
	l->kind = CONV_LINE_BAD;
	p = parse_header(p, end, l);
	if (p)
		parse_body(p, end, l);
}

bool conv_parse_evlist_line(const char *s, size_t len, struct conv_span *event, uint64_t *n,
			    bool *freq)
{
	static const char sep[] = ": sample_", fkey[] = "freq=", pkey[] = "period=";
	const char *e = s + len, *p = s, *k, *v;
	int64_t x;

	/* The last ": sample_" (an event name may hold ':', never that). */
	for (const char *q = s; (q = memmem(q, (size_t)(e - q), sep, sizeof(sep) - 1)); q++)
		p = q;
	if (p == s)
		return false;
	k = p + sizeof(sep) - 1;
	*freq = (size_t)(e - k) > sizeof(fkey) - 1 && !memcmp(k, fkey, sizeof(fkey) - 1);
	if (*freq)
		v = k + sizeof(fkey) - 1;
	else if ((size_t)(e - k) > sizeof(pkey) - 1 && !memcmp(k, pkey, sizeof(pkey) - 1))
		v = k + sizeof(pkey) - 1;
	else
		return false;
	if (!parse_dec(v, e, &x) || x <= 0)
		return false;
	*n = (uint64_t)x;
	*event = event_name(s, p + 1);	/* "NAME...:" */
	return true;
}
