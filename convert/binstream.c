/* SPDX-License-Identifier: MIT */
/*
 * One pass over a buffer refilled from the input: at each item's start a
 * NUL byte is a binary record (its size in its header), anything else a
 * text line up to its '\n'. Records become the struct conv_line that the
 * matching text line would have parsed into (docs/design.md "Decoding");
 * string ids index a table of the strings the stream defined, which the
 * lines' spans point into. The stream is a format of its own (binrec.h):
 * its VERSION record must come before any other record, and its flag bits
 * map to the converter's (flag_map).
 */
#include "binstream.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "binrec.h"
#include "diag.h"
#include "hash.h"
#include "pipeline_types.h"

/* bytes read at once: a text block's (small in the fuzz build, so that
 * records cross reads there) */
#define READ_CHUNK PIPELINE_BLOCK
#define BUF_SIZE (READ_CHUNK + CONV_LINE_MAX + 1)  /* a chunk plus a line too long */

static const char unknown[] = "[unknown]";        /* perf's name of a missing dso */

/* The converter's flag for each of the stream's (binrec.h: frozen). */
static const struct {
	uint32_t binrec, conv;
} flag_map[] = {
	{ BINREC_F_CALL, CONV_F_CALL }, { BINREC_F_RETURN, CONV_F_RETURN },
	{ BINREC_F_JCC, CONV_F_JCC }, { BINREC_F_JMP, CONV_F_JMP },
	{ BINREC_F_INT, CONV_F_INT }, { BINREC_F_IRET, CONV_F_IRET },
	{ BINREC_F_SYSCALL, CONV_F_SYSCALL }, { BINREC_F_SYSRET, CONV_F_SYSRET },
	{ BINREC_F_ASYNC, CONV_F_ASYNC }, { BINREC_F_HW_INT, CONV_F_HW_INT },
	{ BINREC_F_TX_ABORT, CONV_F_TX_ABORT }, { BINREC_F_VMENTRY, CONV_F_VMENTRY },
	{ BINREC_F_VMEXIT, CONV_F_VMEXIT }, { BINREC_F_IN_TX, CONV_F_IN_TX },
};

struct binstream {
	struct input *in;
	struct conv_driver *cv;
	struct hash_index func_index;  /* (sym id << 32 | dso id) -> funcs[] */
	const struct conv_func **funcs;  /* the interned function of each pair */
	size_t nfuncs, capfuncs;
	const char *name;           /* for progress */
	char *buf;
	size_t start, end;          /* unread bytes: buf[start, end) */
	bool eof;
	uint64_t offset;            /* input offset of buf[0] */
	struct conv_span *strings;  /* by id; [0] unused */
	size_t nstrings, capstrings;
	bool versioned;             /* the part's VERSION record was read */
	char *errbuf;
	size_t errlen;
};

/* Makes at least WANT bytes available at s->start (fewer at the end).
 * Returns false on a read error (reason in errbuf). */
static bool fill(struct binstream *s, size_t want)
{
	if (s->end - s->start >= want || s->eof)
		return true;
	if (s->start) {
		memmove(s->buf, s->buf + s->start, s->end - s->start);
		s->offset += s->start;
		s->end -= s->start;
		s->start = 0;
	}
	while (!s->eof && s->end < want) {
		size_t room = BUF_SIZE - s->end;
		long r = input_read(s->in, s->buf + s->end, room < READ_CHUNK ? room : READ_CHUNK,
				    s->errbuf, s->errlen);

		if (r < 0)
			return false;
		if (r == 0)
			s->eof = true;
		s->end += (size_t)r;
	}
	diag_progress("%s: %llu MiB", s->name, (unsigned long long)(input_bytes(s->in) >> 20));
	return true;
}

/* The string of id ID, or an empty span for 0. Returns false for an id the
 * stream never defined. */
static bool string_of(const struct binstream *s, uint32_t id, struct conv_span *out)
{
	if (id >= s->nstrings || (id && !s->strings[id].s))
		return false;
	*out = id ? s->strings[id] : (struct conv_span){ NULL, 0 };
	return true;
}

/* Forgets the functions named by string ids. */
static void forget_funcs(struct binstream *s)
{
	hash_index_clear(&s->func_index);
	s->nfuncs = 0;
}

