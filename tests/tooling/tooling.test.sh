#!/usr/bin/env bash
# tier: check
# The build and test tooling itself (Makefile, scripts/install-deps.sh,
# bench/bench.sh, tests/run.sh, the golden-case runner):
#   version_agree     the three programs (and the installed front end, and
#                     the test tools) print the version of the file VERSION
#   deps_nothing_missing  install-deps runs neither sudo nor apt-get when
#                     every package is there; as a user, sudo only for what
#                     is missing; as root, no sudo
#   clean_respects_O  make O=DIR clean removes DIR and nothing else
#   flags_rebuild     an object is out of date after CFLAGS change, up to date
#                     when they are the same; a SAN=1 directory stays one
#   asan_respects_O   make O=DIR asan builds in DIR/asan
#   deps_one_spelling an object built with O spelled absolute is out of date
#                     for O spelled relative when a header it includes
#                     changes (make -W; the .d files once named the absolute
#                     targets only, and a merged header change rebuilt nothing)
#   test_targets      make test, check, test-stress, test-pt-hardware and
#                     asan run tests/run.sh on their tiers (T, R and J passed
#                     on); test-stress then fuzzes
#   bench_scratch     make bench's inputs are gone when it ends (KEEP=1 keeps)
#   run_one_case      tests/run.sh O cases/NAME (or just NAME) runs that case
#                     alone; an unknown suite is a usage error (exit 2)
#   case_failure_help a failing golden case prints the whole diff and the
#                     command that reruns it; KEEP=1 keeps the scratch
#                     directory
#   exit_trap_children  a suite's EXIT trap (lib.sh on_exit) runs in its
#                     own shell when it exits, never in a child bash forked
#                     for `CMD &` that a signal ends before its exec (bash
#                     ran scratch_done there: rootsafe's $TMP removed
#                     mid-suite); and every EXIT trap of tests/ and bench/
#                     is set through on_exit or asks for its own shell
#   bg_children_killed  a suite ends its background children with end_bg
#                     (lib.sh: SIGKILL, then wait): no bare `kill PIDS`
#                     followed by `wait PIDS` in tests/ or bench/ (a SIGTERM
#                     that reaches the forked bash before its exec is lost:
#                     rootsafe's wait on the attacker's `cat FIFO` never
#                     ended); 200 `cat FIFO &` children ended by end_bg at
#                     once, most before their exec, are all gone
#   sorts_take_empty  no qsort, qsort_r or bsearch call in the programs but
#                     through common/array.h's (array_sort...), which take an
#                     empty array as NULL: glibc's must never get a null
#                     pointer, and `snaptrace stats` of an empty trace and
#                     `snaptrace symbols` matching nothing once did
#   fds_cloexec       no call in the programs makes an fd without close-on-exec
#                     (tests/tooling/cloexec-lint.pl) but where a comment says
#                     it is for a child: perf script's stderr file was
#                     tmpfile()'s, so every perf got it twice, another user's
#                     perf too; and the lint finds such a call (a file of
#                     each kind of miss, checked with it)
#   excerpts_escaped  no '%.Ns' (N of two digits or more) in a format of
#                     common/, convert/ or stats/, which read what others
#                     wrote: what a message shows of an input is the one
#                     bounded excerpt, esc_excerpt() (escape.h), whole up to
#                     163 characters, else its start and its end; a calls
#                     file's line showed its first 80 bytes, cut inside a
#                     character maybe, and never the text after its columns
#   doc_references    every reference to a section of docs/*.md in the
#                     tree (docs/design.md "Section") names a heading of
#                     that file, and nothing points to the design notes
#                     outside the repository (a "shared" directory above it)
#   no_conflict_markers  no line of a file of the tree starts a merge
#                     conflict's marker (a merge once committed one into
#                     docs/design.md's threat model)
#   nothing_ignored   no file of the source tree outside the build directory
#                     is hidden by .gitignore (a fixture named perf.data.1
#                     once was: a fresh clone lacked it)
. "$(dirname "$0")/../lib.sh"

top=$SNAPTRACE_TOP
version=$(cat "$top/VERSION")

