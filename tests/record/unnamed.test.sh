#!/usr/bin/env bash
# tier: record
# A stripped program's frames named by their function (issue 24, README
# "Stripped binaries"): perf names no frame of a binary without a symbol
# table ([unknown]), and every sample became a slice of its own address,
# "[unknown @ 0xIP (FILE)]", one function many rows. Recorded for real: a
# stripped copy of unnamed_target.c, whose serve() (measured by its address,
# --measure addr:START) spins and calls spin(), which spins. The reference
# is the unstripped build's `nm`, never the converter's table reader:
# - unnamed_frames: no frame of the stripped file stays [unknown @ ...]; each
#   is "[unnamed @ 0xSTART]" with START a function nm lists (or NAME@plt, a
#   sample in the PLT stub of a function it imports), spin()'s among
#   them, a slice per call of it (a preemption splits one) rather than one
#   per sample;
# - unnamed_measured: the measured calls are serve()'s "[unnamed @ 0xSTART]",
#   the samples inside serve() are that call itself (no child of its own
#   name, no [unknown] child), spin()'s samples its child;
# - unnamed_symbols_kept: the unstripped build (a .symtab: perf names its
#   frames) has no [unnamed @ ...] slice, serve and spin by their names;
# - unnamed_addr_linked: a stripped -no-pie build (loaded at its link-time
#   addresses, where perf prints a frame's offset in the file: 0x1338 for
#   0x401338): each "[unnamed @ 0xSTART]" slice's addr argument is an
#   address in the function nm lists at START, as its name is (the
#   converter gave perf's offset).
# - named_addr_linked: the unstripped builds, PIE and -no-pie: each named
#   slice of the program's own functions has its addr argument inside the
#   function nm lists under its name (a -no-pie build's said perf's offset
#   in the file, 0x1338 for main+0x38 at 0x401338, a PIE's its address).
# - lib_addr_listed: a stripped library's serve() (unnamed_target.c built as
#   libunnamed.so, only its main exported) is listed by `snaptrace symbols
#   LIB` with the spelling --measure takes, LIB:addr:0xSTART (nm's start of
#   the unstripped build), where no symbol is;
# - lib_addr_measured: --measure takes a library's unnamed function as
#   that listed spelling, LIB:addr:0xSTART and LIB:[unnamed @ 0xSTART] (the
#   name symbols gives it): each counts the program's 3 calls (issue 24: all
#   were read as a function's name, and addr: as the program's address);
# - lib_not_loaded: measuring that library's function in a program that
#   never loads it ends saying so, not only "no call".
# - cold_not_listed: a stripped build of cold_target.c: cold_split.cold (nm's
#   start, an FDE whose CFA at its start is not rsp+8: a jump enters it) is
#   not listed by `snaptrace symbols`, cold_split() is;
# - cold_addr_refused: --measure and --trigger addr: of cold_split.cold, or
#   inside it, are refused (exit 2) in one line saying a jump enters it.
# - unnamed_kept_copy: recorded with --keep-binaries, then the stripped file
#   rebuilt (another build id): converting again gives the very slices it
#   gave before the rebuild, its frames named from the copy kept (issue 24:
#   they became [unknown @ ...] and the measured call's samples split off).
#   No warning blames its frames on missing symbols ("stripped binaries").
# - changed_not_stripped: the recording without a copy, converted after the
#   rebuild: no warning blames its [unknown] frames on missing symbols
#   ("stripped binaries"); one says the binary changed.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

NAMES="unnamed_frames unnamed_measured unnamed_symbols_kept unnamed_addr_linked named_addr_linked
	lib_addr_listed lib_addr_measured lib_not_loaded cold_not_listed cold_addr_refused
	unnamed_kept_copy changed_not_stripped no_leftovers"
need_recording unnamed
need_built unnamed "$CONVERT"
requires_all gcc

PROG="$TMP/unnamed_target"
STRIPPED="$TMP/stripped"
gcc -std=c11 -Wall -Wextra -Werror -O1 -fno-omit-frame-pointer -o "$PROG" \
	"$SNAPTRACE_TOP/tests/record/unnamed_target.c" 2>"$TMP/cc.err" ||
	fail_all "cannot build unnamed_target.c: $(tl 3 "$TMP/cc.err")"
