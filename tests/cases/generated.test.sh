#!/usr/bin/env bash
# tier: check
# Generated inputs (docs/contributing.md "Golden cases"), made at test time:
#   many-strings  40,000 distinct function names + one of 40,000 characters:
#                 converts, every slice keeps its own name, the long one is
#                 cut with the visible "...[truncated]" marker.
#   many-threads  300 threads of one process (+2 of another), interleaved:
#                 every thread in the result, each under its own process.
#   deep-recursion-600  rec recursing 600 deep under main. Perfetto drops
#                 nesting deeper than 512 (docs/design.md "Perfetto
#                 quirks"), and an end whose begin it dropped then closes
#                 an outer slice, so writing every level would corrupt the
#                 levels Perfetto keeps. What a user expects (docs/design.md
#                 "Ordering in the file"): the
#                 file reads back balanced, the levels kept exact in names
#                 and times, deeper frames left out. The converter keeps 64
#                 levels for frames inferred below the bottom (main, here),
#                 so levels 0..448 (main + 448 rec) are kept.
#   errors-one-time  1,000 decode errors at one time, and 700 without a
#                 time before the thread's first line (they go at its first
#                 time): Perfetto nests the instants of one time in one
#                 another and drops those 512 deep, so 512 are written at
#                 each time and the summary counts the 676 left out; the
#                 trace reads back without a problem (--dump exits 0);
#                 the summary's estimate of Perfetto's memory counts the
#                 trace's complete records, begin/end pairs and instants.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

GEN="$SNAPTRACE_TOP/tests/gen"

need_built generated "$CONVERT"

# convert_and_dump NAME: converts $TMP/NAME.txt to $TMP/NAME.fxt.gz and dumps
# its slices and records; returns 1 after a FAIL line.
convert_and_dump() {
	local n=$1
	if ! "$CONVERT" --quiet "$TMP/$n.txt" -o "$TMP/$n.fxt.gz" 2>"$TMP/$n.err"; then
		fail "$n" "conversion failed: $(first_lines "$TMP/$n.err")"
		return 1
	fi
	if ! "$CONVERT" --dump=slices "$TMP/$n.fxt.gz" >"$TMP/$n.slices" 2>"$TMP/$n.err"; then
		fail "$n" "reader rejects the output: $(first_lines "$TMP/$n.err")"
		return 1
	fi
	if ! "$CONVERT" --dump=records "$TMP/$n.fxt.gz" >"$TMP/$n.records" 2>"$TMP/$n.err"; then
		fail "$n" "--dump=records fails: $(first_lines "$TMP/$n.err")"
		return 1
	fi
}

