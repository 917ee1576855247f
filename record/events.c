/* SPDX-License-Identifier: MIT */
#include "events.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "numparse.h"
#include "run.h"

/* What an event's name may hold: perf's names, tracepoints, PMU terms. */
#define EVENT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.:=,/"

/* The largest period accepted: the converter's time bound, far past any use. */
#define EVENT_PERIOD_MAX (UINT64_C(1) << 62)

/* Are the LEN bytes at S all perf event modifier letters? */
static bool modifiers(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr("ukhHGIpPSDeWxb", s[i]))
			return false;
	return true;
}

int rec_event_parse(const char *spec, struct rec_event *ev)
{
	const char *slash = strrchr(spec, '/'), *colon;
	size_t len = strlen(spec);

	*ev = (struct rec_event){ .spec = spec };
	if (slash && slash[1] && strspn(slash + 1, "0123456789") == strlen(slash + 1)) {
		if (num_parse_u64(slash + 1, 1, EVENT_PERIOD_MAX, &ev->period))
			return -EINVAL;
		len = (size_t)(slash - spec);
	}
	/* one event: perf's name characters, no list or group */
	if (!len || len > 128 || strspn(spec, EVENT_CHARS) < len)
		return -EINVAL;
	/* the modifiers are the recorder's (u, or k with --kernel) */
	colon = memrchr(spec, ':', len);
	if (colon && modifiers(colon + 1, len - (size_t)(colon - spec) - 1))
		return -EINVAL;
	/* a '/' only as PMU/TERMS/ (no modifiers after it); ',' only in TERMS */
	slash = memchr(spec, '/', len);
	if (slash && (spec[len - 1] != '/' || slash == spec + len - 1))
		return -EINVAL;
	if (memchr(spec, ',', len) && !slash)
		return -EINVAL;
	ev->name_len = (unsigned)len;
	/* one sampling: a /PERIOD beside a period= or freq= term is refused */
	return ev->period && rec_event_own_sampling(ev) ? -EEXIST : 0;
}

bool rec_event_tracepoint(const struct rec_event *ev)
{
	unsigned n = ev->name_len;

	return ev->spec[n - 1] != '/' && memchr(ev->spec, ':', n);
}

int rec_event_own_term(const struct rec_event *ev, const char **term)
{
	const char *s = ev->spec, *end = s + ev->name_len;

	/* the terms: between a PMU's first '/' and its last, ',' apart */
	for (const char *t = memchr(s, '/', ev->name_len); t && t < end - 1;) {
		const char *next = t + 1 + strcspn(t + 1, ",/");

		t++;
		if (next > end - 1)
			next = end - 1;
		if (!strncmp(t, "period=", 7) || !strncmp(t, "freq=", 5)) {
			*term = t;
			return (int)(next - t);
		}
		t = next;
	}
	return 0;
}

bool rec_event_own_sampling(const struct rec_event *ev)
{
	const char *term;

	return rec_event_own_term(ev, &term) > 0;
}

char *rec_event_sampling(const struct rec_event *ev, char *buf, size_t size)
{
	if (rec_event_own_sampling(ev))
		snprintf(buf, size, "as its terms say");
	else if (ev->period > 1)
		snprintf(buf, size, "every %llu%s event", (unsigned long long)ev->period,
			 ev->period % 10 == 1 && ev->period % 100 != 11 ? "st" :
			 ev->period % 10 == 2 && ev->period % 100 != 12 ? "nd" :
			 ev->period % 10 == 3 && ev->period % 100 != 13 ? "rd" : "th");
	else if (ev->period == 1 || rec_event_tracepoint(ev))
		snprintf(buf, size, "every event");
	else
		snprintf(buf, size, "about %d times a second", REC_EVENT_FREQ);
	return buf;
}

