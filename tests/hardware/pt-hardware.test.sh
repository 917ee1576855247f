#!/usr/bin/env bash
# tier: pt-hardware
# Real Intel PT, on a host that has it (`make test-pt-hardware`; every test
# skips elsewhere: requirement intel_pt). What the synthesized suites (pt,
# pt-variants, cut: tests/ptsynth) cannot show:
#   pt_plan            the perf command line snaptrace-record builds here
#                      (--dry-run): intel_pt, --snapshot=e, and the control
#                      fd where perf has --control
#   pt_control_ack     tests/ptsynth/progs/stop recorded with its trigger
#                      (magic_trace_stop_indicator, armed at once): perf
#                      acknowledged the snapshot on the control fd (no
#                      warning, the snapshot listed with reason trigger and
#                      finished), and the trace reads back without problems
#                      or decode errors
#   pt_trigger_truth   that trace from main on starts with what the
#                      generator's truth of the same program, snapshot where
#                      magic_trace_stop_indicator is entered, makes
#                      ptsynth-expect expect (names, nesting, order)
#   pt_snapshot_e      stop recorded with a trigger never armed: perf's
#                      --snapshot=e snapshot at its exit is the recording
#                      (end "exit", reason "exit"), and main's whole call tree
#                      in it is the truth's of the whole run
#   pt_demo            the bundled demo recorded as `make demo` does, in PT
#                      mode: no decode error; demo_inner under demo_middle,
#                      demo_middle under demo_outer, demo_arith under
#                      demo_middle or demo_worker_step;
#                      magic_trace_stop_indicator in the main thread; the
#                      same bytes through the text path (--no-dlfilter) and
#                      with -j 1 as with -j 3
# Never leaves perf or a target running.
. "$(dirname "$0")/../lib.sh"
. "$SNAPTRACE_TOP/tests/record/rec-lib.sh"
. "$SNAPTRACE_TOP/tests/ptsynth/ptsynth.sh"

NAMES="pt_plan pt_control_ack pt_trigger_truth pt_snapshot_e pt_demo"
DEMO="$SNAPTRACE_O/examples/demo"
STOP="$PROGS/stop"
on_exit group_cleanup
requires_all intel_pt
need_built pt-hardware "$RECORD" "$CONVERT" "$DEMO"

# record NAME ARGS... -- CMD...: snaptrace-record --mode pt into $TMP/NAME
# (stderr in $TMP/NAME.err); returns its status.
record() {
	local name=$1
	shift
	run_group "$TMP/$name.out" "$TMP/$name.err" "$RECORD" -q --mode pt -o "$TMP/$name" "$@"
}

# read_back NAME: converts the recording $TMP/NAME into NAME.fxt and its
# slices into NAME.slices; prints what is wrong (a failed conversion, a
# problem of the reader, a decode error), if anything.
read_back() {
	if ! "$CONVERT" -q "$TMP/$1" -o "$TMP/$1.fxt" 2>"$TMP/$1.conv.err"; then
		echo "conversion failed: $(first_lines "$TMP/$1.conv.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/$1.fxt" >"$TMP/$1.slices" 2>"$TMP/$1.dump.err" ||
		[ -s "$TMP/$1.dump.err" ]; then
		echo "the trace does not read back clean: $(first_lines "$TMP/$1.dump.err")"
	elif grep -q ' \[decode error' "$TMP/$1.slices"; then
		echo "decode errors: $(grep -m 2 ' \[decode error' "$TMP/$1.slices" | tr '\n' '|')"
	fi
}

# main_tree LISTING: "DEPTH NAME" of the first thread that calls main, from
# main's slice to its last descendant, depths counted from main.
main_tree() {
	awk '
	!tid && $3 == "main" { tid = $1; base = $2; in_main = 1 }
	in_main && $1 == tid {
		if ($2 <= base && $3 != "main") exit
		print $2 - base, $3
	}' "$1"
}

