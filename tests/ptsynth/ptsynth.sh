# Sourced (after tests/lib.sh) by the suites that run the Intel PT generator
# (pt, cut): its tools, and ptsynth_ready, which ends the suite with a skip
# line where it cannot run (tools not built for lack of libipt/Zydis, no
# perf to decode, ptrace not permitted) or a FAIL line where a tool is missing.
PTSYNTH="$SNAPTRACE_TEST_BIN/ptsynth"
EXPECT="$SNAPTRACE_TEST_BIN/ptsynth-expect"
PROGS="$SNAPTRACE_TEST_BIN/ptsynth-progs"
PERF=${SNAPTRACE_PERF:-perf}

# ptsynth_ready NAME: the checks, NAME naming the suite in skip lines.
ptsynth_ready() {
	local f
	# the build leaves this file instead of the tools where libipt/Zydis are missing
	if [ -f "$SNAPTRACE_TEST_BIN/ptsynth.skip" ]; then
		skip "$1" "$(cat "$SNAPTRACE_TEST_BIN/ptsynth.skip")"
		exit 0
	fi
	for f in "$PTSYNTH" "$EXPECT" "$CONVERT"; do
		if [ ! -x "$f" ]; then
			fail "$1-build" "missing $f (make test builds it)"
			exit 1
		fi
	done
	if ! command -v "$PERF" >/dev/null 2>&1; then
		skip "$1" "no perf to decode Intel PT"
		exit 0
	fi
	if ! "$PTSYNTH" -q -o "$TMP/probe.data" -- "$PROGS/tailcall" >"$TMP/probe.out" 2>&1 &&
		grep -q -i 'permission\|not permitted' "$TMP/probe.out"; then
		skip "$1" "ptrace is not permitted here: $(head -1 "$TMP/probe.out")"
		exit 0
	fi
}