many_strings() {
	local n=40000 longlen=40000 why
	awk -v n=$n -v longlen=$longlen -f "$GEN/many-strings.awk" >"$TMP/many-strings.txt"
	convert_and_dump many-strings || return
	# Expected: "4000 0 main", then fn_00000.. at depth 1 in order, the long
	# name right after fn_(n/2-1); nothing else.
	why=$(awk -v n=$n -v longlen=$longlen '
	function die(msg) { print msg; bad = 1; exit 1 }
	BEGIN {
		long = "long_"
		while (length(long) < longlen) long = long "0123456789"
		long = substr(long, 1, longlen)
		want_main = 1; i = 0
	}
	{
		tid = $1; depth = $2; name = substr($0, length($1) + length($2) + 3)
		if (tid != 4000) die("unexpected thread " tid)
		if (want_main) {
			if (depth != 0 || name != "main")
				die("first slice is not main at depth 0: " $0)
			want_main = 0; next
		}
		if (depth != 1) die("slice not at depth 1: " substr($0, 1, 80))
		if (name ~ /^long_/) {
			if (i != int(n / 2) || seen_long) die("long name at position " i)
			seen_long = 1
			m = "...[truncated]"
			len = length(name); kept = len - length(m)
			if (len >= longlen) die("long name not truncated: " len " bytes")
			if (len < 1000) die("long name cut too short: " len " bytes")
			if (substr(name, kept + 1) != m) die("no truncation marker at the end of the long name")
			if (substr(long, 1, kept) != substr(name, 1, kept)) die("long name prefix differs")
			next
		}
		want = sprintf("fn_%05d", i)
		if (name != want) die("slice " i ": expected " want ", found " substr(name, 1, 80))
		names[name] = 1; i++
	}
	END {
		if (bad) exit 1
		if (want_main) die("no slices")
		if (i != n) die("found " i " fn_ slices, expected " n)
		if (!seen_long) die("long name missing")
		d = 0; for (k in names) d++
		if (d != n) die(d " distinct fn_ names, expected " n)
	}' "$TMP/many-strings.slices")
	if [ -n "$why" ]; then
		fail many-strings "$why"
		return
	fi
	# The name count also holds on the raw dump (40,000 + main + long).
	local distinct
	distinct=$(cut -d' ' -f3- "$TMP/many-strings.slices" | sort -u | wc -l)
	if [ "$distinct" -ne $((n + 2)) ]; then
		fail many-strings "$distinct distinct names in the dump, expected $((n + 2))"
		return
	fi
	ok many-strings
}

many_threads() {
	local nt=300 why
	awk -v nt=$nt -f "$GEN/many-threads.awk" >"$TMP/many-threads.txt"
	convert_and_dump many-threads || return
	# Slices: every thread exactly "TID 0 main" then "TID 1 work".
	why=$(awk -v nt=$nt '
	function die(msg) { print msg; bad = 1; exit 1 }
	{
		n[$1]++
		if (n[$1] == 1 && ($2 != 0 || $3 != "main")) die("thread " $1 " starts with " $0)
		if (n[$1] == 2 && ($2 != 1 || $3 != "work")) die("thread " $1 " second slice " $0)
		if (n[$1] > 2) die("thread " $1 " has extra slice " $0)
	}
	END {
		if (bad) exit 1
		for (t = 5001; t <= 5000 + nt; t++)
			if (n[t] != 2) die("thread " t ": " n[t] + 0 " slices")
		for (t = 6000; t <= 6001; t++)
			if (n[t] != 2) die("thread " t ": " n[t] + 0 " slices")
		c = 0; for (t in n) c++
		if (c != nt + 2) die(c " threads, expected " nt + 2)
	}' "$TMP/many-threads.slices")
	if [ -n "$why" ]; then
		fail many-threads "$why"
		return
	fi
	# Records: every event of thread T is on process 5000 (6000 for 6000/6001),
	# and each thread has a kernel object record naming it with that process.
	why=$(awk -v nt=$nt '
	function die(msg) { print msg; bad = 1; exit 1 }
	function proc(t) { return (t >= 6000) ? 6000 : 5000 }
	/ event / {
		pid = ""; tid = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^pid=/) pid = substr($i, 5)
			if ($i ~ /^tid=/) tid = substr($i, 5)
		}
		if (tid == "" || pid == "") next
		ev[tid]++
		if (pid != proc(tid + 0)) die("event of thread " tid " on process " pid)
	}
	/kobj thread / {
		koid = ""; p = ""
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^koid=/) koid = substr($i, 6)
			if ($i ~ /^process=/) p = substr($i, 9)
		}
		if (p != proc(koid + 0)) die("thread object " koid " has process " p)
		if (index($0, "[" koid "]") == 0)
			die("thread object " koid " not named COMM [TID]: " $0)
		named[koid] = 1
	}
	END {
		if (bad) exit 1
		for (t = 5001; t <= 5000 + nt; t++) {
			if (!(t in named)) die("thread " t " never named by a kernel object record")
			if (ev[t] < 2) die("thread " t ": " ev[t] + 0 " events")
		}
		if (!(6000 in named) || !(6001 in named)) die("process 6000 threads not named")
	}' "$TMP/many-threads.records")
	if [ -n "$why" ]; then
		fail many-threads "$why"
		return
	fi
	ok many-threads
}

