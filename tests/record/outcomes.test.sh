#!/usr/bin/env bash
# tier: record
# What the recorder says where it used to mislead or say nothing (issue 24,
# item 7), each a one-line error, exit 2 (usage) unless said:
# - -d (front end) or -o naming an earlier recording: names the option,
#   nothing recorded, no "what perf wrote stays" about a directory it did
#   not write;
# - attach -p 2 / -t 2, a kernel thread: refused, naming it;
# - a launched program that never ran (killed or stopped before its exec, a
#   stop as the recording started, its libraries missing): the one thing
#   that happened, no word of the stale perf maps at its pid
#   (never_started, below);
# - magic-trace's one-dash spelling -trigger X: "did you mean --trigger";
# - a stripped program: the error for a function name suggests what works
#   there (LIB:NAME, addr: of a function start as `snaptrace symbols` lists
#   them from the unwind table), and following it records: an addr: at such
#   a start takes --trigger-slower-than, one inside names the start; every
#   FDE start of .eh_frame (readelf --debug-dump=frames, the reference) but
#   those of the PLT sections (readelf -S: one FDE for a table of stubs, which
#   perf names NAME@plt; the old code listed each as a function) is listed
#   as the trace names it, "[unnamed @ 0xSTART]", and resolves as a
#   function's entry, the highest one's code to its FDE's end too (the old
#   code listed all but the highest: its size was "to the next start", and
#   none follows it), in the test's stripped program and the distribution's
#   stripped xz and gzip;
# - a program stripped of .symtab that keeps a .dynsym (-rdynamic, as
#   Debian's python3.11 and liblzma.so.5): `snaptrace symbols` lists its
#   .dynsym functions by name and beside them every FDE function no .dynsym
#   function holds (readelf's, the reference), "[unnamed @ 0xSTART]" as the
#   trace names it; an addr: at such a start records (8 calls, the slow one
#   a hit), record.json and the trace name the function so (the old code
#   listed none of them and refused addr: there: "in no function"); the
#   same listing for python3.11 and liblzma.so.5 where installed;
# - two Rust functions of one name: the error shows each with its hash and
#   says to give one (not "the parameter list");
# - a launched program still running when a single-snapshot trigger ends the
#   recording: one line says it was sent SIGTERM and why (and SIGKILL when
#   it ignored SIGTERM), its buffered output lost; --quiet silences it (the
#   old code ended it without a word: record.json has no exit for it); and
#   the processes a program leaves running when it exits: one line says how
#   many were ended, with SIGTERM (then SIGKILL when one ignored SIGTERM).
#   record.json's exits list such a program as the recorder ended it: its
#   signal (SIGTERM; SIGKILL when it ignored SIGTERM), "after_end" and
#   "sigterm" true (the old code: exits []), not the program's own end: the
#   recorder exits 0, neither it nor the converter says "the program was
#   killed".
# - a launched program still running at --duration (or the recorder's
#   SIGTERM) is ended as soon as perf has stopped, before the recorder
#   releases its own events (0.9 s of the kernel's grace periods, the
#   program ran on unrecorded meanwhile: its SIGTERM handler counts the
#   recorder's perf events still open); one that exits with a status of its
#   own (here 7, from its SIGTERM handler) is told as that: record.json's
#   exits, the front end's exit status 7 (the old code: exits [], exit 0, "ended
#   with SIGTERM"), and the converter says it exited at that SIGTERM, after
#   --duration ended the recording, the trace holding none of its end.
# - a launched program and --duration, in every order of the two (the
#   program, `exitgo`, exits with status 3 when the test writes its FIFO; a
#   perf of the test's, `stopperf`, lets it go when the recorder stops it:
#   before passing the stop on, or after perf wrote its snapshot): it exits
#   first: end "exit", "the program exited with status 3"; it exits while
#   perf stops (either way): end "duration", record.json's exit "after_end",
#   and the converter says --duration ended the recording first, the program
#   then exited with status 3 by itself, and whether the trace holds its end
#   (its exit is in the snapshot only when it came before perf stopped), the
#   front end's exit status 3 each time (the old code said "the program exited
#   with status 3" as if the trace ended at its exit: a user's 1 s program
#   recorded with --duration 1s, 1 run in 3).
# - an output that can never be written (in /sys: root passes access(2)
#   there, the file is refused): the front end's -o and -d, the recorder's
#   -o, the converter's -o and --check-options, each refused before anything
#   is recorded or converted: one line naming the path, exit 2 (the old code
#   recorded, then failed with exit 1; --check-options said 0).
# - -o naming a FIFO no process reads: the front end refuses it before
#   recording, the converter before converting, one line, exit 2 (the old
#   code recorded, then hung opening it); with a reader, `snaptrace run`
#   writes the trace into it (read back).
# - --multi-snapshot with --trigger none: a usage error (exit 2, nothing
#   recorded); for a program without a trigger symbol: said ignored, naming
#   it, as --arm-after is (the old code took it silently); the one snapshot
#   at the end is converted and read back.
# - a trigger that never fired (signal:USR1, never sent) is said at the end, with what the snapshot holds instead (the
#   old code said nothing).
# - two unrelated recordings converted together (issue 24: no word): two
#   directories or their perf.data files given together, of different
#   programs, or a directory whose record.json names another boot: one
#   line naming both and what the trace shows (the trace is written and
#   read back with both programs' slices); a recording alone, or with one
#   of the same program and boot: no such line.
# - an output that fills (/dev/full), of every writer: the front end's -o
#   (the converter writes it as its standard output) names /dev/full, not
#   "-" (issue 24); the converter's -o -, --dump, stats' report, the
#   recorder's --symbols, --help of the programs and the front end: exit 1
#   and one line "standard output (/dev/full): cannot write" (the old code
#   exited 0 or 1 without a word for most of them).
# - a machine just booted, where nothing has mounted tracefs yet (here: a
#   mount namespace of the test's own with it unmounted): the recorder as
#   root mounts it as perf would, and records sched:sched_switch and watches
#   the signals (the old code said they need root, and refused
#   --trigger signal:USR1).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/rec-lib.sh"

NAMES="dir_earlier_recording kernel_thread_refused single_dash_long stripped_suggestion
stripped_every_fde stripped_addr_works stripped_addr_inside dynsym_every_fde dynsym_addr_works
dynsym_tail_followed
rust_hash_suggested ended_program_said killed_exit_listed own_status_kept
duration_exit_first duration_exit_at_stop duration_exit_after_stop
unwritable_refused trace_is_dir_refused no_return_named fifo_no_reader fifo_read
multi_none_said never_fired_said tracefs_unmounted full_output_named unrelated_said
no_leftovers"
need_recording outcomes
requires_all gcc binutils
FRONT="$SNAPTRACE_BIN/snaptrace"
TRIGSPEC="$SNAPTRACE_TEST_BIN/trigspec"
need_built outcomes "$TRIGSPEC"

