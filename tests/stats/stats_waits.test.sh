#!/usr/bin/env bash
# tier: check
# snaptrace-stats --off-cpu on hand-built traces (mkfxt, through the
# project's FXT writer) with exact [off-cpu] slices:
#   waits-rows     every row (by system call, kernel function and caller;
#                  blocked, preempted, no state; all threads, then each)
#                  with exact counts, totals, p50, p99, max: the caller is
#                  the innermost frame outside the C library, the loader,
#                  the C++ runtime and the [vdso], past pseudo-frames
#                  (no category); a wait at the root has no caller
#   waits-formats  the table shows the same numbers as the CSV, and JSON
#                  the same rows
#   waits-filters  --thread keeps that thread's rows alone, --match
#                  filters names, --limit bounds rows per thread and kind;
#                  the function views leave the waits out
#   waits-baseline two traces' waits of all threads paired with ratios
#   waits-usage    --function, --by-thread, --sort with --off-cpu: usage errors
. "$(dirname "$0")/../lib.sh"

STATS="$SNAPTRACE_BIN/snaptrace-stats"
MKFXT="$SNAPTRACE_TEST_BIN/stats-mkfxt"
for f in "$STATS" "$MKFXT"; do
	if [ ! -x "$f" ]; then
		fail stats_waits-build "missing $f (make all tests-build)"
		exit 1
	fi
done

LIBC=/usr/lib/x86_64-linux-gnu/libc.so.6
CXX=/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30
# thread 11: two sleeps (1 and 3 us) under nap, a mutex wait (0.5 us) under
# update, a condition variable wait (2 us) under the C++ runtime (caller
# worker); thread 12: a preemption (0.2 us) in the [vdso] (caller worker), a
# blocked read (4 us) at the root (no caller), a wait without a state under
# a [syscall] pseudo-frame (caller main)
cat >"$TMP/waits.script" <<EOF
info mode sampling
process 10 app
thread 10 11 worker
thread 10 12 worker
B 10 11 1000 start_thread $LIBC
B 10 11 1000 worker /opt/app
B 10 11 1000 nap /opt/app
B 10 11 1000 __nanosleep $LIBC
B 10 11 1000 clock_nanosleep@GLIBC_2.2.5 $LIBC
X 10 11 1000 2000 [off-cpu] - state=blocked syscall=clock_nanosleep kernel_function=do_nanosleep
X 10 11 3000 6000 [off-cpu] - state=blocked syscall=clock_nanosleep kernel_function=do_nanosleep
E 10 11 7000
E 10 11 7000
E 10 11 7000
B 10 11 7000 update /opt/app
B 10 11 7000 pthread_mutex_lock $LIBC
B 10 11 7000 __lll_lock_wait $LIBC
X 10 11 7000 7500 [off-cpu] - state=blocked syscall=futex kernel_function=futex_do_wait
E 10 11 8000
E 10 11 8000
E 10 11 8000
B 10 11 8000 std::condition_variable::wait $CXX
B 10 11 8000 pthread_cond_wait $LIBC
X 10 11 8000 10000 [off-cpu] - state=blocked syscall=futex kernel_function=futex_do_wait
E 10 11 10500
E 10 11 10500
E 10 11 11000
E 10 11 11000
B 10 12 1000 worker /opt/app
B 10 12 1000 __vdso_clock_gettime [vdso]
X 10 12 1000 1200 [off-cpu] - state=preempted kernel_function=irqentry_exit_to_user_mode
E 10 12 1300
E 10 12 1300
X 10 12 2000 6000 [off-cpu] - state=blocked syscall=read
B 10 12 7000 main /opt/app
B 10 12 7000 [syscall] -
X 10 12 7000 7300 [off-cpu] -
E 10 12 7400
E 10 12 7400
EOF
"$MKFXT" "$TMP/waits.fxt" <"$TMP/waits.script" || { fail waits-rows "mkfxt failed"; exit 1; }

