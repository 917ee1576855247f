#!/usr/bin/env bash
# tier: check
# Intel PT end to end without PT hardware: ptsynth runs each program of
# tests/ptsynth/progs under single-step and writes a perf.data whose Intel PT
# data encodes the executed control flow, plus the ground truth. Checked,
# for every program (pt-lib.sh):
#   perf-*     the stock decoder (perf script) sees exactly the truth's
#              calls, returns, cross-function jumps and syscalls, with no
#              decode error unless one was injected;
#   convert-*  snaptrace-convert --decoder=perf (which runs perf script)
#              writes an FXT whose
#              slices per thread, read back with --dump=slices (no problems),
#              equal ptsynth-expect's listing of the truth (names, nesting,
#              order; inferred callers where a window starts mid-stack);
#              it decodes through snaptrace's dlfilter (perf is seen given
#              --dlfilter), and the FXT is byte for byte the one the text
#              path (--no-dlfilter) writes (but on --noretcomp variants:
#              pt-lib.sh convert), and, where -j 3 splits the
#              decoding into time ranges, the one -j 1 and -j 2 write: same
#              slices, times, order; and so does the in-process decoder
#              (the default) at -j 1 (and -j 2 where it has two chunks),
#              without falling back to perf
#              script where the suite does not allow it (FALLBACK);
# in both return-compression modes and with a snapshot window (with a PSB+
# every 128 bytes: pt-variants.test.sh); and source lines (srcline-*) on the programs' own
# functions: every decoder and the text path write the same lines in
# calls-pie's plain conversion (pt-lib.sh SRCLINE_FOR), the other programs'
# are read from one conversion each (the in-process decoder's: lines are
# looked up by function whatever decoded it, convert/funcs.c, and the
# decoders' slices and functions are held equal above without them; the
# lookups in libc's debug file are ~0.1 s of CPU a conversion). The other layouts, damage, context switches, snapshots and
# fallbacks: pt-variants.test.sh. perf.data files are made here, never kept.
. "$(dirname "$0")/../lib.sh"

. "$SNAPTRACE_TOP/tests/ptsynth/ptsynth.sh"
. "$SNAPTRACE_TOP/tests/ptsynth/pt-lib.sh"

# the programs srcline_check looks at; calls-pie's plain conversion is
# kept for it
SRCLINE_PROGRAMS="calls-pie calls-static recurse except calls-nodebug"
PT_KEEP=calls-pie
# source lines in calls-pie's plain conversion, through every decoder and
# the text path (pt-lib.sh convert: the same bytes); not in the others,
# whose subject is the decoding
SRCLINE_FOR=calls-pie

ptsynth_ready ptsynth

# each program in both return-compression modes and with a snapshot window
FALLBACK=([recurse]=$DEEP [recurse-noretcomp]=$DEEP [recurse-window]=$DEEP)
for entry in $PROGRAMS; do
	IFS=: read -r prog at window <<<"$entry"
	variants "$prog" "$prog:0:" "$prog-noretcomp:0:--noretcomp" \
		"$prog-window:0:--snapshot-at $at --snapshot-window $window"
done

# Source lines: every slice of a program's own functions carries the
# file:line addr2line gives for the function's symbol (the call's target is
# its start; a caller found at its return is drawn from its start too), or
# none where addr2line has none (the static libc's code; a program built
# without -g).
# srcline_check PROG: prints what is wrong, if anything, else how many
# functions have lines. C++ names are as perf prints them (c++filt -p).
srcline_check() {
	local prog=$1 name="srcline-$1" bin="$PROGS/$1" f have want addr n=0
	if [ -s "$TMP/$prog.fxt" ]; then
		name=$prog	# the program's run above
	else
		gen "$name" "$prog" || { echo "ptsynth failed: $(head -3 "$TMP/$name.gen")"; return; }
		if ! "$CONVERT" --quiet "$TMP/$name.data" -o "$TMP/$name.fxt" 2>"$TMP/$name.cerr"; then
			echo "snaptrace-convert failed: $(head -3 "$TMP/$name.cerr")"
			return
		fi
	fi
	"$CONVERT" --dump=tree "$TMP/$name.fxt" |
		awk -v b="$bin" 'index($0, "cat=\"" b "\"") {
			line = "-"
			if (match($0, /file:string="[^"]*" line:uint64=[0-9]+/)) {
				s = substr($0, RSTART, RLENGTH); gsub(/file:string="|" line:uint64=/, " ", s)
				split(s, p, " "); line = p[1] ":" p[2]
			}
			sub(/^[0-9]+ [0-9]+ +/, "")
			if (match($0, / \[[0-9]+, [0-9]+\]/)) print substr($0, 1, RSTART - 1) "\t" line
		}' | sort -u >"$TMP/$name.lines"
	nm "$bin" | awk '$2 ~ /^[TtW]$/ { print $3 "\t" $1 }' | c++filt -p >"$TMP/$name.nm"
	# each function of one symbol (others are not checked), then its
	# address's line: one addr2line run for them all, a line per address
	awk -F'\t' 'NR == FNR { n[$1]++; a[$1] = $2; next } n[$1] == 1 { print $0 "\t" a[$1] }' \
		"$TMP/$name.nm" "$TMP/$name.lines" >"$TMP/$name.addrs"
	cut -f3 "$TMP/$name.addrs" | sed 's/^/0x/' | addr2line -e "$bin" >"$TMP/$name.want"
	while IFS=$'\t' read -r f have addr && read -r want <&3; do
		case $want in '??:'* | *':?') want=- ;; esac
		if [ "$have" != "$want" ]; then
			echo "$f: $have, addr2line says $want"
			return
		fi
		[ "$want" = - ] || n=$((n + 1))
	done <"$TMP/$name.addrs" 3<"$TMP/$name.want"
	echo "$n with lines"
}
for prog in $SRCLINE_PROGRAMS; do
	why=$(srcline_check "$prog")
	case $prog:$why in
	calls-nodebug:"0 with lines" | calls-*:[4-9]" with lines" | recurse:[1-9]*" with lines" | except:[2-9]" with lines")
		ok "srcline-$prog" ;;
	*) fail "srcline-$prog" "$why" ;;
	esac
	rm -f "$TMP/srcline-$prog".* "$TMP/$prog".*
done
