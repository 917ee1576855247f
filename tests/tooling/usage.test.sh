#!/usr/bin/env bash
# tier: check
# Usage errors exit 2, the three programs and the front end alike (brief:
# "exit 2 for usage errors and 1 for runtime failures"); issue 24 found
# `snaptrace stats A.fxt B.fxt` reported as exit 1. One table of misuses,
# each with its expected status and a word of its one-line message; none
# reaches a recording or a conversion (each is refused while the command
# line is read). Issue 24 added an ambiguous prefix ("unknown option"
# before), a value left out, an option taken for it, and a second "--"
# (one rule in opttab for every tool: "--" ends the options once):
#   misuse_ROW   the row's command exits with its status, one line on stderr
#                naming what was expected
# Issue 24 leftovers: every program's input that is no regular file (a
# FIFO nothing writes, /dev/zero) is refused at once, exit 2 (`stats FIFO`
# and `--dump FIFO` waited forever), record.json one such (exit 1: a
# recording that is not one); each row runs under timeout (124: it waited):
#   misuse_input_fifo_*, misuse_input_zero_*, misuse_input_json_fifo
#   input_pipe   a pipe (<(...)) is still read by convert and --dump; stats,
#                which may read its trace twice, refuses it as it refuses "-"
#   input_pipe_perfdata, input_pipe_binary, excerpt_bounded, write_fails: below
. "$(dirname "$0")/../lib.sh"

STATS="$SNAPTRACE_BIN/snaptrace-stats"
FRONT="$SNAPTRACE_BIN/snaptrace"
need_built usage "$RECORD" "$CONVERT" "$STATS" "$FRONT"
: >"$TMP/a.fxt"
: >"$TMP/b.fxt"
mkfifo "$TMP/fifo"
mkdir "$TMP/rec"
mkfifo "$TMP/rec/record.json"
: >"$TMP/empty.txt"
"$CONVERT" -q "$TMP/empty.txt" -o "$TMP/t.fxt" 2>"$TMP/err" ||
	fail usage_setup "an empty input did not convert: $(head -c 300 "$TMP/err")"

# NAME|STATUS|WORD|COMMAND (words split; the words A and B, whole, are the
# two empty traces, F a FIFO: a letter inside a word, e.g. in the build's
# path, stays). A front end verb's messages name the command the user ran
# (snaptrace check, snaptrace symbols: never snaptrace-record, trial 13).
while IFS='|' read -r name want word cmd; do
	[ -n "$name" ] || continue
	read -r -a argv <<<"$cmd"
	for i in "${!argv[@]}"; do
		case ${argv[$i]} in
		A) argv[i]=$TMP/a.fxt ;;
		B) argv[i]=$TMP/b.fxt ;;
		F) argv[i]=$TMP/fifo ;;
		R) argv[i]=$TMP/rec ;;
		T) argv[i]=$TMP/t.fxt ;;
		esac
	done
	cmd=${argv[*]}
	(cd "$TMP" && exec timeout -k 5 20 "${argv[@]}") >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	if [ "$rc" != "$want" ] || ! grep -q -- "$word" "$TMP/err" ||
		{ [ "${name#input_}" != "$name" ] && [ "$(wc -l <"$TMP/err")" != 1 ]; }; then
		fail "misuse_$name" "'$cmd' exited $rc (expected $want, a line with '$word'): $(head -c 300 "$TMP/err")"
	else
		ok "misuse_$name"
	fi