cat >"$TMP/prog.c" <<'EOF'
#include <time.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
__attribute__((noinline)) void spin(double ms) { double t = now(); while (now() - t < ms); }
__attribute__((noinline)) void work(int i) { spin(i == 3 ? 12 : 1); }
__attribute__((noinline)) int load_a(int x) __asm__("_ZN7mycrate5store4load17h0123456789abcdefE");
__attribute__((noinline)) int load_a(int x) { return x + 1; }
__attribute__((noinline)) int load_b(int x) __asm__("_ZN7mycrate5store4load17hfedcba9876543210E");
__attribute__((noinline)) int load_b(int x) { return x + 2; }
int main(void)
{
	for (int i = 0; i < 8; i++)
		work(i);
	return load_a(1) + load_b(2) == 6 ? 0 : 1;
}
EOF
PROG="$TMP/prog"
gcc -O1 -g -fno-omit-frame-pointer -o "$PROG" "$TMP/prog.c" 2>"$TMP/cc.err" ||
	fail_all "cannot build the test program: $(tl 3 "$TMP/cc.err")"
cp "$PROG" "$TMP/stripped" && strip "$TMP/stripped"
# dynsym: functions exported (.dynsym, -rdynamic) and static ones, its
# .symtab stripped (dynsym.full keeps it: where the static ones start);
# tailer(), exported, leaves by a tail call (-O2) and is called from
# hidden_work(), static
cat >"$TMP/dynsym.c" <<'EOF'
#include <time.h>
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
static __attribute__((noinline)) void spin(double ms) { double t = now(); while (now() - t < ms); }
__attribute__((noinline)) void tailer(int i) { spin(i == 3 ? 12 : 1); }
static __attribute__((noinline)) void hidden_work(int i) { tailer(i); __asm__ volatile("" ::: "memory"); }
__attribute__((noinline)) void api_entry(int i) { hidden_work(i); }
int main(void)
{
	for (int i = 0; i < 8; i++)
		api_entry(i);
	return 0;
}
EOF
gcc -O2 -g -fno-omit-frame-pointer -rdynamic -o "$TMP/dynsym.full" "$TMP/dynsym.c" 2>"$TMP/cc.err" ||
	fail_all "cannot build the test program: $(tl 3 "$TMP/cc.err")"
cp "$TMP/dynsym.full" "$TMP/dynsym" && strip "$TMP/dynsym"
# ends: buffers a line of output, calls trig() 40 ms in, runs 5 s more;
# `ends ignore` ignores SIGTERM; `ends exit7 FILE`, on SIGTERM, writes into
# FILE how many perf events its parent (the recorder) holds, and exits 7
# orphan: leaves a child sleeping 120 s (SIGTERM ignored with `orphan ignore`):
# the recorder ends it; 5 s was shorter than a recording at load ~15
cat >"$TMP/orphan.c" <<'EOF'
#include <signal.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	if (fork() == 0) {
		if (argc > 1)
			signal(SIGTERM, SIG_IGN);
		sleep(120);
		_exit(0);
	}
	usleep(20000);
	return 0;
}
EOF
gcc -O1 -o "$TMP/orphan" "$TMP/orphan.c" 2>"$TMP/cc.err" ||
	fail_all "cannot build the test program: $(tl 3 "$TMP/cc.err")"
cat >"$TMP/ends.c" <<'EOF'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <stdlib.h>
static const char *count_file;
static void exit7(int sig)
{
	char path[64], link[64];
	int n = 0;
	DIR *d;
	struct dirent *e;
	FILE *f;

	(void)sig;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)getppid());
	if ((d = opendir(path))) {
		while ((e = readdir(d))) {
			ssize_t len;

			snprintf(path, sizeof(path), "/proc/%d/fd/%s", (int)getppid(), e->d_name);
			len = readlink(path, link, sizeof(link) - 1);
			if (len > 0 && (link[len] = 0, strstr(link, "perf_event")))
				n++;
		}
		closedir(d);
	}
	if ((f = fopen(count_file, "w"))) {
		fprintf(f, "%d\n", n);
		fclose(f);
	}
	_exit(7);
}
__attribute__((noinline)) void trig(void) { usleep(1000); }
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "ignore"))
		signal(SIGTERM, SIG_IGN);
	if (argc > 2 && !strcmp(argv[1], "exit7")) {
		count_file = argv[2];
		signal(SIGTERM, exit7);
	}
	printf("ends: a line the program buffers\n");
	for (int i = 0; i < 2500; i++) {
		usleep(2000);
		if (i == 20)
			trig();
	}
	return 0;
}
EOF
gcc -O1 -g -fno-omit-frame-pointer -o "$TMP/ends" "$TMP/ends.c" 2>"$TMP/cc.err" ||
	fail_all "cannot build the test program: $(tl 3 "$TMP/cc.err")"
# nolib: a program whose library is gone (the loader fails, exit 127);
# noloader: one whose dynamic loader is not there (its exec fails)
echo 'int gone(void) { return 0; }' >"$TMP/gone.c"
echo 'int gone(void); int main(void) { return gone(); }' >"$TMP/nolib.c"
gcc -shared -fPIC -o "$TMP/libsnaptracegone.so" "$TMP/gone.c" 2>"$TMP/cc.err" &&
	gcc -o "$TMP/nolib" "$TMP/nolib.c" -L"$TMP" -lsnaptracegone 2>"$TMP/cc.err" &&
	rm "$TMP/libsnaptracegone.so" &&
	gcc -o "$TMP/noloader" "$TMP/gone.c" -nostartfiles -Wl,-e,gone \
		-Wl,--dynamic-linker=/nonexistent/ld-snaptrace.so.2 2>"$TMP/cc.err" ||
	fail_all "cannot build the test program: $(tl 3 "$TMP/cc.err")"
# exitgo FIFO PIDFILE: writes its pid into PIDFILE, exits with status 3 once
# FIFO is written
cat >"$TMP/exitgo.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	FILE *f = argc == 3 ? fopen(argv[2], "w") : NULL;
	char c;
	int fd;

	if (!f)
		return 2;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	fd = open(argv[1], O_RDONLY);
	return fd >= 0 && read(fd, &c, 1) >= 0 ? 3 : 2;
}
EOF
gcc -O1 -g -fno-omit-frame-pointer -o "$TMP/exitgo" "$TMP/exitgo.c" 2>"$TMP/cc.err" ||
	fail_all "cannot build the test program: $(tl 3 "$TMP/cc.err")"
TARGETS=("$PROG" "$TMP/stripped" "$TMP/dynsym" "$TMP/ends" "$TMP/orphan" "$TMP/exitgo" "$TMP/nolib")

# refuses NAME STATUS PATTERN CMD...: CMD exits STATUS with one line matching PATTERN.
refuses() {
	local name=$1 status=$2 pattern=$3 rc
	shift 3
	"$@" </dev/null >/dev/null 2>"$TMP/$name.err"
	rc=$?
	if [ $rc -ne "$status" ] || [ "$(wc -l <"$TMP/$name.err")" -ne 1 ] ||
		! grep -q -- "$pattern" "$TMP/$name.err"; then
		echo "[$*: exit $rc: $(tl 3 "$TMP/$name.err")]"
	fi
}

t_dir() {
	local d="$TMP/earlier" bad=""
	"$RECORD" -q -o "$d" --trigger none -- /bin/true >/dev/null 2>&1
	cp "$d/record.json" "$TMP/record.json.before"
	bad+=$(refuses dir_fe 2 "^snaptrace: -d $d: expected a new directory, found an earlier recording (record.json); nothing was recorded: choose another -d$" \
		"$FRONT" run -d "$d" -o "$TMP/t.fxt" --trigger none -- /bin/true)
	bad+=$(refuses dir_rec 2 "^snaptrace-record: -o $d: .*choose another -o$" \
		"$RECORD" -o "$d" --trigger none -- /bin/true)
	if [ -n "$bad" ]; then
		fail dir_earlier_recording "$bad"
	elif ! cmp -s "$d/record.json" "$TMP/record.json.before" || [ -e "$TMP/t.fxt" ]; then
		fail dir_earlier_recording "the earlier recording was touched, or a trace written"
	else
		ok dir_earlier_recording
	fi
}

