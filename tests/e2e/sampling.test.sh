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
# leaf's caller, so that is not checked with fp).
# sampling-prologues: the workload's prologues mode (snaptrace_fp_caller
# calls snaptrace_fp_framed, which sets up a frame around one call of a
# leaf, 200 million times) recorded with --call-graph fp: a sample at
# framed's push %rbp, mov %rsp,%rbp or ret (its frame not set up; the
# addresses from `objdump -d` of the workload, the test's own reference)
# reads its caller's caller's return address, so the chain skips
# snaptrace_fp_caller. The program runs framed only inside caller, so from
# the first to the last sample that shows caller, no framed slice may have
# another parent than caller (issue 18: main drew framed under m_prologues
# at each such sample, ending caller and beginning it again); at least 20
# such samples must be in the recording (perf script, read with objdump's
# addresses). Skips when perf cannot record here. Never leaves perf or the
# target running.
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

# unset_offsets: the offsets in snaptrace_fp_framed of its instructions
# where its frame is not set up, by objdump -d of the workload: up to and
# with mov %rsp,%rbp (before it completes, rbp is the caller's), and each
# ret (after pop %rbp). Prints them in hex (0x0 0x1 0xa), nothing when the
# function does not start with push %rbp; mov %rsp,%rbp.
unset_offsets() {
	objdump -d --no-show-raw-insn "$W" | awk '
		function hex(s,  v, i) { for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
		$2 == "<snaptrace_fp_framed>:" { on = 1; start = hex($1); next }
		on && /^$/ { exit }
		on {
			a = $1; sub(/:$/, "", a); off = hex(a) - start
			insn = $2 " " $3
			if (n == 0 && insn != "push %rbp") exit
			if (n == 1 && insn != "mov %rsp,%rbp") exit
			if (n <= 1 || $2 == "ret") out = out sprintf(" 0x%x", off)
			n++
		}
		END { if (n >= 2) print substr(out, 2) }'
}

# prologues: the sampling-prologues test (above)
prologues() {
	local name=sampling-prologues offs why
	offs=$(unset_offsets)
	if [ -z "$offs" ]; then
		fail "$name" "objdump shows no push %rbp; mov %rsp,%rbp at snaptrace_fp_framed's start"
		return
	fi
	run_group "$TMP/pro.rec.out" "$TMP/pro.rec.err" "$PERF" record -e cpu-clock -F 5000 \
		--call-graph fp -o "$TMP/pro.data" -- "$W" prologues
	REC_RC=$?
	if [ "$REC_RC" != 0 ] || [ ! -s "$TMP/pro.data" ]; then
		fail_recording "$name" "perf could not record" "$REC_RC" "$TMP/pro.rec.err" "$TMP/pro.data"
		return
	fi
	if ! "$CONVERT" --quiet "$TMP/pro.data" -o "$TMP/pro.fxt" 2>"$TMP/pro.conv.err" ||
		! "$CONVERT" --quiet --no-dlfilter "$TMP/pro.data" -o "$TMP/pro.text.fxt" 2>>"$TMP/pro.conv.err"; then
		fail "$name" "conversion failed: $(first_lines "$TMP/pro.conv.err")"
		return
	fi
	if ! cmp -s "$TMP/pro.fxt" "$TMP/pro.text.fxt"; then
		fail "$name" "the trace differs with --no-dlfilter"
		return
	fi
	if ! "$CONVERT" --dump=tree "$TMP/pro.fxt" >"$TMP/pro.tree" 2>"$TMP/pro.dump.err"; then
		fail "$name" "reader rejects the output: $(first_lines "$TMP/pro.dump.err")"
		return
	fi
	"$PERF" script -i "$TMP/pro.data" -F tid,time,ip,sym,symoff --ns 2>/dev/null >"$TMP/pro.script"
	# the samples: "TIME C" (its chain shows caller), "TIME S" (its first
	# user frame is framed at an offset of OFFS, its chain without caller)
	awk -v offs="$offs" '
		BEGIN { n = split(offs, o, " "); for (i = 1; i <= n; i++) unset["snaptrace_fp_framed+" o[i]] = 1 }
		function done() { if (t != "") print t, (caller ? "C" : skip ? "S" : "O"); t = "" }
		/^ *[0-9]+ +[0-9]+\.[0-9]+:/ { done(); t = $2; sub(/:$/, "", t); sub(/\./, "", t)
			sub(/^0+/, "", t); first = 1; caller = skip = 0; next }
		NF >= 2 && $1 !~ /^ffffffff/ {
			if (first && ($2 in unset)) skip = 1
			if ($2 ~ /^snaptrace_fp_caller\+/) caller = 1
			first = 0
		}
		END { done() }' "$TMP/pro.script" >"$TMP/pro.samples"
	why=$(awk '
		FNR == NR { if ($2 == "C") { if (!c0) c0 = $1; c1 = $1 } if ($2 == "S") s[$1] = 1; next }
		/^# thread/ { delete st; next }
		match($0, / \[[0-9]+, [0-9]+\]/) {
			d = $2 + 0; nm = $3; st[d] = nm
			split(substr($0, RSTART + 2, RLENGTH - 3), se, ", ")
			if (nm == "snaptrace_fp_framed" && se[1] + 0 >= c0 && se[1] + 0 <= c1 && st[d - 1] != "snaptrace_fp_caller") {
				printf "snaptrace_fp_framed under %s at depth %d from %s ns, where the program runs it in snaptrace_fp_caller (samples of it from %.0f to %.0f ns)\n", st[d - 1], d, se[1], c0, c1
				exit
			}
		}
		END { for (t in s) if (t + 0 > c0 && t + 0 < c1) k++; if (k < 20) print "only " k + 0 " samples at snaptrace_fp_framed+(" offs ") inside snaptrace_fp_caller (need 20)" }' \
		"$TMP/pro.samples" "$TMP/pro.tree" | head -n 1)
	if [ -n "$why" ]; then
		fail "$name" "$why"
		return
	fi
	ok "$name"
}
prologues

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
