#!/usr/bin/env bash
# tier: check
# snaptrace-stats: every number checked against an independent oracle
# (oracle.awk over `snaptrace-convert --dump=tree`, the whole-trace reader)
# or against exact durations written by hand (mkfxt, through the project's
# FXT writer):
#   pt-*        synthesized Intel PT of programs with known calls (tests/ptsynth):
#               exact calls (from the ground truth), recursion not double
#               counted, self = total - callee, callers >= callees, and a
#               snapshot window starting mid-stack (inferred frames written
#               late, read with two passes);
#   exact-*     hand-built durations: percentiles within 1%, --top order,
#               table/csv/json agree, --baseline ratios (and --baseline
#               naming the trace itself: exit 2);
#   magic-trace the same events in magic-trace's layout give the same rows;
#   pseudo, sampled, options, errors: bracketed frames are rows, a sampled
#               trace leaves the per-call columns out (--baseline too: "-"
#               for what does not exist, numbers for counts and times),
#               filters, exit codes: a thread or function the trace lacks
#               is an error listing what it has, a filter matching nothing
#               is not; bad values, options that need or exclude another,
#               files that are not traces (directory, empty, missing),
#               a trace cut short (gzip or raw: exit 1, never partial rows);
#               a trace with no slice (a table of nothing, --baseline
#               against it: once qsort(NULL, 0), which stops the
#               sanitizer build); an empty trace of a sampling
#               recording says so (empty-recorded).
#   function-names  --function takes the names users see (issue 24: the
#               recorder prints work(int), perf and nm _Z4worki; the trace
#               has work): demangled with or without its parameters, or
#               mangled; a name that matches several (an other writer's
#               parse(int), parse(double)) is an error naming each; one
#               that matches none names the nearest the trace has (whole
#               names: function-nearest-whole); a
#               name without perf's symbol version ("clock_gettime", as
#               snaptrace symbols prints it) finds clock_gettime@@GLIBC_2.17,
#               never the PLT stub clock_gettime@plt.
#   function-spellings  every spelling of a function the recorder takes
#               and prints (symbol:NAME, LIB:NAME, a Rust hash) selects
#               its rows; addr: and FILE:LINE are refused (exit 2) saying
#               what to write; LIB:NAME of another library names the one
#               that has it.
#   one-call-singular  a histogram's heading says "1 call", not "1 calls"
#   measured-apart  a sampled trace with measured calls of a function too
#               (the slow-call trigger: exact) never mixes them into one
#               histogram with its sampled slices (estimates): --function
#               gives a row of each, labelled by a kind column (all: every
#               slice of the function, its measured calls' too, no
#               per-call values, so the slow calls compare with all it
#               made: issue 24, the old row held the slices outside the
#               slow calls alone; measured: the exact ones), a histogram
#               per kind (text: two charts; CSV/JSON: rows with their
#               kind), the longest calls each with its kind; the function
#               counts once; --baseline pairs measured rows with measured
#               rows, all with all.
#   all-beside-slow  a slow-call trigger's trace as the converter writes it
#               (a sampled slice of the function, a measured call as a
#               begin and an end with sampled children, one never ended):
#               the function's "all" row holds both (total, and self
#               without the call's children), its caller's self counts
#               the call once, the call never ended is one slice left out.
#   measured-mid-call  a function measured without a whole call (the
#               recording began inside main): --function shows its time in
#               the trace and the recording's 0 calls, or the recording's
#               numbers alone when the trace has no slice of it, with one
#               line saying so; never "no function" (text and JSON).
. "$(dirname "$0")/../lib.sh"

STATS="$SNAPTRACE_BIN/snaptrace-stats"
MKFXT="$SNAPTRACE_TEST_BIN/stats-mkfxt"
ORACLE="$SNAPTRACE_TOP/tests/stats/oracle.awk"
. "$SNAPTRACE_TOP/tests/ptsynth/ptsynth.sh"
need_built stats "$CONVERT"
for f in "$STATS" "$MKFXT"; do
	if [ ! -x "$f" ]; then
		fail stats-build "missing $f (make all tests-build)"
		exit 1
	fi
done

# stats_tsv FILE [OPTS...]: snaptrace-stats --format csv as the oracle's
# columns (NAME DSO calls total self min max p50 p90 p99), sorted.
stats_tsv() {
	local f=$1
	shift
	"$STATS" --format csv "$@" "$f" | awk -F, 'NR > 1 {
		printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1, $10, $2, $3, $4, $5, $9, $6, $7, $8 }' |
		sort
}

# oracle_tsv FILE: the oracle's rows, sorted.
oracle_tsv() {
	"$CONVERT" --dump=tree "$1" | awk -f "$ORACLE" | sort
}

# same_rows A B: rows equal, counts and times exact, percentiles within 1%;
# prints the first difference.
same_rows() {
	awk -F'\t' 'NR == FNR { e[$1 "\t" $2] = $0; n++; next }
	{
		k = $1 "\t" $2
		if (!(k in e)) { print "unexpected row: " $0; bad = 1; exit }
		split(e[k], x, "\t")
		for (i = 3; i <= 7; i++) if (x[i] != $i) { print "column " i " of " k ": expected " x[i] ", found " $i; bad = 1; exit }
		for (i = 8; i <= 10; i++) { d = x[i] - $i; if (d < 0) d = -d; if (d > x[i] / 100) { print "percentile column " i " of " k ": exact " x[i] ", found " $i " (more than 1% off)"; bad = 1; exit } }
		m++
	}
	END { if (!bad && m != n) { print "expected " n " rows, found " m; exit 1 } exit bad }' "$1" "$2"
}

# col TSV NAME COLUMN: a column of the row of function NAME.
col() {
	awk -F'\t' -v n="$2" -v c="$3" '$1 == n { print $c; exit }' "$1"
}

# ---- Intel PT, synthesized ----
have_pt=1
requires pt ptsynth perf ptrace || have_pt=0

# pt NAME PROG OPTS...: $TMP/NAME.fxt from a synthesized recording, its
# stats in $TMP/NAME.stats and the oracle's in $TMP/NAME.oracle; compares them.
pt() {
	local name=$1 prog=$2 why
	shift 2
	if ! timeout 120 "$PTSYNTH" -q --cache "$PTSYNTH_RUNS" -o "$TMP/$name.data" \
		--truth "$TMP/$name.truth" "$@" \
		-- "$PROGS/$prog" >/dev/null 2>"$TMP/$name.gen"; then
		fail "pt-$name" "ptsynth failed: $(first_lines "$TMP/$name.gen")"
		return 1
	fi
	if ! "$CONVERT" -q "$TMP/$name.data" -o "$TMP/$name.fxt" 2>"$TMP/$name.cerr"; then
		fail "pt-$name" "convert failed: $(first_lines "$TMP/$name.cerr")"
		return 1
	fi
	stats_tsv "$TMP/$name.fxt" >"$TMP/$name.stats"
	oracle_tsv "$TMP/$name.fxt" >"$TMP/$name.oracle"
	if [ ! -s "$TMP/$name.oracle" ]; then
		fail "pt-$name" "the trace has no slices"
		return 1
	fi
	if ! why=$(same_rows "$TMP/$name.oracle" "$TMP/$name.stats"); then
		fail "pt-$name" "stats differ from the oracle: $why"
		return 1
	fi
}

# ordered TSV: min <= p50 <= p90 <= p99 <= max and self <= total on every row.
ordered() {
	awk -F'\t' '!($6 <= $8 && $8 <= $9 && $9 <= $10 && $10 <= $7 && $5 <= $4) { print "row " $1 ": " $0; exit 1 }' "$1"
}