done <<EOF_TABLE
stats_two_traces|2|expected one trace file|$FRONT stats A B
stats_two_traces_direct|2|expected one trace file|$STATS A B
stats_no_trace|2|expected a trace file|$FRONT stats
stats_stdin|2|standard input|$STATS -
stats_top_alone|2|--top needs --function|$STATS --top 3 A
stats_no_value|2|expected a value|$STATS A --format
convert_no_input|2|no input given|$CONVERT
convert_front_no_input|2|no input given|$FRONT convert
convert_no_value|2|expected a value|$CONVERT -o
convert_jobs_0|2|--jobs 0|$CONVERT --jobs 0 A
record_no_target|2|expected a target|$RECORD
record_two_targets|2|expected one target|$RECORD -p 1 -- true
record_duration|2|--duration x|$RECORD --duration x -- true
record_slower_0|2|--trigger-slower-than 0|$RECORD --trigger-slower-than 0 -- true
front_no_verb|2|usage|$FRONT
front_unknown_verb|2|expected run, attach|$FRONT frob
front_run_no_command|2|expected a command|$FRONT run
front_attach_bad_pid|2|--pid abc|$FRONT attach -p abc
front_snapshot_size|2|--snapshot-size 3x|$FRONT run --snapshot-size 3x -- true
front_check_unknown|2|^snaptrace check: --bogus: unknown option (see snaptrace check --help)|$FRONT check --bogus
input_fifo_symbols|2|^snaptrace symbols: .*fifo: a FIFO, expected a regular file (an ELF file) or a process id$|$FRONT symbols F
input_fifo_convert|2|fifo: a FIFO, expected a regular file, or a pipe as standard input or from <(\.\.\.)$|$CONVERT F
input_fifo_front_convert|2|fifo: a FIFO, expected a regular file, or a pipe as standard input or from <(\.\.\.)$|$FRONT convert F
input_fifo_dump|2|fifo: cannot open: a FIFO, expected a regular file, or a pipe as standard input or from <(\.\.\.)$|$CONVERT --dump F
input_fifo_stats|2|fifo: cannot open: a FIFO, expected a regular file$|$STATS F
input_fifo_front_stats|2|fifo: cannot open: a FIFO, expected a regular file$|$FRONT stats F
input_fifo_baseline|2|fifo: cannot open: a FIFO, expected a regular file$|$STATS --baseline F T
input_zero_symbols|2|^snaptrace symbols: /dev/zero: a character device, expected a regular file (an ELF file)|$FRONT symbols /dev/zero
input_zero_convert|2|/dev/zero: a character device, expected a regular file, or a pipe as standard input or from <(\.\.\.)$|$CONVERT /dev/zero
input_zero_dump|2|/dev/zero: cannot open: a character device, expected a regular file, or a pipe as standard input or from <(\.\.\.)$|$CONVERT --dump /dev/zero
input_zero_stats|2|/dev/zero: cannot open: a character device, expected a regular file$|$STATS /dev/zero
input_zero_baseline|2|/dev/zero: cannot open: a character device, expected a regular file$|$STATS --baseline /dev/zero T
input_json_fifo|1|rec/record.json: a FIFO, expected a regular file$|$CONVERT R -o json.fxt.gz
ambiguous_record|2|--m: ambiguous, it begins .*--multi-snapshot|$RECORD --m 1 -- true
ambiguous_front|2|--m: ambiguous, it begins .*--min-interval|$FRONT run --m 1 -- true
ambiguous_convert|2|--p: ambiguous, it begins --perf, --perf-arg|$CONVERT --p x A
ambiguous_stats|2|--b: ambiguous, it begins --by-thread|$STATS --b A
value_option_record|2|--trigger: expected SPEC, found the option --multi-snapshot|$RECORD --trigger --multi-snapshot -- true
value_option_front|2|--output: expected FILE, found the option -q|$FRONT run -o -q -- true
value_option_convert|2|--output: expected FILE, found the option --quiet|$CONVERT A -o --quiet
value_option_stats|2|--function: expected NAME, found the option --quiet|$STATS --function --quiet A
front_symbols_none|2|^snaptrace symbols: expected PROG.* found none|$FRONT symbols
front_symbols_dashes_only|2|^snaptrace symbols: expected PROG.* found none|$FRONT symbols --
dashes_twice_symbols|2|^snaptrace symbols: found a second -- after the first|$FRONT symbols -- -- true
dashes_twice_front|2|^snaptrace: found a second -- after the first|$FRONT run --trigger F -- -- true
dashes_twice_record|2|found a second -- after the first|$RECORD -- -- true
dashes_twice_stats|2|found a second -- after the first|$STATS -- -- A
dashes_twice_convert|2|found a second -- after the first|$CONVERT -- -- A
EOF_TABLE

