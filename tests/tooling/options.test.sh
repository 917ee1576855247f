#!/usr/bin/env bash
# tier: check
# The command lines of the three programs and the front end, as their option
# tables (common/opttab.h) give them to the user:
#   options_agree_PROG  --help, the README's option table, the man page and
#                       the bash completion list the same options (-X and
#                       --NAME), for snaptrace-record, snaptrace run/attach,
#                       snaptrace-convert and snaptrace-stats: a row added to
#                       a table shows in all four or this fails
#   help_width          every line of every --help fits 79 columns (the
#                       engine wraps the rows' text; only convert's perf
#                       command lines, to be copied whole, are longer)
#   man_renders         each generated man page renders with `man -l`
#                       without a warning, with its NAME and every section
#   completion_works    the completion offers the front end's verbs (those
#                       scripts/snaptrace takes), a choice option's words,
#                       files for a path and nothing for a pid, and each
#                       verb's own options
#   install_destdir     make install DESTDIR=D PREFIX=P puts the front end,
#                       the programs (runnable from P/bin), the dlfilter
#                       beside snaptrace-convert, the man pages (`man`
#                       finds and renders snaptrace-record) and the
#                       completion under D/P, and nothing elsewhere
#   repeated_refused    one rule in every program (opttab.h): an option with
#                       a value given twice is refused, exit 2, one line
#                       naming it (it was silently the last one), a
#                       repeatable one adds, a flag twice is the flag; the
#                       rule and getopt_long's prefixes are in each --help
. "$(dirname "$0")/../lib.sh"

STATS="$SNAPTRACE_BIN/snaptrace-stats"
MAN="$SNAPTRACE_O/man"
COMPLETION="$SNAPTRACE_O/completion/snaptrace"
need_built options "$RECORD" "$CONVERT" "$STATS"
for f in snaptrace snaptrace-record snaptrace-convert snaptrace-stats; do
	[ -f "$MAN/$f.1" ] || { fail options "$MAN/$f.1 is not built (make all)"; exit 1; }
done
[ -f "$COMPLETION" ] || { fail options "$COMPLETION is not built (make all)"; exit 1; }

# The views of a program's options, each a sorted list of -X and --NAME.

# help_opts CMD...: the label column of CMD's --help (an option's line
# starts "  -X, --NAME" or "      --NAME"; its first 27 characters).
help_opts() {
	"$@" --help | grep -E '^      --|^  -[a-zA-Z], --' | cut -c 1-27 |
		grep -oE '(^|[ ,])--?[a-zA-Z][a-z-]*' | tr -d ' ,' | sort -u
}

# man_opts PAGE: the tags of PAGE's options (the line after each .TP, in
# roff: \fB\-X\fR, \fB\-\-NAME\fR).
man_opts() {
	awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' "$1" | sed 's/\\-/-/g; s/\\f[BIR]/ /g' |
		grep -oE '(^| )--?[a-zA-Z][a-z-]*' | tr -d ' ' | sort -u
}

# completion_opts FUNC: the words FUNC of the completion offers for "-".
completion_opts() {
	sed -n "/^$1()\$/,/^}/p" "$COMPLETION" | sed -n "s/^[[:space:]]*local opts='\(.*\)'\$/\1/p" |
		tr ' ' '\n' | sort -u
}

# readme_opts HEADING: every -X and --NAME in the first column of the table
# under the README's "### HEADING".
readme_opts() {
	sed -n "/^### $1\$/,/^#/p" "$SNAPTRACE_TOP/README.md" |
		grep '^| `' | cut -d '|' -f 2 |
		grep -oE '(^|[ `/,])--?[a-zA-Z][a-z-]*' | tr -d ' `/,' | sort -u
}

# differ NAME A B: "" when the lists A and B are the same, else what differs.
differ() {
	[ "$2" = "$3" ] && return
	echo "$1: only in the first: $(comm -23 <(echo "$2") <(echo "$3") | tr '\n' ' ')," \
		"only in $1: $(comm -13 <(echo "$2") <(echo "$3") | tr '\n' ' ');"
}

# agree NAME HELP README MAN COMPLETION: the four lists are the same.
agree() {
	local bad
	bad="$(differ README "$2" "$3")$(differ "the man page" "$2" "$4")$(differ completion "$2" "$5")"
	if [ "$(echo "$2" | wc -l)" -lt 8 ]; then
		fail "options_agree_$1" "--help lists only: $(echo "$2" | tr '\n' ' ')"
	elif [ -n "$bad" ]; then
		fail "options_agree_$1" "against --help: $bad"
	else
		ok "options_agree_$1"
	fi
}

