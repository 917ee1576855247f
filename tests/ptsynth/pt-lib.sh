# Sourced (after tests/lib.sh and ptsynth.sh) by the Intel PT suites pt and
# pt-variants: generate a perf.data with the truth, check perf script
# against the truth, convert (dlfilter, -j N, text path) and check the
# slices against ptsynth-expect's listing.
# The programs, each PROG:S:W: the window test takes a snapshot at global
# step S keeping the last W instructions of each thread, so that it starts
# and ends in the middle of the program's own calls (its exit path comes
# later).
PROGRAMS="calls-static:260:150 calls-pie:300:200 recurse:900:400 tailcall:22:14
	indirect:300:150 longjmp:250:150 except:30000:15000 vdso:300:150 threads:1500:700
	stop:80:50"
EVENTS_AWK="$SNAPTRACE_TOP/tests/ptsynth/perf-events.awk"
PERF_FIELDS=comm,pid,tid,time,flags,ip,addr,sym,symoff,dso,event,period
# Where the in-process decoder must leave a file to perf script (its note;
# FALLBACK of check_convert): libipt's return stack holds 64 calls,
# perf's more (recurse's depth); OVF packets; on the repeat
# mode's short TSC period libipt finds a compressed return it calls bad
# where perf decodes on (not explained yet: issue 21's report).
DEEP='compressed return without call'
OVF='Intel PT packets perf reads its own way'
BADRET='bad compressed return'
# FALLBACK[NAME]: the notes (an extended regular expression of the above)
# on which the in-process decoder may leave the conversion of NAME to perf
# script; none for a NAME not in it. Each suite fills it.
declare -A FALLBACK=()

# gen NAME PROG OPTS...: runs ptsynth into $TMP/NAME.data and $TMP/NAME.truth.
gen() {
	local name=$1 prog=$2
	shift 2
	echo "$*" >"$TMP/$name.opts"
	timeout 120 "$PTSYNTH" -q --cache "$PTSYNTH_RUNS" -o "$TMP/$name.data" \
		--truth "$TMP/$name.truth" "$@" \
		-- "$PROGS/$prog" >"$TMP/$name.stdout" 2>"$TMP/$name.gen"
}