t_kernel_thread() {
	local bad=""
	if [ "$(cat /proc/2/comm 2>/dev/null)" != kthreadd ]; then
		fail kernel_thread_refused "expected pid 2 to be kthreadd, found '$(cat /proc/2/comm 2>/dev/null)'"
		return
	fi
	bad+=$(refuses kt_p 2 "^snaptrace: -p 2: expected a user process, found a kernel thread (kthreadd)" \
		"$FRONT" attach -p 2 -d "$TMP/kt" --trigger none --duration 2)
	bad+=$(refuses kt_t 2 "^snaptrace-record: -t 2: expected a user process, found a kernel thread" \
		"$RECORD" -o "$TMP/kt2" -t 2 --trigger none --duration 2)
	if [ -n "$bad" ] || [ -e "$TMP/kt2" ]; then
		fail kernel_thread_refused "$bad"
	else
		ok kernel_thread_refused
	fi
}

t_single_dash() {
	local bad=""
	bad+=$(refuses sd1 2 "^snaptrace: -trigger: did you mean --trigger? (with one dash it reads as -t rigger)" \
		"$FRONT" run -trigger work -- "$PROG")
	bad+=$(refuses sd2 2 "^snaptrace-record: -duration=1: did you mean --duration?" \
		"$RECORD" -duration=1 -- "$PROG")
	if [ -n "$bad" ]; then fail single_dash_long "$bad"; else ok single_dash_long; fi
}

# the function's start, as `snaptrace symbols` lists it: by name in the
# program, among the unnamed ones of the stripped copy (the same addresses)
t_stripped() {
	local start unnamed d="$TMP/saddr" bad
	start=$("$FRONT" symbols "$PROG" | awk -F '\t' '$2 == "work" { print $4 }')
	unnamed=$("$FRONT" symbols "$TMP/stripped" | awk -F '\t' -v a="$start" '$4 == a { print $1 }')
	[ "$unnamed" = "[unnamed @ $start]" ] && unnamed=ok
	bad=$(refuses strip_name 1 "expected a symbol table to find 'work', found none (stripped): trigger on a function of a library it uses (LIB:NAME, e.g. libc:write), or on one of its own by the address where it starts (addr:0xHEX, as \`snaptrace symbols $TMP/stripped\` lists them" \
		"$RECORD" -o "$TMP/sname" --trigger work -- "$TMP/stripped")
	if [ -n "$bad" ] || [ -z "$start" ] || [ "$unnamed" != ok ]; then
		fail stripped_suggestion "$bad; work at '$start', listed in the stripped copy as '$unnamed'"
	else
		ok stripped_suggestion
	fi
	if ! "$RECORD" -q -o "$d" --trigger "addr:$start" --trigger-slower-than 5ms --multi-snapshot \
		-- "$TMP/stripped" >/dev/null 2>"$d.err"; then
		fail stripped_addr_works "addr:$start refused: $(tl 2 "$d.err")"
	elif [ "$(trig "$d" calls)" != 8 ] || [ "$(trig "$d" calls_slower)" -lt 1 ]; then
		fail stripped_addr_works "expected 8 calls, the 12 ms one slow: $(rec_part "$d" trigger.)"
	else
		ok stripped_addr_works
	fi
	bad=$(refuses strip_in 2 "found 'addr:$(printf '0x%x' $((start + 1)))' .*inside the function at $start; give its start: --trigger addr:$start\|is inside the instruction" \
		"$RECORD" -o "$TMP/sin" --trigger "addr:$(printf '0x%x' $((start + 1)))" --trigger-slower-than 5ms -- "$TMP/stripped")
	if [ -n "$bad" ]; then fail stripped_addr_inside "$bad"; else ok stripped_addr_inside; fi
}

# jumped FILE: the FDE starts of FILE whose CFA there is not rsp+8
# (readelf --debug-dump=frames-interp: the row at an FDE's pc; one without
# rows has its CIE's, rsp+8), as 0xHEX, sorted: code a jump enters, no
# function (python3.11's 0x42144c: rsp+32)
jumped() {
	readelf --debug-dump=frames-interp "$1" | awk '
		/ FDE / { pc = $0; sub(/.*pc=/, "", pc); sub(/\.\..*/, "", pc); next }
		/ CIE / || /^$/ { pc = ""; next }
		pc != "" && $1 == pc { if ($2 != "rsp+8") print pc; pc = "" }' |
		while read -r a; do printf '0x%x\n' "$((16#$a))"; done | sort -u
}

# uncovered FILE: the FDE starts (readelf --debug-dump=frames) of FILE that
# no .dynsym function holds (readelf --dyn-syms: [value, value + size), a
# size 0 its value), outside its PLT sections (readelf -S: .plt, .plt.*),
# but those a jump enters (jumped), as 0xHEX, sorted: the functions
# `snaptrace symbols` lists by their start
uncovered() {
	local f=$1 a b
	{
		readelf -SW "$f" | sed -n 's/^ *\[ *[0-9]*\] \.plt[^ ]* *[A-Z]* *\([0-9a-f]*\) [0-9a-f]* \([0-9a-f]*\) .*/\1 \2/p' |
			while read -r a b; do echo "$((16#$a)) 0 $((16#$a + 16#$b))"; done
		readelf --dyn-syms -W "$f" | awk '($4 == "FUNC" || $4 == "IFUNC") && $7 != "UND" { print $2, $3 }' |
			while read -r a b; do echo "$((16#$a)) 0 $((16#$a + (b ? b : 1)))"; done
		readelf --debug-dump=frames "$f" | sed -n 's/.* FDE .* pc=0*\([0-9a-f]*\)\.\.[0-9a-f]*$/\1/p' |
			while read -r a; do echo "$((16#$a)) 1"; done
	} | sort -n -k1,1 -k2,2 | awk '$2 == 0 { if ($3 > end) end = $3; next } $1 >= end { print $1 }' |
		while read -r a; do printf '0x%x\n' "$a"; done | sort -u | comm -23 - <(jumped "$f")
}

# listed_unnamed FILE: the starts `snaptrace symbols FILE` lists unnamed,
# each named "[unnamed @ START]" with the spelling --trigger takes,
# "FILE:addr:START", where the symbol would be (else "bad START"), sorted
listed_unnamed() {
	"$FRONT" symbols "$1" | awk -F '\t' '$1 ~ /unnamed/ || $2 == "" || $2 ~ /:addr:/ {
		print ($1 == "[unnamed @ " $4 "]" && $2 == $3 ":addr:" $4 ? "" : "bad ") $4 }' | sort -u
}

# unnamed_listed FILE: what is wrong with FILE's unnamed functions in
# `snaptrace symbols` against uncovered(): a start not listed, or listed
# and no such FDE's, or named otherwise
unnamed_listed() {
	local f=$1 want listed
	want=$(uncovered "$f")
	listed=$(listed_unnamed "$f")
	if [ -z "$want" ] || [ "$want" != "$listed" ]; then
		echo "[$f: $(wc -l <<<"$want") FDE functions, $(wc -l <<<"$listed") listed: $(diff <(echo "$want") <(echo "$listed") | grep '^[<>]' | head -n 3 | tr '\n' ' ')]"
	fi
}

