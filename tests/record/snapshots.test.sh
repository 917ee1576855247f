#!/usr/bin/env bash
# tier: record
# The snapshot files of --multi-snapshot recordings, recorded for real on
# the workload (tests/workload/workload.c, modes bursts, hits and storm)
# and read back with `snaptrace-convert --dump=slices`: three snapshots, each
# holding its hit's work, two at least holding hits (multi_snapshot_three); a trigger storm and Ctrl-C in one
# (trigger_storm, storm_interrupt); a directory name holding a newline; a
# disk that fills; a snapshot file cut at every place perf writes
# (cut_snapshot: the gap rule of docs/design.md "Recording directories";
# the three-snapshot recording is one, three_snaps, for those three); a
# perf that leaves two files unfinished; a perf whose second file replaced
# its first (replaced_snapshot). Split from record.test.sh so that
# the record tier's two suites at a time share its work (tests/run.sh -J).
# No perf or target process may outlive a test.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

FRONT="$SNAPTRACE_BIN/snaptrace"
export SNAPTRACE_BIN

# rec_cleanup (rec-lib.sh), and disk_full's tmpfs unmounted
cleanup() {
	mountpoint -q "$TMP/full" 2>/dev/null && umount "$TMP/full"
	rec_cleanup
}
on_exit cleanup

NAMES="multi_snapshot_three trigger_storm storm_interrupt newline_in_dir disk_full cut_snapshot
unfinished_snapshot replaced_snapshot no_leftovers"
need_recording snapshots
need_built snapshots "$CONVERT"
use_workload snapshots
TARGETS=("$PROG")

# three_snaps: the recording multi_snapshot_three, newline_in_dir and
# cut_snapshot share, made by the first of them that runs: --multi-snapshot
# armed at once (every hit counts; the default waits for the ring to fill)
# of a hit every 300 ms (workload bursts: 20 ms of nested work, the hit, a
# nap: a snapshot's ring holds a burst, and the target does not keep a CPU
# busy for the seconds a loaded machine takes), stopped as Ctrl-C does
# after its third snapshot (until_snapshot), in a directory whose name
# holds a newline (perf's Dump lines are matched against the path as
# given). Sets THREE (the directory) and THREE_ERR (its stderr); returns
# the recorder's status (THREE_RC).
THREE="$TMP/three
snaps" THREE_ERR="$TMP/three.err" THREE_RC=
three_snaps() {
	if [ -z "$THREE_RC" ]; then
		until_snapshot 3 "$THREE_ERR" "$RECORD" -o "$THREE" --multi-snapshot --arm-after 0 -- \
			"$PROG" bursts 20 280
		THREE_RC=$?
	fi
	return "$THREE_RC"
}