t_options_agree() {
	local rec fe
	rec=$(help_opts "$RECORD")
	fe=$(help_opts "$RECORD" --front-end run)
	# one README table for both: snaptrace run/attach take the recorder's options
	agree record "$(sort -u <<<"$rec"$'\n'"$fe")" "$(readme_opts 'Recording options')" \
		"$(sort -u <(man_opts "$MAN/snaptrace-record.1") <(man_opts "$MAN/snaptrace.1"))" \
		"$(sort -u <(completion_opts _snaptrace_record) <(completion_opts _snaptrace))"
	# and each page and completion is its own program's
	agree record_alone "$rec" "$rec" "$(man_opts "$MAN/snaptrace-record.1")" \
		"$(completion_opts _snaptrace_record)"
	agree frontend "$fe" "$fe" "$(man_opts "$MAN/snaptrace.1")" "$(completion_opts _snaptrace)"
	agree convert "$(help_opts "$CONVERT")" "$(readme_opts 'Converting options')" \
		"$(man_opts "$MAN/snaptrace-convert.1")" "$(completion_opts _snaptrace_convert)"
	agree stats "$(help_opts "$STATS")" "$(readme_opts 'Statistics options')" \
		"$(man_opts "$MAN/snaptrace-stats.1")" "$(completion_opts _snaptrace_stats)"
}

t_help_width() {
	local long
	long=$({
		"$RECORD" --help
		"$RECORD" --front-end run --help
		"$RECORD" --front-end attach --help
		"$CONVERT" --help
		"$STATS" --help
	} | grep -v '^ *perf script ' | awk 'length > 79')
	if [ -n "$long" ]; then
		fail help_width "lines over 79 columns: $(head -n 3 <<<"$long" | tr '\n' '|')"
	else
		ok help_width
	fi
}

t_man_renders() {
	local page name bad="" sec
	for page in "$MAN"/*.1; do
		name=$(basename "$page" .1)
		if ! MANWIDTH=80 man --warnings -l "$page" >"$TMP/man.out" 2>"$TMP/man.err"; then
			bad="$bad $name: man failed: $(first_lines "$TMP/man.err");"
		elif [ -s "$TMP/man.err" ]; then
			bad="$bad $name: $(first_lines "$TMP/man.err");"
		elif ! grep -q "^ *$name  *- " "$TMP/man.out"; then
			bad="$bad $name: no NAME line;"
		fi
		for sec in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' 'SEE ALSO'; do
			grep -q "^$sec\$" "$TMP/man.out" || bad="$bad $name: no $sec;"
		done
	done
	if [ -n "$bad" ]; then
		fail man_renders "$bad"
	else
		ok man_renders
	fi
}

# complete_words WORD...: what the completion offers for the last WORD of
# the command line WORD... (the function of the first word's name).
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		f=_${1//-/_}; "$f"; [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"' _ "$COMPLETION" "$@" | sort |
		tr '\n' ' '
}

t_completion_works() {
	local bad="" verbs got
	# the verbs scripts/snaptrace takes, from its own usage error
	verbs=$("$SNAPTRACE_BIN/snaptrace" bogus 2>&1 | sed -n 's/.*expected \(.*\), found.*/\1/p' |
		sed 's/ or /, /' | tr -d ',' | tr ' ' '\n' | sort | tr '\n' ' ')
	got=$(complete_words snaptrace '')
	[ -n "$verbs" ] && [ "$got" = "$verbs" ] || bad="$bad verbs: '$got', the script takes '$verbs';"
	got=$(complete_words snaptrace run --mode '')
	[ "$got" = "auto pt sampling " ] || bad="$bad run --mode: '$got';"
	got=$(complete_words snaptrace convert --dec)
	[ "$got" = "--decoder " ] || bad="$bad convert --dec: '$got';"
	got=$(complete_words snaptrace stats --sort '')
	[ "$got" = "calls max p99 self total " ] || bad="$bad stats --sort: '$got';"
	# files for a path, nothing for a pid: (run from the top of the tree)
	got=$(cd "$SNAPTRACE_TOP" && complete_words snaptrace convert -o READ)
	[ "$got" = "README.md " ] || bad="$bad convert -o READ: '$got';"
	got=$(cd "$SNAPTRACE_TOP" && complete_words snaptrace run --pid READ)
	[ -z "$got" ] || bad="$bad run --pid READ: '$got';"
	got=$(complete_words snaptrace-record --trigger-s)
	[ "$got" = "--trigger-slower-than " ] || bad="$bad snaptrace-record --trigger-s: '$got';"
	got=$(complete_words snaptrace-stats --baseline-p)
	[ "$got" = "--baseline-paths " ] || bad="$bad snaptrace-stats --baseline-p: '$got';"
	if [ -n "$bad" ]; then
		fail completion_works "$bad"
	else
		ok completion_works
	fi
}

