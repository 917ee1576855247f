#!/usr/bin/env bash
# tier: record
# End to end on this machine, sampling path: the workload's nest mode
# (tests/workload/workload.c: main > snaptrace_e2e_outer > _middle > _inner,
# each checked level a non-leaf, inner calling the leaf _leaf), recorded with
#   perf record -e cpu-clock -F 5000 --call-graph fp|dwarf
# convert the perf.data (the converter runs perf script itself) and check,
# in the slices read back, that the known functions nest as in the source:
# every snaptrace_e2e_outer under m_nest (the mode's function), every _middle
# under _outer, every _inner under _middle, and at least one m_nest > outer >
# middle > inner chain.
# With dwarf unwinding, also every _leaf under _inner (fp skips a frameless
# leaf's caller, so that is not checked with fp). Skips when perf cannot
# record here. Never leaves perf or the target running.
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

PERF=${SNAPTRACE_PERF:-perf}

on_exit group_cleanup

W="$SNAPTRACE_TEST_BIN/workload"
need_built sampling "$CONVERT" "$W"
requires sampling recording || exit 0

# record MODE: records the target into $TMP/MODE.data; returns 1 when perf
# cannot record here (its status in REC_RC, its stderr in $TMP/MODE.rec.err).
record() {
	local mode=$1
	run_group "$TMP/$mode.rec.out" "$TMP/$mode.rec.err" "$PERF" record -e cpu-clock -F 5000 \
		--call-graph "$mode" -o "$TMP/$mode.data" -- "$W" nest
	REC_RC=$?
	[ "$REC_RC" = 0 ] && [ -s "$TMP/$mode.data" ]
}

# check_nesting SLICES LEAF_TOO: prints what is wrong with the nesting, if anything.
check_nesting() {
	awk -v leaf_too="$2" '
	function die(msg) { print msg; bad = 1; exit 1 }
	BEGIN { T = "m_nest"; O = "snaptrace_e2e_outer"; M = "snaptrace_e2e_middle"
		I = "snaptrace_e2e_inner"; L = "snaptrace_e2e_leaf" }
	{
		tid = $1; d = $2 + 0; name = $3
		st[tid, d] = name
		parent = d > 0 ? st[tid, d - 1] : ""
		n[name]++
		if (name == O && parent != T) die(O " under " parent " at depth " d)
		if (name == M && parent != O) die(M " under " parent " at depth " d)
		if (name == I && parent != M) die(I " under " parent " at depth " d)
		if (leaf_too && name == L && parent != I) die(L " under " parent " at depth " d)
		if (name == I && d >= 3 && st[tid, d - 2] == O && st[tid, d - 3] == T) chain = 1
	}
	END {
		if (bad) exit 1
		if (!n[T] || !n[O] || !n[M] || !n[I]) {
			print "missing functions: " T " " n[T] + 0 ", outer " n[O] + 0 \
				", middle " n[M] + 0 ", inner " n[I] + 0
			exit 1
		}
		if (!chain) die("no " T " > outer > middle > inner chain")
	}' "$1"
}

# run MODE LEAF_TOO: one test line for call-graph MODE.
run() {
	local mode=$1 name="sampling-$1" why
	if ! record "$mode"; then
		fail_recording "$name" "perf could not record" "$REC_RC" "$TMP/$mode.rec.err" "$TMP/$mode.data"
		return
	fi
	if ! "$CONVERT" --quiet "$TMP/$mode.data" -o "$TMP/$mode.fxt.gz" 2>"$TMP/$mode.conv.err"; then
		fail "$name" "conversion failed: $(first_lines "$TMP/$mode.conv.err")"
		return
	fi
	if ! "$CONVERT" --dump=slices "$TMP/$mode.fxt.gz" >"$TMP/$mode.slices" 2>"$TMP/$mode.dump.err"; then
		fail "$name" "reader rejects the output: $(first_lines "$TMP/$mode.dump.err")"
		return
	fi
	# The dlfilter does not change a sampled trace (docs/design.md
	# "Decoding"), and -j N splits Intel PT only (README "How Intel PT is
	# decoded"): one conversion with both is the same trace
	"$CONVERT" --quiet --no-dlfilter -j 3 "$TMP/$mode.data" -o "$TMP/$mode.text-j3.fxt.gz" 2>/dev/null
	if ! cmp -s "$TMP/$mode.fxt.gz" "$TMP/$mode.text-j3.fxt.gz"; then
		fail "$name" "the trace differs with --no-dlfilter -j 3"
		return
	fi
	if ! why=$(check_nesting "$TMP/$mode.slices" "$2"); then
		fail "$name" "$why"
		return
	fi
	ok "$name"
}

run fp ""
run dwarf 1

# perf's "Processed N samples and lost P%!" (perf record writes the whole
# recording's lost count into its last file only, P against that file's
# samples: 100.00% on an empty exit snapshot of --multi-snapshot
# --callgraph dwarf) is said with what it means, never unexplained: perf
# script given that line by a stand-in that runs the real perf
if [ -s "$TMP/fp.data" ]; then
	printf '#!/bin/sh\n"%s" "$@"; rc=$?\ncase " $* " in *" script "*) printf "Warning:\\nProcessed 0 samples and lost 100.00%%%%!\\n\\n" >&2;; esac\nexit $rc\n' \
		"$(command -v "$PERF")" >"$TMP/perf-lost"
	chmod +x "$TMP/perf-lost"
	SNAPTRACE_PERF="$TMP/perf-lost" "$CONVERT" --quiet "$TMP/fp.data" -o "$TMP/lost.fxt.gz" \
		2>"$TMP/lost.err"
	if ! grep -q 'perf script: Warning: Processed 0 samples and lost 100.00%! (what this means: perf record writes, at its end, how many samples the kernel dropped over the whole recording into its last file' "$TMP/lost.err"; then
		fail perf-lost-said "perf's lost line not explained: $(first_lines "$TMP/lost.err")"
	else
		ok perf-lost-said
	fi
fi
# the command line of a sampling perf.data is the README's and --print-perf-command's
if [ -s "$TMP/fp.data" ]; then
	check_perf_command perf-command-samples samples "$TMP/fp.data"
fi