want='by,state,name,waits,total_ns,p50_ns,p99_ns,max_ns,dso,tid,thread
syscall,blocked,clock_nanosleep,2,4000,1000,3000,3000,,,all
syscall,blocked,read,1,4000,4000,4000,4000,,,all
syscall,blocked,futex,2,2500,500,2000,2000,,,all
syscall,unknown,[none],1,300,300,300,300,,,all
syscall,preempted,[none],1,200,200,200,200,,,all
syscall,blocked,clock_nanosleep,2,4000,1000,3000,3000,,11,worker
syscall,blocked,futex,2,2500,500,2000,2000,,11,worker
syscall,blocked,read,1,4000,4000,4000,4000,,12,worker
syscall,unknown,[none],1,300,300,300,300,,12,worker
syscall,preempted,[none],1,200,200,200,200,,12,worker
kernel_function,blocked,[none],1,4000,4000,4000,4000,,,all
kernel_function,blocked,do_nanosleep,2,4000,1000,3000,3000,,,all
kernel_function,blocked,futex_do_wait,2,2500,500,2000,2000,,,all
kernel_function,unknown,[none],1,300,300,300,300,,,all
kernel_function,preempted,irqentry_exit_to_user_mode,1,200,200,200,200,,,all
kernel_function,blocked,do_nanosleep,2,4000,1000,3000,3000,,11,worker
kernel_function,blocked,futex_do_wait,2,2500,500,2000,2000,,11,worker
kernel_function,blocked,[none],1,4000,4000,4000,4000,,12,worker
kernel_function,unknown,[none],1,300,300,300,300,,12,worker
kernel_function,preempted,irqentry_exit_to_user_mode,1,200,200,200,200,,12,worker
caller,blocked,[none],1,4000,4000,4000,4000,,,all
caller,blocked,nap,2,4000,1000,3000,3000,/opt/app,,all
caller,blocked,worker,1,2000,2000,2000,2000,/opt/app,,all
caller,blocked,update,1,500,500,500,500,/opt/app,,all
caller,unknown,main,1,300,300,300,300,/opt/app,,all
caller,preempted,worker,1,200,200,200,200,/opt/app,,all
caller,blocked,nap,2,4000,1000,3000,3000,/opt/app,11,worker
caller,blocked,worker,1,2000,2000,2000,2000,/opt/app,11,worker
caller,blocked,update,1,500,500,500,500,/opt/app,11,worker
caller,blocked,[none],1,4000,4000,4000,4000,,12,worker
caller,unknown,main,1,300,300,300,300,/opt/app,12,worker
caller,preempted,worker,1,200,200,200,200,/opt/app,12,worker'
# near WANT GOT: the same rows, p50 and p99 (columns 6, 7) within 1% (the
# histogram's), every other field exact; prints the first difference
near() {
	awk -F, 'NR == FNR { w[FNR] = $0; n = FNR; next }
		{ split(w[FNR], x, ",")
		  for (i = 1; i <= NF; i++)
			if (x[i] != $i && !((i == 6 || i == 7) && x[i] > 0 && ($i - x[i]) / x[i] <= 0.01 &&
			    (x[i] - $i) / x[i] <= 0.01)) { print "line " FNR ": expected " w[FNR]; exit 1 } }
		END { if (FNR != n) { print FNR " lines, expected " n; exit 1 } }' <(echo "$1") <(echo "$2")
}
got=$("$STATS" --off-cpu --format csv "$TMP/waits.fxt" 2>"$TMP/err")
if ! why=$(near "$want" "$got"); then
	fail waits-rows "$why: $(echo "$got" | tr '\n' '|')"
elif [ -s "$TMP/err" ]; then
	fail waits-rows "stderr: $(first_lines "$TMP/err")"
else
	ok waits-rows
fi

# the table: a section per kind, the CSV's numbers in human units; JSON: the
# CSV's rows, field by field
"$STATS" --off-cpu "$TMP/waits.fxt" >"$TMP/table"
"$STATS" --off-cpu --format json "$TMP/waits.fxt" >"$TMP/json"
jrows=$(grep -c '^  {"by":' "$TMP/json")
if ! head -n 1 "$TMP/table" | grep -q 'off the CPU, 10.5µs blocked in 5 waits and 200ns preempted in 1'; then
	fail waits-formats "table header: $(head -n 1 "$TMP/table")"
elif [ "$(grep -c '^by ' "$TMP/table")" -ne 3 ] ||
	! grep -q '^    2  4.00µs  1.0.µs  .\...µs  3.00µs    -  blocked    nap     all     /opt/app$' "$TMP/table"; then
	fail waits-formats "table: $(tr '\n' '|' <"$TMP/table")"