if [ "$have_pt" = 1 ]; then
	if pt recurse recurse; then
		truth_calls=$("$EXPECT" "$TMP/recurse.truth" | awk '$3 == "down"' | wc -l)
		calls=$(col "$TMP/recurse.stats" down 3)
		total=$(col "$TMP/recurse.stats" down 4)
		main_total=$(col "$TMP/recurse.stats" main 4)
		# down(100) and down(3): 101 + 4 activations, two of them outermost
		if [ "$calls" != 105 ] || [ "$truth_calls" != 105 ]; then
			fail pt-recurse "down: expected 105 calls (truth: $truth_calls), found $calls"
		elif [ "$total" -ge "$main_total" ]; then
			fail pt-recurse "down's total $total is not below main's $main_total (recursion counted twice?)"
		elif ! ordered "$TMP/recurse.stats" >"$TMP/why"; then
			fail pt-recurse "percentiles out of order: $(cat "$TMP/why")"
		else
			ok pt-recurse
		fi
	fi
	# a window starting 100 deep in the recursion: inferred frames written
	# late (begins before the events that revealed them)
	if pt recurse-window recurse --snapshot-at 900 --snapshot-window 400; then
		if ! "$CONVERT" --dump=tree "$TMP/recurse-window.fxt" | grep -q 'inferred:bool=true'; then
			fail pt-recurse-window "no inferred frame in the window: the test lost its point"
		else
			ok pt-recurse-window
		fi
	fi
	if pt calls calls-static; then
		f=$TMP/calls.stats
		mt=$(col "$f" main 4) mi=$(col "$f" middle 4) ms=$(col "$f" middle 5) lt=$(col "$f" leaf 4)
		mc=$(col "$f" middle 3) lc=$(col "$f" leaf 3)
		if [ "$mc" != 2 ] || [ "$lc" != 7 ]; then
			fail pt-calls "expected middle 2 calls and leaf 7 (4 + 3), found $mc and $lc"
		elif [ "$ms" != $((mi - lt)) ]; then
			fail pt-calls "middle calls only leaf: self $ms != total $mi - leaf's total $lt"
		elif [ "$mt" -lt "$mi" ] || [ "$mi" -lt "$lt" ]; then
			fail pt-calls "a caller's total below its callee's: main $mt middle $mi leaf $lt"
		elif ! ordered "$f" >"$TMP/why"; then
			fail pt-calls "percentiles out of order: $(cat "$TMP/why")"
		else
			ok pt-calls
		fi
	fi
	if pt threads threads; then
		# per thread: the rows of each thread add up to the all-threads rows
		"$STATS" --format csv --by-thread "$TMP/threads.fxt" >"$TMP/by-thread.csv"
		tids=$(awk -F, 'NR > 1 { print $11 }' "$TMP/by-thread.csv" | sort -u)
		sum=$(awk -F, 'NR > 1 { c[$1 "," $10] += $2 } END { for (k in c) print k "," c[k] }' \
			"$TMP/by-thread.csv" | sort)
		all=$("$STATS" --format csv "$TMP/threads.fxt" | awk -F, 'NR > 1 { print $1 "," $10 "," $2 }' | sort)
		one=$(echo "$tids" | tail -n 1)
		by_one=$(awk -F, -v t="$one" 'NR > 1 && $11 == t { print $1 "," $2 "," $3 "," $4 }' \
			"$TMP/by-thread.csv" | sort)
		only=$("$STATS" --format csv --thread "$one" "$TMP/threads.fxt" |
			awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $4 }' | sort)
		if [ "$(echo "$tids" | wc -l)" -lt 2 ]; then
			fail pt-threads "expected rows of several threads, found tids: $tids"
		elif [ "$sum" != "$all" ]; then
			fail pt-threads "the per-thread calls do not add up to the all-threads calls"
		elif [ "$by_one" != "$only" ] || [ -z "$only" ]; then
			fail pt-threads "--thread $one differs from its --by-thread rows"
		elif ! awk -F, 'NR > 1 && $12 !~ /\[/ { exit 1 }' "$TMP/by-thread.csv"; then
			fail pt-threads "a --by-thread row without its thread's name"
		else
			ok pt-threads
		fi
	fi
fi

# ---- hand-built traces with exact durations ----
# exact.fxt: "work" called 100 times for 1..100 us, each calling "child"
# for 100 ns; "tiny" 100 times for 1..100 ns (exact buckets).
awk 'BEGIN {
	print "process 7 app"; print "thread 7 7 app"; print "info mode pt"
	t = 1000
	for (i = 1; i <= 100; i++) {
		print "B 7 7 " t " work /opt/app"
		print "B 7 7 " t + 10 " child /opt/lib.so"
		print "E 7 7 " t + 110
		print "E 7 7 " t + i * 1000
		t += i * 1000 + 50
		print "X 7 7 " t " " t + i " tiny /opt/tiny.so"
		t += 200
	}
}' >"$TMP/exact.script"
if ! "$MKFXT" "$TMP/exact.fxt" <"$TMP/exact.script" 2>"$TMP/mk.err"; then
	fail exact "mkfxt failed: $(first_lines "$TMP/mk.err")"
	exit 1
fi
stats_tsv "$TMP/exact.fxt" >"$TMP/exact.stats"
# NAME DSO calls total self min max p50 p90 p99, percentiles exact
printf 'child\t/opt/lib.so\t100\t10000\t10000\t100\t100\t100\t100\t100\n' >"$TMP/exact.want"
printf 'tiny\t/opt/tiny.so\t100\t5050\t5050\t1\t100\t50\t90\t99\n' >>"$TMP/exact.want"
printf 'work\t/opt/app\t100\t5050000\t5040000\t1000\t100000\t50000\t90000\t99000\n' >>"$TMP/exact.want"
if ! why=$(same_rows "$TMP/exact.want" "$TMP/exact.stats"); then
	fail exact-percentiles "$why"
elif [ "$(col "$TMP/exact.stats" tiny 8),$(col "$TMP/exact.stats" tiny 9),$(col "$TMP/exact.stats" tiny 10)" != 50,90,99 ]; then
	fail exact-percentiles "durations below 128 ns must give exact percentiles: $(grep tiny "$TMP/exact.stats")"
elif ! why=$(same_rows "$TMP/exact.want" <(oracle_tsv "$TMP/exact.fxt")); then
	fail exact-percentiles "the oracle disagrees with the hand-made numbers: $why"
else
	ok exact-percentiles
fi

# begins nested past FXT_MAX_DEPTH (512) on a thread: the inner 88 of 600
# are left out with their ends (their ends are the first 88 in the file),
# one warning line says so (a 6 MB gzip of begins never ended held 5 GB of
# stats' and --dump's memory); the 512 kept end at the ends after those
awk 'BEGIN { print "process 7 app"; print "thread 7 7 main"
	for (i = 0; i < 600; i++) print "B 7 7 " 1000 + i " deep /opt/deep"
	for (i = 0; i < 600; i++) print "E 7 7 " 5000 + i }' >"$TMP/deep.script"
if ! "$MKFXT" "$TMP/deep.fxt" <"$TMP/deep.script" 2>"$TMP/mk.err"; then
	fail deep-begins "mkfxt failed: $(first_lines "$TMP/mk.err")"
else
	"$STATS" --format csv "$TMP/deep.fxt" >/dev/null 2>"$TMP/deep.err"
	"$CONVERT" --dump=slices "$TMP/deep.fxt" >"$TMP/deep.slices" 2>"$TMP/deep.dump.err"
	row=$(stats_tsv "$TMP/deep.fxt" 2>/dev/null | cut -f 1,3,6,7)
	if [ "$row" != "$(printf 'deep\t512\t3577\t4599')" ]; then
		fail deep-begins "expected 512 calls of 3577 to 4599 ns (the outer 512), got: $row"
	elif [ "$(grep -c 'nested deeper' "$TMP/deep.err")" -ne 1 ] ||
		! grep -q ": 88 slices nested deeper than 512 on their thread are left out$" "$TMP/deep.err"; then
		fail deep-begins "expected one warning of the 88 slices left out: $(first_lines "$TMP/deep.err")"
	elif [ "$(grep -c 'nested deeper' "$TMP/deep.dump.err")" -ne 1 ] ||
		! grep -q ": 88 duration begins nested deeper than 512 on their thread left out, with their ends" \
			"$TMP/deep.dump.err" || [ "$(grep -c ' deep$' "$TMP/deep.slices")" -ne 512 ]; then
		fail deep-begins "--dump: expected 512 slices and one line of the 88 left out: $(first_lines "$TMP/deep.dump.err")"
	else
		ok deep-begins
	fi
fi

# --top: the longest calls, longest first, with their start times
# --sort calls moves the rows (ties by name): the calls must keep their dso
"$STATS" --format csv --sort calls --function work --top 3 "$TMP/exact.fxt" >"$TMP/top.csv"
longest=$(awk -F, '/^rank,/ { on = 1; next } on { print $2 "," $4 "," $7 }' "$TMP/top.csv" | tr '\n' ' ')
want=$(awk '/ work / { b = $4 } /^E / && b { n++; if (n % 2 == 0) { print $4 - b "," b ",/opt/app"; b = 0 } }' \
	"$TMP/exact.script" | sort -t, -k1,1nr | head -n 3 | tr '\n' ' ')
if [ -z "$longest" ] || [ "$longest" != "$want" ]; then
	fail exact-top "expected (duration,start,dso) $want, found $longest"