# truth NAME OPTS...: ptsynth-expect's listing of stop run by the generator
# with OPTS, in $TMP/NAME.expected.
truth() {
	local name=$1
	shift
	timeout 120 "$PTSYNTH" -q -o "$TMP/$name.synth.data" --truth "$TMP/$name.truth" "$@" \
		-- "$STOP" >/dev/null 2>"$TMP/$name.gen" &&
		"$EXPECT" "$TMP/$name.truth" >"$TMP/$name.expected"
}

t_plan() {
	local line
	line=$("$RECORD" --dry-run --mode pt -- "$STOP" 2>"$TMP/plan.err")
	if ! grep -q -e ' -e intel_pt/' <<<"$line"; then
		fail pt_plan "no intel_pt event: $line $(first_lines "$TMP/plan.err")"
	elif requirement perf_snapshot_e >/dev/null && ! grep -q -e ' --snapshot=e' <<<"$line"; then
		fail pt_plan "perf has --snapshot=e, the command line does not: $line"
	elif requirement perf_control >/dev/null && ! grep -q -e ' --control=fd:' <<<"$line"; then
		fail pt_plan "perf has --control, the command line has no control fd: $line"
	else
		ok pt_plan
	fi
}

t_control_ack() {
	local why
	requires pt_control_ack perf_control || return
	if ! record ack --arm-after 0 -- "$STOP"; then
		fail pt_control_ack "exit non-zero: $(tl 3 "$TMP/ack.err")"
	elif grep -q 'did not acknowledge\|did not confirm' "$TMP/ack.err"; then
		fail pt_control_ack "$(grep -m 1 'did not' "$TMP/ack.err")"
	elif [ "$(rec_field "$TMP/ack" end)" != trigger ]; then
		fail pt_control_ack "end is '$(rec_field "$TMP/ack" end)', not trigger"
	elif [ "$(snaps "$TMP/ack" trigger | wc -l)" -ne 1 ] ||
		[ "$(snap_problem "$TMP/ack" "$(snaps "$TMP/ack" trigger)")" != null ]; then
		fail pt_control_ack "expected one finished trigger snapshot: $(rec_part "$TMP/ack" snapshots)"
	elif why=$(read_back ack) && [ -n "$why" ]; then
		fail pt_control_ack "$why"
	else
		ok pt_control_ack
	fi
}

t_trigger_truth() {
	local n
	requires pt_trigger_truth ptsynth ptrace || return
	if [ ! -s "$TMP/ack.slices" ]; then
		fail pt_trigger_truth "no trace from pt_control_ack"
	elif ! truth trig --snapshot-at magic_trace_stop_indicator; then
		fail pt_trigger_truth "ptsynth failed: $(first_lines "$TMP/trig.gen")"
	else
		main_tree "$TMP/trig.expected" >"$TMP/trig.want"
		main_tree "$TMP/ack.slices" >"$TMP/trig.got"
		n=$(wc -l <"$TMP/trig.want")
		if [ "$n" -lt 8 ] || [ "$(tail -n 1 "$TMP/trig.want")" != "1 magic_trace_stop_indicator" ]; then
			fail pt_trigger_truth "the truth is not stop.c's: $(tr '\n' '|' <"$TMP/trig.want")"
		elif ! diff <(cat "$TMP/trig.want") <(head -n "$n" "$TMP/trig.got") >"$TMP/trig.diff"; then
			fail pt_trigger_truth "main's tree differs from the truth's (< truth, > recorded): $(head -n 6 "$TMP/trig.diff" | tr '\n' '|')"
		else
			ok pt_trigger_truth
		fi
	fi
}