elif [ "$jrows" -ne 32 ] ||
	! grep -q '^  {"by":"caller","state":"blocked","name":"nap","waits":2,"total_ns":4000,"p50_ns":10..,"p99_ns":[23]...,"max_ns":3000,"dso":"/opt/app","tid":null,"thread":"all"}' "$TMP/json"; then
	fail waits-formats "json: $jrows rows: $(head -c 600 "$TMP/json" | tr '\n' '|')"
else
	ok waits-formats
fi

bad=""
got=$("$STATS" --off-cpu --format csv --thread 12 "$TMP/waits.fxt" | awk -F, 'NR > 1 && $10 != 12')
[ -z "$got" ] || bad="$bad [--thread 12 shows other rows: $got]"
got=$("$STATS" --off-cpu --format csv --match 'n*' "$TMP/waits.fxt" | awk -F, 'NR > 1 { print $3 }' | sort -u | tr '\n' ' ')
[ "$got" = "nap " ] || bad="$bad [--match 'n*': $got]"
got=$("$STATS" --off-cpu --format csv --limit 1 "$TMP/waits.fxt" | awk -F, 'NR > 1 { n[$1 "/" $10]++ } END { for (k in n) if (n[k] != 1) print k }')
[ -z "$got" ] || bad="$bad [--limit 1: more rows in $got]"
got=$("$STATS" -q --format csv "$TMP/waits.fxt" | awk -F, '$1 == "[off-cpu]" { print $3 }')
[ "$got" = 11000 ] || bad="$bad [the function rows' [off-cpu] has $got ns, 11000 expected]"
"$STATS" -q --format csv "$TMP/waits.fxt" | grep -q '^\(do_nanosleep\|futex_do_wait\|\[none\]\),' &&
	bad="$bad [a wait row among the function rows]"
if [ -n "$bad" ]; then
	fail waits-filters "$bad"
else
	ok waits-filters
fi

# --baseline: the first sleep under nap twice as long, a poll under nap
# new, the read (at the root) gone: the largest change of total first
sed -e 's/^X 10 11 1000 2000 \(.*\)$/X 10 11 1000 3000 \1\nX 10 11 3000 3100 [off-cpu] - state=blocked syscall=poll/' \
	-e '/syscall=read/d' "$TMP/waits.script" >"$TMP/new.script"
"$MKFXT" "$TMP/new.fxt" <"$TMP/new.script"
got=$("$STATS" --off-cpu --baseline "$TMP/waits.fxt" --format csv "$TMP/new.fxt")
if [ "$(echo "$got" | head -n 1)" != \
	"waits_old,waits_new,waits_ratio,p50_old_ns,p50_new_ns,p50_ratio,p99_old_ns,p99_new_ns,p99_ratio,total_old_ns,total_new_ns,total_ratio,by,state,name,dso" ]; then
	fail waits-baseline "header: $(echo "$got" | head -n 1)"
elif ! echo "$got" | grep -qx '2,2,1.000,100.,20..,2.00.,29..,29..,1.000,4000,5000,1.250,syscall,blocked,clock_nanosleep,' ||
	! echo "$got" | grep -qx '1,0,0.000,4000,,,4000,,,4000,0,0.000,syscall,blocked,read,' ||
	! echo "$got" | grep -qx '0,1,,,100,,,100,,0,100,,syscall,blocked,poll,' ||
	! echo "$got" | awk -F, 'NR > 1 { d = $11 - $10; d = d < 0 ? -d : d
		if (NR > 2 && d > last) exit 1; last = d }'; then
	fail waits-baseline "$(echo "$got" | tr '\n' '|')"
else
	ok waits-baseline
fi

# expect_usage NAME PATTERN ARGS...: exit 2, one line matching PATTERN
expect_usage() {
	local name=$1 pattern=$2 rc
	shift 2
	"$STATS" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" -ne 2 ] || [ "$(wc -l <"$TMP/err")" -ne 1 ] || ! grep -q -- "$pattern" "$TMP/err" ||
		[ -s "$TMP/out" ]; then
		echo " [$name: exit $rc: $(first_lines "$TMP/err")]"
	fi
}
bad=$(expect_usage function "--function does not go with --off-cpu" --off-cpu --function nap "$TMP/waits.fxt")
bad+=$(expect_usage by-thread "--by-thread does not go with --off-cpu" --off-cpu --by-thread "$TMP/waits.fxt")
bad+=$(expect_usage sort "--sort does not go with --off-cpu" --off-cpu --sort calls "$TMP/waits.fxt")
if [ -n "$bad" ]; then
	fail waits-usage "$bad"
else
	ok waits-usage
fi