elif ! "$STATS" --function work --top 3 "$TMP/exact.fxt" | grep -q '00:00:00\.'; then
	fail exact-top "the table shows no start time as Perfetto does"
elif ! "$STATS" --function work "$TMP/exact.fxt" | grep -q '|#'; then
	fail exact-top "no histogram bars"
else
	ok exact-top
fi

# a count of one in the histogram's heading is singular ("main durations
# (1 calls, ..." before: issue 24 item 7; the golden case call-return has
# one call of each function)
"$CONVERT" -q "$SNAPTRACE_TOP/tests/cases/call-return/input.txt" -o "$TMP/one.fxt" &&
	head1=$("$STATS" --function main "$TMP/one.fxt" | grep ' durations (')
if [ "$head1" != "main durations (1 call, a bar per power of two):" ]; then
	fail one-call-singular "the histogram's heading: '$head1'"
else
	ok one-call-singular
fi

# table, csv and json show the same rows
"$STATS" --format csv "$TMP/exact.fxt" | tail -n +2 >"$TMP/f.csv"
"$STATS" --format json "$TMP/exact.fxt" | awk '/^  \{/ {
	s = $0; sub(/^  \{/, "", s); sub(/\},?$/, "", s)
	n = split(s, kv, ","); line = ""
	for (i = 1; i <= n; i++) { v = kv[i]; sub(/^"[^"]*":/, "", v); gsub(/"/, "", v); line = line (i > 1 ? "," : "") v }
	print line }' >"$TMP/f.json"
"$STATS" "$TMP/exact.fxt" | awk 'NR > 3 { print $1 "," $2 "," $9 }' >"$TMP/f.table"
awk -F, 'function h(ns,   v) {
		if (ns >= 1e9) { v = ns / 1e9; u = "s" } else if (ns >= 1e6) { v = ns / 1e6; u = "ms" }
		else if (ns >= 1e3) { v = ns / 1e3; u = "µs" } else return ns "ns"
		return sprintf(v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s", v, u) }
	{ print $2 "," h($3) "," $1 }' "$TMP/f.csv" >"$TMP/f.table-want"
if ! cmp -s "$TMP/f.csv" "$TMP/f.json"; then
	fail exact-formats "csv and json differ: $(diff "$TMP/f.csv" "$TMP/f.json" | head -4 | tr '\n' ' ')"
elif ! cmp -s "$TMP/f.table-want" "$TMP/f.table"; then
	fail exact-formats "table and csv differ: $(diff "$TMP/f.table-want" "$TMP/f.table" | head -4 | tr '\n' ' ')"
elif [ "$("$STATS" --format csv "$TMP/exact.fxt" | head -n 1)" != \
	"function,calls,total_ns,self_ns,min_ns,p50_ns,p90_ns,p99_ns,max_ns,dso" ]; then
	fail exact-formats "csv header: $("$STATS" --format csv "$TMP/exact.fxt" | head -n 1)"
else
	ok exact-formats
fi

# --baseline: f 10 x 1 us -> 20 x 3 us; k 100 ns -> 1 us (the larger
# ratio, the smaller change: after f, as issue 24's trial found a 3.26x
# change of 0.37 ms above work's -50.7 ms); g only in the new trace, h only
# in the old: the largest change of total time first
{
	echo "thread 7 7 app"
	for i in $(seq 10); do echo "X 7 7 $((i * 10000)) $((i * 10000 + 1000)) f /opt/app"; done
	echo "X 7 7 200000 200500 h /opt/app"
	echo "X 7 7 250000 250100 k /opt/app"
} >"$TMP/old.script"
{
	echo "thread 7 7 app"
	for i in $(seq 20); do echo "X 7 7 $((i * 10000)) $((i * 10000 + 3000)) f /opt/app"; done
	echo "X 7 7 250000 251000 k /opt/app"
	echo "X 7 7 300000 300700 g /opt/app"
} >"$TMP/new.script"
"$MKFXT" "$TMP/old.fxt" <"$TMP/old.script" && "$MKFXT" "$TMP/new.fxt" <"$TMP/new.script"
"$STATS" --format csv --baseline "$TMP/old.fxt" "$TMP/new.fxt" >"$TMP/base.csv"
want='function,calls_old,calls_new,calls_ratio,p50_old_ns,p50_new_ns,p50_ratio,p99_old_ns,p99_new_ns,p99_ratio,total_old_ns,total_new_ns,total_ratio,dso
f,10,20,2.000,1000,3000,3.000,1000,3000,3.000,10000,60000,6.000,/opt/app
k,1,1,1.000,100,1000,10.000,100,1000,10.000,100,1000,10.000,/opt/app
g,0,1,,,700,,,700,,0,700,,/opt/app
h,1,0,0.000,500,,,500,,,500,0,0.000,/opt/app'
if [ "$(cat "$TMP/base.csv")" != "$want" ]; then
	fail exact-baseline "expected: $(echo "$want" | tr '\n' '|') found: $(tr '\n' '|' <"$TMP/base.csv")"
elif ! "$STATS" --baseline "$TMP/old.fxt" "$TMP/new.fxt" | grep -q ' 6\.00x'; then
	fail exact-baseline "the table shows no 6.00x total ratio for f"
elif ! "$STATS" --baseline "$TMP/old.fxt" "$TMP/new.fxt" |
	awk '$13 == "g" { exit !($1 == "0" && $4 == "-" && $7 == "-" && $10 == "0ns") }'; then
	fail exact-baseline "table row g: expected 0 calls, '-' percentiles, 0ns total old: $("$STATS" --baseline "$TMP/old.fxt" "$TMP/new.fxt" | grep ' g ')"
else
	ok exact-baseline
fi
# two builds at other paths (issue 24): f of /build/v1/app and of
# /build/v2/app pair by the binary's file name; --baseline-paths keeps them
# apart (each on one side only); and it needs --baseline
sed 's| /opt/app$| /build/v1/app|' "$TMP/old.script" | "$MKFXT" "$TMP/old-v1.fxt"
sed 's| /opt/app$| /build/v2/app|' "$TMP/new.script" | "$MKFXT" "$TMP/new-v2.fxt"
got=$("$STATS" --format csv --baseline "$TMP/old-v1.fxt" "$TMP/new-v2.fxt" | grep '^f,')
paths=$("$STATS" --format csv --baseline-paths --baseline "$TMP/old-v1.fxt" "$TMP/new-v2.fxt" | grep -c '^f,')
if [ "$got" != "f,10,20,2.000,1000,3000,3.000,1000,3000,3.000,10000,60000,6.000,/build/v2/app" ]; then
	fail baseline-other-path "f of the two builds did not pair: $got"
elif [ "$paths" != 2 ]; then
	fail baseline-other-path "--baseline-paths: expected f twice (one per path), found $paths rows"
else
	ok baseline-other-path
fi
# all-beside-slow: handle_request sampled for 1 ms, then a measured slow
# call of 9.5 ms (burn_cpu 1 ms, do_sleep 8 ms inside), then one entered at
# 30 ms never ended; main from 0 to 20 ms
printf '%s\n' 'info mode sampling' 'thread 7 7 app' 'B 7 7 0 main /bin/app' \
	'X 7 7 1000000 2000000 handle_request /bin/app' \
	'B 7 7 10000000 handle_request /bin/app measured=true duration_ns=9500000u' \
	'X 7 7 10000000 11000000 burn_cpu /bin/app' 'B 7 7 11000000 do_sleep /bin/app' \
	'E 7 7 19000000' 'E 7 7 19500000' 'E 7 7 20000000' \
	'B 7 7 30000000 handle_request /bin/app measured=true duration_ns=9000000u' \
	| "$MKFXT" "$TMP/slow.fxt"
got=$("$STATS" -q --format csv "$TMP/slow.fxt" 2>&1 | cut -d, -f1-4,11 | sort | tr '\n' ' ')
head=$("$STATS" "$TMP/slow.fxt" 2>&1)
want='burn_cpu,,1000000,1000000,sampled do_sleep,,8000000,8000000,sampled '
want+='function,calls,total_ns,self_ns,kind handle_request,,10500000,1500000,all '
want+='handle_request,1,9500000,500000,measured main,,20000000,9500000,sampled '
if [ "$got" != "$want" ]; then
	fail all-beside-slow "function,calls,total_ns,self_ns,kind: expected '$want', found '$got'"
elif [[ "$head" != *"slow.fxt: 4 functions, 5 slices"* ]] ||
	[[ "$head" != *"slow.fxt: 1 slice never ended is left out"* ]]; then
	fail all-beside-slow "head: 4 functions, 5 slices and 1 never ended expected: $(tr '\n' '|' <<<"$head")"
else
	ok all-beside-slow
fi
# baseline-measured: sampled traces count the calls of a measured function
# (--measure) alone: absent from a trace that measured it, it made 0 calls
# there (a number, as any count); absent from one that did not, its calls
# are not counted ("-", empty): the new trace measures f, not m; the row of
# every slice of each ("all": no calls counted) has none either way
{
	echo "info mode sampling"
	echo "info measured function=f	dso=/opt/app	calls=2	total_ns=2000"
	echo "info measured function=m	dso=/opt/app	calls=1	total_ns=500"
	echo "thread 7 7 app"
	echo "X 7 7 100 1100 f /opt/app measured=true duration_ns=1000u"
	echo "X 7 7 2000 3000 f /opt/app measured=true duration_ns=1000u"
	echo "X 7 7 4000 4500 m /opt/app measured=true duration_ns=500u"
} | "$MKFXT" "$TMP/old-m.fxt"
{
	echo "info mode sampling"
	echo "info measured function=f	dso=/opt/app	calls=0	total_ns=0"
	echo "thread 7 7 app"
	echo "X 7 7 100 200 g /opt/app"
} | "$MKFXT" "$TMP/new-m.fxt"
got=$("$STATS" -q --format csv --baseline "$TMP/old-m.fxt" "$TMP/new-m.fxt" | cut -d, -f1-4 | tail -n +2 | sort | tr '\n' ' ')
if [ "$got" != "f,,, f,2,0,0.000 g,,, m,,, m,1,, " ]; then
	fail baseline-measured "function,calls_old,calls_new,calls_ratio: expected 'f,,, f,2,0,0.000 g,,, m,,, m,1,, ', found '$got'"
else
	ok baseline-measured
fi
# measured-mid-call: main measured (--measure main) by a recording that began
# inside it (an attach): the info record says 0 calls; the trace has main
# for 6 ms (mid.fxt), or no slice of it (unseen.fxt: frame pointers hid
# it). --function main is no "no function": what is known, exit 0, and one
# line saying why there is no call (issue 24's trial: "no function named main")
{
	echo "info mode sampling"
	echo "info measured function=main	dso=/opt/app	calls=0	total_ns=0"
	echo "thread 7 7 app"
	echo "B 7 7 1000 main /opt/app"
	echo "X 7 7 2000 5000000 work /opt/app"
	echo "E 7 7 6001000"
} | "$MKFXT" "$TMP/mid.fxt"
{
	echo "info mode sampling"
	echo "info measured function=main	dso=/opt/app	calls=0	total_ns=0"
	echo "thread 7 7 app"
	echo "X 7 7 2000 5000000 work /opt/app"
} | "$MKFXT" "$TMP/unseen.fxt"
why=
for t in mid unseen; do
	for fmt in table json; do
		"$STATS" --format "$fmt" --function main "$TMP/$t.fxt" >"$TMP/$t.$fmt" \
			2>"$TMP/$t.$fmt.err" || why+="$t $fmt: exit $?: $(head -c 300 "$TMP/$t.$fmt.err"); "
	done
	python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["measured"]; sys.exit(m != [{"calls": 0, "total_ns": 0, "min_ns": None, "p50_ns": None, "p90_ns": None, "p99_ns": None, "max_ns": None}])' "$TMP/$t.json" 2>/dev/null ||
		why+="$t json: not the recording's 0 calls: $(head -c 300 "$TMP/$t.json"); "
done
mid_line="snaptrace-stats: $TMP/mid.fxt: \"main\": 0 complete calls measured in the whole recording; seen inside for 6.00ms in the trace: the calls it shows were entered before the recording began or still ran at its end, their durations not known"
unseen_line="snaptrace-stats: $TMP/unseen.fxt: \"main\": 0 complete calls measured in the whole recording, and the trace holds no slice of it"
if [ -n "$why" ]; then
	fail measured-mid-call "$why"
elif [ "$(cat "$TMP/mid.table.err")" != "$mid_line" ] || [ "$(cat "$TMP/unseen.table.err")" != "$unseen_line" ]; then
	fail measured-mid-call "stderr: expected '$mid_line' and '$unseen_line', found '$(cat "$TMP/mid.table.err")' and '$(cat "$TMP/unseen.table.err")'"
elif ! grep -q '^    -  6.00ms  1.00ms .* main  */opt/app$' "$TMP/mid.table" ||
	! grep -q '^main in the whole recording' "$TMP/unseen.table" || grep -q 'durations\|longest' "$TMP/unseen.table"; then
	fail measured-mid-call "text: main's 6 ms row, the recording's table alone without a slice: $(tr '\n' '|' <"$TMP/mid.table") // $(tr '\n' '|' <"$TMP/unseen.table")"
else
	ok measured-mid-call
fi
# --baseline naming the trace itself (another spelling, a hard link):
# exit 2, one line naming both (convert's rule for an input given twice)
ln "$TMP/new.fxt" "$TMP/new-hard.fxt"
same=ok
for other in "$TMP/new.fxt" "$TMP/./new.fxt" "$TMP/new-hard.fxt"; do
	"$STATS" --baseline "$other" "$TMP/new.fxt" >/dev/null 2>"$TMP/same.err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l <"$TMP/same.err")" -ne 1 ] ||
		! grep -qF -- "$other and $TMP/new.fxt are the same file" "$TMP/same.err"; then
		fail baseline-same "--baseline $other: exit $rc, expected 2 and one line naming both: $(first_lines "$TMP/same.err")"
		same=failed
		break
	fi
