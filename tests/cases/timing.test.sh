#!/usr/bin/env bash
# tier: check
# Timing of golden cases: a case may hold expected-times.txt, lines
#   TID DEPTH BEGIN END NAME        a slice (BEGIN/END in ns, "*" = any)
#   TID DEPTH TIME - NAME           an instant (after that thread's slices)
# derived from docs/design.md "The line driver" and "Ordering in the file"
# (thread's first timestamp, segment start after a decode error, spreading of equal timestamps, gaps,
# period as time). The converter's output read back with
# `snaptrace-convert --dump=tree` must list, per thread and in order, the
# same slices and instants with times within TOL ns (a converter may stagger
# inferred begins by a few ns to order them; more is a different time).
# DEPTH "*" matches any depth, a NAME ending in "*" matches by prefix.
# Frames inferred below the bottom of the stack cannot all begin exactly at
# the segment's start: Perfetto would nest equal-time begins in file order,
# innermost first. The converter staggers them, the k-th k ns before the
# segment's first branch, or after a decode error at error + 512 - k, and
# then moves the segment's events earlier than error + 512 up to that time
# (each inferred frame needs a ns of its own; 512 is as deep as Perfetto
# nests); the files pin those times. A decode error
# without a time before the thread's first event lands inside the frames
# inferred before that event (depth 1 in lost-data-no-time).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

CASES_DIR="$SNAPTRACE_TOP/tests/cases"
TOL=8

need_built timing "$CONVERT"

# times_match TREE EXPECTED: prints the first difference and returns 1.
times_match() {
	awk -v tol=$TOL '
	function push(t, v) { if (!(t in cnt)) { cnt[t] = 0; order[++nt] = t }; cnt[t]++; val[t, cnt[t]] = v }
	function epush(t, v) { if (!(t in ecnt)) { ecnt[t] = 0; eorder[++ne] = t }; ecnt[t]++; ev[t, ecnt[t]] = v }
	function near(want, got) { return want == "*" || want == "-" || (got != "" && (got - want <= tol && want - got <= tol)) }
	function name_ok(want, got) {
		if (substr(want, length(want), 1) == "*")
			return substr(got, 1, length(want) - 1) == substr(want, 1, length(want) - 1)
		return want == got
	}
	FNR == NR {
		if ($0 == "") next
		n = $1 " " $2 " " $3 " " $4 " "
		epush($1, $2 SUBSEP $3 SUBSEP $4 SUBSEP substr($0, length(n) + 1))
		next
	}
	/^#/ { next }
	{
		tid = $1; depth = $2
		rest = substr($0, length($1) + length($2) + 3)
		sub(/^ +/, "", rest)
		if (match(rest, / \[[0-9]+, ([0-9]+\] dur=|did not end\])/)) {
			name = substr(rest, 1, RSTART - 1)
			times = substr(rest, RSTART)
			b = times; sub(/^ *\[/, "", b); sub(/,.*/, "", b)
			e = times; sub(/^[^,]*, /, "", e); sub(/\].*/, "", e)
			if (e == "did not end") e = "never"
		} else if (match(rest, / @[0-9]+ instant/)) {
			name = substr(rest, 1, RSTART - 1)
			b = substr(rest, RSTART + 2); sub(/ .*/, "", b)
			e = "-"
		} else {
			next
		}
		push(tid, depth SUBSEP b SUBSEP e SUBSEP name)
	}
	END {
		for (i = 1; i <= ne; i++) {
			t = eorder[i]
			for (j = 1; j <= ecnt[t] || j <= cnt[t]; j++) {
				if (j > ecnt[t]) { split(val[t, j], a, SUBSEP); print "thread " t ": extra " a[4]; exit 1 }
				split(ev[t, j], x, SUBSEP)
				if (j > cnt[t]) { print "thread " t ": missing " x[4]; exit 1 }
				split(val[t, j], a, SUBSEP)
				if ((x[1] != "*" && x[1] != a[1]) || !name_ok(x[4], a[4]) || !near(x[2], a[2]) ||
				    (x[3] != "-" && !near(x[3], a[3])) || (x[3] == "-") != (a[3] == "-")) {
					print "thread " t ": expected " x[1] " " x[4] " [" x[2] ", " x[3] "], found " \
						a[1] " " a[4] " [" a[2] ", " a[3] "]"
					exit 1
				}
			}
		}
	}' "$2" "$1"
}

for d in "$CASES_DIR"/*/; do
	d=${d%/}
	[ -f "$d/expected-times.txt" ] || continue
	name=$(basename "$d")
	args=()
	# shellcheck disable=SC2207
	[ -f "$d/args" ] && args=($(cat "$d/args"))
	if ! (cd "$d" && "$CONVERT" --quiet "${args[@]}" input.txt -o "$TMP/$name.fxt") 2>"$TMP/$name.err"; then
		fail "timing/$name" "conversion failed: $(head -n 2 "$TMP/$name.err" | tr '\n' '|')"
		continue
	fi
	if ! "$CONVERT" --dump=tree "$TMP/$name.fxt" >"$TMP/$name.tree" 2>"$TMP/$name.err"; then
		fail "timing/$name" "reader rejects the output: $(head -n 2 "$TMP/$name.err" | tr '\n' '|')"
		continue
	fi
	if ! why=$(times_match "$TMP/$name.tree" "$d/expected-times.txt"); then
		fail "timing/$name" "$why"
		continue
	fi
	ok "timing/$name"
done