bad=
cp "$SNAPTRACE_TOP/tests/cases/call-return/input.txt" "$TMP/in.txt"
"$CONVERT" -q <(cat "$TMP/in.txt") -o "$TMP/pipe.fxt.gz" 2>"$TMP/err" || bad="convert: $(head -c 200 "$TMP/err")"
"$CONVERT" -q "$TMP/in.txt" -o "$TMP/file.fxt.gz" 2>>"$TMP/err" || bad="$bad convert of the file: $(head -c 200 "$TMP/err")"
[ -n "$bad" ] || "$CONVERT" --dump=slices <(gzip -dc "$TMP/pipe.fxt.gz") >"$TMP/pipe.slices" 2>"$TMP/err" ||
	bad="--dump: $(head -c 200 "$TMP/err")"
[ -n "$bad" ] || "$CONVERT" --dump=slices "$TMP/file.fxt.gz" >"$TMP/file.slices" 2>"$TMP/err" ||
	bad="--dump of the file: $(head -c 200 "$TMP/err")"
[ -n "$bad" ] || [ -s "$TMP/file.slices" ] && cmp -s "$TMP/pipe.slices" "$TMP/file.slices" ||
	bad="$bad the pipe's trace is not the file's"
# stats reads a trace twice where begins come late: a pipe is refused as
# "-" is, at once, not read half (before: "not an FXT file", exit 1)
"$STATS" <(cat "$TMP/pipe.fxt.gz") >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "/dev/fd/[0-9]*: cannot open: a pipe, expected a regular file$" "$TMP/err" ||
	bad="$bad stats on a pipe exited $rc: $(head -c 200 "$TMP/err")"
verdict input_pipe "$bad"

# A perf.data or a binary file from a pipe is refused at once, one line,
# exit 2, no byte of it shown (new-user check 16: `cat perf.data |
# snaptrace convert -` echoed ~500 characters of escaped binary and
# suggested a perf script command line, exit 2; perf seeks in a perf.data,
# so one from a pipe, whether file-mode or pipe-mode (`perf record -o -`:
# PERFILE2 with a 16-byte header), is read from a file only):
#   input_pipe_perfdata  both headers, from standard input, from <(...),
#                        and through the front end
#   input_pipe_binary    an ELF file from standard input: refused ("no line
#                        was perf script output"), its first line shown as
#                        one bounded excerpt (a pipe's text may
#                        hold a NUL: a comm, cases/hostile nul-comm; a regular
#                        file that does is "a binary file")
#   excerpt_bounded      a line that is not perf script text is shown as one
#                        bounded excerpt (esc_excerpt(): its first 100
#                        characters, "...", its last 60), in the warning and
#                        in --strict's error
bad=
for hdr in 'PERFILE2\x10\0\0\0\0\0\0\0' 'PERFILE2\x68\0\0\0\0\0\0\0\x90'; do
	for how in stdin subst front; do
		case $how in
		stdin) printf "$hdr" | "$CONVERT" - -o "$TMP/pd.fxt" 2>"$TMP/err" ;;
		subst) "$CONVERT" <(printf "$hdr") -o "$TMP/pd.fxt" 2>"$TMP/err" ;;
		front) printf "$hdr" | "$FRONT" convert - -o "$TMP/pd.fxt" 2>"$TMP/err" ;;
		esac
		rc=$?
		[ "$rc" = 2 ] && [ "$(wc -l <"$TMP/err")" = 1 ] &&
			grep -q ": a perf.data from a pipe: give it as a file$" "$TMP/err" ||
			bad="$bad [$how $hdr: exit $rc: $(head -c 200 "$TMP/err")]"
	done
done
verdict input_pipe_perfdata "$bad"
bad=
head -c 70000 "$CONVERT" | "$CONVERT" - -o "$TMP/pd.fxt" 2>"$TMP/err"
rc=$?
[ "$rc" != 0 ] && [ "$(awk 'length > 400' "$TMP/err" | wc -l)" = 0 ] &&
	grep -qF "warning: -:1: not a line of perf script output, skipped (further ones are counted in the summary): \\x7fELF\\x02" "$TMP/err" && grep -qF "..." "$TMP/err" ||
	bad="exit $rc: $(head -c 600 "$TMP/err")"
