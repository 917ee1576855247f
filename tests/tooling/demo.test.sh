#!/usr/bin/env bash
# tier: record
# The README's first command, recorded for real (tooling that records, so
# apart from the tooling suite):
#   demo_summary      make demo-run (make demo without the package check)
#                     records the demo into DEMO_TRACE, reads it back, and
#                     its summary is snaptrace stats' own table (whole
#                     names, not a re-parse) with the converter's "open"
#                     line once
. "$(dirname "$0")/../lib.sh"

top=$SNAPTRACE_TOP

t_demo_summary() {
	local trace="$TMP/demo.fxt.gz" out="$TMP/demo.out" rows
	requires demo_summary recording || return
	if ! timeout 180 make -s -C "$top" O="$SNAPTRACE_O" DEMO_TRACE="$trace" demo-run \
		>"$out" 2>&1; then
		fail demo_summary "make demo-run failed: $(first_lines "$out")"
		return
	fi
	rows=$("$CONVERT" --dump=slices "$trace" 2>/dev/null | wc -l)
	"$SNAPTRACE_BIN/snaptrace-stats" --limit 8 "$trace" >"$TMP/demo.stats" 2>&1
	if [ "$rows" -lt 10 ]; then
		fail demo_summary "the demo's trace reads back with $rows slices"
	elif [ "$(grep -c 'open .* in https://ui.perfetto.dev' "$out")" -ne 1 ]; then
		fail demo_summary "expected one 'open' line: $(grep 'open ' "$out" | tr '\n' '|')"
	elif [ "$(tail -n "$(wc -l <"$TMP/demo.stats")" "$out")" != "$(cat "$TMP/demo.stats")" ]; then
		fail demo_summary "the summary is not snaptrace stats' table: $(tail -n 4 "$out" | tr '\n' '|')"
	elif [ "$(wc -l <"$TMP/demo.stats")" -ne 11 ]; then
		fail demo_summary "expected a header and 8 rows: $(tr '\n' '|' <"$TMP/demo.stats")"
	else
		ok demo_summary
	fi
}

need_built demo "$CONVERT" "$SNAPTRACE_BIN/snaptrace-stats"
t_demo_summary