t_version_agree() {
	local p="$TMP/prefix" line want got bad=""
	if ! make -s -C "$top" O="$SNAPTRACE_O" PREFIX="$p" install >"$TMP/install.log" 2>&1; then
		fail version_agree "make install failed: $(first_lines "$TMP/install.log")"
		return
	fi
	for line in "snaptrace-convert:$CONVERT" "snaptrace-record:$RECORD" \
		"snaptrace-stats:$SNAPTRACE_BIN/snaptrace-stats" \
		"snaptrace:$SNAPTRACE_BIN/snaptrace" "snaptrace:$p/bin/snaptrace" \
		"ptsynth:$SNAPTRACE_TEST_BIN/ptsynth" "ptsynth-expect:$SNAPTRACE_TEST_BIN/ptsynth-expect"; do
		want="${line%%:*} $version"
		[ -x "${line#*:}" ] || continue
		got=$("${line#*:}" --version 2>&1)
		[ "$got" = "$want" ] || bad="$bad ${line#*:} printed '$got', expected '$want';"
	done
	if [ -z "$version" ]; then
		fail version_agree "VERSION is empty"
	elif [ -n "$bad" ]; then
		fail version_agree "$bad"
	else
		ok version_agree
	fi
}

# stub DIR NAME BODY: a program NAME in DIR running the shell BODY.
stub() {
	printf '#!/bin/sh\n%s\n' "$3" >"$1/$2" && chmod +x "$1/$2"
}

