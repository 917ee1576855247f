# Sourced (after tests/lib.sh) by the suites that run the Intel PT generator
# (pt, cut, stats): its tools, and ptsynth_ready, which ends the suite with a skip
# line where it cannot run (requirements ptsynth: the tools not built for
# lack of libipt/Zydis; perf to decode; ptrace) or a FAIL line where a tool
# is missing.
PTSYNTH="$SNAPTRACE_TEST_BIN/ptsynth"
# The runs ptsynth traced, kept for the next suite and variant of the same
# program (ptsynth --cache: tests/ptsynth/runcache.h); under O, so make
# clean forgets them.
PTSYNTH_RUNS="$SNAPTRACE_TEST_BIN/ptsynth-runs"
EXPECT="$SNAPTRACE_TEST_BIN/ptsynth-expect"
PROGS="$SNAPTRACE_TEST_BIN/ptsynth-progs"
PERF=${SNAPTRACE_PERF:-perf}

# ptsynth_ready NAME: the checks, NAME naming the suite in skip lines.
ptsynth_ready() {
	requires "$1" ptsynth || exit 0
	need_built "$1-build" "$PTSYNTH" "$EXPECT" "$CONVERT"
	requires "$1" perf ptrace || exit 0
}