# check_perf NAME ERRORS: perf script agrees with the truth, ERRORS decode
# errors (a number) are in its output. Thread by thread (perf interleaves
# the threads by time), in one awk: the truth's events (ptsynth-expect
# --events), then perf's (perf-events.awk on its text). Where the truth has
# a PLT entry NAME@plt, perf 6.1 may say _init (the symbol it stretched over
# the PLT; the converter renames it: docs/design.md "PLT entries").
check_perf() {
	local name=$1 want_errors=$2 why
	if ! "$PERF" script -i "$TMP/$name.data" --itrace=bep --ns -F "$PERF_FIELDS" \
		--show-switch-events >"$TMP/$name.txt" 2>"$TMP/$name.perr"; then
		fail "perf-$name" "perf script failed: $(head -3 "$TMP/$name.perr")"
		return
	fi
	"$EXPECT" --events "$TMP/$name.truth" >"$TMP/$name.truth-ev"
	if why=$(awk -f "$EVENTS_AWK" "$TMP/$name.txt" | awk -v want="$want_errors" '
		function agree(a, b,   x, y, k, nx) {
			if (a == b) return 1
			nx = split(a, x, " ")
			if (nx != split(b, y, " ")) return 0
			for (k = 1; k <= nx; k++)
				if (x[k] != y[k] && !(x[k] ~ /@plt$/ && y[k] == "_init")) return 0
			return 1
		}
		NR == FNR { if (!($1 in n)) { tids[++nt] = $1; n[$1] = 0 } t[$1, ++n[$1]] = $0; next }
		{ if (!($1 in m)) { m[$1] = 0; if (!($1 in n)) { tids[++nt] = $1; n[$1] = 0 } }
		  p[$1, ++m[$1]] = $0
		  if ($2 == "error" && ++errors <= 2) shown = shown " " $0 }
		END {
			if (errors + 0 != want) {
				print "expected " want " decode errors, found " errors + 0 ":" shown
				exit 1
			}
			for (k = 1; k <= nt; k++) {
				tid = tids[k]
				for (i = 1; i <= n[tid] || i <= m[tid]; i++) {
					if ((tid, i) in t && (tid, i) in p && agree(t[tid, i], p[tid, i])) continue
					print "perf script differs from the truth (< truth, > perf): thread " tid \
						" event " i ": < " ((tid, i) in t ? t[tid, i] : "(none)") \
						" > " ((tid, i) in p ? p[tid, i] : "(none)")
					exit 1
				}
			}
		}' "$TMP/$name.truth-ev" -); then
		ok "perf-$name"
	else
		fail "perf-$name" "$why"
	fi
}

# A perf that logs its command lines, to see the dlfilter used.
cat >"$TMP/perf" <<EOF
#!/bin/sh
echo "\$*" >>"$TMP/perf.log"
exec "$(command -v "$PERF")" "\$@"
EOF
chmod +x "$TMP/perf"

# convert NAME INPUT...: converts INPUTs into $TMP/NAME.fxt (perf script
# through the dlfilter: --decoder=perf) and dumps its slices into
# $TMP/NAME.slices; the reader must report no problem, and the text path
# (--no-dlfilter) must write the same bytes. First with -j 3: where that
# splits the decoding into time ranges (perf script --time; how many,
# summed over the inputs, is left in $TMP/NAME.ranges), an undivided
# decoding must write the same bytes: the in-process decoder's -j 1 below,
# and perf's -j 1 where that decoder fell back to perf; so must -j 2 on a
# variant ptsynth damaged (--damage: -j 2 and -j 3 once lost the lines from
# the damage to the next range; elsewhere -j 2's two ranges are a first
# and a last, as -j 3's with a middle one between); where it does not
# split (one PSB, or too few), -j 3 ran the one perf script -j 1 runs.
# The in-process decoder (the
# default), at -j 1, and at -j 2 (its chunks decoded on two threads) where
# there are two chunks or more (convert/ptdecode.c: a chunk is 16 KiB of a
# queue's AUX data or more, and each input and each thread of the per-thread
# mode has its queues; a single chunk is decoded at -j 2 as at -j 1): the
# same bytes again, with no perf run unless it fell back, its notes left in
# $TMP/NAME.fallback (empty when it decoded every input itself). The text
# path last, except on a variant ptsynth made with --noretcomp: return
# compression is read only by the decoders (perf's, checked by perf-NAME
# and the dlfilter's conversion, and the in-process one); the text path
# reads the branches perf script decoded, the same lines in both modes,
# and is checked on the program's plain variant.
#
# SRCLINE_FOR: the NAMEs whose conversions look up source lines (set and
# empty: none; unset: all); the others convert with --no-srcline. Source
# lines are looked up at each slice's begin whatever decoded the data
# (convert/funcs.c), and where libc's debug file is installed (libc6-dbg,
# scripts/install-deps.sh) reading it is ~125 ms of a small conversion's
# ~145 ms of CPU: a suite looks them up where it checks them.
convert() {
	local name=$1 j src=() opts
	shift
	[ -z "${SRCLINE_FOR+set}" ] || [[ " $SRCLINE_FOR " == *" $name "* ]] || src=(--no-srcline)
	read -r opts <"$TMP/$name.opts" 2>/dev/null || opts=
	: >"$TMP/perf.log"
	if ! SNAPTRACE_PERF="$TMP/perf" "$CONVERT" --decoder=perf --quiet -j 3 "${src[@]}" "$@" -o "$TMP/$name.fxt" \
		2>"$TMP/$name.cerr"; then
		echo "snaptrace-convert -j 3 failed: $(head -3 "$TMP/$name.cerr")"
		return 1
	fi
	perf_log
	if [ -n "$NO_DLFILTER" ] || [ "$SCRIPTS" -lt $# ]; then
		echo "perf script was not run with the dlfilter: $(first_lines "$TMP/perf.log")"
		return 1
	fi
	echo "$RANGES" >"$TMP/$name.ranges"
	if ! "$CONVERT" --dump=slices "$TMP/$name.fxt" >"$TMP/$name.slices" \
		2>"$TMP/$name.derr" || [ -s "$TMP/$name.derr" ]; then
		echo "the FXT has problems: $(head -3 "$TMP/$name.derr")"
		return 1
	fi
	: >"$TMP/$name.fallback"
	for j in 1 2; do
		# one regular file under 16 KiB, one thread: one chunk
		if [ $j = 2 ] && [ $# = 1 ] && [ -f "$1" ] && [ "$(stat -c %s "$1")" -lt $((16 << 10)) ] &&
			[ "$(awk '!($1 in t) { t[$1]; n++ } END { print n + 0 }' "$TMP/$name.slices")" -lt 2 ]; then
			break
		fi
		: >"$TMP/perf.log"
		if ! SNAPTRACE_PERF="$TMP/perf" "$CONVERT" -j $j "${src[@]}" "$@" -o "$TMP/$name.builtin.fxt" \
			2>"$TMP/$name.cerr"; then
			echo "snaptrace-convert (in-process decoder) -j $j failed: $(head -3 "$TMP/$name.cerr")"
			return 1
		fi
		fallback_notes <"$TMP/$name.cerr" >>"$TMP/$name.fallback"
		if [ ! -s "$TMP/$name.fallback" ] && [ -s "$TMP/perf.log" ]; then
			echo "the in-process decoder ran perf without a note: $(first_lines "$TMP/perf.log")"
			return 1
		fi
		if ! cmp -s "$TMP/$name.fxt" "$TMP/$name.builtin.fxt"; then
			"$CONVERT" --dump=tree "$TMP/$name.fxt" >"$TMP/$name.perf.tree" 2>&1
			"$CONVERT" --dump=tree "$TMP/$name.builtin.fxt" >"$TMP/$name.builtin.tree" 2>&1
			echo "the in-process decoder's trace (-j $j) differs from perf script's (< perf, \
> in process): $(diff "$TMP/$name.perf.tree" "$TMP/$name.builtin.tree" | head -6 | tr '\n' ' ')"
			return 1
		fi
	done
	for j in 1 2; do
		[ "$RANGES" -ge 2 ] || break
		# -j 1 through perf only where the in-process decoder fell back to
		# it: elsewhere that decoder, at -j 1, has written -j 3's bytes
		[ $j = 1 ] && [ ! -s "$TMP/$name.fallback" ] && continue
		# -j 2's ranges (a first and a last) are of the kinds -j 3's are;
		# at other PSBs, which matter where the data is damaged
		[ $j = 2 ] && [[ $opts != *--damage* ]] && break
		: >"$TMP/perf.log"
		if ! SNAPTRACE_PERF="$TMP/perf" "$CONVERT" --decoder=perf --quiet -j $j "${src[@]}" "$@" \
			-o "$TMP/$name.j$j.fxt" 2>"$TMP/$name.cerr"; then
			echo "snaptrace-convert -j $j failed: $(head -3 "$TMP/$name.cerr")"
			return 1
		fi
		if ! cmp -s "$TMP/$name.fxt" "$TMP/$name.j$j.fxt"; then
			"$CONVERT" --dump=tree "$TMP/$name.fxt" >"$TMP/$name.j3.tree" 2>&1
			"$CONVERT" --dump=tree "$TMP/$name.j$j.fxt" >"$TMP/$name.jn.tree" 2>&1
			echo "-j $j's trace differs from -j 3's (< -j 3, > -j $j; perf ran: \
$(grep -o -e '--time [^ ]*' "$TMP/perf.log" | tr '\n' ' ')): \
$(diff "$TMP/$name.j3.tree" "$TMP/$name.jn.tree" | head -6 | tr '\n' ' ')"
			return 1
		fi
	done
	[[ $opts == *--noretcomp* ]] && return 0
	if ! "$CONVERT" --quiet --no-dlfilter "${src[@]}" "$@" -o "$TMP/$name.text.fxt" \
		2>"$TMP/$name.cerr"; then
		echo "snaptrace-convert --no-dlfilter failed: $(head -3 "$TMP/$name.cerr")"
		return 1
	fi
	if ! cmp -s "$TMP/$name.fxt" "$TMP/$name.text.fxt"; then
		"$CONVERT" --dump=tree "$TMP/$name.fxt" >"$TMP/$name.fast.tree" 2>&1
		"$CONVERT" --dump=tree "$TMP/$name.text.fxt" >"$TMP/$name.text.tree" 2>&1
		echo "the dlfilter's trace differs from the text path's (< dlfilter, > text): \
$(diff "$TMP/$name.fast.tree" "$TMP/$name.text.tree" | head -6 | tr '\n' ' ')"
		return 1
	fi
}

# perf_log: the perf script runs $TMP/perf.log holds (the logging perf's
# command lines), read without starting a process (a suite does this for
# every conversion): SCRIPTS how many, NO_DLFILTER the first not given
# snaptrace's dlfilter (empty: none), RANGES how many decoded a time range
# (--time).
perf_log() {
	local line script='^(--buildid-dir [^ ]* )?script ' dlfilter='--dlfilter .*/snaptrace-dlfilter\.so' range=' --time '
	SCRIPTS=0 NO_DLFILTER= RANGES=0
	while IFS= read -r line; do
		[[ $line =~ $script ]] || continue
		SCRIPTS=$((SCRIPTS + 1))
		[[ $line =~ $dlfilter ]] || NO_DLFILTER=${NO_DLFILTER:-$line}
		[[ ! $line =~ $range ]] || RANGES=$((RANGES + 1))
	done <"$TMP/perf.log"
}

# fallback_notes: the lines of stdin (a conversion's stderr) that say the
# in-process decoder left a file to perf script; read without a process.
fallback_notes() {
	local line
	while IFS= read -r line; do
		[[ $line != *'decoding through perf script'* ]] || printf '%s\n' "$line"
	done
}

# overloads: ptsynth-expect's lines (TID DEPTH NAME) on stdin with the
# names of the overloaded C++ functions the programs call as the converter
# writes them, with their parameter lists (perf's names, the truth's, have
# none: docs/design.md "Overloads"); written out here, from the programs'
# sources: except.cc constructs std::runtime_error from a string literal
# (libstdc++ has five constructors of it), whose copy-on-write string
# libstdc++ allocates with operator new(unsigned long) and frees with
# operator delete(void*) (the C++ library has several of each).
# C static functions of one name in two source files of a binary (the
# dynamic loader's check_match, of dl-lookup.c and dl-lookup-direct.c, when
# its debug file is installed) are named with their file
# ("check_match [dl-lookup.c]"): such a name is expected as "NAME*"
# (slices_match: NAME and what follows), its files read from the symbol
# tables here (static_names).
overloads() {
	awk -v statics="$STATIC_NAMES" 'BEGIN {
			sig["std::runtime_error::runtime_error"] = "(char const*)"
			sig["operator new"] = "(unsigned long)"
			sig["operator delete"] = "(void*)"
			split(statics, s, " ")
			for (i in s)
				static[s[i]] = 1
		}
		{ n = $0; sub(/^[0-9]+ [0-9]+ /, "", n) }
		n in sig { $0 = $1 " " $2 " " n sig[n] }
		n in static { $0 = $1 " " $2 " " n "*" }
		{ print }'
}

# static_names BINARY...: the names of local functions (STT_FUNC,
# STB_LOCAL) that two source files (STT_FILE) of one BINARY, or of its
# debug file (by build id), define; one line.
static_names() {
	local f b id
	for f; do
		id=$(readelf -n "$f" 2>/dev/null | awk '/Build ID/ { print $3 }')
		for b in "$f" ${id:+/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug}; do
			[ -f "$b" ] && readelf -sW "$b" 2>/dev/null |
				awk '$4 == "FILE" { file = $8 } $4 == "FUNC" && $5 == "LOCAL" && !seen[$8 "/" file]++ &&
					++files[$8] == 2 { print $8 }'
		done
	done | sort -u | tr '\n' ' '
}
# the programs' binaries and the libraries the dynamic ones load
STATIC_NAMES=$(static_names "$PROGS"/* $(ldd "$PROGS"/* 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u))

# check_convert NAME ERRORS: the converter's slices equal the expected ones;
# ERRORS decode-error instants. A perf.data with a PSB+ every few bytes
# (ptsynth --psb-every) must have been split into time ranges by -j 3.
check_convert() {
	local name=$1 want_errors=$2 why errors
	if ! why=$(convert "$name" "$TMP/$name.data"); then
		fail "convert-$name" "$why"
		return
	fi
	# the in-process decoder falls back only where the suite says it must
	local allowed=${FALLBACK[$name]:-^$} note ranges opts said=
	if [ -s "$TMP/$name.fallback" ]; then
		while IFS= read -r note; do
			[[ ! $note =~ $allowed ]] || said=1
		done <"$TMP/$name.fallback"
		if [ -z "$said" ]; then
			fail "convert-$name" "the in-process decoder fell back: $(first_lines "$TMP/$name.fallback")"
			return
		fi
	fi
	read -r opts <"$TMP/$name.opts" 2>/dev/null || opts=
	read -r ranges <"$TMP/$name.ranges"
	if [[ $opts == *--psb-every* ]] && [ "$ranges" -lt 2 ]; then
		fail "convert-$name" "-j 3 did not split the decoding into time ranges \
($ranges perf script runs with --time)"
		return
	fi
	"$EXPECT" "$TMP/$name.truth" | overloads >"$TMP/$name.expected"
	errors=$(grep -c ' \[decode error: ' "$TMP/$name.slices")
	if [ "$errors" -ne "$want_errors" ]; then
		fail "convert-$name" "expected $want_errors decode-error instants, found $errors"
		return
	fi
	if ! why=$(slices_match "$TMP/$name.slices" "$TMP/$name.expected"); then
		fail "convert-$name" "slices differ from the truth's: $why"
		return
	fi
	ok "convert-$name"
}

# variants PROG NAME:ERRORS:OPTS...: generates each variant NAME of PROG
# (gen, OPTS split into words: the run is ptsynth's cached one), then checks
# perf and the converter on it, ERRORS decode errors expected; the files of
# NAME are removed unless PT_KEEP names it.
variants() {
	local prog=$1 v name errors opts
	shift
	for v; do
		IFS=: read -r name errors opts <<<"$v"
		# shellcheck disable=SC2086
		if ! gen "$name" "$prog" $opts; then
			fail "perf-$name" "ptsynth failed: $(head -3 "$TMP/$name.gen")"
			fail "convert-$name" "ptsynth failed"
			continue
		fi
		check_perf "$name" "$errors"
		check_convert "$name" "$errors"
		[[ " ${PT_KEEP:-} " == *" $name "* ]] || rm -f "$TMP/$name".*
	done
}
