#!/usr/bin/env bash
# tier: check
# Out of memory never gives a silently shorter trace. The converter linked
# with tests/failmalloc (every allocation of its own code counted) converts
# golden cases once per allocation N, the N-th failing; each run must either
# exit 1 with one line on stderr saying it ran out of memory and leave no
# output file (nor a temporary), or exit 0 with a trace byte for byte the
# one written with no failure (which is read back and compared with the
# case's expected.txt). A crash, a sanitizer report, another exit status or
# a different trace fails. The cases run with --no-srcline (some 40
# allocations each); one runs with source lines too, whose lookups read
# whole symbol tables (thousands of allocations): there the N are sampled,
# every one up to SRCLINE_DENSE, then SRCLINE_SAMPLES more spread evenly.
# Usage: bash tests/failmalloc/nomem.test.sh [CASE...]   (normally via tests/run.sh)
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

FAILCONV="$SNAPTRACE_TEST_BIN/failmalloc/snaptrace-convert"
CASES_DIR="$SNAPTRACE_TOP/tests/cases"
SRCLINE_DENSE=60
SRCLINE_SAMPLES=30
NOSRCLINE_MAX=400

need_built nomem "$CONVERT" "$FAILCONV"
# a sanitizer report must not pass for the exit 1 of out of memory
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}exitcode=86"

# Branches and sampled chains, one and two inputs, decode errors without a
# time, switches and off-CPU slices, deep stacks, blamed binaries; the case
# also converted with source lines. (Each run takes some 0.1 s here.)
CASES=(call-return decode-error-no-time-mid sched-switch-chains sched-switch-unwound offcpu-across-snapshots
	unsymbolized-stacks-warning deep-recursion-300)
SRCLINE_CASE=call-return
[ $# -gt 0 ] && CASES=("$@")

# convert CASE OUT [ARGS...]: runs the failmalloc converter on CASE into
# OUT (stderr in OUT.err); returns its exit status. Run in the case's
# directory, with the case's options in CASE_ARGS (case_args).
convert() {
	local out=$2
	shift 2
	"$FAILCONV" --quiet "$@" "${CASE_ARGS[@]}" input.txt -o "$out" 2>"$out.err"
}

# case_args CASE: the case's options (its args file) into CASE_ARGS.
case_args() {
	CASE_ARGS=()
	# shellcheck disable=SC2207
	[ -f "$CASES_DIR/$1/args" ] && CASE_ARGS=($(<"$CASES_DIR/$1/args"))
}

# sweep NAME KEY CASE MODE N...: one run per N (MODE: "--no-srcline" or
# ""), files $TMP/KEY.*. Prints one ok/FAIL line for NAME. Hundreds of
# runs: each is the converter and nothing else started (the checks are
# bash's own but for cmp of a trace written).
sweep() {
	local name=$1 key=$2 case=$3 mode=$4 n rc ref="$TMP/$2.ref.fxt" out="$TMP/$2.fxt"
	local nomem=0 same=0 err
	shift 4
	rm -f "$out"
	for n in "$@"; do
		FAILMALLOC_AT=$n convert "$case" "$out" $mode
		rc=$?
		if [ $rc -eq 0 ]; then
			if ! cmp -s "$out" "$ref"; then
				fail "$name" "allocation $n failed, exit 0, but the trace differs from" \
					"the one without a failure: $(first_lines "$out.err")"
				return
			fi
			rm -f "$out"
			same=$((same + 1))
		elif [ $rc -eq 1 ]; then
			mapfile -t err <"$out.err"
			if [ ${#err[@]} -ne 1 ] ||
				! [[ ${err[0]} =~ out\ of\ memory|Cannot\ allocate\ memory ]]; then
				fail "$name" "allocation $n failed, exit 1, stderr not one out-of-memory" \
					"line: $(first_lines "$out.err")"
				return
			fi
			if [ -e "$out" ] || compgen -G "$TMP/.snaptrace-*.tmp" >/dev/null; then
				fail "$name" "allocation $n failed, exit 1, but an output file was left"
				return
			fi
			nomem=$((nomem + 1))
		else
			fail "$name" "allocation $n failed: exit $rc (a crash?): $(first_lines "$out.err")"
			return
		fi
	done
	if [ $nomem -eq 0 ]; then
		fail "$name" "no failed allocation ended the conversion (cannot fail: wrong build?)"
		return
	fi
	echo "ok $name ($# allocations failed in turn: $nomem out of memory, $same same trace)"
}

# run_case CASE: the reference conversion of CASE (checked against its
# expected.txt), then the sweep, with --no-srcline and, for SRCLINE_CASE,
# also without.
run_case() {
	local case=$1 mode name key total ns=() n step modes=(--no-srcline)
	[ "$case" = "$SRCLINE_CASE" ] && modes+=("")
	case_args "$case"
	cd "$CASES_DIR/$case" || { fail "nomem/$case" "no case $case"; return; }
	for mode in "${modes[@]}"; do
		name="nomem/$case${mode:+ $mode}"
		key="$case${mode:+-no-srcline}"
		FAILMALLOC_COUNT_FILE="$TMP/count" convert "$case" "$TMP/$key.ref.fxt" $mode
		if [ $? -ne 0 ]; then
			fail "$name" "the conversion without a failure failed: $(first_lines "$TMP/$key.ref.fxt.err")"
			continue
		fi
		if ! "$CONVERT" --dump=slices "$TMP/$key.ref.fxt" >"$TMP/$key.slices" 2>&1 ||
			! slices_match "$TMP/$key.slices" "$CASES_DIR/$case/expected.txt" >/dev/null; then
			fail "$name" "the conversion without a failure is not the case's expected.txt"
			continue
		fi
		total=$(cat "$TMP/count")
		# without source lines a case's conversion reads no binary's symbol
		# table (some 40 allocations): thousands say one is read for nothing,
		# and this sweep would run the converter that many times
		if [ -n "$mode" ] && [ "$total" -gt $NOSRCLINE_MAX ]; then
			fail "$name" "$total allocations without source lines (at most $NOSRCLINE_MAX):" \
				"a binary's symbols read though no line is looked up?"
			continue
		fi
		ns=()
		if [ -n "$mode" ] || [ "$total" -le $((SRCLINE_DENSE + SRCLINE_SAMPLES)) ]; then
			for ((n = 1; n <= total; n++)); do ns+=("$n"); done
		else
			for ((n = 1; n <= SRCLINE_DENSE; n++)); do ns+=("$n"); done
			step=$(((total - SRCLINE_DENSE) / SRCLINE_SAMPLES + 1))
			for ((n = SRCLINE_DENSE + step; n <= total; n += step)); do ns+=("$n"); done
		fi
		sweep "$name" "$key" "$case" "$mode" "${ns[@]}"
	done
}

for c in "${CASES[@]}"; do
	run_case "$c"
done