# every_fde FILE: what is wrong with FILE's unnamed functions (no symbol at
# all) against its FDEs as readelf decodes them (unnamed_listed), a start
# that does not resolve as an entry, the highest FDE's last byte held by no
# function.
every_fde() {
	local f=$1 fdes last end spec
	fdes=$(readelf --debug-dump=frames "$f" |
		sed -n 's/.* FDE .* pc=0*\([0-9a-f]*\)\.\.0*\([0-9a-f]*\)$/0x\1 0x\2/p' | sort -u)
	unnamed_listed "$f"
	fdes=$(awk 'NR == FNR { u[$1]; next } $1 in u' <(uncovered "$f") - <<<"$fdes")
	read -r last end < <(while read -r a b; do echo "$((a)) $a $b"; done <<<"$fdes" |
		sort -n | tail -n 1 | cut -d ' ' -f 2-)
	"$TRIGSPEC" "$f" $(sed 's/^\(0x[0-9a-f]*\) .*/addr:\1/' <<<"$fdes") >"$TMP/fde.out" 2>&1
	if [ "$(grep -c $'\tentry$' "$TMP/fde.out")" != "$(wc -l <<<"$fdes")" ]; then
		echo "[$f: not entries: $(grep -v $'\tentry$' "$TMP/fde.out" | head -n 2 | tr '\n\t' '  ')]"
	fi
	spec=addr:$(printf '0x%x' $((end - 1)))
	if "$TRIGSPEC" "$f" "$spec" 2>&1 | grep -q "found none holding it"; then
		echo "[$f: $spec, the last byte of the highest FDE ($last..$end), in no function]"
	fi
}

t_every_fde() {
	local bad="" f
	bad+=$(every_fde "$TMP/stripped")
	for f in /usr/bin/xz /usr/bin/gzip; do
		if [ -f "$f" ] && ! readelf -S "$f" | grep -q '\.symtab'; then
			bad+=$(every_fde "$f")
		fi
	done
	if [ -n "$bad" ]; then fail stripped_every_fde "$bad"; else ok stripped_every_fde; fi
}

# a program with .dynsym alone: its exported functions by name, the others
# as the trace names them; an addr: at hidden_work's start records, and the
# trace's calls of it have that name; the slow-call trigger on tailer()
# finds its call in hidden_work() (record/callsites.c decodes every
# function, rec_elf_code(): the old code decoded only the symbols' here)
t_dynsym() {
	local bad="" f start name d="$TMP/dynaddr" starts
	bad+=$(unnamed_listed "$TMP/dynsym")
	"$FRONT" symbols "$TMP/dynsym" | grep -q $'^api_entry\tapi_entry\t' ||
		bad+="[api_entry not listed by name]"
	starts=$(uncovered "$TMP/dynsym")
	"$TRIGSPEC" "$TMP/dynsym" $(sed 's/^/addr:/' <<<"$starts") >"$TMP/dynfde.out" 2>&1
	[ "$(grep -c $'\tentry$' "$TMP/dynfde.out")" = "$(wc -l <<<"$starts")" ] ||
		bad+="[not entries: $(grep -v $'\tentry$' "$TMP/dynfde.out" | head -n 2 | tr '\n\t' '  ')]"
	for f in /usr/bin/python3.11 /usr/lib/x86_64-linux-gnu/liblzma.so.5; do
		if [ -f "$f" ] && ! readelf -S "$f" | grep -q '\.symtab'; then
			bad+=$(unnamed_listed "$f")
		fi
	done
	if [ -n "$bad" ]; then fail dynsym_every_fde "$bad"; else ok dynsym_every_fde; fi
	start=$("$FRONT" symbols "$TMP/dynsym.full" | awk -F '\t' '$2 ~ /^hidden_work/ { print $4 }')
	name="[unnamed @ $start]"
	if [ -z "$start" ] || ! grep -qx "$start" <<<"$starts"; then
		fail dynsym_addr_works "hidden_work at '$start', not among the unnamed starts"
	elif ! "$FRONT" run -d "$d" -o "$d.fxt.gz" --trigger "addr:$start" --trigger-slower-than 5ms \
		--multi-snapshot -- "$TMP/dynsym" >/dev/null 2>"$d.err"; then
		fail dynsym_addr_works "addr:$start refused: $(tl 2 "$d.err")"
	elif [ "$(trig "$d" calls)" != 8 ] || [ "$(trig "$d" calls_slower)" -lt 1 ] ||
		[ "$(trig "$d" name)" != "$name" ]; then
		fail dynsym_addr_works "expected 8 calls of $name, the 12 ms one slow: $(rec_part "$d" trigger.)"
	elif ! "$CONVERT" --dump=slices "$d.fxt.gz" 2>/dev/null | grep -qF " $name"; then
		fail dynsym_addr_works "no slice named '$name' in the trace: $(tl 3 "$d.err")"
	else
		ok dynsym_addr_works
	fi
	# tailer()'s direct call from hidden_work(), a function no symbol
	# names: found by decoding it, so each call ends where it resumes
	d="$TMP/dyntail"
	if ! objdump -d --no-show-raw-insn "$TMP/dynsym.full" | awk '/<tailer>:/, /^$/' |
		grep -Eq 'jmp +[0-9a-f]+ <spin'; then
		fail dynsym_tail_followed "expected tailer() built with a tail call (jmp) of spin()"
	elif ! "$RECORD" -o "$d" --multi-snapshot --min-interval 100000 --trigger tailer \
		--trigger-slower-than 5ms -- "$TMP/dynsym" >/dev/null 2>"$d.err"; then
		fail dynsym_tail_followed "refused: $(tl 2 "$d.err")"
	elif [ "$(trig "$d" calls)" != 8 ] || [ "$(trig "$d" calls_tail)" != 8 ] ||
		[ "$(trig "$d" calls_tail_at_jump)" != 0 ] || grep -q "no direct call" "$d.err"; then
		fail dynsym_tail_followed "expected 8 calls, each followed to where hidden_work() resumes: $(rec_part "$d" trigger.calls): $(grep warning "$d.err" | head -n 2)"
	else
		ok dynsym_tail_followed
	fi
}

t_rust() {
	local bad
	bad=$(refuses rust 2 "expected one function named 'mycrate::store::load', found 2: mycrate::store::load::h0123456789abcdef (_ZN7mycrate5store4load17h0123456789abcdefE, 0x[0-9a-f]*), mycrate::store::load::hfedcba9876543210 .*; give one with its hash (mycrate::store::load::h0123456789abcdef, as rustfilt -v shows it)" \
		"$RECORD" -o "$TMP/rust" --trigger mycrate::store::load -- "$PROG")
	if [ -n "$bad" ] || grep -q "parameter list" "$TMP/rust.err"; then
		fail rust_hash_suggested "$bad"
	else
		ok rust_hash_suggested
	fi
}