deep_recursion() {
	local depth=${1:-600} why
	awk -v depth=$depth -f "$GEN/deep-recursion.awk" >"$TMP/deep.txt"
	if ! "$CONVERT" --quiet "$TMP/deep.txt" -o "$TMP/deep.fxt" 2>"$TMP/deep.err"; then
		fail "deep-recursion-$depth" \
			"conversion failed: $(first_lines "$TMP/deep.err")"
		return
	fi
	if ! "$CONVERT" --dump=tree "$TMP/deep.fxt" >"$TMP/deep.tree" 2>"$TMP/deep.err"; then
		why="$(grep -c . "$TMP/deep.err") problems, first: $(head -n 1 "$TMP/deep.err")"
		fail "deep-recursion-$depth" "reader rejects the output: $why"
		return
	fi
	# Line k (k = 0..448): depth k, main then rec; rec at depth k begins at
	# 7 s + 10k ns and ends at 7 s + 20 depth - 10(k-1) ns (main: 10 .. 20 depth).
	why=$(awk -v depth=$depth '
	function die(msg) { print msg; bad = 1; exit 1 }
	/^#/ || / instant / { next }
	{
		d = $2 + 0
		if (!match($0, / \[[0-9]+, [0-9]+\]/)) die("unparsed: " $0)
		t = substr($0, RSTART + 2, RLENGTH - 3); split(t, be, ", ")
		name = $3
		if (d != k) die("slice " k " at depth " d ": " $0)
		if (name != (k ? "rec" : "main")) die("slice " k " is " name)
		wb = 7000000000 + (k ? 10 * k : 10)
		we = 7000000000 + 20 * depth - (k ? 10 * (k - 1) : 0)
		if (be[1] - wb > 8 || wb - be[1] > 8 || be[2] - we > 8 || we - be[2] > 8) {
			die("slice " k " " name " [" be[1] ", " be[2] "], expected [" wb ", " we "]")
		}
		k++
	}
	END {
		if (bad) exit 1
		# The converter writes frames at stack index < 512 - 64 (64 levels
		# are kept for frames inferred below the bottom, as main is here).
		want = depth < 448 ? depth + 1 : 449
		if (k != want) { print k " slices, expected " want; exit 1 }
	}' "$TMP/deep.tree")
	if [ -n "$why" ]; then
		fail "deep-recursion-$depth" "$why"
		return
	fi
	ok "deep-recursion-$depth"
}

# deep_unwind DEPTH: a trace that starts DEPTH frames deep in a recursion and
# unwinds it: every return infers one more caller below the others. Perfetto
# shows 512 levels: the file must read back balanced with levels 0..511, all
# "rec", each enclosing the next.
deep_unwind() {
	local depth=$1 n="deep-unwind-$1" why
	awk -v depth="$depth" -f "$GEN/deep-unwind.awk" >"$TMP/$n.txt"
	convert_and_dump "$n" || return
	why=$(awk -v want=512 '
		$3 != "rec" || $2 != NR - 1 { print "line " NR ": " $0; exit 1 }
		END { if (NR != want) { print NR " slices, expected " want; exit 1 } }' \
		"$TMP/$n.slices")
	if [ -n "$why" ]; then
		fail "$n" "$why"
		return
	fi
	ok "$n"
}

errors_one_time() {
	local n=errors-one-time per
	awk 'BEGIN {
		e = " instruction trace error type 1 time %s cpu 2 pid 100 tid 100 ip 0x13ee018 code 7: Overflow packet\n"
		for (i = 0; i < 700; i++)
			printf " instruction trace error type 1 cpu 2 pid 100 tid 100 ip 0x13ee018 code 7: Overflow packet\n"
		print "             app   100/100       5.000000100:          1  branches:u:   call                          dc6010 main+0x10 (/opt/app) =>           505000 a+0x0 (/opt/app)"
		for (i = 0; i < 1000; i++)
			printf e, "5.000000300"
		print "             app   100/100       5.000000400:          1  branches:u:   call                          505010 a+0x10 (/opt/app) =>          13ee000 b+0x0 (/opt/app)"
	}' >"$TMP/$n.txt"
	if ! "$CONVERT" "$TMP/$n.txt" -o "$TMP/$n.fxt" 2>"$TMP/$n.err"; then
		fail "$n" "conversion failed: $(first_lines "$TMP/$n.err")"
		return
	fi
	if ! "$CONVERT" --dump=records "$TMP/$n.fxt" >"$TMP/$n.records" 2>"$TMP/$n.dump"; then
		fail "$n" "the trace has problems: $(first_lines "$TMP/$n.dump")"
		return
	fi
	per=$(grep 'decode error' "$TMP/$n.records" | grep -o ' ts=[0-9]*' | sort | uniq -c |
		awk '{ printf "%s%d@%s", (NR > 1 ? " " : ""), $1, substr($2, 4) }')
	if [ "$per" != "512@5000000100 512@5000000300" ]; then
		fail "$n" "decode-error instants per time: $per (expected 512@5000000100 512@5000000300)"
	elif ! grep -q 'warning: 676 instants were left out: 512 or more of one time on one track' "$TMP/$n.err" ||
		! grep -q ' 1700 decode errors' "$TMP/$n.err"; then
		fail "$n" "the summary: $(grep -e 'left out' -e 'decode errors' "$TMP/$n.err" | tr '\n' '|')"
	elif ! perfetto_estimate "$n"; then
		return
	else
		ok "$n"
	fi
}

# perfetto_estimate NAME: the summary's estimate of Perfetto's memory counts
# the records of $TMP/NAME.records (complete records, begin/end pairs,
# instants) at README's bytes for each (434 a pair, 269 a complete record
# or instant); returns 1 after a FAIL line.
perfetto_estimate() {
	local n=$1 want got
	want=$(awk 'function n(c, word) { return c " " word (c == 1 ? "" : "s") }
		$2 == "event" { k[$3]++ }
		END { printf "~%.0f MiB to open it (%s, %s, %s;",
			(k["begin"] * 434 + (k["complete"] + k["instant"]) * 269) / 1048576,
			n(k["complete"] + 0, "complete record"), n(k["begin"] + 0, "begin/end pair"),
			n(k["instant"] + 0, "instant") }' "$TMP/$n.records")
	got=$(grep -o 'Perfetto needs .* instants;' "$TMP/$n.err")
	[ "$got" = "Perfetto needs $want" ] && return 0
	fail "$n" "the summary's estimate: '$got', expected 'Perfetto needs $want'"
	return 1
}

many_strings
errors_one_time
many_threads
deep_recursion 600
deep_unwind 600
