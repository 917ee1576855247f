#!/usr/bin/env bash
# tier: check
# The converter's, the FXT library's and the recorder's modules depend on
# each other one way (tests/tooling/module-cycles.sh; docs/design.md "The
# converter", "The recorder"):
#   convert_one_way   no circle among convert/'s modules, neither in the
#                     include graph (#include lines) nor in the call graph
#                     (nm of O/obj/convert/*.o)
#   fxt_one_way       the same among fxt/'s modules (O/obj/fxt/*.o)
#   record_one_way    the same among record/'s modules (the session, its
#                     snapshots and record.json share struct rec_session
#                     through rec_state.h, not each other's headers)
#   finds_circles     the check itself: modules that include each other's
#                     headers and call each other are named, in both graphs,
#                     and a module that only calls into them is not
. "$(dirname "$0")/../lib.sh"

top=$SNAPTRACE_TOP
check=$top/tests/tooling/module-cycles.sh

# one_way NAME DIR: no circle among DIR's modules (O/obj/DIR/*.o).
one_way() {
	local out rc
	requires "$1" binutils || return
	out=$("$check" "$top/$2" "$SNAPTRACE_O/obj/$2" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] || [ -n "$out" ]; then
		fail "$1" "exit $rc: $(echo "$out" | tr '\n' ';' | cut -c 1-600)"
	else
		ok "$1"
	fi
}

# module NAME CALLS INCLUDES: $TMP/mod/NAME.h declaring NAME_f, and NAME.c
# including NAME.h and INCLUDES' headers, whose NAME_f calls CALLS' _f.
module() {
	local d="$TMP/mod" i body=""
	printf 'int %s_f(void);\n' "$1" >"$d/src/$1.h"
	{
		printf '#include "%s.h"\n' "$1"
		for i in $3; do printf '#include "%s.h"\n' "$i"; done
		for i in $2; do body="$body + ${i}_f()"; done
		printf 'int %s_f(void) { return 0%s; }\n' "$1" "$body"
	} >"$d/src/$1.c"
}

t_finds_circles() {
	local d="$TMP/mod" out rc m want bad=""
	requires finds_circles binutils cc || return
	mkdir -p "$d/src" "$d/obj"
	module a b b
	module b c c
	module c a a
	module top a a
	for m in a b c top; do
		if ! cc -c -o "$d/obj/$m.o" "$d/src/$m.c" 2>"$d/cc.log"; then
			fail finds_circles "cc failed: $(first_lines "$d/cc.log")"
			return
		fi
	done
	out=$("$check" "$d/src" "$d/obj" 2>&1)
	rc=$?
	for want in "include: a b c (a>b b>c c>a)" "call: a b c (a>b b>c c>a)"; do
		grep -qxF "$want" <<<"$out" || bad="$bad no line '$want';"
	done
	[ $rc -eq 1 ] || bad="$bad exit $rc, expected 1;"
	grep -q top <<<"$out" && bad="$bad names top, which only calls in;"
	"$check" "$d/src" 2>/dev/null
	[ $? -eq 2 ] || bad="$bad one argument is not a usage error (exit 2);"
	if [ -n "$bad" ]; then
		fail finds_circles "$bad output: $(echo "$out" | tr '\n' ';')"
	else
		ok finds_circles
	fi
}

one_way convert_one_way convert
one_way fxt_one_way fxt
one_way record_one_way record
t_finds_circles