# deps_run UID MISSING: runs install-deps with a dpkg-query that reports
# MISSING (a package name or "") as not installed, id -u printing UID, and
# sudo and apt-get logging their calls to $TMP/deps/calls.
deps_run() {
	local d="$TMP/deps"
	rm -rf "$d" && mkdir -p "$d/bin"
	: >"$d/calls"
	stub "$d/bin" dpkg-query "for a; do p=\$a; done
[ \"\$p\" = '$2' ] && { echo 'unknown ok not-installed'; exit 1; }
echo 'install ok installed'"
	stub "$d/bin" id "echo $1"
	stub "$d/bin" sudo "echo \"sudo \$*\" >>'$d/calls'; \"\$@\""
	stub "$d/bin" apt-get "echo \"apt-get \$1\" >>'$d/calls'"
	PATH="$d/bin:$PATH" sh "$top/scripts/install-deps.sh" >"$d/out" 2>&1
}

t_deps_nothing_missing() {
	local rc
	deps_run 1000 ""
	rc=$?
	if [ $rc -ne 0 ] || [ -s "$TMP/deps/calls" ]; then
		fail deps_nothing_missing "nothing missing: exit $rc, calls: $(first_lines "$TMP/deps/calls")"
		return
	fi
	deps_run 1000 libipt-dev
	if ! grep -q '^sudo apt-get install .*libipt-dev' "$TMP/deps/calls" ||
		grep -q '^apt-get .*zlib1g-dev' "$TMP/deps/calls"; then
		fail deps_nothing_missing "user, libipt-dev missing: calls: $(first_lines "$TMP/deps/calls")"
		return
	fi
	deps_run 0 libipt-dev
	if grep -q '^sudo' "$TMP/deps/calls" || ! grep -q '^apt-get install' "$TMP/deps/calls"; then
		fail deps_nothing_missing "root, libipt-dev missing: calls: $(first_lines "$TMP/deps/calls")"
		return
	fi
	ok deps_nothing_missing
}

t_clean_respects_O() {
	local o="$TMP/clean-o"
	mkdir -p "$o/obj" && touch "$o/obj/marker"
	if ! make -s -C "$top" O="$o" clean >"$TMP/clean.log" 2>&1; then
		fail clean_respects_O "make clean failed: $(first_lines "$TMP/clean.log")"
	elif [ -e "$o" ]; then
		fail clean_respects_O "$o is still there"
	elif [ ! -x "$CONVERT" ]; then
		fail clean_respects_O "make O=$o clean removed $CONVERT"
	else
		ok clean_respects_O
	fi
}

t_flags_rebuild() {
	local o="$TMP/flags-o" obj="$TMP/flags-o/obj/common/diag.o"
	if ! make -s -C "$top" O="$o" "$obj" >"$TMP/flags.log" 2>&1; then
		fail flags_rebuild "building $obj failed: $(first_lines "$TMP/flags.log")"
	elif ! make -s -q -C "$top" O="$o" "$obj"; then
		fail flags_rebuild "$obj out of date right after building it"
	elif make -s -q -C "$top" O="$o" CFLAGS=-O0 "$obj"; then
		fail flags_rebuild "$obj up to date after CFLAGS changed"
	elif ! make -s -C "$top" O="$o" SAN=1 "$obj" >"$TMP/flags.log" 2>&1 ||
		! grep -q fsanitize "$o/flags"; then
		fail flags_rebuild "SAN=1 did not rebuild $obj with sanitizers: $(first_lines "$TMP/flags.log")"
	elif ! make -s -q -C "$top" O="$o" "$obj"; then
		fail flags_rebuild "$obj out of date in a SAN=1 directory made again without SAN"
	else
		ok flags_rebuild
	fi
}

t_deps_one_spelling() {
	local rel=".deptest.$$" obj=obj/common/diag.o
	if ! make -s -C "$top" O="$top/$rel" "$rel/$obj" >"$TMP/deps1.log" 2>&1; then
		fail deps_one_spelling "building $obj failed: $(first_lines "$TMP/deps1.log")"
	elif ! make -s -q -C "$top" O="$rel" "$rel/$obj"; then
		fail deps_one_spelling "$obj out of date for O=$rel right after building it with O=$top/$rel"
	elif make -s -q -C "$top" O="$rel" -W common/diag.h "$rel/$obj"; then
		fail deps_one_spelling "$obj up to date for O=$rel though common/diag.h changed"
	else
		ok deps_one_spelling
	fi
	rm -rf "${top:?}/$rel"
}

t_asan_respects_O() {
	local o="$TMP/asan-o"
	make -n -C "$top" O="$o" asan >"$TMP/asan.log" 2>&1
	if ! grep -q "$o/asan/obj/" "$TMP/asan.log"; then
		fail asan_respects_O "make -n O=$o asan builds nothing in $o/asan: $(first_lines "$TMP/asan.log")"
	elif grep -q " build/asan" "$TMP/asan.log"; then
		fail asan_respects_O "make -n O=$o asan still uses build/asan"
	else
		ok asan_respects_O
	fi
}

t_test_targets() {
	local target want got bad="" o=${SNAPTRACE_O#"$top"/}
	# one make for the targets without knobs: their runner lines in order
	# (O as the Makefile spells it: relative to the tree when inside it)
	while IFS='|' read -r target want; do
		# shellcheck disable=SC2086
		make -n -s -C "$top" O="$SNAPTRACE_O" $target >"$TMP/targets.out" 2>&1
		got=$(grep '^tests/run.sh ' "$TMP/targets.out" | tr -s ' ' | sed 's/ $//' | paste -sd '|')
		[ "$got" = "$want" ] || bad="$bad make $target: '$got', expected '$want';"
	done <<EOF
test check test-stress test-pt-hardware asan|tests/run.sh --tiers check,record $o|tests/run.sh --tiers check $o|tests/run.sh --stress -r 3 --tiers record,stress $o|tests/run.sh --tiers pt-hardware $o|tests/run.sh --tiers check $o/asan
check T=pt R=2 J=3|tests/run.sh -r 2 -j 3 --tiers check $o pt
test-stress T=lifecycle R=5|tests/run.sh --stress -r 5 --tiers record,stress $o lifecycle
EOF
	grep -q 'fuzz_convert .*-max_total_time=' "$TMP/targets.out" ||
		bad="$bad make test-stress runs no fuzzing;"
	if [ -n "$bad" ]; then
		fail test_targets "$bad"
	else
		ok test_targets
	fi
}

t_bench_scratch() {
	local o="$TMP/bench-o"
	mkdir -p "$o/bin" "$o/test/gen"
	ln -s "$CONVERT" "$o/bin/snaptrace-convert"
	ln -s "$SNAPTRACE_BIN/snaptrace-stats" "$o/bin/snaptrace-stats"
	ln -s "$SNAPTRACE_TEST_BIN/gen/gen_branch_text" "$o/test/gen/gen_branch_text"
	# one run of each measurement (BENCH_RUNS=1): the scratch is the subject
	if ! KEEP=0 BENCH_LINES=2000 BENCH_HITS=500 BENCH_RUNS=1 "$top/bench/bench.sh" "$o" >"$TMP/bench.out" 2>&1; then
		fail bench_scratch "bench.sh failed: $(first_lines "$TMP/bench.out")"
	elif ! grep -q 'read back balanced' "$TMP/bench.out"; then
		fail bench_scratch "no result line: $(first_lines "$TMP/bench.out")"
	elif [ -e "$o/bench" ]; then
		fail bench_scratch "$o/bench left: $(ls "$o/bench" | tr '\n' ' ')"
	elif ! KEEP=1 BENCH_LINES=2000 BENCH_HITS=500 BENCH_RUNS=1 "$top/bench/bench.sh" "$o" >/dev/null 2>&1 ||
		[ ! -s "$o/bench/branches-2000.txt" ]; then
		fail bench_scratch "KEEP=1 did not keep $o/bench/branches-2000.txt"
	else
		ok bench_scratch
	fi
}

# The runs below start tests/run.sh inside this suite: their output goes to
# files and is only searched, so their own ok/FAIL lines never count here.
t_run_one_case() {
	local rc
	"$top/tests/run.sh" "$SNAPTRACE_O" cases/sym-cpp >"$TMP/one.out" 2>&1
	if ! grep -q '^cases: 1 passed, 0 failed' "$TMP/one.out"; then
		fail run_one_case "expected 'cases: 1 passed, 0 failed': $(first_lines "$TMP/one.out")"
		return
	fi
	"$top/tests/run.sh" "$SNAPTRACE_O" sym-cpp >"$TMP/alone.out" 2>&1
	if ! grep -q '^cases: 1 passed, 0 failed' "$TMP/alone.out"; then
		fail run_one_case "a case named alone: expected 'cases: 1 passed, 0 failed': \
$(first_lines "$TMP/alone.out")"
		return
	fi
	"$top/tests/run.sh" "$SNAPTRACE_O" no-such-suite >"$TMP/none.out" 2>&1
	rc=$?
	if [ $rc -ne 2 ] || ! grep -q "no suite 'no-such-suite'" "$TMP/none.out"; then
		fail run_one_case "unknown suite: exit $rc, expected 2: $(first_lines "$TMP/none.out")"
		return
	fi
	ok run_one_case
}

t_case_failure_help() {
	local t="$TMP/top" c="$TMP/top/tests/cases/broken" kept
	mkdir -p "$c"
	cp "$top/tests/lib.sh" "$top/tests/requirements.sh" "$t/tests/"
	cp "$top/tests/cases/cases.test.sh" "$t/tests/cases/"
	cp "$top/tests/cases/sym-cpp/input.txt" "$c/"
	# the second slice renamed: the case must fail there
	awk 'NR == 2 { $NF = "not_this_name" } { print }' \
		"$top/tests/cases/sym-cpp/expected.txt" >"$c/expected.txt"
	SNAPTRACE_TOP="$t" KEEP=1 bash "$t/tests/cases/cases.test.sh" broken >"$TMP/broken.out" 2>&1
	kept=$(sed -n 's/^kept //p' "$TMP/broken.out")
	if ! grep -q '^FAIL cases/broken: ' "$TMP/broken.out"; then
		fail case_failure_help "the broken case did not fail: $(first_lines "$TMP/broken.out")"
	elif ! grep -q '^  -.* not_this_name$' "$TMP/broken.out" ||
		[ "$(grep -c '^  [+-][0-9]' "$TMP/broken.out")" -ne 2 ]; then
		fail case_failure_help "no diff of the one wrong line: $(first_lines "$TMP/broken.out")"
	elif ! grep -q 'rerun: KEEP=1 tests/run.sh .* cases/broken' "$TMP/broken.out"; then
		fail case_failure_help "no rerun command"
	elif [ -z "$kept" ] || [ ! -s "$kept/broken.slices" ]; then
		fail case_failure_help "KEEP=1 kept no scratch directory with broken.slices ('$kept')"
	else
		ok case_failure_help
	fi
	[ -n "$kept" ] && case "$kept" in "${TMPDIR:-/tmp}"/snaptrace-test.*) rm -rf "$kept" ;; esac
}

t_doc_references() {
	local bad
	# a reference may be wrapped over comment lines: join them first
	bad=$(cd "$top" && git ls-files -z 2>/dev/null | xargs -0 perl -0777 -ne '
		my $f = $ARGV;
		next if $f eq "tests/tooling/tooling.test.sh";
		s/\n[ \t]*(?:\*(?!\/)|#|\/\/)?[ \t]*/ /g;
		while (/docs\/(\w+)\.md"?\s*(?:\(|,|:)?\s*"([^"]+)"/g) {
			my ($doc, $sec) = ($1, $2);
			open(my $h, "<", "docs/$doc.md") or do { print "$f: no docs/$doc.md\n"; next };
			my $text = do { local $/; <$h> };
			close $h;
			my $found = $text =~ /^#+ \Q$sec\E[ \t]*$/m;
			print "$f: docs/$doc.md has no section \"$sec\"\n" unless $found;
		}
		print "$f: points outside the repository\n" if m{\.\./(?:\.\./)*shar[e]d/};
	')
	if [ -n "$bad" ]; then
		fail doc_references "$(echo "$bad" | head -n 5 | tr '\n' ';')"
	else
		ok doc_references
	fi
}

t_exit_trap_children() {
	local out bad
	# 300 children killed at once, most before their exec (as a test's
	# `kill $!` under load); the suite's $TMP must outlive them all
	out=$(SNAPTRACE_TOP="$top" TMPDIR="$TMP" bash -c '
		. "$SNAPTRACE_TOP/tests/lib.sh"
		for i in $(seq 1 300); do
			sleep 1 &
			kill -TERM "$!" 2>/dev/null
			wait "$!" 2>/dev/null
		done
		[ -d "$TMP" ] && echo "alive $TMP" || echo "gone $TMP"' 2>/dev/null | tail -n 1)
	bad=$(cd "$top" && grep -rn --include='*.sh' 'trap .*E[X]IT' tests bench |
		grep -v '^[^:]*:[0-9]*:[[:space:]]*#' | grep -v '_exit_pid')
	if [ "${out%% *}" != alive ]; then
		fail exit_trap_children "a killed child ran the suite's EXIT trap: ${out:-nothing printed}"
	elif [ -d "${out#* }" ]; then
		fail exit_trap_children "the suite's own exit did not remove its scratch ${out#* }"
	elif [ -n "$bad" ]; then
		fail exit_trap_children "an EXIT trap not set through on_exit: $(tr '\n' ' ' <<<"$bad")"
	else
		ok exit_trap_children
	fi
}

t_bg_children_killed() {
	local bad out
	# a bare kill (SIGTERM) on one line, a wait on the next: the pair end_bg is
	bad=$(cd "$top" && grep -rn --include='*.sh' -A1 -E '^[[:space:]]*kill +[^-[:space:]]' tests bench |
		awk '/:[0-9]+:[[:space:]]*kill +[^-[:space:]]/ { k = $0; next }
			/-[0-9]+-[[:space:]]*wait / && k != "" { print k } { k = "" }')
	out=$(SNAPTRACE_TOP="$top" TMPDIR="$TMP" timeout -k 5 120 bash -c '
		. "$SNAPTRACE_TOP/tests/lib.sh"
		mkfifo "$TMP/never"
		for i in $(seq 1 200); do
			cat "$TMP/never" &
			end_bg "$!"
			kill -0 "$!" 2>/dev/null && echo "left $!"
		done
		# a function run in the background: its command is a child of the
		# forked subshell, which end_bg must end too
		sleeper() { sleep 300 & echo "$!" >"$TMP/sleeper"; wait; }
		for i in 1 2 3; do
			rm -f "$TMP/sleeper"
			sleeper &
			while [ ! -s "$TMP/sleeper" ]; do sleep 0.01; done
			end_bg "$!"
			kill -0 "$(cat "$TMP/sleeper")" 2>/dev/null && echo "left the function'"'"'s sleep"
		done
		echo done' 2>/dev/null | tail -n 1)
	if [ -n "$bad" ]; then
		fail bg_children_killed "kill then wait, where end_bg (tests/lib.sh) ends the child for sure: $(tr '\n' ' ' <<<"$bad")"
	elif [ "$out" != done ]; then
		fail bg_children_killed "200 'cat FIFO &' children and 3 functions' children ended by end_bg: ${out:-nothing printed (hung)}"
	else
		ok bg_children_killed
	fi
}

t_sorts_take_empty() {
	local bad
	bad=$(cd "$top" && grep -rnE '(^|[^_a-z])(qsort|qsort_r|bsearch) *\(' --include='*.c' --include='*.h' \
		common convert fxt record stats dlfilter | grep -v '^common/array\.h:')
	if [ -n "$bad" ]; then
		fail sorts_take_empty "call array_sort/array_sort_r/array_search (common/array.h): $(echo "$bad" | head -n 3 | tr '\n' ';')"
	else
		ok sorts_take_empty
	fi
}

t_fds_cloexec() {
	local bad caught
	bad=$(cd "$top" && perl tests/tooling/cloexec-lint.pl $(git ls-files 'common/*.[ch]' 'convert/*.[ch]' \
		'record/*.[ch]' 'stats/*.[ch]' 'fxt/*.[ch]' 'front/*.[ch]' 'dlfilter/*.[ch]' 2>/dev/null ||
		ls common/*.[ch] convert/*.[ch] record/*.[ch] stats/*.[ch] fxt/*.[ch] dlfilter/*.[ch]))
	# the lint itself: each of these lines is one miss, the last two none
	cat >"$TMP/misses.c" <<'EOF'
static void f(void)
{
	FILE *e = tmpfile();
	int a = open("x", O_RDONLY), b = dup(a), p[2];
	FILE *g = fopen("y", "r");
	int c = openat(a, "z",
		       O_RDONLY | O_NOFOLLOW);
	pipe(p);
	int d = fcntl(a, F_DUPFD, 3);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);
	int k = open("k", O_RDONLY | O_CLOEXEC), m = fcntl(a, F_DUPFD_CLOEXEC, 0);
	FILE *h = fopen("w", "re");
	/* the standard fds, for a child too */
	int n = open("/dev/null", O_RDONLY);
}
EOF
	caught=$(perl "$top/tests/tooling/cloexec-lint.pl" "$TMP/misses.c" | sed 's/.*: //' | tr '\n' ' ')
	if [ -n "$bad" ]; then
		fail fds_cloexec "an fd made without close-on-exec (O_CLOEXEC, or say \"for a child\" in a comment on it): $(echo "$bad" | head -n 3 | tr '\n' ';')"
	elif [ "$caught" != "tmpfile open dup fopen openat pipe fcntl socket " ]; then
		fail fds_cloexec "the lint found '$caught' in a file of 8 misses"
	else
		ok fds_cloexec
	fi
}

t_excerpts_escaped() {
	local bad
	bad=$(cd "$top" && grep -rnE '%\.[0-9]{2,}s' --include='*.c' --include='*.h' common convert stats)
	if [ -n "$bad" ]; then
		fail excerpts_escaped "an input cut by a printf precision, where esc_excerpt() (common/escape.h) shows it: $(echo "$bad" | head -n 3 | tr '\n' ';')"
	else
		ok excerpts_escaped
	fi
}

t_no_conflict_markers() {
	local bad
	bad=$(cd "$top" && grep -rlE '^(<<<<<<<|>>>>>>>) ' --exclude-dir=.git --exclude-dir=build \
		--exclude-dir="$(basename "$SNAPTRACE_O")" . | head -n 5)
	if [ -n "$bad" ]; then
		fail no_conflict_markers "a merge conflict's markers left in: $(echo "$bad" | tr '\n' ' ')"
	else
		ok no_conflict_markers
	fi
}

t_nothing_ignored() {
	local hidden
	requires nothing_ignored git_checkout || return
	hidden=$(cd "$top" && git ls-files -o -i --exclude-standard | grep -v '^build/' | head -n 5)
	if [ -n "$hidden" ]; then
		fail nothing_ignored ".gitignore hides these files of the tree (git add -f, or narrow the pattern): $(echo "$hidden" | tr '\n' ' ')"
	else
		ok nothing_ignored
	fi
}

need_built tooling "$CONVERT"
t_exit_trap_children
t_bg_children_killed
t_sorts_take_empty
t_fds_cloexec
t_excerpts_escaped
t_version_agree
t_deps_nothing_missing
t_clean_respects_O
t_flags_rebuild
t_deps_one_spelling
t_asan_respects_O
t_test_targets
t_bench_scratch
t_run_one_case
t_case_failure_help
t_doc_references
t_no_conflict_markers
t_nothing_ignored