t_multi_snapshot_three() {
	local d="$THREE" f n=0 m=0 bad="" held i reason
	if ! three_snaps; then
		fail_recording multi_snapshot_three "no third snapshot" "$THREE_RC" "$THREE_ERR" "$d"
		return
	fi
	# a trigger snapshot no hit names as its holder may hold nothing: perf
	# wrote the one before late, after the next hit's burst, and that one
	# took the burst (loaded 12 deep, CI beside a loaded make test: "has
	# no slices"); one that holds a hit holds its work
	held=" $(rec_rows "$d" hits snapshot | tr '\n' ' ') "
	i=0
	while read -r reason f; do
		if [ "$reason" = trigger ]; then
			n=$((n + 1))
			case "$held" in *" $i "*)
				m=$((m + 1))
				slices_of "$d" "$f" | grep -q ' work_leaf$' || bad="$bad $f" ;;
			esac
		fi
		i=$((i + 1))
	done < <(rec_rows "$d" snapshots reason file)
	if [ $n -lt 3 ] || [ $m -lt 2 ]; then
		fail multi_snapshot_three "expected 3 trigger snapshots or more, 2 of them holding hits, found $n, $m"
	elif [ -n "$bad" ]; then
		fail multi_snapshot_three "snapshots holding a hit without work_leaf:$bad"
	# each trigger snapshot was taken for a hit, and a hit names a snapshot
	# there is; not each snapshot holds a hit of its own: perf once wrote
	# one 362 ms late (loaded 15 deep), its ring read after the next hit,
	# whose snapshot then held less of it (the recorder says so)
	elif ! rec_rows "$d" snapshots reason | H="$(rec_rows "$d" hits snapshot | tr '\n' ' ')" \
		awk '$1 == "trigger" { n++ }
		END { k = split(ENVIRON["H"], h, " "); if (n > k) exit 1
			for (i = 1; i <= k; i++) if (h[i] != "null" && (h[i] !~ /^[0-9]+$/ || h[i] >= NR)) exit 1 }'; then
		fail multi_snapshot_three "more trigger snapshots than hits, or a hit in no snapshot there is: \
hits in $(rec_rows "$d" hits snapshot | tr '\n' ' '), snapshots $(rec_rows "$d" snapshots reason | tr '\n' ' ')"
	elif [ "$(rec_field "$d" end)" != interrupt ]; then
		fail multi_snapshot_three "end is $(rec_field "$d" end), not interrupt"
	else
		ok multi_snapshot_three
	fi
}

# A trigger hit every 100 us for 1.5 s (3 s under make test-stress): the
# deadline holds, every hit is counted, every file perf wrote is listed and
# converts.
t_trigger_storm() {
	local d="$TMP/storm" t0 ms rc bad s
	s=$(stress_count 1.5 3)
	t0=$(date +%s%N)
	timeout -k 5 60 "$RECORD" -q -o "$d" --multi-snapshot --arm-after 0 --duration "$s" -- "$PROG" storm 100 \
		>/dev/null 2>"$TMP/storm.err"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	bad=$(snaps_ok "$d" "$TMP/storm.err")
	if [ $rc -ne 0 ]; then
		fail trigger_storm "exit $rc: $(tl 3 "$TMP/storm.err")"
	elif [ $ms -gt 15000 ]; then
		fail trigger_storm "--duration $s took $ms ms"
	elif [ "$(rec_field "$d" end)" != duration ]; then
		fail trigger_storm "end is $(rec_field "$d" end), not duration"
	elif [ "$(snaps "$d" trigger | wc -l)" -lt 2 ]; then
		fail trigger_storm "expected several trigger snapshots, found $(snaps "$d" trigger | wc -l)"
	elif [ -n "$bad" ]; then
		fail trigger_storm "$bad"
	elif [ "$(rec_field "$d" hits_coalesced)" -lt 1000 ]; then
		fail trigger_storm "expected thousands of coalesced hits, found" \
			"$(rec_field "$d" hits_coalesced)"
	elif ! slices_of "$d" $(snaps "$d") | grep -q ' main$'; then
		# (most samples are in the uprobe's trampoline at this rate)
		fail trigger_storm "the snapshots do not convert to main: $(tl 2 "$d/convert.log")"
	elif ! no_procs; then
		fail trigger_storm "a perf or target process is left"
	else
		ok trigger_storm
	fi
}