strip -o "$STRIPPED" "$PROG" || fail_all "strip failed"
TARGETS=("$STRIPPED" "$PROG")

# the functions' starts as nm prints them (0x, no leading zeros)
nm "$PROG" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' | while read -r a n; do
	printf '0x%x %s\n' "$((16#$a))" "$n"
done >"$TMP/nm"
SERVE=$(awk '$2 == "serve" { print $1 }' "$TMP/nm")
SPIN=$(awk '$2 == "spin" { print $1 }' "$TMP/nm")
[ -n "$SERVE" ] && [ -n "$SPIN" ] || fail_all "nm lists no serve or spin: $(tr '\n' ' ' <"$TMP/nm")"

D="$TMP/rec"
if ! "$RECORD" -q -o "$D" --trigger none --measure "addr:$SERVE" -- "$STRIPPED" 20 \
	>/dev/null 2>"$D.err"; then
	fail_all "recording failed: $(tl 3 "$D.err")"
fi
"$CONVERT" --quiet "$D" -o "$D.fxt" 2>"$D.conv" && "$CONVERT" --dump=tree "$D.fxt" >"$D.tree" ||
	fail_all "conversion failed: $(tl 3 "$D.conv")"

# "DEPTH NAME PARENT MEASURED" of each slice of the stripped file's
# category (PARENT: the name one level up in its thread, "-" at the root)
awk -v f="cat=\"$STRIPPED\"" '
	/^# thread/ { delete at; next }
	match($0, / \[[0-9]+, [0-9]+\]/) {
		d = $2; nm = substr($0, 1, RSTART - 1); sub(/^[0-9]+ [0-9]+ +/, "", nm)
		at[d] = nm
		if (index($0, f))
			print d "\t" nm "\t" (d ? at[d - 1] : "-") "\t" (index($0, "measured:bool=true") ? 1 : 0)
	}' "$D.tree" >"$TMP/slices"

unknown=$(awk -F '\t' '$2 ~ /^\[unknown @ /' "$TMP/slices" | wc -l)
# a sample in a PLT stub is NAME@plt, NAME one the program imports (nm -D
# of the unstripped build: a reference apart from the converter's reading of
# .rela.plt); make test-stress once caught usleep@plt
nm -D --undefined-only "$PROG" | awk '{ sub(/@.*/, "", $2); print "- " $2 "@plt" }' >"$TMP/plt"
notnm=$(awk -F '\t' 'NR == FNR { split($0, w, " "); ok[w[1] == "-" ? w[2] : "[unnamed @ " w[1] "]"] = 1; next } !($2 in ok) { print $2 }' \
	<(cat "$TMP/nm" "$TMP/plt") "$TMP/slices" | sort -u | tr '\n' '|')
spins=$(awk -F '\t' -v n="[unnamed @ $SPIN]" '$2 == n' "$TMP/slices" | wc -l)
if [ "$unknown" -ne 0 ]; then
	fail unnamed_frames "$unknown slices of the stripped file are [unknown @ ...]: $(awk -F '\t' '$2 ~ /^\[unknown/ { print $2 }' "$TMP/slices" | sort | uniq -c | head -3 | tr '\n' ' ')"
elif [ -n "$notnm" ]; then
	fail unnamed_frames "names not at a function nm lists: $notnm"
elif [ "$spins" -lt 1 ] || [ "$spins" -gt 80 ]; then
	fail unnamed_frames "expected 1 to 80 slices [unnamed @ $SPIN] (spin()'s 20 calls of ~25 samples each: one slice a call, a preemption splits one), found $spins"
else
	ok unnamed_frames
fi

want="[unnamed @ $SERVE]"
measured=$(awk -F '\t' '$4 == 1 { print $2 }' "$TMP/slices" | sort -u | tr '\n' '|')
nested=$(awk -F '\t' -v n="$want" '$3 == n && ($2 == n || $2 ~ /^\[unknown/)' "$TMP/slices" | wc -l)
children=$(awk -F '\t' -v n="$want" -v s="[unnamed @ $SPIN]" '$3 == n && $2 == s' "$TMP/slices" | wc -l)
if [ "$measured" != "$want|" ]; then
	fail unnamed_measured "measured slices named '$measured', expected '$want|'"
