#!/usr/bin/env bash
# tier: check
# The command line of snaptrace-record and of the snaptrace front end, where
# nothing is recorded (that --help, the README, the man pages and the
# completion list the same options: tests/tooling/options.test.sh): nonsense values are usage errors (exit 2, one line naming the
# option) that create and start nothing; the front end's usage errors exit
# 2; the program to run named as what it is (a file not executable, a
# directory); every option whose value is a time says in --help and the man
# page what a bare number means: a value named SECONDS or MS says it by its
# name, one named DURATION (--trigger-slower-than, whose 5 is 5 s) in its
# text (issue 24: a user read --trigger-slower-than 5 as 5 ms). (The rest
# of the front end records: frontend.test.sh.)
. "$(dirname "$0")/../lib.sh"

FRONT="$SNAPTRACE_BIN/snaptrace"
export SNAPTRACE_BIN
need_built cli "$RECORD"

# Each ARGS|OPTION: the arguments are refused with exit 2 and one line
# naming OPTION; nothing is created or started.
NONSENSE='--snapshot-size 64G|--snapshot-size
--snapshot-size 4G|--snapshot-size
--mode sampling --snapshot-size 2G|--snapshot-size 2048 MiB: expected at most 1G when sampling
--event branch-misses:u|--event
--event branch-misses/0|--event
--event cpu/event=0x3c/u|--event
--event /5|--event
--event a --event b --event c --event d --event e --event f --event g --event h --event i|--event
--snapshot-size nan|--snapshot-size
--snapshot-size inf|--snapshot-size
--snapshot-size 1e30|--snapshot-size
--snapshot-size 0.5|--snapshot-size
--snapshot-size -4K|--snapshot-size
--snapshot-size 18446744073709551616|--snapshot-size
--duration nan|--duration
--duration inf|--duration
--duration 0x10|--duration
--duration 1e3|--duration
--duration 0|--duration
--duration -1|--duration
--duration 10m|--duration
--trigger-slower-than 0|--trigger-slower-than
--trigger-slower-than -5ms|--trigger-slower-than
--trigger-slower-than 1.5ns|--trigger-slower-than
--trigger-slower-than 10ms --trigger-mechanism breakpoint|--trigger-slower-than
-p 4294967297|--pid
-p 1,|--pid
-p ,1|--pid
-p 1,,2|--pid
-p 0|--pid
-t 4294967297|--tid
--sampling-freq 5e3|--sampling-freq
--sampling-freq 0x100|--sampling-freq
--min-interval nan|--min-interval
--min-interval 99999999999|--min-interval
--arm-after nan|--arm-after
--arm-after -1|--arm-after
--arm-after 1e3|--arm-after
--arm-after 86401|--arm-after
--trigger addr:0xzz|^[a-z-]*: --trigger addr:0xzz: expected addr:0xHEX, found .0xzz.$
--trigger libc:|^[a-z-]*: --trigger libc:: expected LIB:SYMBOL$
--trigger ?|^[a-z-]*: --trigger [?]: expected a terminal to pick a function on
--mode fast|--mode
--callgraph x|--callgraph
--check extra|--check
--kernel=yes|--kernel
--no-such-option|--no-such-option'