# ended WHY ARGS...: what is wrong with the recorder's words when a trigger
# ends the program `ends ARGS`: one line naming SIGTERM (and SIGKILL after
# it when WHY is kill), the program's buffered output lost; and none with -q.
ended() {
	local kill=$1 d="$TMP/ended$1" n then
	shift
	"$RECORD" -o "$d" --arm-after 0 --trigger trig -- "$TMP/ends" "$@" >"$d.out" 2>"$d.err"
	echo $? >"$d.rc"
	n=$(grep -c "^snaptrace-record: the recording ended at its trigger (one snapshot): ended the launched program (process [0-9]*) with SIGTERM" "$d.err")
	then=$(grep -c "with SIGTERM, then SIGKILL (it had not exited 500 ms later); what it had not written yet (buffered output) is lost$" "$d.err")
	if [ "$n" != 1 ] || [ "$then" != "$([ "$kill" = kill ] && echo 1 || echo 0)" ]; then
		echo "[ends $*: $n lines naming SIGTERM, $then naming SIGKILL: $(tl 3 "$d.err")]"
	elif [ -s "$d.out" ] || [ "$(rec_field "$d" end)" != trigger ]; then
		echo "[ends $*: output '$(head -c 80 "$d.out")', end $(rec_field "$d" end)]"
	fi
	"$RECORD" -q -o "$d.q" --arm-after 0 --trigger trig -- "$TMP/ends" "$@" >/dev/null 2>"$d.q.err"
	if grep -q "SIGTERM" "$d.q.err"; then
		echo "[ends $* -q: $(tl 2 "$d.q.err")]"
	fi
}

# killed_exit_listed: record.json's exits list the launched program the
# recorder ended at its trigger (ended's recordings, after t_ended): killed
# by SIGTERM (SIGKILL when it ignored SIGTERM), after_end and sigterm true,
# as README says (the old code: exits []); not the program's own end: the
# recorder exits 0 and says no "the program was killed", the converter
# draws no line on how it ended.
t_killed_listed() {
	local bad="" w d got want
	for w in term kill; do
		d="$TMP/ended$w"
		want="15 SIGTERM true true"
		[ $w = kill ] && want="9 SIGKILL true true"
		got=$(rec_rows "$d" exits signal name after_end sigterm)
		[ "$got" = "$want" ] || bad+="[$w: exits '$got', expected '$want': $(rec_part "$d" exits)]"
		[ "$(cat "$d.rc" 2>/dev/null)" = 0 ] || bad+="[$w: the recorder exited $(cat "$d.rc" 2>/dev/null)]"
		grep -q "the program was killed" "$d.err" && bad+="[$w: $(grep -m 1 "was killed" "$d.err")]"
		if ! "$CONVERT" "$d" -o "$d.fxt" >/dev/null 2>"$d.conv"; then
			bad+="[$w: conversion failed: $(tl 2 "$d.conv")]"
		elif grep -q "the program " "$d.conv"; then
			bad+="[$w: the converter says: $(grep -m 1 "the program " "$d.conv")]"
		fi
	done
	if [ -n "$bad" ]; then fail killed_exit_listed "$bad"; else ok killed_exit_listed; fi
}

# orphaned WHY ARGS...: what is wrong with the line on the process `orphan
# ARGS` leaves running (SIGKILL after SIGTERM when WHY is kill).
orphaned() {
	local d="$TMP/orphan$1" want="with SIGTERM$"
	[ "$1" = kill ] && want="with SIGTERM, then SIGKILL (not all had exited 500 ms later)$"
	shift
	"$RECORD" -o "$d" --trigger none -- "$TMP/orphan" "$@" >/dev/null 2>"$d.err"
	if [ "$(grep -c "^snaptrace-record: the launched program left 1 process running (process [0-9]*): ended $want" "$d.err")" != 1 ]; then
		echo "[orphan $*: $(tl 3 "$d.err")]"
	fi
}

t_ended() {
	local bad
	bad=$(ended term)$(ended kill ignore)$(orphaned term)$(orphaned kill ignore)
	if [ -n "$bad" ]; then fail ended_program_said "$bad"; else ok ended_program_said; fi
}

# own_status: `snaptrace run --duration` of `ends exit7`: its own exit 7 told
# and passed on, and it was ended before the recorder released its events.
t_own_status() {
	local d="$TMP/own" rc bad="" ev
	"$FRONT" run -d "$d" -o "$TMP/own.fxt.gz" --trigger none --duration 0.3 -- \
		"$TMP/ends" exit7 "$TMP/own.count" >/dev/null 2>"$TMP/own.err"
	rc=$?
	[ $rc = 7 ] || bad+="[exit $rc, not the program's 7]"
	[ "$(rec_rows "$d" exits status)" = 7 ] ||
		bad+="[record.json exits: $(rec_part "$d" exits)]"
	grep -q "^snaptrace: the recording ended at --duration: sent SIGTERM to the launched program (process [0-9]*); it exited with status 7$" "$TMP/own.err" ||
		bad+="[no line telling its exit: $(tl 4 "$TMP/own.err")]"
	grep -q "ended the launched program" "$TMP/own.err" && bad+="[said ended by SIGTERM]"
	grep -q "^snaptrace-convert: the program exited with status 7 after the recording ended at --duration, at the SIGTERM snaptrace-record then sent it: the trace holds none of its end" "$TMP/own.err" ||
		bad+="[the converter does not say it exited at the SIGTERM: $(grep "the program" "$TMP/own.err")]"
	ev=$(cat "$TMP/own.count" 2>/dev/null)
	[ "${ev:-0}" -gt 0 ] ||
		bad+="[ended after the recorder released its events ('$ev' open at its SIGTERM)]"
	"$CONVERT" --dump=slices "$TMP/own.fxt.gz" 2>/dev/null | grep -q "spin\|usleep\|main" ||
		bad+="[the trace holds none of its functions]"
	if [ -n "$bad" ]; then fail own_status_kept "$bad"; else ok own_status_kept; fi
}

# stopperf MODE: a perf (the recorder's --perf) that lets exitgo go (writes
# its FIFO and waits until it is a zombie or gone) when the recorder stops
# perf: before passing the stop on (MODE before), or once perf has stopped
# (after): the recorder reaps perf, then sees the program gone. Its SIGINT
# is made default first, then trapped: a background job of a script starts
# with SIGINT ignored, which bash cannot trap. The
# recorder runs perf with an environment of its own (childenv.h): the
# paths are written in.
stopperf() {
	cat >"$TMP/stopperf-$1" <<EOF
#!/usr/bin/env bash
case \$1 in
record) exec env --default-signal=INT "\$0" stopperf "\$@" ;;
stopperf) shift ;;
*) exec perf "\$@" ;;
esac
perf "\$@" &
p=\$!
release() {
	local pid st i
	echo go >"$TMP/exitgo.fifo"
	pid=\$(cat "$TMP/exitgo.pid")
	for ((i = 0; i < 1000; i++)); do
		st=\$(sed 's/.*) //' /proc/\$pid/stat 2>/dev/null | cut -c1)
		[ -z "\$st" ] || [ "\$st" = Z ] && return
		sleep 0.01
	done
}
stop() {
	[ $1 = before ] && release
	kill -INT \$p
}
trap stop INT
wait \$p
wait \$p
rc=\$?
[ $1 = after ] && release
trap - INT
[ \$rc = 130 ] && kill -INT \$\$
exit \$rc
EOF
	chmod +x "$TMP/stopperf-$1"
}