/* Stores the string record REC of SIZE bytes. Returns 0, -1 when it is
 * malformed, or -ENOMEM. */
static int define_string(struct binstream *s, const char *rec, size_t size)
{
	uint32_t id;
	char *copy;

	memcpy(&id, rec + sizeof(struct binrec_header), sizeof(id));
	/* Ids come in order (the dlfilter numbers them 1, 2, ...): a new one is
	 * the next, so a hostile id cannot make the table huge. */
	if (id == 0 || id > s->nstrings + (s->nstrings == 0))
		return -1;
	while (s->nstrings <= id) {
		struct conv_span *t = array_grow(s->strings, &s->capstrings, s->nstrings,
						 sizeof(*t));

		if (!t)
			return -ENOMEM;
		s->strings = t;
		s->strings[s->nstrings++] = (struct conv_span){ NULL, 0 };
	}
	copy = malloc(size - 8 + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec + 8, size - 8);
	copy[size - 8] = 0;
	if (s->strings[id].s)
		forget_funcs(s);	/* an id named anew (a saved stream): other functions */
	free((char *)s->strings[id].s);
	s->strings[id] = (struct conv_span){ copy, (uint32_t)(size - 8) };
	return 0;
}

/* Frees the strings the stream defined, and forgets the functions named
 * by their ids. */
static void forget_strings(struct binstream *s)
{
	for (size_t i = 0; i < s->nstrings; i++)
		free((char *)s->strings[i].s);
	s->nstrings = 0;
	forget_funcs(s);
}

/* The interned function of R's ids, LOC's strings: from the table, else
 * from the converter (and kept). NULL when out of memory: the driver then
 * interns LOC's strings itself (and reports it). */
static const struct conv_func *func_of(struct binstream *s, const struct binrec_loc *r,
				       const struct conv_loc *loc)
{
	uint64_t key = (uint64_t)r->sym << 32 | r->dso;
	uint32_t k = hash_index_get(&s->func_index, key);
	const struct conv_func *f, **t;

	if (k != HASH_NONE)
		return s->funcs[k];
	f = conv_driver_func(s->cv, loc->sym, loc->dso);
	t = f ? array_grow(s->funcs, &s->capfuncs, s->nfuncs, sizeof(*t)) : NULL;
	if (t)
		s->funcs = t;
	if (t && !hash_index_add(&s->func_index, key, (uint32_t)s->nfuncs))
		s->funcs[s->nfuncs++] = f;   /* else asked of the converter again next time */
	return f;
}

/* A location as the text parser reads "IP SYM+0xOFF (DSO)". */
static bool loc_of(struct binstream *s, const struct binrec_loc *r, struct conv_loc *loc)
{
	memset(loc, 0, sizeof(*loc));
	loc->ip = r->ip;
	loc->has_symtext = true;	/* perf prints "[unknown]" without one */
	if (!string_of(s, r->sym, &loc->sym) || !string_of(s, r->dso, &loc->dso))
		return false;
	if (r->sym) {
		loc->symoff = r->symoff;
		loc->has_symoff = true;
	}
	if (!r->dso)
		loc->dso = (struct conv_span){ unknown, sizeof(unknown) - 1 };
	loc->func = func_of(s, r, loc);
	return true;
}

/* Comm as the text parser reads perf's right-aligned column: trimmed. */
static struct conv_span trim(struct conv_span t)
{
	while (t.len && t.s[0] == ' ')
		t.s++, t.len--;
	while (t.len && t.s[t.len - 1] == ' ')
		t.len--;
	return t;
}

/* The converter's flags (enum conv_flag) of the stream's BITS (enum
 * binrec_flag) into *FLAGS. Returns false for a bit binrec.h does not name. */
static bool conv_flags_of(uint32_t bits, uint32_t *flags)
{
	*flags = 0;
	for (size_t i = 0; bits && i < sizeof(flag_map) / sizeof(flag_map[0]); i++)
		if (bits & flag_map[i].binrec) {
			*flags |= flag_map[i].conv;
			bits &= ~flag_map[i].binrec;
		}
	return !bits;
}

/* A branch line of thread PID/TID at TIME with FLAGS. */
static void branch_line(struct conv_line *l, int32_t pid, int32_t tid, uint64_t time,
			uint32_t flags)
{
	l->kind = CONV_LINE_BRANCH;
	l->pid = pid;
	l->tid = tid;
	l->has_time = true;
	l->ts = time;
	l->flags = flags;
}