verdict input_pipe_binary "$bad"
bad=
long=$(printf 'x\001%.0s' $(seq 300))
for strict in "" --strict; do
	{ echo "$long"; cat "$TMP/in.txt"; } | "$CONVERT" $strict - -o "$TMP/ex$strict.fxt" 2>"$TMP/err"
	line=$(grep "not a line of perf script output" "$TMP/err")
	shown=${line##*: }
	[ "$shown" = "$(printf 'x\\x01%.0s' $(seq 20))...$(printf 'x\\x01%.0s' $(seq 12))" ] ||
		bad="$bad [$strict: $(head -c 300 "$TMP/err")]"
done
verdict excerpt_bounded "$bad"

# A write that fails (/dev/full: no space) is a runtime failure in every
# program: exit 1, one line naming where, no "(see --help)" (new-user check
# 16: convert and run said exit 2 with "(see --help)", stats, --dump and
# symbols exit 1; outpath_check() decides for -o, write_failed()):
#   write_fails  -o /dev/full and -o - into it (convert, the front end's
#                convert and run, before anything runs), stats, --dump and
#                symbols into it
"$CONVERT" -q "$TMP/in.txt" -o "$TMP/w.fxt" 2>"$TMP/err"
bad=$(head -c 200 "$TMP/err")
while IFS='|' read -r name cmd; do
	# IN and W are whole arguments, never letters of a path: the CI clone's
	# random name once held a W, which became '$TMP/w.fxt' in every command
	read -r -a argv <<<"$cmd"
	for i in "${!argv[@]}"; do
		case ${argv[i]} in
		IN) argv[i]=$TMP/in.txt ;;
		W) argv[i]=$TMP/w.fxt ;;
		esac
	done
	(cd "$TMP" && exec timeout -k 5 20 "${argv[@]}") >/dev/full 2>"$TMP/err" </dev/null
	rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "/dev/full.*: No space left on device" "$TMP/err" &&
		! grep -q "see .*--help" "$TMP/err" || bad="$bad [$name: exit $rc: $(head -c 200 "$TMP/err")]"
