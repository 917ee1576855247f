/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of record/hitsline: the recorder's summary line of trigger
 * hits, which says for each hit the snapshot to open. The first case is
 * the (issue 24: "hits 1-2 in snapshot 1 (hit 2 took snapshot 2,
 * but snapshot 1 holds more of it)" left the user to work out which
 * snapshot shows hit 2). Every expected line is written out by hand.
 */
#include <string.h>

#include "hitsline.h"
#include "unit.h"

/* A hit held by snapshot HELD whose live line named NAMED (INFLIGHT: the one
 * being written when it came). */
#define HIT(held, named, inflight) { .snapshot = (held), .said = (named), .came_in_flight = (inflight) }

static void hitsline_open_which(void)
{
	static const struct rec_hit_log h[] = {
		HIT(0, 0, false), HIT(1, 1, false), HIT(1, 2, false), HIT(2, 3, true),
	};
	static const struct rec_hit_log kept[] = { HIT(1, -1, false), HIT(2, -1, false) };
	char line[1024];
	size_t n = rec_hits_line(h, 4, 2, kept, 2, line, sizeof(line));

	CHECK_STR_EQ(line, "hit 0: snapshot 0; hits 1-2: snapshot 1 (hit 2 took snapshot 2, but "
		     "open snapshot 1 for it); hit 3: snapshot 2 (hit 3 came while snapshot 3 was "
		     "being written, but open snapshot 2 for it); 2 coalesced (no snapshot of their "
		     "own, 2 of them drawn in the snapshot holding each)");
	CHECK_INT_EQ((int)n, (int)strlen(line));
}

/* Several hits of one snapshot that named others; hits in none. */
static void hitsline_several_and_none(void)
{
	static const struct rec_hit_log h[] = {
		HIT(1, 2, false), HIT(1, 3, true), HIT(-1, 4, false), HIT(-1, -1, false),
		HIT(-1, -1, false),
	};
	char line[1024];

	rec_hits_line(h, 2, 0, NULL, 0, line, sizeof(line));
	CHECK_STR_EQ(line, "hits 0-1: snapshot 1 (hit 0 took snapshot 2, hit 1 came while "
		     "snapshot 3 was being written, but open snapshot 1 for each)");
	rec_hits_line(h + 2, 1, 0, NULL, 0, line, sizeof(line));
	CHECK_STR_EQ(line, "hit 0: none (hit 0 took snapshot 4, but no snapshot holds a sample "
		     "of it)");
	rec_hits_line(h + 3, 2, 1, NULL, 0, line, sizeof(line));
	CHECK_STR_EQ(line, "hits 0-1: none (no snapshot kept a sample of them); 1 coalesced (no "
		     "snapshot of their own)");
}

/* A slow call whose samples two snapshots hold is said so, after the
 * note of the snapshot its live line named. */
static void hitsline_split_call(void)
{
	static const struct rec_hit_log h[] = {
		{ .snapshot = 0, .said = 0, .call_first = 0, .call_last = 0 },
		{ .snapshot = 1, .said = 2, .call_first = 1, .call_last = 2 },
		{ .snapshot = 2, .said = 2, .call_first = -1, .call_last = -1 },
	};
	char line[1024];

	rec_hits_line(h, 3, 0, NULL, 0, line, sizeof(line));
	CHECK_STR_EQ(line, "hit 0: snapshot 0; hit 1: snapshot 1 (hit 1 took snapshot 2, but open "
		     "snapshot 1 for it) (hit 1's call has samples in snapshots 1 to 2); hit 2: "
		     "snapshot 2");
}

/* Nothing to say: ""; a long list is cut after its first few runs and the
 * rest counted (32 hits once made a line of over 1000 characters), the line
 * under 240 characters even when each run has its notes. */
static void hitsline_empty_and_bounded(void)
{
	static struct rec_hit_log h[200];
	char line[1024];

	CHECK_INT_EQ((int)rec_hits_line(h, 0, 0, NULL, 0, line, sizeof(line)), 0);
	CHECK_STR_EQ(line, "");
	for (int i = 0; i < 200; i++)
		h[i] = (struct rec_hit_log)HIT(i, i, false);
	rec_hits_line(h, 200, 0, NULL, 0, line, sizeof(line));
	CHECK_STR_EQ(line, "hit 0: snapshot 0; hit 1: snapshot 1; hit 2: snapshot 2; hit 3: "
		     "snapshot 3; and 196 more in record.json");
	for (int i = 0; i < 32; i++)
		h[i] = (struct rec_hit_log){ .snapshot = i, .said = i + 1, .call_first = i,
					     .call_last = i + 1 };
	rec_hits_line(h, 32, 0, NULL, 0, line, sizeof(line));
	CHECK(strlen(line) < 240);
	CHECK(strstr(line, "; and ") && strstr(line, " more in record.json"));
}

int main(void)
{
	UNIT_RUN(hitsline_open_which);
	UNIT_RUN(hitsline_several_and_none);
	UNIT_RUN(hitsline_empty_and_bounded);
	UNIT_RUN(hitsline_split_call);
	return unit_exit();
}