elif [ "$nested" -ne 0 ]; then
	fail unnamed_measured "$nested slices of serve()'s own samples under its measured call: $(awk -F '\t' -v n="$want" '$3 == n { print $2 }' "$TMP/slices" | sort | uniq -c | tr '\n' ' ')"
elif [ "$children" -lt 1 ]; then
	fail unnamed_measured "no [unnamed @ $SPIN] (spin()) under a measured call: $(awk -F '\t' -v n="$want" '$3 == n { print $2 }' "$TMP/slices" | sort | uniq -c | tr '\n' ' ')"
else
	ok unnamed_measured
fi

S="$TMP/rec-symbols"
if ! "$RECORD" -q -o "$S" --trigger none -- "$PROG" 5 >/dev/null 2>"$S.err" ||
	! "$CONVERT" --quiet "$S" -o "$S.fxt" 2>"$S.conv" ||
	! "$CONVERT" --dump=slices "$S.fxt" >"$S.slices"; then
	fail unnamed_symbols_kept "recording or conversion failed: $(tl 2 "$S.err") $(tl 2 "$S.conv")"
elif grep -q '\[unnamed @ ' "$S.slices"; then
	fail unnamed_symbols_kept "slices [unnamed @ ...] of a binary with symbols: $(grep -m 3 '\[unnamed @ ' "$S.slices" | tr '\n' ' ')"
elif ! grep -q ' serve$' "$S.slices" || ! grep -q ' spin$' "$S.slices"; then
	fail unnamed_symbols_kept "serve or spin not named: $(cut -d' ' -f3- "$S.slices" | sort -u | head -8 | tr '\n' '|')"
else
	ok unnamed_symbols_kept
fi

# "START ADDR" of each [unnamed @ START] slice with an addr argument of
# the -no-pie stripped build, its functions' starts from nm (decimal)
NP="$TMP/nopie"
N="$TMP/rec-nopie"
if ! gcc -std=c11 -Wall -Wextra -Werror -O1 -fno-omit-frame-pointer -no-pie -o "$NP" \
	"$SNAPTRACE_TOP/tests/record/unnamed_target.c" 2>"$TMP/cc-nopie.err" ||
	! strip -o "$NP.stripped" "$NP"; then
	fail unnamed_addr_linked "cannot build a -no-pie unnamed_target.c: $(tl 3 "$TMP/cc-nopie.err")"
elif ! "$RECORD" -q -o "$N" --trigger none -- "$NP.stripped" 5 >/dev/null 2>"$N.err" ||
	! "$CONVERT" --quiet "$N" -o "$N.fxt" 2>"$N.conv" ||
	! "$CONVERT" --dump=tree "$N.fxt" >"$N.tree"; then
	fail unnamed_addr_linked "recording or conversion failed: $(tl 2 "$N.err") $(tl 2 "$N.conv")"