done
[ "$same" = ok ] && ok baseline-same
# the same traces sampled: the per-call columns are "-" on both sides, the
# totals numbers (0 for an absent function), never a mix of "-" and 0
{ echo "info mode sampling"; cat "$TMP/old.script"; } | "$MKFXT" "$TMP/old-s.fxt"
{ echo "info mode sampling"; cat "$TMP/new.script"; } | "$MKFXT" "$TMP/new-s.fxt"
want='f,,,,,,,,,,10000,60000,6.000,/opt/app
k,,,,,,,,,,100,1000,10.000,/opt/app
g,,,,,,,,,,0,700,,/opt/app
h,,,,,,,,,,500,0,0.000,/opt/app'
got=$("$STATS" -q --format csv --baseline "$TMP/old-s.fxt" "$TMP/new-s.fxt" | tail -n +2)
if [ "$got" != "$want" ]; then
	fail sampled-baseline "expected $(echo "$want" | tr '\n' '|') found $(echo "$got" | tr '\n' '|')"
elif ! "$STATS" -q --baseline "$TMP/old-s.fxt" "$TMP/new-s.fxt" | awk '$13 ~ /^[fgh]$/ {
		for (i = 1; i <= 9; i++) if ($i != "-") exit 1; n++ } END { exit n != 3 }'; then
	fail sampled-baseline "table: calls and percentiles must be '-' on both sides: $("$STATS" -q --baseline "$TMP/old-s.fxt" "$TMP/new-s.fxt" | tr '\n' '|')"
else
	ok sampled-baseline
fi

# ---- magic-trace's layout: begin/end with its argument set, category "" ----
# The same calls as snaptrace would write them (dso category, addr argument).
events() {  # events LAYOUT: main > a > b, a again, an inferred caller
	awk -v mt="$1" 'function b(ts, n) {
		if (mt) print "B 9 9 " ts " " n " - address=0x401000 symbol=" n
		else print "B 9 9 " ts " " n " /opt/app addr=0x401000"
	}
	function e(ts, n) { if (mt) print "E 9 9 " ts " " n " -"; else print "E 9 9 " ts }
	BEGIN {
		print "process 9 app"; print "thread 9 9 app"
		b(100, "main"); b(200, "a"); b(250, "b"); e(400, "b"); e(900, "a")
		b(1000, "a"); b(1100, "a"); e(1300, "a"); e(1800, "a"); e(5000, "main")
	}'
}
events 1 | "$MKFXT" "$TMP/mt.fxt" && events 0 | "$MKFXT" "$TMP/st.fxt"
"$STATS" --format csv "$TMP/mt.fxt" | cut -d, -f1-9 >"$TMP/mt.csv"
"$STATS" --format csv "$TMP/st.fxt" | cut -d, -f1-9 >"$TMP/st.csv"
if [ "$(wc -l <"$TMP/st.csv")" -ne 4 ]; then
	fail magic-trace "expected 3 rows for the snaptrace layout: $(tr '\n' '|' <"$TMP/st.csv")"