void rec_events_say(const struct rec_opts *o)
{
	for (int i = 0; i < o->nevents; i++) {
		const struct rec_event *ev = &o->events[i];
		char how[64];
		bool freq = !ev->period && !rec_event_tracepoint(ev) && !rec_event_own_sampling(ev);

		diag_info("--event %s: sampled %s%s%.*s%s", ev->spec,
			  rec_event_sampling(ev, how, sizeof(how)),
			  freq ? " (perf picks each sample's period, its \"period\" argument; "
				 "--event " : "",
			  freq ? (int)ev->name_len : 0, ev->spec, freq ? "/N samples every Nth)" : "");
	}
}

int rec_event_arg(const struct rec_event *ev, bool overwrite, bool kernel, char *buf,
		  size_t size)
{
	const char *s = ev->spec;
	unsigned n = ev->name_len;
	bool pmu = s[n - 1] == '/';	/* PMU/TERMS/: ours go inside */
	bool tracepoint = rec_event_tracepoint(ev);
	const char *sel = kernel || tracepoint ? "" : "u";
	char terms[64];
	int len;

	/* the sampling always said: perf's defaults given explicitly */
	if (rec_event_own_sampling(ev))
		snprintf(terms, sizeof(terms), "%s", overwrite ? "overwrite" : "");
	else if (ev->period || tracepoint)
		snprintf(terms, sizeof(terms), "period=%llu%s",
			 (unsigned long long)(ev->period ? ev->period : 1),
			 overwrite ? ",overwrite" : "");
	else
		snprintf(terms, sizeof(terms), "freq=%d%s", REC_EVENT_FREQ,
			 overwrite ? ",overwrite" : "");
	if (pmu)
		len = snprintf(buf, size, "%.*s%s%s/%s", (int)n - 1, s,
			       terms[0] && s[n - 2] != '/' ? "," : "", terms, sel);
	else if (terms[0])
		len = snprintf(buf, size, "%.*s/%s/%s", (int)n, s, terms, sel);
	else
		len = snprintf(buf, size, "%.*s%s%s", (int)n, s, *sel ? ":" : "", sel);
	return len < 0 || (size_t)len >= size ? -E2BIG : len;
}

/* perf's complaint in OUT as one line: its first line, and the mark under
 * the event ("\___ parser error") when there is one. */
static void perf_complaint(const char *out, char *buf, size_t size)
{
	const char *nl = strchr(out, '\n'), *mark = strstr(out, "\\___");
	const char *end;

	if (!nl)
		nl = out + strlen(out);
	if (!mark) {
		snprintf(buf, size, "%.*s", (int)(nl - out), out);
		return;
	}
	mark += 4;
	mark += strspn(mark, " ");
	end = strchr(mark, '\n');
	snprintf(buf, size, "%.*s: %.*s", (int)(nl - out), out,
		 (int)(end ? end - mark : (long)strlen(mark)), mark);
}

bool rec_events_usable(const char *perf, const struct rec_opts *o, char *why, size_t size)
{
	for (int i = 0; i < o->nevents; i++) {
		const struct rec_event *ev = &o->events[i];
		char name[130], out[4096], said[512];
		char *argv[] = { (char *)perf, "stat", "-x,", "-e", name, "--", "true", NULL };
		int rc;

		snprintf(name, sizeof(name), "%.*s", (int)ev->name_len, ev->spec);
		rc = run_capture(argv, out, sizeof(out));
		if (rc < 0) {
			snprintf(why, size, "--event %s: cannot run %s: %s", ev->spec, perf,
				 strerror(-rc));
			return false;
		}
		if (rc != 0) {
			perf_complaint(out, said, sizeof(said));
			snprintf(why, size, "--event %s: expected an event perf knows (see `perf "
				 "list`); perf said: %s", ev->spec, said);
			return false;
		}
		if (strstr(out, "<not supported>")) {
			snprintf(why, size, "--event %s: perf knows it but cannot count it on this "
				 "host (<not supported>; see `perf list`)", ev->spec);
			return false;
		}
	}
	return true;
}