/* Fills L from the record REC of SIZE bytes. Returns 1 when L holds a line
 * to convert, 0 for a record that only defines a string, -1 when the record
 * is malformed, -ENOMEM when out of memory. */
static int record_line(struct binstream *s, const char *rec, size_t size, struct conv_line *l)
{
	struct binrec_header h;

	memcpy(&h, rec, sizeof(h));
	memset(l, 0, sizeof(*l));
	l->text = (struct conv_span){ "(binary record)", 15 };
	switch (h.type) {
	case BINREC_STRING:
		return size >= 8 ? define_string(s, rec, size) : -1;
	case BINREC_BRANCH: {
		struct binrec_branch b;
		uint32_t flags;

		if (size != sizeof(b))
			return -1;
		memcpy(&b, rec, sizeof(b));
		if (!conv_flags_of(b.flags, &flags))
			return -1;
		branch_line(l, b.pid, b.tid, b.time, flags);
		if (!string_of(s, b.comm, &l->comm) || !loc_of(s, &b.from, &l->from) ||
		    !loc_of(s, &b.to, &l->to))
			return -1;
		l->comm = trim(l->comm);
		return 1;
	}
	case BINREC_TICK: {
		struct binrec_tick t;

		if (size != sizeof(t))
			return -1;
		memcpy(&t, rec, sizeof(t));
		/* A jump within one function: same (empty) symbol and dso. */
		branch_line(l, t.pid, t.tid, t.time, CONV_F_JMP);
		l->from.has_symtext = l->to.has_symtext = true;
		return 1;
	}
	}
	return -1;
}

/*
 * Checks the record REC (header H, whole in the buffer) against the
 * stream's version: a VERSION record must say BINREC_FORMAT (another may
 * follow: saved streams put end to end), any other record must come after
 * one. Returns false with the reason
 * in the error buffer.
 */
static bool check_version(struct binstream *s, const char *rec, struct binrec_header h)
{
	unsigned long long at = s->offset + s->start;
	struct binrec_version v;

	if (h.type != BINREC_VERSION) {
		if (s->versioned)
			return true;
		snprintf(s->errbuf, s->errlen, "byte %llu: a binary record before the stream's "
			 "version record (written by an older snaptrace-dlfilter), expected "
			 "format version %u: convert the perf.data again", at, BINREC_FORMAT);
		return false;
	}
	if (h.size != sizeof(v)) {
		snprintf(s->errbuf, s->errlen, "byte %llu: a malformed version record (%u bytes)",
			 at, h.size);
		return false;
	}
	memcpy(&v, rec, sizeof(v));
	if (v.format != BINREC_FORMAT) {
		snprintf(s->errbuf, s->errlen, "byte %llu: the dlfilter's stream of format version "
			 "%u, expected version %u: convert the perf.data again", at, v.format,
			 BINREC_FORMAT);
		return false;
	}
	s->versioned = true;
	return true;
}

/* Says that the record at S's start is cut short. Returns PIPELINE_READ_ERROR. */
static int cut_short(struct binstream *s)
{
	snprintf(s->errbuf, s->errlen, "byte %llu: a binary record cut short",
		 (unsigned long long)(s->offset + s->start));
	return PIPELINE_READ_ERROR;
}

/* The binary record at S's start (AVAIL bytes there) into *L. Returns 1
 * with a line; 0 without (a version record, or one that makes no line); or
 * a pipeline status with S's errbuf set. */
static int take_record(struct binstream *s, size_t avail, struct conv_line *l)
{
	struct binrec_header h;
	const char *p;
	int k = 0;

	if (avail < sizeof(h))
		return cut_short(s);
	memcpy(&h, s->buf + s->start, sizeof(h));
	if (h.size < sizeof(h))
		k = -1;
	else if (!fill(s, h.size))
		return PIPELINE_READ_ERROR;
	else if (s->end - s->start < h.size)
		return cut_short(s);
	p = s->buf + s->start;
	if (k == 0 && !check_version(s, p, h))
		return PIPELINE_READ_ERROR;
	if (k == 0 && h.type == BINREC_VERSION) {
		s->start += h.size;
		return 0;
	}
	if (k == 0)
		k = record_line(s, p, h.size, l);
	if (k == -ENOMEM) {
		snprintf(s->errbuf, s->errlen, "out of memory");
		return PIPELINE_NOMEM;
	}
	if (k < 0) {
		snprintf(s->errbuf, s->errlen, "byte %llu: a malformed binary record (type %u, %u "
			 "bytes)", (unsigned long long)(s->offset + s->start), h.type, h.size);
		return PIPELINE_READ_ERROR;
	}
	s->start += h.size;
	return k > 0;
}