elif ! cmp -s "$TMP/mt.csv" "$TMP/st.csv"; then
	fail magic-trace "rows differ: $(diff "$TMP/st.csv" "$TMP/mt.csv" | head -4 | tr '\n' ' ')"
elif [ "$(grep '^a,' "$TMP/mt.csv" | cut -d, -f1-5)" != "a,3,1500,1350,200" ]; then
	fail magic-trace "a: expected 3 calls, total 1500 (the nested call adds nothing), self 1350, min 200: $(grep '^a,' "$TMP/mt.csv")"
else
	ok magic-trace
fi

# ---- pseudo-frames are rows of their own ----
cat >"$TMP/pseudo.script" <<'SCRIPT'
thread 5 5 app
B 5 5 100 f /opt/app
X 5 5 200 300 [untraced] -
X 5 5 400 600 [syscall] -
X 5 5 700 1000 [off-cpu] -
E 5 5 2000
X 5 5 3000 3010 [untraced] -
SCRIPT
"$MKFXT" "$TMP/pseudo.fxt" <"$TMP/pseudo.script"
stats_tsv "$TMP/pseudo.fxt" | cut -f1,3,4,5 >"$TMP/pseudo.tsv"
printf '[off-cpu]\t1\t300\t300\n[syscall]\t1\t200\t200\n[untraced]\t2\t110\t110\nf\t1\t1900\t1300\n' \
	>"$TMP/pseudo.want"
if ! cmp -s "$TMP/pseudo.want" "$TMP/pseudo.tsv"; then
	fail pseudo-frames "expected $(tr '\n\t' '| ' <"$TMP/pseudo.want"), found $(tr '\n\t' '| ' <"$TMP/pseudo.tsv")"
else
	ok pseudo-frames
fi

# ---- the trace's mode: sampled rows are not calls ----
"$CONVERT" -q "$SNAPTRACE_TOP/tests/cases/sampling-chains/input.txt" -o "$TMP/sampled.fxt"
"$CONVERT" -q "$SNAPTRACE_TOP/tests/cases/call-return/input.txt" -o "$TMP/branches.fxt"
if ! "$CONVERT" --dump=records "$TMP/sampled.fxt" | grep -q 'kobj other koid=0 name="snaptrace" mode=sampling'; then
	fail sampled "the converter did not record mode=sampling"
elif ! "$CONVERT" --dump=records "$TMP/branches.fxt" | grep -q 'name="snaptrace" mode=pt'; then
	fail sampled "the converter did not record mode=pt for branches"
elif ! "$STATS" --format csv -q "$TMP/sampled.fxt" | awk -F, 'NR > 1 && ($2 != "" || $5 != "" || $6 != "" || $9 != "" || $3 == "") { exit 1 } NR > 1 { n++ } END { exit n == 0 }'; then
	fail sampled "csv: per-call columns must be empty and total kept: $("$STATS" --format csv -q "$TMP/sampled.fxt" | sed -n 2p)"
elif ! "$STATS" "$TMP/sampled.fxt" | head -n 1 | grep -q 'not calls'; then
	fail sampled "the table does not say rows are not calls"
elif ! "$STATS" --format json "$TMP/sampled.fxt" | grep -q '"calls_are_calls":false.*' ||
	! "$STATS" --format json "$TMP/sampled.fxt" | grep -q '"calls":null'; then
	fail sampled "json: expected calls_are_calls false and calls null"
elif ! "$STATS" --format json "$TMP/branches.fxt" | grep -q '"mode":"pt","calls_are_calls":true'; then
	fail sampled "json of a branch trace: expected mode pt"
elif "$STATS" --format csv "$TMP/sampled.fxt" 2>&1 >/dev/null | grep -qv 'sampled'; then
	fail sampled "unexpected stderr"
else
	ok sampled
fi

# ---- options ----
names=$("$STATS" --format csv --match 'c*' "$TMP/exact.fxt" | tail -n +2 | cut -d, -f1 | tr '\n' ' ')
limit=$("$STATS" --format csv --limit 2 "$TMP/exact.fxt" | tail -n +2 | wc -l)
by_calls=$("$STATS" --format csv --sort self "$TMP/exact.fxt" | tail -n +2 | cut -d, -f1 | tr '\n' ' ')
front=$("$SNAPTRACE_BIN/snaptrace" stats --format csv "$TMP/exact.fxt" | md5sum)
direct=$("$STATS" --format csv "$TMP/exact.fxt" | md5sum)
if [ "$names" != "child " ]; then
	fail options "--match 'c*': expected child, found $names"
elif [ "$limit" != 2 ]; then
	fail options "--limit 2: found $limit rows"
elif [ "$by_calls" != "work child tiny " ]; then
	fail options "--sort self: expected work child tiny, found $by_calls"
elif [ "$front" != "$direct" ]; then
	fail options "snaptrace stats differs from snaptrace-stats"
else
	ok options
fi

# ---- never-ended slices and errors ----
printf 'thread 3 3 app\nB 3 3 10 open /x\nB 3 3 20 done /x\nE 3 3 30\n' | "$MKFXT" "$TMP/unended.fxt"
"$STATS" --format csv "$TMP/unended.fxt" >"$TMP/unended.csv" 2>"$TMP/unended.err"
quiet_err=$("$STATS" -q "$TMP/unended.fxt" 2>&1 >/dev/null)
if [ "$(tail -n +2 "$TMP/unended.csv")" != "done,1,10,10,10,10,10,10,10,/x" ]; then
	fail unended "expected only done's row: $(tr '\n' '|' <"$TMP/unended.csv")"
elif ! grep -q '1 slice never ended is left out' "$TMP/unended.err"; then
	fail unended "no warning about the slice never ended: $(cat "$TMP/unended.err")"
elif [ -n "$quiet_err" ]; then
	fail unended "--quiet still prints: $quiet_err"
elif ! "$STATS" "$TMP/unended.fxt" 2>/dev/null | head -n 1 | grep -q ': 1 function, 1 slice '; then
	fail unended "the header counts a function without a finished slice: $("$STATS" "$TMP/unended.fxt" 2>/dev/null | head -n 1)"
else
	ok unended
fi

# expect_exit NAME STATUS PATTERN ARGS...: status and a one-line message.
expect_exit() {
	local name=$1 want=$2 pattern=$3 rc
	shift 3
	"$STATS" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "expected exit $want, got $rc: $(first_lines "$TMP/err")"
	elif [ "$(wc -l <"$TMP/err")" -ne 1 ] || ! grep -q -- "$pattern" "$TMP/err"; then
		fail "$name" "expected one line matching '$pattern': $(first_lines "$TMP/err")"
	elif [ -s "$TMP/out" ]; then
		fail "$name" "printed on stdout: $(first_lines "$TMP/out")"
	else
		ok "$name"
	fi
}
echo "not a trace" >"$TMP/text.fxt"
expect_exit error-not-fxt 1 "$TMP/text.fxt: not an FXT file" "$TMP/text.fxt"
expect_exit error-missing 1 "$TMP/none.fxt: cannot open" "$TMP/none.fxt"
expect_exit error-sort 2 "expected total, self, calls, p99 or max" --sort fast "$TMP/exact.fxt"
expect_exit error-stdin 2 "give a file" -
expect_exit error-no-function 1 'no function named "nothere" (the trace has: work, child, tiny)$' \
	--function nothere "$TMP/exact.fxt"
# empty-trace: a trace with no slices (a thread and an instant only, or
# nothing: snaptrace run --duration 1ms) says so in one line, as the
# converter's summary does (issue 24: an empty table, not a word): a
# warning with the tables (exit 0, under -q too), an error where there is
# nothing to select (--function, --match: exit 1); convert --dump alike
printf '%s\n' 'thread 7 7 app' 'I 7 7 100 mark' | "$MKFXT" "$TMP/empty.fxt"
printf '' | "$MKFXT" "$TMP/nothing.fxt"
bad=
while IFS='|' read -r want_rc line args; do
	read -ra a <<<"$args"
	"$STATS" "${a[@]}" "$TMP/empty.fxt" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" != "$want_rc" ] || [ "$(wc -l <"$TMP/err")" != 1 ] ||
		[ "$(cat "$TMP/err")" != "snaptrace-stats: $line" ]; then
		bad+="[$args: exit $rc, '$(tr '\n' '|' <"$TMP/err")', expected exit $want_rc, '$line']"
	fi