else
	nm "$NP" | awk '$2 ~ /^[tT]$/ { print $1 }' | while read -r a; do echo $((16#$a)); done |
		sort -n >"$N.starts"
	sed -n 's/.*\[unnamed @ 0x\([0-9a-f]*\)\] .*addr:pointer=0x\([0-9a-f]*\).*/\1 \2/p' "$N.tree" |
		sort -u | while read -r st ad; do
			echo "$((16#$st)) $((16#$ad)) 0x$st 0x$ad"
		done >"$N.pairs"
	# the function an address is in: the last nm start at or before it
	bad=$(awk 'NR == FNR { s[n++] = $1; next }
		{ f = -1; for (i = 0; i < n; i++) if (s[i] <= $2) f = s[i]
		  if (f != $1) print $3 " with addr " $4 }' "$N.starts" "$N.pairs" | head -3 | tr '\n' '|')
	if [ ! -s "$N.pairs" ]; then
		fail unnamed_addr_linked "no [unnamed @ ...] slice with an addr argument: $(grep -c 'unnamed @' "$N.tree") unnamed slices"
	elif [ -n "$bad" ]; then
		fail unnamed_addr_linked "addr not in the function the name gives (nm): $bad"
	else
		ok unnamed_addr_linked
	fi
fi

# addr_outside TREE BIN: "NAME addr 0xADDR" of each slice of BIN's category
# with a name and an addr argument, when ADDR is not inside the function nm
# lists under NAME (from its start to the next greater one); "none" when
# there is no such slice.
addr_outside() {
	nm "$2" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' | while read -r a n; do
		echo "$((16#$a)) $n"
	done | sort -n >"$1.starts"
	awk -v f="cat=\"$2\"" 'index($0, f) && match($0, / \[[0-9]+, [0-9]+\]/) {
		nm = substr($0, 1, RSTART - 1); sub(/^[0-9]+ [0-9]+ +/, "", nm)
		if (nm !~ /^\[/ && match($0, /addr:pointer=0x[0-9a-f]+/))
			print nm, substr($0, RSTART + 15, RLENGTH - 15)
	}' "$1" | sort -u | while read -r n a; do echo "$n $((16#$a)) 0x$a"; done >"$1.named"
	[ -s "$1.named" ] || { echo none; return; }
	awk 'NR == FNR { s[NR] = $1; fn[NR] = $2; k = NR; next }
	     { ok = 0
	       for (i = 1; i <= k; i++) {
		       if (fn[i] != $1) continue
		       e = -1; for (j = i + 1; j <= k; j++) if (s[j] > s[i]) { e = s[j]; break }
		       if (s[i] <= $2 && (e < 0 || $2 < e)) ok = 1
	       }
	       if (!ok) print $1 " addr " $3 }' "$1.starts" "$1.named" | head -3 | tr '\n' '|'
}

NU="$TMP/rec-nopie-named"
if [ ! -x "$NP" ]; then
	fail named_addr_linked "no -no-pie build (unnamed_addr_linked says why)"
elif ! "$RECORD" -q -o "$NU" --trigger none -- "$NP" 5 >/dev/null 2>"$NU.err" ||
	! "$CONVERT" --quiet "$NU" -o "$NU.fxt" 2>"$NU.conv" ||
	! "$CONVERT" --dump=tree "$NU.fxt" >"$NU.tree" ||
	! "$CONVERT" --dump=tree "$S.fxt" >"$S.tree"; then
	fail named_addr_linked "recording or conversion failed: $(tl 2 "$NU.err") $(tl 2 "$NU.conv")"
else
	pie=$(addr_outside "$S.tree" "$PROG")
	nopie=$(addr_outside "$NU.tree" "$NP")
	if [ -n "$pie$nopie" ]; then
		fail named_addr_linked "addr not in the function nm lists under the slice's name: PIE '$pie', -no-pie '$nopie'"
	else
		ok named_addr_linked
	fi
fi

# the library: unnamed_target.c's main as unnamed_main, alone exported
LIBDIR="$TMP/lib"
LIBPROG="$TMP/unnamed_libprog"
mkdir -p "$LIBDIR"
printf '{ global: unnamed_main; local: *; };\n' >"$TMP/lib.map"
printf 'int unnamed_main(int argc, char **argv);\nint main(int argc, char **argv) { return unnamed_main(argc, argv); }\n' >"$TMP/libmain.c"
if ! gcc -std=c11 -O1 -fno-omit-frame-pointer -fPIC -shared -Dmain=unnamed_main \
	-Wl,--version-script="$TMP/lib.map" -o "$TMP/libunnamed.so" \
	"$SNAPTRACE_TOP/tests/record/unnamed_target.c" 2>"$TMP/cc.err" ||
	! strip -o "$LIBDIR/libunnamed.so" "$TMP/libunnamed.so" ||
	! gcc -std=c11 -o "$LIBPROG" "$TMP/libmain.c" -L"$LIBDIR" -lunnamed 2>>"$TMP/cc.err"; then
	for n in lib_addr_listed lib_addr_measured lib_not_loaded; do
		fail "$n" "cannot build the library: $(tl 3 "$TMP/cc.err")"
	done
else
	TARGETS+=("$LIBPROG")
	LIBREAL=$(realpath "$LIBDIR/libunnamed.so")
	LSERVE=$(nm "$TMP/libunnamed.so" | awk '$3 == "serve" { print "0x" $1 }')
	LSERVE=$(printf '0x%x' "$((LSERVE))")
	listed=$("$RECORD" --symbols "$LIBDIR/libunnamed.so" | awk -F '\t' -v a="$LSERVE" '$4 == a')
	want=$(printf '[unnamed @ %s]\t%s:addr:%s\t%s\t%s' "$LSERVE" "$LIBREAL" "$LSERVE" "$LIBREAL" "$LSERVE")
	if [ "$listed" != "$want" ]; then
		fail lib_addr_listed "serve() at $LSERVE listed as '$listed', expected '$want'"
	else
		ok lib_addr_listed
	fi
	bad=""
	for spec in "$LIBREAL:addr:$LSERVE" "libunnamed:addr:$LSERVE" "libunnamed:[unnamed @ $LSERVE]"; do
		d="$TMP/lib.$RANDOM"
		LD_LIBRARY_PATH="$LIBDIR" "$RECORD" -o "$d" --trigger none --measure "$spec" \
			-- "$LIBPROG" 3 >/dev/null 2>"$d.err" &&
			grep -qF "measured $spec: 3 calls" "$d.err" ||
			bad="$bad [$spec: $(grep -m1 'measured\|error\|--measure' "$d.err")]"
	done
	if [ -n "$bad" ]; then fail lib_addr_measured "$bad"; else ok lib_addr_measured; fi
	d="$TMP/lib.none"
	LD_LIBRARY_PATH="$LIBDIR" "$RECORD" -o "$d" --trigger none --measure "libunnamed:addr:$LSERVE" \
		-- "$STRIPPED" 40 >/dev/null 2>"$d.err"
	line=$(grep -F "measured libunnamed:addr:$LSERVE: no call in the " "$d.err")
	if [[ $line != *" ms recorded ($LIBREAL was never seen loaded by the program"* ]]; then
		fail lib_not_loaded "a program without the library: $(grep -m1 'measured\|error' "$d.err")"
	else
		ok lib_not_loaded
	fi
fi

# a part of a function that a jump enters is no function
COLD="$TMP/cold_stripped"
if ! gcc -std=c11 -O2 -o "$TMP/cold" "$SNAPTRACE_TOP/tests/record/cold_target.c" 2>"$TMP/cc.err" ||
	! strip -o "$COLD" "$TMP/cold"; then
	fail cold_not_listed "cannot build cold_target.c: $(tl 3 "$TMP/cc.err")"
	fail cold_addr_refused "cannot build cold_target.c"
else
	CSTART=$(nm "$TMP/cold" | awk '$3 == "cold_split.cold" { print "0x" $1 }')
	CSPLIT=$(nm "$TMP/cold" | awk '$3 == "cold_split" { print "0x" $1 }')
	[ -n "$CSTART" ] && CSTART=$(printf '0x%x' "$((CSTART))") && CSPLIT=$(printf '0x%x' "$((CSPLIT))")
	"$RECORD" --symbols "$COLD" | awk -F '\t' '{ print $4 }' >"$TMP/cold.listed"
	if [ -z "$CSTART" ]; then
		fail cold_not_listed "gcc made no cold_split.cold: $(nm "$TMP/cold" | grep cold_split | tr '\n' ' ')"
	elif grep -qx -- "$CSTART" "$TMP/cold.listed" || ! grep -qx -- "$CSPLIT" "$TMP/cold.listed"; then
		fail cold_not_listed "cold_split.cold $CSTART listed or cold_split $CSPLIT not: $(tr '\n' ' ' <"$TMP/cold.listed")"
	else
		ok cold_not_listed
	fi
	bad=""
	for args in "--measure addr:$CSTART" "--trigger addr:$CSTART" "--trigger addr:$(printf '0x%x' $((CSTART + 1)))"; do
		# shellcheck disable=SC2086
		"$RECORD" -o "$TMP/cold.d" $args -- "$COLD" >/dev/null 2>"$TMP/cold.err"
		rc=$?
		[ $rc -eq 2 ] && [ "$(wc -l <"$TMP/cold.err")" -eq 1 ] && [ ! -e "$TMP/cold.d" ] &&
			grep -q "in code a jump enters at $CSTART (its unwind table's CFA there is the stack pointer+[0-9]*, not +8 as right after a call" "$TMP/cold.err" ||
			bad="$bad [$args: exit $rc: $(tl 2 "$TMP/cold.err")]"
	done
	[ -z "$CSTART" ] && bad="gcc made no cold_split.cold"
	if [ -n "$bad" ]; then fail cold_addr_refused "$bad"; else ok cold_addr_refused; fi
fi

# the stripped file recorded with a copy kept, converted before and after
# a rebuild (-O2: other code, another build id) replaces it
K="$TMP/rec-kept"
if ! "$RECORD" -q -o "$K" --keep-binaries --trigger none --measure "addr:$SERVE" -- \
	"$STRIPPED" 20 >/dev/null 2>"$K.err" ||
	! "$CONVERT" --quiet "$K" -o "$K.before.fxt" 2>"$K.conv" ||
	! "$CONVERT" --dump=slices "$K.before.fxt" >"$K.before"; then
	fail_all "recording with --keep-binaries failed: $(tl 2 "$K.err") $(tl 2 "$K.conv")"
fi
gcc -std=c11 -Wall -Wextra -Werror -O2 -fno-omit-frame-pointer -o "$TMP/rebuilt" \
	"$SNAPTRACE_TOP/tests/record/unnamed_target.c" 2>"$TMP/cc-re.err" &&
	strip -o "$TMP/rebuilt.s" "$TMP/rebuilt" && mv -f "$TMP/rebuilt.s" "$STRIPPED" ||
	fail_all "cannot rebuild unnamed_target.c: $(tl 3 "$TMP/cc-re.err")"
if ! "$CONVERT" "$K" -o "$K.after.fxt" >/dev/null 2>"$K.conv2" ||
	! "$CONVERT" --dump=slices "$K.after.fxt" >"$K.after"; then
	fail unnamed_kept_copy "conversion after the rebuild failed: $(tl 2 "$K.conv2")"
elif ! grep -q '\[unnamed @ ' "$K.before"; then
	fail unnamed_kept_copy "no [unnamed @ ...] slice before the rebuild: $(cut -d' ' -f3- "$K.before" | sort -u | head -5 | tr '\n' '|')"
elif grep -q 'stripped binaries' "$K.conv2"; then
	fail unnamed_kept_copy "blamed on missing symbols though a copy is kept: $(grep -m 1 'stripped binaries' "$K.conv2")"
elif ! cmp -s "$K.before" "$K.after"; then
	fail unnamed_kept_copy "slices differ after the rebuild ($(grep -c '\[unknown @ ' "$K.after") [unknown @ ...]): $(diff "$K.before" "$K.after" | head -4 | tr '\n' '|')"
else
	ok unnamed_kept_copy
fi

# the recording without a copy ($D), its binary rebuilt
if ! "$CONVERT" "$D" -o "$D.after.fxt" >/dev/null 2>"$D.conv2"; then
	fail changed_not_stripped "conversion failed: $(tl 2 "$D.conv2")"
elif grep -q 'stripped binaries' "$D.conv2"; then
	fail changed_not_stripped "blamed on missing symbols: $(grep -m 1 'stripped binaries' "$D.conv2")"
elif ! grep -q "warning: $STRIPPED: changed since the recording" "$D.conv2"; then
	fail changed_not_stripped "no warning that $STRIPPED changed explains its [unknown] frames: $(grep -m 2 'warning' "$D.conv2" | tr '\n' '|')"
else
	ok changed_not_stripped
fi

if no_procs; then ok no_leftovers; else fail no_leftovers "perf or the program left running"; fi
