#!/usr/bin/env bash
# tier: record
# The README's first command, recorded for real (tooling that records, so
# apart from the tooling suite):
#   demo_summary      make demo-run (make demo without the package check)
#                     records the demo into DEMO_TRACE, reads it back, and
#                     its summary is snaptrace stats' own table (whole
#                     names, not a re-parse) with the converter's "open"
#                     line once
#   quick_start       the README's quick start (in its first 60 lines)
#                     runs as written from the top of a source tree after
#                     make: each command exits 0 and each trace it writes
#                     reads back with slices and no problem
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

# quick_start_commands: the command lines of the README's "## Quick
# start" (its indented lines that are no comment), when the section ends
# within the first 60 lines.
quick_start_commands() {
	head -n 60 "$top/README.md" | awk '/^## Quick start$/ { on = 1; next }
		on && /^## / { ended = 1; exit } on && /^    [^#]/ { sub(/^    /, ""); print }
		END { if (!ended) print "the quick start does not end within the first 60 lines" }'
}

t_quick_start() {
	local d="$TMP/qs" cmds line n=0 bad="" f
	requires quick_start recording || return
	cmds=$(quick_start_commands)
	if [ "$(grep -c '^scripts/snaptrace ' <<<"$cmds")" -lt 3 ] || grep -qv '^scripts/snaptrace ' <<<"$cmds"; then
		fail quick_start "expected scripts/snaptrace command lines, found: $(tr '\n' '|' <<<"$cmds")"
		return
	fi
	# a source tree after make: scripts/ and build/ (this build: SNAPTRACE_BIN)
	entry_point "$d" >/dev/null
	while read -r line; do
		n=$((n + 1))
		if ! (cd "$d" && SNAPTRACE_BIN="$SNAPTRACE_O/bin" timeout 120 bash -c "$line") \
			>"$TMP/qs.$n.out" 2>&1; then
			bad="$bad '$line' failed: $(tail -n 2 "$TMP/qs.$n.out" | tr '\n' '|');"
		fi
	done <<<"$cmds"
	for f in "$d"/*.fxt.gz; do
		[ -e "$f" ] || { bad="$bad no trace written;"; break; }
		if ! "$CONVERT" --dump=slices "$f" >"$TMP/qs.slices" 2>"$TMP/qs.err" ||
			[ ! -s "$TMP/qs.slices" ]; then
			bad="$bad ${f##*/}: $(first_lines "$TMP/qs.err");"
		fi
	done
	if [ -n "$bad" ]; then
		fail quick_start "$bad"
	else
		ok quick_start
	fi
}

need_built demo "$CONVERT" "$SNAPTRACE_BIN/snaptrace-stats"
t_demo_summary
t_quick_start