done <<EOF_EMPTY
0|warning: $TMP/empty.fxt has no slices: no function to count|
0|warning: $TMP/empty.fxt has no slices: no function to count|-q --format csv
0|warning: $TMP/empty.fxt has no slices: no wait to count|--off-cpu
0|warning: $TMP/empty.fxt has no slices in thread 7: no function to count|--thread 7
1|$TMP/empty.fxt has no slices: no function "work" to show|--function work
1|--match work: $TMP/empty.fxt has no slices|--match work
1|$TMP/empty.fxt: no thread 8 (the trace has: 7 app)|--thread 8
EOF_EMPTY
"$STATS" --baseline "$TMP/nothing.fxt" "$TMP/exact.fxt" >"$TMP/out" 2>"$TMP/err"
[ "$(cat "$TMP/err")" = "snaptrace-stats: warning: $TMP/nothing.fxt has no slices: no function to count" ] ||
	bad+="[--baseline of an empty trace: '$(tr '\n' '|' <"$TMP/err")']"
"$STATS" --thread 7 "$TMP/nothing.fxt" >"$TMP/out" 2>"$TMP/err"
[ "$(cat "$TMP/err")" = "snaptrace-stats: $TMP/nothing.fxt: no thread 7 (the trace has none)" ] ||
	bad+="[--thread in a trace of no thread: '$(tr '\n' '|' <"$TMP/err")']"
for v in slices tree; do
	"$CONVERT" --dump=$v "$TMP/empty.fxt" >"$TMP/out" 2>"$TMP/err"
	[ "$(cat "$TMP/err")" = "snaptrace-convert: warning: $TMP/empty.fxt has no slices: only instants" ] ||
		bad+="[convert --dump=$v: '$(tr '\n' '|' <"$TMP/err")']"
done
"$CONVERT" --dump=records "$TMP/nothing.fxt" >"$TMP/out" 2>"$TMP/err"
[ ! -s "$TMP/err" ] || bad+="[convert --dump=records: '$(tr '\n' '|' <"$TMP/err")']"
if [ -n "$bad" ]; then fail empty-trace "$bad"; else ok empty-trace; fi
# empty-recorded: a perf.data of a sampling recording whose snapshot holds
# nothing (new-user check 16: `--duration 1ms`) still records how it was
# made (its events: cpu-clock, a sampling recording), so stats says
# "sampled call stacks", never "the trace does not say how it was made"
# (a stand-in perf: its evlist a sampling one, its script output nothing)
bad=
perf_data_stub "$TMP/empty-rec.data"
printf '#!/bin/sh\n[ "$1" = --buildid-dir ] && shift 2\n[ "$1" = evlist ] && echo "cpu-clock:u: sample_freq=4000"\nexit 0\n' >"$TMP/emptyperf"
chmod +x "$TMP/emptyperf"
"$CONVERT" -q --perf "$TMP/emptyperf" "$TMP/empty-rec.data" -o "$TMP/empty-rec.fxt" 2>"$TMP/err" ||
	bad+="[convert: exit $?: $(head -c 200 "$TMP/err")]"
"$CONVERT" --dump=records "$TMP/empty-rec.fxt" 2>/dev/null | grep -q 'kobj other koid=0 name="snaptrace" mode=sampling$' ||
	bad+="[no mode=sampling in the trace]"
"$STATS" "$TMP/empty-rec.fxt" >"$TMP/out" 2>/dev/null
grep -q "^$TMP/empty-rec.fxt: 0 functions, 0 slices (sampled call stacks: " "$TMP/out" ||
	bad+="[stats: $(head -c 300 "$TMP/out")]"
if [ -n "$bad" ]; then fail empty-recorded "$bad"; else ok empty-recorded; fi
# function-names: the names users see, each the row of one function
printf '%s\n' 'thread 7 7 app' 'X 7 7 0 100 work /bin/app' 'X 7 7 200 500 Store::load /bin/app' \
	'X 7 7 600 700 Cache::load /bin/app' 'X 7 7 800 900 parse(int) /lib/other' \
	'X 7 7 900 1000 parse(double) /lib/other' 'X 7 7 1000 1002 parse /lib/other' \
	'X 7 7 1100 1200 clock_gettime@@GLIBC_2.17 /lib/libc.so.6' \
	'X 7 7 1200 1210 clock_gettime@plt /bin/app' |
	"$MKFXT" "$TMP/names.fxt"
bad=
while IFS='|' read -r given row; do
	got=$("$STATS" --format csv --function "$given" "$TMP/names.fxt" 2>&1 | sed -n 2p)
	case $got in "$row,"*) ;; *) bad+="[--function '$given': '$got', expected row $row]" ;; esac
done <<'EOF_NAMES'
work|work
work(int)|work
_Z4worki|work
_ZN5Store4loadEv|Store::load
Store::load() const|Store::load
parse(int)|parse(int)
parse|parse
clock_gettime|clock_gettime@@GLIBC_2.17
clock_gettime@@GLIBC_2.17|clock_gettime@@GLIBC_2.17
clock_gettime@plt|clock_gettime@plt
EOF_NAMES
if [ -n "$bad" ]; then fail function-names "$bad"; else ok function-names; fi
# function-spellings: every spelling of a function the recorder takes and
# prints ("measured liblzma:lzma_code: 684 calls") selects its rows, or is
# refused saying what to write: symbol:NAME, LIB:NAME (a library name, a
# file name, a path; the one of two binaries), a Rust name with its hash
printf '%s\n' 'thread 7 7 app' 'X 7 7 0 100 lzma_code /usr/lib/x86_64-linux-gnu/liblzma.so.5' \
	'X 7 7 100 200 sqlite3_step /usr/lib/x86_64-linux-gnu/libsqlite3.so.0' \
	'X 7 7 200 300 work /bin/app' 'X 7 7 300 400 nanosleep /lib/libc.so.6' \
	'X 7 7 400 450 nanosleep /bin/app' 'X 7 7 500 600 mycrate::store::flush /bin/app' |
	"$MKFXT" "$TMP/spell.fxt"
bad=
while IFS='|' read -r given row; do
	got=$("$STATS" --format csv --function "$given" "$TMP/spell.fxt" 2>&1 |
		awk -F, 'NR > 1 && !NF { exit } NR > 1 { printf "%s%s %s", (NR > 2 ? ";" : ""), $1, $NF }')
	[ "$got" = "$row" ] || bad+="[--function '$given': '$got', expected '$row']"
done <<'EOF_SPELL'
liblzma:lzma_code|lzma_code /usr/lib/x86_64-linux-gnu/liblzma.so.5
lzma:lzma_code|lzma_code /usr/lib/x86_64-linux-gnu/liblzma.so.5
liblzma.so.5:lzma_code|lzma_code /usr/lib/x86_64-linux-gnu/liblzma.so.5
libsqlite3:sqlite3_step|sqlite3_step /usr/lib/x86_64-linux-gnu/libsqlite3.so.0
symbol:work|work /bin/app
libc:nanosleep|nanosleep /lib/libc.so.6
/bin/app:nanosleep|nanosleep /bin/app
nanosleep|nanosleep /lib/libc.so.6;nanosleep /bin/app
mycrate::store::flush::h0123456789abcdef|mycrate::store::flush /bin/app
mycrate[5f3a]::store::flush|mycrate::store::flush /bin/app
EOF_SPELL
if [ -n "$bad" ]; then fail function-spellings "$bad"; else ok function-spellings; fi
# addr:0xHEX names a function without a name, as the trace names it
# ("[unnamed @ 0xHEX]": tests/cases/measured.test.sh measured-unnamed)
expect_exit function-spelling-addr 1 'no function named "\[unnamed @ 0x12d0\]"' \
	--function addr:0x12d0 "$TMP/spell.fxt"
expect_exit function-spelling-addr-bad 2 "--function addr:0xzz: expected addr:0xHEX" --function addr:0xzz "$TMP/spell.fxt"
# a library's, as the recorder takes and `snaptrace symbols LIB` prints it
# (LIB:addr:0xHEX, LIB:[unnamed @ 0xHEX]: one rule, funcspec_parse_fn_addr;
# its rows: tests/cases/measured.test.sh measured-unnamed)
expect_exit function-spelling-lib-addr 1 'no function named "\[unnamed @ 0x12d0\]"' \
	--function liblzma:addr:0x12d0 "$TMP/spell.fxt"
expect_exit function-spelling-lib-unnamed 1 'no function named "\[unnamed @ 0x12d0\]"' \
	--function 'liblzma:[unnamed @ 0x12d0]' "$TMP/spell.fxt"
expect_exit function-spelling-lib-addr-bad 2 "--function liblzma:addr:0xzz: expected LIB:addr:0xHEX" \
	--function liblzma:addr:0xzz "$TMP/spell.fxt"
expect_exit function-spelling-addr-digits 1 'no function named "\[unnamed @ 0x12\]"' \
	--function addr:12 "$TMP/spell.fxt"