# (100 refusals: each read with builtins, no process but the program's)
t_nonsense_refused() {
	local lines args opt rc rest after bad="" err="$TMP/nonsense.err"
	cd "$TMP" || return
	while IFS='|' read -r args opt; do
		for prog in record front; do
			# shellcheck disable=SC2086
			if [ $prog = record ]; then
				"$RECORD" -o "$TMP/nonsense.d" $args -- /bin/true >/dev/null 2>"$err"
			else
				"$FRONT" run -o "$TMP/n.fxt" $args -- /bin/true >/dev/null 2>"$err"
			fi
			rc=$?
			mapfile -t lines <"$err"
			# the option said once: "--trigger ?: --trigger '?': expected..."
			# (issue 24 item 7) doubled the prefix
			rest=${lines[0]#*: }
			after=${rest#*: }
			[[ ${rest%% *} == --* && $after == "${rest%% *}"[\ \']* ]] &&
				bad="$bad [$prog $args: the option twice: ${lines[0]}]"
			# OPTION is a pattern (grep's basic and extended forms alike here)
			if [ $rc -ne 2 ] || [ ${#lines[@]} -ne 1 ] ||
				[[ ! ${lines[0]} =~ $opt ]] || [ -e "$TMP/nonsense.d" ] ||
				[ -e "$TMP/n.fxt" ]; then
				bad="$bad [$prog $args: exit $rc: ${lines[*]}]"
			fi
		done
	done <<<"$NONSENSE"
	cd - >/dev/null || return
	if [ -n "$bad" ]; then
		fail nonsense_refused "$bad"
	else
		ok nonsense_refused
	fi
}

t_frontend_usage_exit_2() {
	local bad="" rc args
	for args in "run" "attach -- /bin/true" "run --bogus -- /bin/true" "bogus" "" \
		"run -o" "attach -p" "run --front-end run -- /bin/true"; do
		# shellcheck disable=SC2086
		"$FRONT" $args >/dev/null 2>"$TMP/usage.err"
		rc=$?
		[ $rc -eq 2 ] || bad="$bad [snaptrace $args: exit $rc: $(head -n 1 "$TMP/usage.err")]"
	done
	if [ -n "$bad" ]; then
		fail frontend_usage_exit_2 "$bad"
	else
		ok frontend_usage_exit_2
	fi
}

# The program to run, or --perf, is what it is: a file without execute
# permission is "not executable" (it was "found none", as for a missing
# name), a directory a directory, a device no regular file; nothing missing
# is still none. Exit 2 (1 for --perf), one line, nothing created.
t_program_found() {
	local bad="" rc args want
	printf 'data\n' >"$TMP/plain"
	chmod 644 "$TMP/plain"
	while IFS='|' read -r args want; do
		for prog in record front; do
			# shellcheck disable=SC2086
			if [ $prog = record ]; then
				"$RECORD" -o "$TMP/found.d" $args >/dev/null 2>"$TMP/found.err"
			else
				"$FRONT" run -o "$TMP/found.fxt" $args >/dev/null 2>"$TMP/found.err"
			fi
			rc=$?
			if [ $rc -ne "${want%%:*}" ] || [ "$(wc -l <"$TMP/found.err")" -ne 1 ] ||
				! grep -qF -- "${want#*:}" "$TMP/found.err" || [ -e "$TMP/found.d" ] ||
				[ -e "$TMP/found.fxt" ]; then
				bad+=" [$prog $args: exit $rc: $(head -n 1 "$TMP/found.err")]"
			fi
		done
	done <<EOF_CASES
-- $TMP/plain|2:$TMP/plain: expected an executable program, found a file that is not executable
-- /etc|2:/etc: expected an executable program, found a directory
-- /dev/null|2:/dev/null: expected an executable program, found no regular file
-- $TMP/no-such-program|2:$TMP/no-such-program: expected an executable program, found none
--perf $TMP/plain -- /bin/true|1:perf: expected the perf program, found a file that is not executable ('$TMP/plain')
--perf $TMP/no-such-perf -- /bin/true|1:perf: expected the perf program, found none ('$TMP/no-such-perf' does not exist)
EOF_CASES
	if [ -n "$bad" ]; then
		fail program_found "$bad"
	else
		ok program_found
	fi
}

# help_rows: the rows of --help on stdin, one line each (an option's
# continuation lines joined to it)
help_rows() {
	awk '/^ +(-[A-Za-z], )?--[a-z]/ { if (row != "") print row; row = $0; next }
		/^                    +[^ ]/ && row != "" { sub(/^ +/, " "); row = row $0; next }
		{ if (row != "") print row; row = "" } END { if (row != "") print row }'
}

# man_rows PAGE: the option rows of a generated man page, one line each
man_rows() {
	sed 's/\\-/-/g; s/\\f[BIR]//g' "$1" | awk '/^\.TP/ { if (row != "") print row; row = ""; on = 1; next }
		/^\./ { if (row != "") print row; row = ""; on = 0; next }
		on { row = row (row == "" ? "" : " ") $0 } END { if (row != "") print row }'
}

t_time_units_said() {
	local bad="" rows what
	for what in "$FRONT run" "$FRONT attach" "$RECORD" "man:snaptrace" "man:snaptrace-record"; do
		if [ "${what#man:}" != "$what" ]; then
			rows=$(man_rows "$SNAPTRACE_O/man/${what#man:}.1")
		else
			# shellcheck disable=SC2086
			rows=$($what --help 2>&1 | help_rows)
		fi
		grep -q -- "--trigger-slower-than DURATION" <<<"$rows" ||
			bad+="[${what##*/}: no --trigger-slower-than row]"
		bad+=$(grep -E -- "--[a-z-]+ (DURATION|TIME)\b" <<<"$rows" | grep -v "a bare number is seconds" |
			sed "s|^ *|[${what##*/}: says no unit: |; s|\$|]|" | head -n 3)
	done
	if [ -n "$bad" ]; then fail time_units_said "$bad"; else ok time_units_said; fi
}

# `snaptrace check` and `snaptrace symbols` name themselves, as the user
# typed them, not the recorder's option behind them (it said "snaptrace
# check: --check: expected no other argument"); a file that is not there is
# "No such file", not "found neither".
t_tool_words() {
	local bad="" line
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		"$FRONT" $args >/dev/null 2>"$TMP/tool.err"
		line=$(head -n 1 "$TMP/tool.err")
		[[ $line =~ $want ]] && [[ $line != *--check:* ]] && [[ $line != *--symbols:* ]] ||
			bad="$bad [snaptrace $args: $line]"
	done <<'LIST'
check extra|^snaptrace check: expected no other argument, found 'extra'
symbols /bin/true x y|^snaptrace symbols: expected PROG.PID .PATTERN., found 'y' after the pattern
symbols /nonexistent/prog|^snaptrace symbols: /nonexistent/prog: No such file or directory
LIST
	if [ -n "$bad" ]; then fail tool_words "$bad"; else ok tool_words; fi
}

t_nonsense_refused
t_frontend_usage_exit_2
t_program_found
t_time_units_said
t_tool_words