# exit_order NAME ORDER: records exitgo with --duration, ORDER "first" (the
# test lets it go at once), "before" or "after" (stopperf does, at the stop).
exit_order() {
	local name=$1 order=$2 d="$TMP/order-$2" rc bad="" end exits line want opts=()
	rm -f "$TMP/exitgo.fifo" "$TMP/exitgo.pid"
	mkfifo "$TMP/exitgo.fifo"
	case $order in
	first) opts=(--duration 30) ;;
	*) stopperf "$order"; opts=(--duration 0.5 --perf "$TMP/stopperf-$order") ;;
	esac
	"$FRONT" run -d "$d" -o "$d.fxt.gz" --trigger none "${opts[@]}" -- \
		"$TMP/exitgo" "$TMP/exitgo.fifo" "$TMP/exitgo.pid" >/dev/null 2>"$d.err" &
	BG+=("$!")
	if [ "$order" = first ] && wait_until 20 test -s "$TMP/exitgo.pid"; then
		sleep 0.3   # perf records it blocked
		echo go >"$TMP/exitgo.fifo"
	fi
	wait "${BG[-1]}"
	rc=$?
	[ $rc = 3 ] || bad+="[exit $rc, not the program's 3]"
	end=$(rec_part "$d" end=)
	exits=$(rec_rows "$d" exits status after_end sigterm)
	line=$(grep "^snaptrace-convert: the program" "$d.err")
	if [ "$order" = first ]; then
		[ "$end" = "end=exit " ] || bad+="[$end]"
		[ "$exits" = "3 false false" ] || bad+="[exits: $exits]"
		want="exited with status 3"
	else
		[ "$end" = "end=duration " ] || bad+="[$end]"
		[ "$exits" = "3 true false" ] || bad+="[exits: $exits]"
		want="exited with status 3 after the recording ended at --duration, by itself while perf stopped: the trace holds its end"
		[ "$order" = after ] && want="${want/its end/none of its end}"
	fi
	[ "$line" = "snaptrace-convert: the program $want" ] || bad+="[said: $line]"
	"$CONVERT" --dump=slices "$d.fxt.gz" 2>/dev/null | grep -q "open\|read" ||
		bad+="[the trace holds none of its functions]"
	if [ -n "$bad" ]; then fail "$name" "$bad $(tl 3 "$d.err")"; else ok "$name"; fi
}

t_exit_orders() {
	exit_order duration_exit_first first
	exit_order duration_exit_at_stop before
	exit_order duration_exit_after_stop after
}

t_unwritable() {
	local bad
	bad=$(refuses uw1 2 "^snaptrace: /sys/x.fxt.gz: cannot write a file in directory /sys: " \
		"$FRONT" run -o /sys/x.fxt.gz --trigger none --duration 0.2 -- "$PROG")
	bad+=$(refuses uw2 2 "^snaptrace: -d /sys/snaptrace-d: " \
		"$FRONT" run -d /sys/snaptrace-d -o "$TMP/uw.fxt.gz" --trigger none --duration 0.2 -- "$PROG")
	bad+=$(refuses uw3 2 "^snaptrace-record: -o /sys/snaptrace-d: " \
		"$RECORD" -o /sys/snaptrace-d --trigger none --duration 0.2 -- "$PROG")
	bad+=$(refuses uw4 2 "^snaptrace-convert: /sys/x.fxt.gz: cannot write a file in directory /sys: " \
		"$CONVERT" "$TMP/own" -o /sys/x.fxt.gz)
	bad+=$(refuses uw5 2 "^snaptrace-convert: /sys/x.fxt.gz: cannot write a file in directory /sys: " \
		"$CONVERT" --check-options "$TMP/own" -o /sys/x.fxt.gz)
	[ -e "$TMP/uw.fxt.gz" ] && bad+="[-d refused, yet a trace was written]"
	if [ -n "$bad" ]; then fail unwritable_refused "$bad"; else ok unwritable_refused; fi
}

# -o naming the recording directory (-d), in two spellings: refused before
# the program runs (the old code ran it, lost its status and failed at the
# conversion: "is a directory")
t_trace_is_dir() {
	local bad
	bad=$(refuses td1 2 "^snaptrace: -o $TMP/same.fxt.gz: the recording directory (-d $TMP/same.fxt.gz): expected another path" \
		"$FRONT" run -d "$TMP/same.fxt.gz" -o "$TMP/same.fxt.gz" --trigger none -- sh -c 'touch "$1"' sh "$TMP/ran")
	bad+=$(cd "$TMP" && refuses td2 2 "^snaptrace: -o same.fxt.gz: the recording directory (-d ./same.fxt.gz/): " \
		"$FRONT" run -d ./same.fxt.gz/ -o same.fxt.gz --trigger none -- sh -c 'touch "$1"' sh "$TMP/ran")
	[ -e "$TMP/ran" ] && bad+="[the program ran]"
	[ -e "$TMP/same.fxt.gz" ] && bad+="[$TMP/same.fxt.gz was made]"
	if [ -n "$bad" ]; then fail trace_is_dir_refused "$bad"; else ok trace_is_dir_refused; fi
}

# a function with no return (the workload's m_storm loops for ever):
# --measure and the slow-call trigger refuse it naming the program, not
# the /proc/self/fd/N the recorder reads it by (trial10: "/proc/self/fd/6:
# _Z4leafi has no return")
t_no_return() {
	local bad w="$TMP/workload"
	cp "$SNAPTRACE_TEST_BIN/workload" "$w"
	bad=$(refuses nr1 2 "^snaptrace-record: --measure m_storm: $w: m_storm has no return and no jump out of it" \
		"$RECORD" -o "$TMP/nr1" --measure m_storm -- "$w" work 50)
	bad+=$(refuses nr2 2 "^snaptrace-record: --trigger-slower-than: $w: m_storm has no return and no jump out of it" \
		"$RECORD" -o "$TMP/nr2" --trigger m_storm --trigger-slower-than 1ms -- "$w" work 50)
	if [ -n "$bad" ]; then fail no_return_named "$bad"; else ok no_return_named; fi
}

t_fifo() {
	local bad
	mkfifo "$TMP/ff"
	bad=$(refuses ff1 2 "^snaptrace: $TMP/ff: a FIFO that no process reads: start its reader first" \
		timeout 30 "$FRONT" run -o "$TMP/ff" -d "$TMP/ffrec" --trigger none --duration 0.2 -- "$PROG")
	[ -e "$TMP/ffrec" ] && bad+="[refused, yet recorded into $TMP/ffrec]"
	bad+=$(refuses ff2 2 "^snaptrace-convert: $TMP/ff: a FIFO that no process reads: start its reader first" \
		timeout 30 "$CONVERT" "$TMP/own" -o "$TMP/ff")
	if [ -n "$bad" ]; then fail fifo_no_reader "$bad"; else ok fifo_no_reader; fi
	fifo_reader "$TMP/ff" "$TMP/ff.got"
	timeout 30 "$FRONT" run -q -o "$TMP/ff" --trigger none --duration 0.2 -- "$PROG" \
		>/dev/null 2>"$TMP/ff3.err" {FIFO_RW}>&-
	bad=$?
	fifo_reader_end
	if [ "$bad" != 0 ]; then
		fail fifo_read "exit $bad: $(tl 3 "$TMP/ff3.err")"
	elif ! "$CONVERT" --dump=slices "$TMP/ff.got" 2>&1 | grep -q " work$"; then
		fail fifo_read "the trace read from the FIFO has no work(): $(head -c 200 "$TMP/ff.got" | od -c | head -2)"
	else
		ok fifo_read
	fi
}

