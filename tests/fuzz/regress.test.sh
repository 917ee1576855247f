#!/usr/bin/env bash
# tier: check
# Every input the fuzzers (tests/fuzz/build.mk) found a defect with, kept in
# tests/fuzz/regress/: NAME.fxt through `snaptrace-convert --dump` (exit 0,
# or 1 with its problems listed), NAME.txt through the converter (exit 0, 1
# or 2; an output it writes reads back without problem). Never a crash or
# a sanitizer report (`make asan` runs this on the sanitizer build).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_built regress "$CONVERT"

for f in "$SNAPTRACE_TOP"/tests/fuzz/regress/*; do
	n=$(basename "$f")
	case "$f" in
	*.fxt)
		"$CONVERT" --dump "$f" >/dev/null 2>"$TMP/$n.err"
		rc=$?
		if [ "$rc" -gt 1 ]; then
			fail "regress/$n" "--dump exit $rc: $(first_lines "$TMP/$n.err")"
			continue
		fi
		;;
	*.txt)
		"$CONVERT" -q "$f" -o "$TMP/$n.fxt" 2>"$TMP/$n.err"
		rc=$?
		if [ "$rc" -gt 2 ]; then
			fail "regress/$n" "exit $rc: $(first_lines "$TMP/$n.err")"
			continue
		fi
		if [ "$rc" -eq 0 ] && ! "$CONVERT" --dump=slices "$TMP/$n.fxt" >/dev/null 2>"$TMP/$n.err"; then
			fail "regress/$n" "the output has problems: $(first_lines "$TMP/$n.err")"
			continue
		fi
		;;
	*)
		fail "regress/$n" "neither .fxt nor .txt"
		continue
		;;
	esac
	if grep -q -e 'Sanitizer' -e 'runtime error' "$TMP/$n.err"; then
		fail "regress/$n" "$(grep -m1 -e 'Sanitizer' -e 'runtime error' "$TMP/$n.err")"
	else
		ok "regress/$n"
	fi
done