t_install_destdir() {
	local d="$TMP/dest" p=/opt/st bad="" f out
	if ! make -s -C "$SNAPTRACE_TOP" O="$SNAPTRACE_O" DESTDIR="$d" PREFIX=$p install \
		>"$TMP/install.log" 2>&1; then
		fail install_destdir "make install failed: $(first_lines "$TMP/install.log")"
		return
	fi
	[ ! -e "$p" ] || bad="$bad $p exists outside DESTDIR;"
	for f in bin/snaptrace bin/snaptrace-record bin/snaptrace-convert bin/snaptrace-stats \
		libexec/snaptrace/snaptrace-record libexec/snaptrace/snaptrace-convert \
		libexec/snaptrace/snaptrace-stats libexec/snaptrace/snaptrace-dlfilter.so \
		share/man/man1/snaptrace.1 share/man/man1/snaptrace-record.1 \
		share/man/man1/snaptrace-convert.1 share/man/man1/snaptrace-stats.1 \
		share/bash-completion/completions/snaptrace \
		share/bash-completion/completions/snaptrace-record \
		share/bash-completion/completions/snaptrace-convert \
		share/bash-completion/completions/snaptrace-stats; do
		[ -e "$d$p/$f" ] || bad="$bad no $p/$f;"
	done
	for f in record convert stats; do
		out=$("$d$p/bin/snaptrace-$f" --version 2>&1)
		[ "$out" = "snaptrace-$f $(cat "$SNAPTRACE_TOP/VERSION")" ] ||
			bad="$bad bin/snaptrace-$f --version: '$out';"
	done
	out=$(SNAPTRACE_BIN='' "$d$p/bin/snaptrace" stats --version 2>&1)
	[ "$out" = "snaptrace-stats $(cat "$SNAPTRACE_TOP/VERSION")" ] ||
		bad="$bad bin/snaptrace stats --version: '$out';"
	out=$(MANPATH="$d$p/share/man" man -w snaptrace-record 2>&1)
	[ "$out" = "$d$p/share/man/man1/snaptrace-record.1" ] || bad="$bad man -w: '$out';"
	MANPATH="$d$p/share/man" MANWIDTH=80 man snaptrace-record >"$TMP/man.out" 2>&1
	grep -q -- '--trigger-slower-than' "$TMP/man.out" ||
		bad="$bad man snaptrace-record: $(first_lines "$TMP/man.out");"
	if [ -n "$bad" ]; then
		fail install_destdir "$bad"
	else
		ok install_destdir
	fi
}

t_repeated_refused() {
	local bad="" c rc want FRONT="$SNAPTRACE_BIN/snaptrace"
	printf 'x\n' >"$TMP/rep.txt"
	while IFS='|' read -r want c; do
		eval "$c" </dev/null >/dev/null 2>"$TMP/rep.err"
		rc=$?
		if [ "$want" = refused ]; then
			[ $rc = 2 ] && [ "$(wc -l <"$TMP/rep.err")" = 1 ] &&
				grep -q -- "--[a-z-]* given twice: give it once" "$TMP/rep.err" ||
				bad+="[$c: exit $rc: $(first_lines "$TMP/rep.err")]"
		elif grep -q "given twice" "$TMP/rep.err"; then
			bad+="[$c: refused: $(first_lines "$TMP/rep.err")]"
		fi
	done <<EOF
refused|"\$RECORD" --dry-run --duration 1 --duration 2 -- /bin/true
refused|"\$RECORD" --dry-run -o "\$TMP/a" --output "\$TMP/b" -- /bin/true
refused|"\$CONVERT" "\$TMP/rep.txt" -o "\$TMP/a.fxt" -o "\$TMP/b.fxt"
refused|"\$STATS" --limit 3 --limit 4 "\$TMP/rep.txt"
refused|"\$FRONT" run --sampling-freq 100 --sampling-freq 200 -- /bin/true
accepted|"\$RECORD" --dry-run --event page-faults --event context-switches -q -q -- /bin/true
accepted|"\$CONVERT" --check-options --perf-arg=-v --perf-arg=-v "\$TMP/rep.txt" -o "\$TMP/c.fxt"
EOF
	for c in "$RECORD" "$CONVERT" "$STATS"; do
		"$c" --help | tr '\n' ' ' | grep -q "shortened to any prefix that no other of its options starts with (one that several start with is refused, naming them). A value given as a word of its own is neither -- nor one of the options.* An option with a value is given once" ||
			bad+="[$c --help does not say the rule]"
	done
	if [ -n "$bad" ]; then fail repeated_refused "$bad"; else ok repeated_refused; fi
}

t_repeated_refused
t_options_agree
t_help_width
t_man_renders
t_completion_works
t_install_destdir