done <<EOF_FULL
convert|$CONVERT -q IN -o /dev/full
convert_stdout|$CONVERT -q IN -o -
front_convert|$FRONT convert -q IN -o /dev/full
front_run|$FRONT run -q -o /dev/full -- true
front_run_stdout|$FRONT run -q -o - -- true
stats|$STATS W
dump|$CONVERT --dump W
symbols|$FRONT symbols $STATS main
EOF_FULL
verdict write_fails "$bad"
# ... and the README's scripting section says so: /dev/full and a full file
# system among exit 1's causes, not exit 2's (issue 24 item 7: the list of
# usage errors promised exit 2 for them):
#   write_fails_readme  the paragraph's exit-1 part names both, its exit-2 part neither
para=$(sed -n '/^`snaptrace run` passes the program.s exit status on/,/^$/p' "$SNAPTRACE_TOP/README.md" | tr '\n' ' ')
one=${para%%2 on a usage error*}
two=${para#*2 on a usage error}
bad=
[[ $one == *'/dev/full'* && $one == *'full file system'* ]] || bad="exit 1's causes: ${one: -300}"
[[ $two == *'/dev/full'* || $two == *'full file system'* ]] && bad+=" exit 2's causes: ${two:0:500}"
[ -n "$para" ] || bad="no paragraph 'snaptrace run passes the program's exit status on' in README.md"
verdict write_fails_readme "$bad"

# "--" ends the options in every tool, snaptrace symbols too, before its
# PROG or after it (issue 24: `snaptrace symbols -- ./prog PATTERN` was
# refused, "found 3 arguments", where stats and convert take it):
#   symbols_dashdash  both places list what PROG alone does
want=$("$FRONT" symbols "$STATS" main 2>&1)
bad=
for args in "-- $STATS main" "$STATS -- main"; do
	# shellcheck disable=SC2086
	got=$("$FRONT" symbols $args 2>&1)
	[ $? = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] || bad="$bad [$args: $(echo "$got" | head -c 200)]"
done
if [ -n "$bad" ]; then fail symbols_dashdash "$bad"; else ok symbols_dashdash; fi
# and its PATTERN is read as stats --match reads one (funcspec_pattern_matches):
#   symbols_glob  'MAI?' is the whole name main, any case, alone
got=$("$FRONT" symbols "$STATS" 'MAI?' 2>&1 | cut -f1)
if [ "$got" = main ]; then ok symbols_glob; else fail symbols_glob "'MAI?': $got"; fi

# Every option that takes a value, of every program, read from its option
# table (the `case $prev` arms of its --help=bash completion list them all):
# given "--" for the value it is refused, exit 2, one line naming the option
# and what it found (issue 24: `snaptrace run --trigger -- ./prog` took "--"
# as the trigger and ./prog as the command):
#   value_dashdash_PROG  each option of PROG
for prog in "$RECORD" "$FRONT run" "$FRONT attach" "$CONVERT" "$STATS"; do
	read -r -a p <<<"$prog"
	name=value_dashdash_$(basename "${p[0]}")${p[1]:+_${p[1]}}
	opts=$("${p[@]}" --help=bash | sed -n '/case \$prev in/,/esac/s/^\t\([^)]*\)).*/\1/p' |
		tr '|' '\n' | grep -- '^--')
	bad=
	for o in $opts; do
		(cd "$TMP" && exec "${p[@]}" "$o" -- true) >"$TMP/out" 2>"$TMP/err" </dev/null
		rc=$?
		if [ "$rc" != 2 ] || [ "$(wc -l <"$TMP/err")" != 1 ] ||
			! grep -q -- "$o.*found '--'" "$TMP/err"; then
			bad="$o exited $rc: $(head -c 200 "$TMP/err")"
			break
		fi
	done
	if [ -z "$opts" ]; then
		fail "$name" "no option with a value in '$prog --help=bash'"
	elif [ -n "$bad" ]; then
		fail "$name" "$bad"
	else
		ok "$name"
	fi
done

# Every verb of the front end, read from its own usage (`snaptrace --help`),
# answers -h and --help with its usage on stdout (its first line naming it:
# snaptrace VERB or snaptrace-VERB; trial 13: attach's was run's), exit 0,
# nothing on stderr
# (issue 24: `snaptrace symbols --help` took --help for the program to list):
#   help_VERB  both spellings, for each verb
verbs=$("$FRONT" --help | sed -n 's/^\(usage:\)\{0,1\} *snaptrace \([a-z]*\).*/\2/p')
[ "$(echo $verbs | wc -w)" -ge 6 ] || fail help_verbs "'snaptrace --help' names the verbs $verbs"
for v in $verbs; do
	bad=
	for h in -h --help; do
		(cd "$TMP" && exec "$FRONT" "$v" "$h") >"$TMP/out" 2>"$TMP/err" </dev/null
		rc=$?
		if [ "$rc" != 0 ] || [ -s "$TMP/err" ] || ! head -1 "$TMP/out" | grep -q "^usage: snaptrace[- ]$v" ||
			! grep -q "snaptrace[- ]$v" "$TMP/out"; then
			bad="'snaptrace $v $h' exited $rc: $(head -c 200 "$TMP/err")"
		fi
	done
	if [ -n "$bad" ]; then fail "help_$v" "$bad"; else ok "help_$v"; fi
done

# Help, version and man text into a pipe whose reader is gone (| head -1):
# every program and verb ends as a program whose SIGPIPE is at its default
# does, by SIGPIPE (141) without a word (issue 24 item 7: `snaptrace run
# --help | head -1` said "standard output: cannot write: Broken pipe", exit
# 1, in 3 of 6 runs: the recorder ignores SIGPIPE for perf; the others died
# silently); the reader is gone before the program starts (the race out):
#   help_closed_pipe  each of them, exit 141, stderr empty
bad=
for cmd in "$FRONT --help" "$FRONT --version" "$FRONT run --help" "$FRONT attach --help" \
	"$FRONT convert --help" "$FRONT stats --help" "$FRONT symbols --help" \
	"$FRONT run --help=man" "$RECORD --help" "$RECORD --version" "$RECORD --help=man" \
	"$CONVERT --help" "$CONVERT --help=man" "$STATS --help" "$STATS --version"; do
	read -r -a argv <<<"$cmd"
	{ sleep 0.2; (cd "$TMP" && exec "${argv[@]}") 2>"$TMP/err" </dev/null; echo $? >"$TMP/rc"; } | :
	rc=$(cat "$TMP/rc")
	[ "$rc" = 141 ] && [ ! -s "$TMP/err" ] ||
		bad+="['${cmd##*/}' exit $rc: $(head -c 200 "$TMP/err")]"
done
verdict help_closed_pipe "$bad"