t_multi_none() {
	local d="$TMP/mn"
	"$RECORD" -q -o "$d-none" --trigger none --multi-snapshot --duration 0.2 -- "$PROG" \
		>/dev/null 2>"$d-none.err"
	local rc=$?
	"$RECORD" -q -o "$d" --multi-snapshot --duration 0.2 -- "$PROG" >/dev/null 2>"$d.err"
	if [ $rc != 2 ] || [ -e "$d-none" ] ||
		[ "$(cat "$d-none.err")" != "snaptrace-record: --multi-snapshot: expected a trigger (it takes a snapshot at each trigger hit), found --trigger none (see snaptrace-record --help)" ]; then
		fail multi_none_said "with --trigger none (a usage error): exit $rc: $(tl 3 "$d-none.err")"
	elif [ "$(cat "$d.err")" != "snaptrace-record: warning: --multi-snapshot is ignored: it takes a snapshot at each trigger hit, and $PROG has no trigger symbol (one snapshot at the end)" ]; then
		fail multi_none_said "$(tl 3 "$d.err")"
	elif ! slices_of "$d" $(snaps "$d") | grep -q " work$"; then
		fail multi_none_said "its snapshot holds no work(): $(tl 3 "$d/convert.log")"
	else
		ok multi_none_said
	fi
}

t_never_fired() {
	local bad="" want="snaptrace-record: warning: the trigger (SIGUSR1) never fired: the snapshot holds the recording's last moments (end: exit), not the trigger's"
	"$RECORD" -o "$TMP/nf" --arm-after 0 --trigger signal:USR1 -- "$PROG" >/dev/null 2>"$TMP/nf.err"
	grep -qxF "$want" "$TMP/nf.err" || bad+="[$(tl 4 "$TMP/nf.err")]"
	"$RECORD" -o "$TMP/nf.fired" --arm-after 0 --trigger work -- "$PROG" >/dev/null 2>"$TMP/nf.err"
	grep -q "never fired" "$TMP/nf.err" && bad+="[said never fired of a trigger that fired]"
	if [ -n "$bad" ]; then fail never_fired_said "$bad"; else ok never_fired_said; fi
}

t_full() {
	local bad="" rc c STATS="$SNAPTRACE_BIN/snaptrace-stats"
	# refused before anything is recorded: a write that fails, a runtime
	# failure naming the output (exit 1, new-user check 16)
	"$FRONT" run -q --trigger none -d "$TMP/full.d" -o /dev/full -- "$PROG" >/dev/null \
		2>"$TMP/full.err"
	rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l <"$TMP/full.err")" = 1 ] &&
		grep -q "/dev/full: cannot write: No space left on device" "$TMP/full.err" &&
		[ ! -e "$TMP/full.d" ] || bad+="[run -o /dev/full: exit $rc: $(tl 3 "$TMP/full.err")]"
	"$CONVERT" -q "$TMP/full.d" -o /dev/full 2>/dev/null && bad+="[convert -o /dev/full: exit 0]"
	"$RECORD" -q -o "$TMP/full.d" --trigger none -- "$PROG" >/dev/null 2>"$TMP/full.err" &&
		"$CONVERT" -q "$TMP/full.d" -o "$TMP/full.fxt" 2>"$TMP/full.err" ||
		bad+="[cannot record and convert: $(tl 3 "$TMP/full.err")]"
	# a trace into standard output that is /dev/full: refused before converting
	"$CONVERT" -q "$TMP/full.d" -o - >/dev/full 2>"$TMP/full.err"
	rc=$?
	[ "$rc" = 1 ] && [ "$(wc -l <"$TMP/full.err")" = 1 ] &&
		grep -q "standard output (/dev/full): cannot write" "$TMP/full.err" ||
		bad+="[convert -o - into /dev/full: exit $rc: $(tl 3 "$TMP/full.err")]"
	while read -r c; do
		eval "$c" >/dev/full 2>"$TMP/full.err"
		rc=$?
		[ "$rc" = 1 ] && [ "$(wc -l <"$TMP/full.err")" = 1 ] &&
			grep -q "standard output.*/dev/full.*cannot write" "$TMP/full.err" ||
			bad+="[$c: exit $rc: $(tl 3 "$TMP/full.err")]"
	done <<EOF_WRITERS
"\$CONVERT" --dump "\$TMP/full.fxt"
"\$CONVERT" --dump=recording "\$TMP/full.d"
"\$CONVERT" --help
"\$STATS" "\$TMP/full.fxt"
"\$STATS" --help
"\$RECORD" --symbols "\$PROG"
"\$RECORD" --help
"\$FRONT" --help
"\$FRONT" symbols --help
EOF_WRITERS
	if [ -n "$bad" ]; then fail full_output_named "$bad"; else ok full_output_named; fi
}

t_unrelated() {
	local bad="" a="$TMP/ur.a" b="$TMP/ur.b" c="$TMP/ur.c"
	"$RECORD" -q -o "$a" --trigger none -- "$PROG" >/dev/null 2>"$TMP/ur.err" &&
		"$RECORD" -q -o "$b" --trigger none -- /bin/true >/dev/null 2>>"$TMP/ur.err" ||
		{ fail unrelated_said "cannot record: $(tl 3 "$TMP/ur.err")"; return; }
	cp -r "$b" "$c"
	cp -r "$a" "$a.copy"   # the same program, the same boot
	sed -i 's/"boot_id": "[^"]*"/"boot_id": "00000000-0000-4000-8000-000000000000"/' "$c/record.json"
	grep -q '"boot_id": "00000000-0000-4000' "$c/record.json" || bad+="[no boot_id in record.json]"
	# INPUTS|the line wanted ("" none)
	while IFS='|' read -r ins want; do
		# shellcheck disable=SC2086
		"$CONVERT" -q $ins -o "$TMP/ur.fxt" >/dev/null 2>"$TMP/ur.err" ||
			{ bad+="[$ins: exit $?: $(tl 3 "$TMP/ur.err")]"; continue; }
		if [ -n "$want" ]; then
			[ "$(grep -c "$want" "$TMP/ur.err")" = 1 ] || bad+="[$ins: no '$want': $(tl 3 "$TMP/ur.err")]"
		elif grep -q "recorded on different\|recorded in different\|record different" "$TMP/ur.err"; then
			bad+="[$ins: $(tl 3 "$TMP/ur.err")]"
		fi
		case $ins in *"$a"*) ;; *) continue ;; esac
		"$CONVERT" --dump=slices "$TMP/ur.fxt" | grep -q " work$" ||
			bad+="[$ins: the trace has no work()]"
	done <<EOF_UR
$a $b|$a and $b record different programs (prog; true): the trace draws both
$(echo "$a"/perf.data*) $(echo "$b"/perf.data*)|record different programs (prog; true)
$b $c|$b and $c were recorded in different boots: their clocks
$a|
$a $a.copy|
EOF_UR
	if [ -n "$bad" ]; then fail unrelated_said "$bad"; else ok unrelated_said; fi
}