# SIGINT in a storm of hits with no --min-interval (a snapshot always in
# flight: sent after the third) ends the recording within seconds, data kept.
t_storm_interrupt() {
	local d="$TMP/storm-int" pid t0 ms rc bad i
	"$SIGDFL" "$RECORD" -o "$d" --multi-snapshot --min-interval 0 --arm-after 0 -- \
		"$PROG" storm 100 >/dev/null 2>"$TMP/storm-int.err" &
	pid=$!
	BG+=("$pid")
	if ! wait_for "$TMP/storm-int.err" "taking snapshot 2$" 30; then
		fail storm_interrupt "no third snapshot: $(tl 2 "$TMP/storm-int.err")"
		return
	fi
	t0=$(date +%s%N)
	kill -INT "$pid"
	for ((i = 0; i < 3000; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	kill -9 "$pid" 2>/dev/null   # still running after 30 s: fails below
	wait "$pid"
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	bad=$(snaps_ok "$d" "$TMP/storm-int.err")
	if [ $rc -ne 0 ]; then
		fail storm_interrupt "exit $rc: $(tl 3 "$TMP/storm-int.err")"
	elif [ $ms -gt 15000 ]; then
		fail storm_interrupt "SIGINT took $ms ms to end the recording"
	elif [ "$(rec_field "$d" end)" != interrupt ]; then
		fail storm_interrupt "end is $(rec_field "$d" end), not interrupt"
	elif [ -n "$bad" ]; then
		fail storm_interrupt "$bad"
	elif ! no_procs; then
		fail storm_interrupt "a perf or target process is left"
	else
		ok storm_interrupt
	fi
}

# An output directory whose name holds a newline (three_snaps'): perf's
# Dump lines are matched against the path as given.
t_newline_in_dir() {
	local d="$THREE" bad
	if ! three_snaps; then
		fail_recording newline_in_dir "no third snapshot" "$THREE_RC" "$THREE_ERR" "$d"
		return
	fi
	bad=$(snaps_ok "$d" "$THREE_ERR")
	if [ "$(snaps "$d" trigger | wc -l)" -lt 2 ]; then
		fail newline_in_dir "expected 2 trigger snapshots or more, found $(snaps "$d" trigger | wc -l)"
	elif [ -n "$bad" ]; then
		fail newline_in_dir "$bad"
	elif ! slices_of "$d" $(snaps "$d") | grep -q ' work_leaf$'; then
		fail newline_in_dir "the snapshots do not convert to work_leaf"
	else
		ok newline_in_dir
	fi
}

# A disk that fills during --multi-snapshot: exit 1 naming ENOSPC first, no
# "Broken pipe"; record.json lists every file perf wrote, each either a
# perf.data perf finished (perf reads it: `perf evlist`) or marked with its
# problem and named in a warning; the directory converts what is good,
# naming each file left out, and fails (exit 1) only when nothing is good.
t_disk_full() {
	local m="$TMP/full" d="$TMP/full/rec" rc crc bad f p line
	local -a good=() unfinished=()
	requires disk_full tmpfs_mount || return
	if ! mkdir -p "$m" || ! mount -t tmpfs -o size=2m tmpfs "$m" 2>"$TMP/full-mount.err"; then
		fail disk_full "cannot mount a small tmpfs: $(first_lines "$TMP/full-mount.err")"
		return
	fi
	"$RECORD" -q -o "$d" --multi-snapshot --min-interval 0 --arm-after 0 --duration 60 -- \
		"$PROG" storm 1000 >/dev/null 2>"$TMP/full.err"
	rc=$?
	# (an empty file perf made at a switch on the full disk is listed with
	# its problem, named in a warning)
	bad=$(snaps_ok "$d" "$TMP/full.err")
	while IFS= read -r line; do
		f=${line%% *} p=${line#* }
		if [ -z "$f" ]; then
			continue	# never written (perf ended first): no file
		elif [ "$p" = null ]; then
			good+=("$f")
			perf evlist -f -i "$d/$f" >/dev/null 2>"$TMP/full-evlist.err" ||
				bad+="$f is listed as finished, perf cannot read it: $(head -n 1 "$TMP/full-evlist.err"); "
		else
			unfinished+=("$f")
		fi
	done < <(rec_rows "$d" snapshots file problem)
	"$CONVERT" -q "$d" -o "$TMP/full.fxt.gz" >/dev/null 2>"$TMP/full-conv.err"
	crc=$?
	for f in "${unfinished[@]}"; do
		# unfinished by its header, or marked by the recorder (perf could not read it)
		grep -q -F -e "warning: $d/$f: left out: an unfinished perf.data: " \
			-e "warning: $d/$f: left out: record.json marks it: " "$TMP/full-conv.err" ||
			bad+="the conversion does not name $f as left out; "
	done
	if [ $rc -ne 1 ]; then
		fail disk_full "exit $rc, expected 1: $(tl 2 "$TMP/full.err")"
	elif ! grep -q "^snaptrace-record: $d: No space left on device (ENOSPC)" "$TMP/full.err"; then
		fail disk_full "ENOSPC not named first: $(head -n 1 "$TMP/full.err")"
	elif head -n 1 "$TMP/full.err" | grep -q "ring buffers"; then
		# perf 6.1's "Miscounted nr_mmaps" at the start blamed on the full disk
		fail disk_full "the full disk is blamed on something else: $(head -n 1 "$TMP/full.err")"
	elif grep -qi "broken pipe" "$TMP/full.err"; then
		fail disk_full "Broken pipe warnings: $(grep -ci "broken pipe" "$TMP/full.err")"
	elif [ $((${#good[@]} + ${#unfinished[@]})) -eq 0 ]; then
		fail disk_full "record.json lists no snapshot: $(rec_part "$d" "" | cut -c 1-300)"
	elif [ -n "$bad" ]; then
		fail disk_full "$bad"
	elif [ $((${#good[@]} + ${#unfinished[@]})) -ne "$(rec_rows "$d" snapshots file | grep -c .)" ]; then
		fail disk_full "a snapshot without \"problem\": $(rec_part "$d" snapshots.0.) $(rec_part "$d" snapshots.1.)"
	elif [ ${#good[@]} -eq 0 ] && { [ $crc -ne 1 ] || [ -e "$TMP/full.fxt.gz" ] ||
		! grep -q "nothing left to convert" "$TMP/full-conv.err"; }; then
		fail disk_full "no finished snapshot, yet the conversion exits $crc: $(tl 2 "$TMP/full-conv.err")"
	elif [ ${#good[@]} -gt 0 ] && { [ $crc -ne 0 ] ||
		[ "$(grep -c ': left out: ' "$TMP/full-conv.err")" -ne ${#unfinished[@]} ] ||
		! "$CONVERT" --dump=slices "$TMP/full.fxt.gz" | grep -q ' main$'; }; then
		fail disk_full "the ${#good[@]} finished snapshots do not convert (exit $crc): $(tl 2 "$TMP/full-conv.err")"
	else
		ok disk_full
	fi
	umount "$m"
}

# u64_at FILE OFFSET: the little-endian u64 at OFFSET of FILE.
u64_at() {
	od -A n -t u8 -j "$2" -N 8 "$1" | tr -d ' '
}

# A snapshot file cut short on purpose (perf.data's struct perf_file_header:
# attrs at 24/32, data at 40/48), at every place perf writes: inside the
# header, a header never written (all zero bytes), inside the attributes, the
# data section, the feature section table and the last feature section.
# Converting the directory leaves it out with one warning naming the file
# and the place (perf's own warnings on the others may follow), and its
# trace is that of the same recording whose record.json says perf never
# wrote that snapshot (file "": the gap rule, docs/design.md "Recording
# directories": a snapshot left out between two others ends what the one
# before carries), markers included, read back (main, work_leaf); no marker
# names the file; the file alone is an error (exit 1) naming it; a
# directory of such files only converts nothing (exit 1). make test cuts at
# three places (inside the header, a header never written, inside the data
# section), make test-stress at all six: the same gap rule each time, and
# unit/test_perfdata_check names the place of every cut length.
t_cut_snapshot() {
	local d="$THREE" f2 c kind at want rc all=0 ao asz dof dsz size e
	local -a files
	if ! three_snaps || [ "$(snaps "$d" | wc -l)" -lt 3 ]; then
		fail_recording cut_snapshot "expected 3 snapshots or more: $(snaps "$d" | tr '\n' ' ')" \
			"$THREE_RC" "$THREE_ERR" "$d"
		return
	fi
	files=($(snaps "$d"))
	f2=${files[1]}
	# the reference: the recording as if perf had never written snapshot 2
	cp -r "$d" "$TMP/cut-never"
	rm "$TMP/cut-never/$f2"
	if ! json_replace "$TMP/cut-never/record.json" "\"file\": \"$f2\"" '"file": ""' ||
		! "$CONVERT" -q "$TMP/cut-never" -o "$TMP/cut-never.fxt.gz" >/dev/null \
		2>"$TMP/cut-never.err" ||
		! "$CONVERT" --dump=slices "$TMP/cut-never.fxt.gz" >"$TMP/cut.want" ||
		! grep -q ' main$' "$TMP/cut.want" || ! grep -q ' work_leaf$' "$TMP/cut.want"; then
		fail cut_snapshot "the recording without snapshot 2 does not convert to main and work_leaf: $(tl 2 "$TMP/cut-never.err")"
		return
	fi
	ao=$(u64_at "$d/$f2" 24) asz=$(u64_at "$d/$f2" 32) dof=$(u64_at "$d/$f2" 40)
	dsz=$(u64_at "$d/$f2" 48) size=$(stat -c %s "$d/$f2")
	for c in "header:50:cut short inside its header" \
		"never:0:its header was never written (all zero bytes)" \
		"attributes:$((ao + asz / 2)):cut short inside its attributes" \
		"data:$((dof + dsz / 2)):cut short inside its data section" \
		"table:$((dof + dsz + 8)):cut short inside its feature sections" \
		"features:$((size - 1)):cut short inside its feature sections"; do
		kind=${c%%:*} at=${c#*:} want=${at#*:} at=${at%%:*} e="$TMP/cut-$kind"
		# the header's is cut again below (every snapshot: nothing left)
		[ "$(stress_count 0 1)" = 1 ] || [[ $kind == @(header|never|data) ]] || continue
		rm -rf "$e"
		cp -r "$d" "$e"
		if [ "$kind" = never ]; then
			dd if=/dev/zero of="$e/$f2" bs=104 count=1 conv=notrunc 2>/dev/null
		else
			truncate -s "$at" "$e/$f2"
		fi
		"$CONVERT" -q "$e" -o "$e.fxt.gz" >/dev/null 2>"$e.err"
		rc=$?
		if [ $rc -ne 0 ]; then
			fail "cut_snapshot/$kind" "exit $rc: $(tl 2 "$e.err")"
		elif [ "$(grep -c ': left out: ' "$e.err")" -ne 1 ] ||
			! grep -q -F "snaptrace-convert: warning: $e/$f2: left out: an unfinished perf.data: $want" "$e.err"; then
			fail "cut_snapshot/$kind" "expected one warning '$want': $(tl 3 "$e.err")"
		elif ! "$CONVERT" --dump=slices "$e.fxt.gz" | diff - "$TMP/cut.want" >"$e.diff"; then
			fail "cut_snapshot/$kind" "the slices are not those of the recording without $f2: $(head -n 4 "$e.diff" | tr '\n' '|')"
		elif "$CONVERT" --dump=records "$e.fxt.gz" | grep -q -F "\"$f2\"" ||
			! "$CONVERT" --dump=records "$e.fxt.gz" | grep -q -F "snapshot_file:string=\"${files[0]}\""; then
			fail "cut_snapshot/$kind" "the markers name $f2, or not ${files[0]}"
		elif "$CONVERT" -q "$e/$f2" -o "$e-alone.fxt.gz" >/dev/null 2>"$e-alone.err" ||
			[ "$(wc -l <"$e-alone.err")" -ne 1 ] || [ -e "$e-alone.fxt.gz" ] ||
			! grep -q -F "snaptrace-convert: $e/$f2: an unfinished perf.data: $want" "$e-alone.err"; then
			fail "cut_snapshot/$kind" "alone: not one error naming it: $(tl 2 "$e-alone.err")"
		else
			continue
		fi
		all=1
	done
	for c in "${files[@]}"; do
		truncate -s 50 "$TMP/cut-header/$c"
	done
	"$CONVERT" -q "$TMP/cut-header" -o "$TMP/cut-none.fxt.gz" >/dev/null 2>"$TMP/cut-none.err"
	rc=$?
	if [ $rc -ne 1 ] || [ -e "$TMP/cut-none.fxt.gz" ] ||
		[ "$(grep -c ': left out: an unfinished perf.data: ' "$TMP/cut-none.err")" -ne ${#files[@]} ] ||
		! tail -n 1 "$TMP/cut-none.err" | grep -q "^snaptrace-convert: $TMP/cut-header: nothing left to convert: "; then
		fail cut_snapshot "every snapshot cut: exit $rc (expected 1): $(tl 2 "$TMP/cut-none.err")"
	elif [ $all = 0 ]; then
		ok cut_snapshot
	fi
}

# dump_perf FILE HOOK: writes FILE, a perf whose `perf record` runs the bash
# HOOK at each of its Dump lines before the line reaches the recorder: $n
# the line's number, $f the file it names (relative to perf's directory),
# $l the line, which HOOK may change.
dump_perf() {
	local t
	t=$(cat <<'EOF'
#!/bin/bash
[ "$1" = record ] || exec perf "$@"
exec perf "$@" 2> >(n=0
	while IFS= read -r l; do
		case $l in
		*"[ perf record: Dump "*)
			n=$((n + 1)) f=${l#*Dump } f=${f% ]}
			HOOK ;;
		esac
		printf '%s\n' "$l"
	done >&2)
EOF
)
	printf '%s\n' "${t/HOOK/"$2"}" >"$1" && chmod +x "$1"
}

# A perf that does not finish two of its snapshot files (a stand-in cuts
# the second one in half and zeroes the third one's header before perf's
# Dump line reaches the recorder): the front end exits 1; the recorder names
# both (error and a warning each), record.json marks them ("problem") and
# no other; the trace of the others is written and read back (main); the
# conversion names the two it left out; the recording is kept.
t_unfinished_snapshot() {
	local d="$TMP/unfin" w="$TMP/unfin-perf" rc f bad="" n=0
	dump_perf "$w" '[ $n -eq 2 ] && truncate -s $(($(stat -c %s "$f") / 2)) "$f"
			[ $n -eq 3 ] && dd if=/dev/zero of="$f" bs=104 count=1 conv=notrunc 2>/dev/null'
	# a busy target (hits, not bursts): half the file is then inside its
	# data section (a burst's few samples left half of it in the features)
	until_snapshot 4 "$TMP/unfin.err" "$FRONT" run --perf "$w" -d "$d" -o "$TMP/unfin.fxt.gz" \
		--multi-snapshot --min-interval 0 --arm-after 0 -- "$PROG" hits 0 300
	rc=$?
	for f in $(snaps "$d"); do
		n=$((n + 1))
		case "$n:$(snap_problem "$d" "$f")" in
		"2:cut short inside its data section (ending at byte "*) ;;
		"3:its header was never written (all zero bytes)") ;;
		[23]:* | *:[!n]*) bad+="snapshot $n ($f): '$(snap_problem "$d" "$f")'; " ;;
		esac
		case $n in 2 | 3)
			grep -q -F "snaptrace: warning: $d/$f: an unfinished perf.data, kept but not to be converted (record.json marks it): " \
				"$TMP/unfin.err" || bad+="the recorder does not name $f; "
			grep -q -F "snaptrace-convert: warning: $d/$f: left out: an unfinished perf.data: " \
				"$TMP/unfin.err" || bad+="the converter does not name $f; " ;;
		esac
	done
	if [ $rc -ne 1 ]; then
		fail unfinished_snapshot "exit $rc, expected 1: $(tl 3 "$TMP/unfin.err")"
	elif [ $n -lt 4 ]; then
		fail unfinished_snapshot "expected 4 snapshots or more, record.json lists $n"
	elif [ -n "$bad" ]; then
		fail unfinished_snapshot "$bad"
	elif ! grep -q "^snaptrace: perf did not finish 2 of the $n snapshot files in $d (named below; record.json marks them)$" \
		"$TMP/unfin.err"; then
		fail unfinished_snapshot "no error counting them: $(head -n 2 "$TMP/unfin.err" | tr '\n' '|')"
	elif ! "$CONVERT" --dump=slices "$TMP/unfin.fxt.gz" | grep -q ' main$'; then
		fail unfinished_snapshot "the trace of the other snapshots has no main: $(tl 3 "$TMP/unfin.err")"
	elif ! grep -q "the recording stays in $d" "$TMP/unfin.err"; then
		fail unfinished_snapshot "the recording is not named: $(tl 2 "$TMP/unfin.err")"
	else
		ok unfinished_snapshot
	fi
}

# perf names the files it switches to by the time to the 10 ms, so a
# second switch within them (an empty snapshot on a full disk takes 0.2 ms)
# gives its file the first's name and perf's rename replaces the first (CI's
# disk_full once listed a name twice: "perf wrote 7 files, record.json lists
# 8"). A perf whose second file is renamed over its first, as its own rename
# does, and announced under the first's name: record.json lists each file
# once (snaps_ok), snapshot 1 without a file and "lost: ..." (a warning
# names it), the recording fails (exit 1) counting it, and the directory
# converts the other snapshots, naming the lost one.
t_replaced_snapshot() {
	local d="$TMP/repl" w="$TMP/repl-perf" rc crc bad p
	dump_perf "$w" '[ $n -eq 1 ] && first=$f
			[ $n -eq 2 ] && mv -f "$f" "$first" && l="[ perf record: Dump $first ]"'
	until_snapshot 3 "$TMP/repl.err" "$RECORD" --perf "$w" -o "$d" --multi-snapshot \
		--min-interval 0 --arm-after 0 -- "$PROG" hits 0 300
	rc=$?
	bad=$(snaps_ok "$d" "$TMP/repl.err")
	p=$(rec_rows "$d" snapshots file problem | head -n 1)
	"$CONVERT" -q "$d" -o "$TMP/repl.fxt.gz" >/dev/null 2>"$TMP/repl-conv.err"
	crc=$?
	if [ $rc -ne 1 ]; then
		fail replaced_snapshot "exit $rc, expected 1: $(tl 3 "$TMP/repl.err")"
	elif [ -n "$bad" ]; then
		fail replaced_snapshot "$bad"
	elif [[ $p != " lost: perf gave the next file it switched to the same name, perf.data."* ]]; then
		fail replaced_snapshot "snapshot 1 is listed as '$p'"
	elif ! grep -q "^snaptrace-record: perf lost 1 of the [0-9]* snapshot files in $d (named below; record.json marks them)$" \
		"$TMP/repl.err"; then
		fail replaced_snapshot "no error counting it: $(grep -v 'trigger hit' "$TMP/repl.err" | head -n 2 | tr '\n' '|')"
	elif [ $crc -ne 0 ] || ! "$CONVERT" --dump=slices "$TMP/repl.fxt.gz" | grep -q ' main$'; then
		fail replaced_snapshot "the other snapshots do not convert (exit $crc): $(tl 2 "$TMP/repl-conv.err")"
	elif ! grep -q -F "warning: $d: snapshot 1 left out: record.json marks it: lost: " "$TMP/repl-conv.err"; then
		fail replaced_snapshot "the conversion does not name snapshot 1: $(tl 2 "$TMP/repl-conv.err")"
	else
		ok replaced_snapshot
	fi
}

run_tests multi_snapshot_three trigger_storm storm_interrupt newline_in_dir disk_full \
	cut_snapshot unfinished_snapshot replaced_snapshot
if no_procs; then
	ok no_leftovers
else
	fail no_leftovers "left: $(pgrep -s 0 -af "perf record -o $TMP") $(pgrep -s 0 -af "^$PROG")"
fi