expect_exit function-spelling-line 2 "--function demo.c:73: the trace names functions, not source lines" \
	--function demo.c:73 "$TMP/spell.fxt"
expect_exit function-spelling-lib 1 'no function named "work" in a library "libm"; the trace has it in /bin/app$' \
	--function libm:work "$TMP/spell.fxt"
# measured-apart: sampled slices of work (1 ms, 8 ms, 8 ms) and measured
# calls of it (0.5 ms, 4 ms; the first one's slice cut shorter by the
# snapshot or a --window: its total, as its min, is the whole call's, and
# the head says so; issue 24, trial 14: total < min)
printf '%s\n' 'info mode sampling' 'thread 7 7 app' 'X 7 7 0 1000000 work /bin/app' \
	'X 7 7 2000000 10000000 work /bin/app' 'X 7 7 11000000 19000000 work /bin/app' \
	'X 7 7 20000000 20400000 work /bin/app measured=true duration_ns=500000u' \
	'X 7 7 21000000 25000000 work /bin/app measured=true duration_ns=4000000u' \
	'X 7 7 26000000 27000000 other /bin/app' | "$MKFXT" "$TMP/mixed.fxt"
got=$("$STATS" -q --format csv --function work "$TMP/mixed.fxt" 2>&1 | tr '\n' '|')
want='function,calls,total_ns,self_ns,min_ns,p50_ns,p90_ns,p99_ns,max_ns,dso,kind|'
# (all: 17 ms of sampled slices and the measured calls' 0.4 ms and 4 ms in
# the trace, each a slice of it)
want+='work,,21400000,21400000,,,,,,/bin/app,all|'
want+='work,2,4500000,4400000,500000,5?????,4??????,4??????,4000000,/bin/app,measured||'
want+='low_ns,high_ns,calls,kind|262144,524288,1,all|524288,1048576,1,all|'
want+='2097152,4194304,1,all|4194304,8388608,2,all|'
want+='262144,524288,1,measured|2097152,4194304,1,measured||'
want+='rank,duration_ns,start,start_ns,tid,thread,dso,kind|'
text=$("$STATS" --function work "$TMP/mixed.fxt" 2>&1)
cp "$TMP/mixed.fxt" "$TMP/mixed2.fxt"
base=$("$STATS" -q --format csv --baseline "$TMP/mixed.fxt" "$TMP/mixed2.fxt" 2>&1 | grep '^work,')
# (the percentiles: the histogram's, within 1%)
if [[ "$got" != $want* ]]; then
	fail measured-apart "csv: $got, expected it to begin $want"
elif ! grep -q '^1 measured call cut short by the trace .* counts whole' <<<"$text"; then
	fail measured-apart "text: no word of the measured call cut short: $(tr '\n' '|' <<<"$text")"
elif ! grep -q '^work durations, measured (2 calls: exact' <<<"$text" ||
	! grep -q '^work durations, all (5 slices: time on the stack.*the measured ones included' <<<"$text" ||
	! grep -q '^ *- *21.4ms *21.4ms .* work .* all$' <<<"$text"; then
	fail measured-apart "text: one chart per kind expected: $(tr '\n' '|' <<<"$text")"
elif [[ "$got" != *",4000000,"*",measured|"* ]] || [[ "$got" != *",8000000,"*",sampled|"* ]]; then
	fail measured-apart "longest: each call with its kind: $got"
elif ! "$STATS" "$TMP/mixed.fxt" 2>&1 | head -n 1 | grep -q ': 2 functions, 6 slices'; then
	fail measured-apart "work must count once: $("$STATS" "$TMP/mixed.fxt" 2>&1 | head -n 1)"
elif [ "$(grep -c ',measured$' <<<"$base")" != 1 ] || [ "$(grep -c ',all$' <<<"$base")" != 1 ] ||
	! grep -q '^work,2,2,1.000,5[0-9]*,5[0-9]*,1.000,.*,measured$' <<<"$base"; then
	fail measured-apart "baseline: measured rows pair with measured rows: $(tr '\n' '|' <<<"$base")"
else
	ok measured-apart
fi
printf '%s\n' 'thread 7 7 app' 'X 7 7 800 900 parse(int) /lib/other' \
	'X 7 7 900 1000 parse(double) /lib/other' 'X 7 7 0 100 work /bin/app' \
	'X 7 7 200 500 Store::load /bin/app' | "$MKFXT" "$TMP/names2.fxt"
expect_exit function-ambiguous 1 '"parse" names several functions ("parse(double)", "parse(int)"): give one' \
	--function parse "$TMP/names2.fxt"
expect_exit function-nearest 1 'no function named "Store::lod"; the nearest: "Store::load"$' \
	--function Store::lod "$TMP/names2.fxt"
expect_exit function-nearest-mangled 1 'no function named "wark(int)"; the nearest: "work"' \
	--function _Z4warki "$TMP/names2.fxt"
# function-nearest-whole: the nearest names are whole, escaped, and a list
# that would overflow names fewer, never one cut (new-user check 16:
# "[unknown @ 0x133b " offered for "[unknown @ 0x133b (/bin/app)]")
long=/lib/$(printf 'd%.0s' $(seq 90))
for t in 1 2 3; do
	printf '            app     7/7     1.00000%s:     100000 cpu-clock:u: \n' "$t"
	printf '\t    5500000%s133b [unknown] (/bin/app)\n' "$t"
	for k in 1 2 3 4 5; do printf '\t    6600000%s%s000 [unknown] (%s%s)\n' "$t" "$k" "$long" "$k"; done
	printf '\t    5500000010cd main+0x1d (/bin/a\033pp)\n\n'
done >"$TMP/unk.txt"
"$CONVERT" -q "$TMP/unk.txt" -o "$TMP/unk.fxt" || fail function-nearest-whole "cannot convert"
expect_exit function-nearest-whole 1 \
	'no function named "\[unknown @ 0x55000001133a\]"; the nearest: "\[unknown @ 0x55000001133b (/bin/app)\]", "\[unknown @ 0x5500000[23]133b (/bin/app)\]", "\[unknown @ 0x5500000[23]133b (/bin/app)\]", "' \
	--function '[unknown @ 0x55000001133a]' "$TMP/unk.fxt"
grep -q '(/lib/d*[0-9])\]"$' "$TMP/err" || fail function-nearest-cut "a name cut: $(first_lines "$TMP/err")"
# a named thread that the trace lacks is an error like a function; a filter
# matching nothing is an empty result (exit 0), for scripts
expect_exit error-no-thread 1 "exact.fxt: no thread 12345 (the trace has: 7 app)$" \
	--thread 12345 "$TMP/exact.fxt"
printf 'thread 8 8 other\nX 8 8 10 20 f /x\n' | "$MKFXT" "$TMP/other.fxt"
expect_exit error-no-thread-baseline 1 "other.fxt: no thread 7 (the trace has: 8 other)$" \
	--thread 7 --baseline "$TMP/other.fxt" "$TMP/exact.fxt"
# --match and `snaptrace symbols PROG PATTERN` read a pattern by one rule
# (funcspec_pattern_matches): a word is a part of the name, any case; with
# *, ? or [ a shell pattern of the whole name. A pattern that matches
# nothing leaves the table empty (its header alone) and says so, exit 1, as
# symbols does (issue 24: `stats --match crunch` printed an empty table):
#   match-substring  'hil', 'HIL' and 'C*' find child; 'hil*' nothing
#   match-nothing    the header alone, one line naming the pattern, exit 1
bad=
for m in hil HIL 'C*' 'ch?ld' '[c]hild'; do
	got=$("$STATS" --format csv --match "$m" "$TMP/exact.fxt" | tail -n +2 | cut -d, -f1 | tr '\n' ' ')
	[ "$got" = "child " ] || bad="$bad [--match '$m': $got]"
done
if [ -n "$bad" ]; then fail match-substring "$bad"; else ok match-substring; fi
out=$("$STATS" --format csv --match 'hil*' "$TMP/exact.fxt" 2>"$TMP/match.err"; echo "rc=$?")
if [ "$out" != "$(printf 'function,calls,total_ns,self_ns,min_ns,p50_ns,p90_ns,p99_ns,max_ns,dso\nrc=1')" ] ||
	[ "$(wc -l <"$TMP/match.err")" != 1 ] ||
	! grep -q -- "--match hil\*: no function of .*exact.fxt matches (a pattern with \*, ? or \[ is of the whole name; without them, names containing it)" "$TMP/match.err" ||
	[ "$("$STATS" --match zz "$TMP/exact.fxt" 2>&1 >/dev/null)" != "snaptrace-stats: --match zz: no function of $TMP/exact.fxt has 'zz' in its name" ]; then
	fail match-nothing "expected the header alone, one line and exit 1: $out $(cat "$TMP/match.err") $("$STATS" --match zz "$TMP/exact.fxt" 2>&1 >/dev/null)"