# tracefs_unmounted: as above; record.json's perf command is the reference
t_tracefs_unmounted() {
	local d="$TMP/tf" bad="" cmd
	requires tracefs_unmounted root mount_namespace || return
	unshare --mount --propagation private sh -c '
		for m in /sys/kernel/debug/tracing /sys/kernel/tracing; do
			umount "$m" 2>/dev/null
		done
		! [ -e /sys/kernel/tracing/events ] || exit 3
		exec "$@"' sh "$RECORD" -o "$d" --arm-after 0 --trigger signal:USR1 -- "$PROG" \
		>/dev/null 2>"$TMP/tf.err"
	case $? in
	0) ;;
	3) fail tracefs_unmounted "could not unmount tracefs in a mount namespace of its own"; return ;;
	*) bad+="[exit non-zero: $(tl 4 "$TMP/tf.err")]" ;;
	esac
	grep -q 'needs root\|cannot watch' "$TMP/tf.err" && bad+="[$(grep 'needs root\|cannot watch' "$TMP/tf.err")]"
	cmd=$(rec_part "$d" perf.command.)
	grep -q 'sched:sched_switch' <<<"$cmd" || bad+="[perf's command has no sched:sched_switch]"
	grep -q 'signal:signal_deliver' <<<"$cmd" || bad+="[perf's command has no signal:signal_deliver]"
	if [ -n "$bad" ]; then fail tracefs_unmounted "$bad"; else ok tracefs_unmounted; fi
}

# never_started: a launched program that never ran says the one thing that
# happened, exact stderr lines (README "When the program fails"):
# - killed before its exec (beforeexec.so preloaded into the recorder: a
#   SIGTERM to the child as it is about to exec, a kill from elsewhere or a
#   Ctrl-C to the group): one line, "not run: ... before its exec",
#   exit 1, no directory (the old line: "ended before it started: was
#   killed by signal 15", none of its tests made it);
# - stopped before its exec (SIGSTOP there): one line naming the pid and
#   the stop, exit 1 (the old line: "cannot run: Timer expired");
# - a script whose "#!" interpreter, and an ELF program whose dynamic
#   loader, is missing: one line naming it, exit 1 (the old line: "cannot
#   run: No such file or directory", of the program that is there);
# - in a pid namespace whose next 64 pids each have a stale perf map in
#   /tmp (root's, as a JIT of an earlier run left them), a stop that came
#   as the program was about to exec (SIGTERM to the recorder: the program
#   never let go) and a program whose libraries are missing (the loader's
#   message, exit 127): the recorder's -q stderr is the stop's warning,
#   the loader's line, and no word of the maps (the old recorder: "not
#   kept in the recording: there, unchanged, since before process N ran:
#   a stale map, not its", "owned by uid 0, process N gone before its map
#   was opened").
t_never_started() {
	local shim="$SNAPTRACE_TEST_BIN/beforeexec.so" d="$TMP/ns" bad="" rc want i p
	[ -e "$shim" ] || { fail never_started "$shim is not built (make tests-build)"; return; }
	LD_PRELOAD=$shim ASAN_OPTIONS=verify_asan_link_order=0 SNAPTRACE_TEST_KILL_CHILD=15 \
		"$RECORD" -o "$d.killed" --trigger none -- "$PROG" >/dev/null 2>"$TMP/ns.killed.err"
	rc=$?
	want="snaptrace-record: $PROG: not run: it was killed by signal 15 (SIGTERM) before its exec, as the recording started: nothing recorded"
	[ $rc -eq 1 ] && [ "$(cat "$TMP/ns.killed.err")" = "$want" ] && [ ! -e "$d.killed" ] ||
		bad+="[killed: exit $rc, expected 1 and '$want': $(tl 4 "$TMP/ns.killed.err")]"
	LD_PRELOAD=$shim ASAN_OPTIONS=verify_asan_link_order=0 SNAPTRACE_TEST_KILL_CHILD=19 \
		"$RECORD" -o "$d.stopped" --trigger none -- "$PROG" >/dev/null 2>"$TMP/ns.stopped.err"
	rc=$?
	want="^snaptrace-record: $PROG: cannot run: pid [0-9]* stopped for 5 s before its exec (a stop signal or a debugger): given up\$"
	[ $rc -eq 1 ] && [ "$(wc -l <"$TMP/ns.stopped.err")" = 1 ] && grep -q "$want" "$TMP/ns.stopped.err" ||
		bad+="[stopped: exit $rc, expected 1 and '$want': $(tl 4 "$TMP/ns.stopped.err")]"
	# a program whose interpreter is missing: named, not "No such file" of
	# the program that is there
	printf '#!/nonexistent/snaptrace-sh -e\necho never\n' >"$TMP/nointerp"
	chmod +x "$TMP/nointerp"
	for p in nointerp noloader; do
		"$RECORD" -q -o "$d.$p" --trigger none -- "$TMP/$p" >/dev/null 2>"$TMP/ns.$p.err"
		rc=$?
		i=/nonexistent/snaptrace-sh
		[ $p = noloader ] && i=/nonexistent/ld-snaptrace.so.2
		want="snaptrace-record: $TMP/$p: cannot run: its interpreter $i: No such file or directory"
		[ $rc -eq 1 ] && [ "$(cat "$TMP/ns.$p.err")" = "$want" ] ||
			bad+="[$p: exit $rc, expected 1 and '$want': $(tl 4 "$TMP/ns.$p.err")]"
	done
	if requires never_started_stale_maps root pid_namespace; then
		for i in $(seq "$NS_FIRST" $((NS_FIRST + 63))); do
			echo "1000 10 stale_jit_fn" >"/tmp/perf-$i.map"
		done
		in_pidns LD_PRELOAD="$shim" ASAN_OPTIONS=verify_asan_link_order=0 \
			SNAPTRACE_TEST_SIGNAL_PARENT=15 "$RECORD" -q -o "$d.stop" --trigger none -- \
			"$PROG" >/dev/null 2>"$TMP/ns.stop.err"
		rc=$?
		want="snaptrace-record: warning: SIGTERM came while the recording was starting: it was stopped at once; the program was never started, so the trace holds nothing of it"
		[ $rc -eq 0 ] && [ "$(cat "$TMP/ns.stop.err")" = "$want" ] ||
			bad+="[stop while starting: exit $rc, expected 0 and '$want': $(tl 4 "$TMP/ns.stop.err")]"
		in_pidns "$RECORD" -q -o "$d.nolib" --trigger none -- "$TMP/nolib" \
			>/dev/null 2>"$TMP/ns.nolib.err"
		rc=$?
		want="$TMP/nolib: error while loading shared libraries: libsnaptracegone.so: cannot open shared object file: No such file or directory"
		[ $rc -eq 0 ] && [ "$(cat "$TMP/ns.nolib.err")" = "$want" ] &&
			grep -q '"status": 127' "$d.nolib/record.json" ||
			bad+="[missing library: exit $rc, expected 0, exit status 127 and '$want': $(tl 4 "$TMP/ns.nolib.err")]"
		rm -f /tmp/perf-*.map
	fi
	if [ -n "$bad" ]; then fail never_started "$bad"; else ok never_started; fi
}

# in_pidns [VAR=VALUE...] CMD...: CMD in a pid namespace of its own (its
# /proc too) whose next process takes pid NS_FIRST (the recorder; its
# children after it); exit 3 when that cannot be set.
NS_FIRST=4000000
in_pidns() {
	timeout -k 5 90 unshare --pid --fork --mount-proc bash -c '
		echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid || exit 3
		shift
		env "$@"
		exit $?' in_pidns "$NS_FIRST" "$@"
}

t_dir
t_unrelated
t_never_started
t_full
t_multi_none
t_never_fired
t_tracefs_unmounted
t_ended
t_killed_listed
t_own_status
t_exit_orders
t_unwritable
t_trace_is_dir
t_no_return
t_fifo
t_kernel_thread
t_single_dash
t_stripped
t_every_fde
t_dynsym
t_rust
if no_procs; then ok no_leftovers; else fail no_leftovers "perf or the program left running"; fi