t_snapshot_e() {
	local why
	requires pt_snapshot_e perf_snapshot_e || return
	if ! record exit --trigger round_of_work --arm-after 60 -- "$STOP"; then
		fail pt_snapshot_e "exit non-zero: $(tl 3 "$TMP/exit.err")"
	elif [ "$(rec_field "$TMP/exit" end)" != exit ]; then
		fail pt_snapshot_e "end is '$(rec_field "$TMP/exit" end)', not exit"
	elif [ "$(snaps "$TMP/exit" exit | wc -l)" -ne 1 ]; then
		fail pt_snapshot_e "expected one exit snapshot: $(rec_part "$TMP/exit" snapshots)"
	elif why=$(read_back exit) && [ -n "$why" ]; then
		fail pt_snapshot_e "$why"
	elif ! requires pt_snapshot_e ptsynth ptrace; then
		:
	elif ! truth whole; then
		fail pt_snapshot_e "ptsynth failed: $(first_lines "$TMP/whole.gen")"
	elif [ "$(main_tree "$TMP/whole.expected" | grep -c ' round_of_work$')" -ne 2 ]; then
		fail pt_snapshot_e "the truth is not stop.c's: $(main_tree "$TMP/whole.expected" | tr '\n' '|')"
	elif ! diff <(main_tree "$TMP/whole.expected") <(main_tree "$TMP/exit.slices") >"$TMP/exit.diff"; then
		fail pt_snapshot_e "main's tree differs from the truth's (< truth, > recorded): $(head -n 6 "$TMP/exit.diff" | tr '\n' '|')"
	else
		ok pt_snapshot_e
	fi
}

# nesting SLICES: prints the first slice of the demo under the wrong caller.
nesting() {
	awk '
	{ stack[$1, $2] = $3; up = $2 > 0 ? stack[$1, $2 - 1] : "" }
	$3 == "demo_inner" && up != "demo_middle" ||
	$3 == "demo_middle" && up != "demo_outer" ||
	$3 == "demo_arith" && up != "demo_middle" && up != "demo_worker_step" {
		print $3 " under " (up == "" ? "nothing" : up); exit
	}' "$1"
}

t_demo() {
	local why main
	if ! record demo --arm-after 0 -- "$DEMO" 0.3; then
		fail pt_demo "exit non-zero: $(tl 3 "$TMP/demo.err")"
	elif why=$(read_back demo) && [ -n "$why" ]; then
		fail pt_demo "$why"
	elif why=$(nesting "$TMP/demo.slices") && [ -n "$why" ]; then
		fail pt_demo "$why"
	elif ! grep -q ' demo_inner$' "$TMP/demo.slices" || ! grep -q ' demo_worker_step$' "$TMP/demo.slices"; then
		fail pt_demo "no demo_inner or no demo_worker_step: $(first_lines "$TMP/demo.slices")"
	elif main=$(awk '$3 == "main" { print $1; exit }' "$TMP/demo.slices") &&
		! grep -q "^$main [0-9]* magic_trace_stop_indicator$" "$TMP/demo.slices"; then
		fail pt_demo "no magic_trace_stop_indicator in the main thread ($main)"
	elif ! "$CONVERT" -q --no-dlfilter "$TMP/demo" -o "$TMP/demo.text.fxt" 2>/dev/null ||
		! cmp -s "$TMP/demo.fxt" "$TMP/demo.text.fxt"; then
		fail pt_demo "the text path (--no-dlfilter) writes another trace"
	elif ! "$CONVERT" -q -j 1 "$TMP/demo" -o "$TMP/demo.j1.fxt" 2>/dev/null ||
		! "$CONVERT" -q -j 3 "$TMP/demo" -o "$TMP/demo.j3.fxt" 2>/dev/null ||
		! cmp -s "$TMP/demo.j1.fxt" "$TMP/demo.j3.fxt"; then
		fail pt_demo "-j 3 writes another trace than -j 1"
	else
		ok pt_demo
	fi
}

t_plan
t_control_ack
t_trigger_truth
t_snapshot_e
t_demo
TARGETS=("$STOP" "$DEMO")
if ! no_procs; then
	fail pt-hardware "a perf or target of ours is left running"
fi