else
	ok match-nothing
fi
# values: N of --limit and --top is 1 or more; a missing value or an unknown
# option is one line
expect_exit error-limit-0 2 "--limit 0: expected a number, 1 or more" --limit 0 "$TMP/exact.fxt"
expect_exit error-top-0 2 "--top 0: expected a number, 1 or more" --function work --top 0 "$TMP/exact.fxt"
expect_exit error-limit-text 2 "--limit 5x: expected a number" --limit 5x "$TMP/exact.fxt"
expect_exit error-thread-negative 2 "--thread -7: expected a number" --thread -7 "$TMP/exact.fxt"
expect_exit error-no-value 2 "^snaptrace-stats: --format: expected a value" "$TMP/exact.fxt" --format
expect_exit error-unknown-long 2 "--fast: unknown option" --fast "$TMP/exact.fxt"
expect_exit error-unknown-short 2 "-x: unknown option" -qx "$TMP/exact.fxt"
# options that work only with another (or never beside it): usage errors
expect_exit pair-top 2 "--top needs --function" --top 3 "$TMP/exact.fxt"
expect_exit pair-match 2 "--match does not go with --function" --match 'w*' --function work "$TMP/exact.fxt"
expect_exit pair-baseline 2 "--baseline does not go with --function" --function work --baseline "$TMP/old.fxt" "$TMP/exact.fxt"
expect_exit pair-sort 2 "--sort does not go with --baseline" --sort calls --baseline "$TMP/old.fxt" "$TMP/exact.fxt"
expect_exit pair-baseline-paths 2 "--baseline-paths needs --baseline" --baseline-paths "$TMP/exact.fxt"
# files that are not traces: a directory, an empty file, a missing or bad baseline
mkdir -p "$TMP/dir.fxt"
: >"$TMP/empty.fxt"
expect_exit error-directory 2 "dir.fxt: expected a trace file or a recording directory (record.json), found a directory without record.json" "$TMP/dir.fxt"
expect_exit error-empty 1 "empty.fxt: not an FXT file" "$TMP/empty.fxt"
expect_exit error-baseline-missing 1 "none.fxt: cannot open" --baseline "$TMP/none.fxt" "$TMP/exact.fxt"
expect_exit error-baseline-text 1 "text.fxt: not an FXT file" --baseline "$TMP/text.fxt" "$TMP/exact.fxt"
# a trace cut short (a gzip stream cut, a raw file cut inside its last
# record): exit 1 naming it (the old code warned of "problems" and printed
# the statistics of part of the trace, exit 0); the whole gzip one reads
gzip -c "$TMP/exact.fxt" >"$TMP/whole.fxt.gz"
head -c $(($(stat -c %s "$TMP/whole.fxt.gz") / 2)) "$TMP/whole.fxt.gz" >"$TMP/cut.fxt.gz"
head -c $(($(stat -c %s "$TMP/exact.fxt") - 4)) "$TMP/exact.fxt" >"$TMP/cut.fxt"
expect_exit error-cut-gzip 1 "^snaptrace-stats: $TMP/cut.fxt.gz: cut short: the gzip stream is cut or damaged after [0-9]* bytes" "$TMP/cut.fxt.gz"
expect_exit error-cut-raw 1 "^snaptrace-stats: $TMP/cut.fxt: cut short: its last record is cut" "$TMP/cut.fxt"
expect_exit error-cut-baseline 1 "^snaptrace-stats: $TMP/cut.fxt.gz: cut short" --baseline "$TMP/cut.fxt.gz" "$TMP/exact.fxt"
if ! "$STATS" --format csv "$TMP/whole.fxt.gz" >"$TMP/whole.csv" 2>"$TMP/whole.err" ||
	! "$STATS" --format csv "$TMP/exact.fxt" | cmp -s - "$TMP/whole.csv"; then
	fail whole-gzip "the whole gzip trace does not give the raw one's rows: $(first_lines "$TMP/whole.err")"
else
	ok whole-gzip
fi
# a recording directory (record.json, text snapshots) is converted first, as
# snaptrace-convert converts it: the same rows; its triggers track (a hit) is
# no thread: --thread does not list it (issue 24)
R="$TMP/recording"
mkdir -p "$R"
cp "$SNAPTRACE_TOP/tests/cases/offcpu-across-snapshots/snapshot-1.txt" "$R/snap.1"
cat >"$R/record.json" <<EOF
{
  "format": "snaptrace-record 1",
  "pids": [300],
  "threads": [{"pid": 300, "tid": 300, "comm": "app"}],
  "trigger": {"spec": "work", "mechanism": "uprobe", "file": "/opt/app", "symbol": "work", "file_offset": 4608, "tsc": null},
  "hits": [
    {"pid": 300, "tid": 300, "time_ns": 20000100000, "ip": 4198912, "args": [1, 2], "snapshot": 0}
  ],
  "hits_total": 1, "hits_coalesced": 0, "hits_lost": 0,
  "snapshots": [
    {"file": "snap.1", "reason": "trigger", "time_ns": 20000200000, "freeze_ms": 1.0, "ms": 2.0}
  ],
  "end": "trigger", "end_ns": 20000300000
}
EOF
if ! "$CONVERT" -q "$R" -o "$TMP/recording.fxt" 2>"$TMP/recording.err" ||
	! "$CONVERT" --dump=slices "$TMP/recording.fxt" | grep -q ' 0 \[trigger\] work$'; then
	fail recording-directory "the recording does not convert with its marker: $(first_lines "$TMP/recording.err")"
elif ! "$STATS" --format csv "$R" >"$TMP/recording.csv" 2>"$TMP/recording.stats-err" ||
	! "$STATS" --format csv "$TMP/recording.fxt" | cmp -s - "$TMP/recording.csv"; then
	fail recording-directory "stats of the directory differ from those of its trace: $(first_lines "$TMP/recording.stats-err")"
else
	ok recording-directory
fi
expect_exit thread-list-no-track 1 "recording.fxt: no thread 7 (the trace has: 300 app \\[300\\])$" --thread 7 "$TMP/recording.fxt"
# the event samples' tracks (one per process and event, issue 24 item 11)
# are no threads either: the threads that have slices are listed, nothing else
if ! "$CONVERT" -q "$SNAPTRACE_TOP/tests/cases/events-tracks-per-process/input.txt" \
	-o "$TMP/events.fxt" 2>"$TMP/events.err" ||
	! "$CONVERT" --dump=records "$TMP/events.fxt" | grep -q 'kobj thread koid=2147483647 name="page-faults" process=700$'; then
	fail thread-list-no-event-track "no page-faults track to test: $(first_lines "$TMP/events.err")"
else
	expect_exit thread-list-no-event-track 1 "events.fxt: no thread 7 (the trace has: 700 app \\[700\\])$" \
		--thread 7 "$TMP/events.fxt"
fi
# a file cut in the middle of a record: exit 1, one line naming it (it
# was a warning and the rows before the cut, exit 0: statistics of part of a
# trace that looked whole)
head -c 4001 "$TMP/exact.fxt" >"$TMP/cut.fxt"
expect_exit truncated 1 "^snaptrace-stats: $TMP/cut.fxt: cut short: its last record is cut" "$TMP/cut.fxt"
# a trace without a single slice (the converter's output of an empty input):
# the header and nothing, exit 0; also as the baseline and with one
: >"$TMP/nothing.txt"
"$CONVERT" -q "$TMP/nothing.txt" -o "$TMP/nothing.fxt" 2>/dev/null
why=
for args in "$TMP/nothing.fxt" "--baseline $TMP/nothing.fxt $TMP/exact.fxt" \
	"--baseline $TMP/exact.fxt $TMP/nothing.fxt" "--format json $TMP/nothing.fxt"; do
	# shellcheck disable=SC2086
	"$STATS" $args >"$TMP/nothing.out" 2>"$TMP/nothing.err"
	rc=$?
	if [ "$rc" -ne 0 ] || grep -q -e 'runtime error' -e Sanitizer "$TMP/nothing.err"; then
		why="$why $args: exit $rc: $(first_lines "$TMP/nothing.err");"
	fi
done
if [ -n "$why" ]; then
	fail empty-trace "$why"
else
	ok empty-trace
fi