/* perf's own text line at S's start (AVAIL bytes there) into *L. Returns 1
 * with the line; 0 when more must be read first; or PIPELINE_READ_ERROR. */
static int take_text(struct binstream *s, size_t avail, struct conv_line *l)
{
	const char *p = s->buf + s->start, *nl = memchr(p, '\n', avail);
	size_t len;

	if (!nl && !s->eof) {
		if (!fill(s, avail + 1))
			return PIPELINE_READ_ERROR;
		/* fill() may move the bytes; look again. */
		p = s->buf + s->start;
		nl = memchr(p, '\n', s->end - s->start);
		if (!nl && !s->eof && s->end - s->start <= CONV_LINE_MAX)
			return 0;	/* else too long: the driver refuses it */
	}
	len = nl ? (size_t)(nl - p) : s->end - s->start;
	conv_parse_line(p, len, l);
	s->start += len + (nl ? 1 : 0);
	return 1;
}

/* At the end of a part's stream: the next time range's (a perf of its own,
 * ids of its own), its range into *FIRST, *LAST, *RESUMES. Returns 1 when
 * there is one, 0 at the end, or PIPELINE_READ_ERROR. */
static int next_part(struct binstream *s, uint64_t *first, uint64_t *last, bool *resumes)
{
	int e = input_next_part(s->in);

	if (e < 0) {
		char why[160];

		snprintf(s->errbuf, s->errlen, "cannot run perf again: %s",
			 input_start_words(s->in, e, why, sizeof(why)));
		return PIPELINE_READ_ERROR;
	}
	if (!e)
		return 0;
	forget_strings(s);
	s->versioned = false;
	s->eof = false;
	input_part_range(s->in, first, last, resumes);
	return 1;
}

int binstream_convert(struct input *in, const char *name, struct conv_driver *cv, int *conv_err,
		      char *errbuf, size_t errlen)
{
	struct binstream s = { .in = in, .cv = cv, .name = name, .errbuf = errbuf,
			       .errlen = errlen };
	uint64_t first = 0, last = UINT64_MAX;	/* the current part's time range */
	bool resumes = false;			/* drop lines up to one timed in it */
	int rc = PIPELINE_OK;

	input_part_range(in, &first, &last, &resumes);
	s.buf = malloc(BUF_SIZE);
	if (!s.buf) {
		snprintf(errbuf, errlen, "out of memory");
		return PIPELINE_NOMEM;
	}
	for (;;) {
		struct conv_line l;
		size_t avail;
		int k;

		if (!fill(&s, sizeof(struct binrec_header))) {
			rc = PIPELINE_READ_ERROR;
			break;
		}
		avail = s.end - s.start;
		k = !avail ? next_part(&s, &first, &last, &resumes) :
		    s.buf[s.start] == BINREC_MARK ? take_record(&s, avail, &l) :
		    take_text(&s, avail, &l);
		if (k < 0 || (!avail && !k)) {
			rc = k;		/* an error, or the end (PIPELINE_OK) */
			break;
		}
		if (!avail || !k)
			continue;
		if (l.has_time ? l.ts < first || l.ts > last : resumes)
			continue;	/* another range's (input_part_range()) */
		resumes = false;
		if (l.kind == CONV_LINE_AUX && l.has_time && l.event.len == 3 &&
		    !memcmp(l.event.s, "psb", 3))
			input_psb_seen(in, l.ts);
		k = conv_driver_parsed(cv, &l);
		if (k) {
			*conv_err = k;
			rc = PIPELINE_CONVERT;
			break;
		}
	}
	diag_progress("%s", "");
	forget_strings(&s);
	free(s.strings);
	hash_index_free(&s.func_index);
	free(s.funcs);
	free(s.buf);
	return rc;
}
