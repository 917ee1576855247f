#!/usr/bin/env bash
# tier: check
# The junk-frame rule on every path a call chain takes (convert/chaincheck.c
# conv_chain_clean(), docs/design.md "A chain cut at an address in no
# mapping"): golden cases of each path, their every chain ending in a junk
# frame (tests/lib.sh junk_frames: 0xffffffffffffffff, 0, an address in no
# mapping, one at no user-space address), convert to the same slices as without, also with the threads'
# root frames left out (junk-noroot-*: chains a short dwarf copy ended):
#   sampled        sampling-chains, sampling-recursion
#   switches       sched-switch-chains, offcpu-switches-first (a switch's
#                  chain and its [off-cpu] slice)
#   unwound        sched-switch-unwound (a switch's frame-pointer chain
#                  spliced with its dwarf twin)
#   signal         signal-markers (the stack at a signal, [crash] instants)
#   loop           loop-cut-placed (a loop cut, then the junk past it)
# The measured calls' callers (the sample that follows switch records places
# a call's entry) are measured.test.sh's measured-junk-*; Intel PT stacks are
# built from branches, not an unwinder's chain (no such frame comes in).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
CASES="sampling-chains sampling-recursion sched-switch-chains offcpu-switches-first
sched-switch-unwound signal-markers loop-cut-placed"
need_built junkframes "$CONVERT"

# same NAME DIR IN JUNK: IN and JUNK (perf script text) converted in DIR
# (the case's args) give the same slices: one ok or FAIL line NAME
same() {
	local name=$1 dir=$2 args=()
	[ -f "$dir/args" ] && read -ra args <"$dir/args"
	if ! grep -q '^\s*ffffffffffffffff \[unknown\]' "$4"; then
		fail "$name" "no chain to add a junk frame to"
	elif ! (cd "$dir" && "$CONVERT" --quiet "${args[@]}" "$3" -o "$TMP/$name.fxt") 2>"$TMP/$name.err" ||
		! (cd "$dir" && "$CONVERT" --quiet "${args[@]}" "$4" -o "$TMP/$name.junk.fxt") 2>>"$TMP/$name.err"; then
		fail "$name" "conversion failed: $(first_lines "$TMP/$name.err")"
	elif ! diff <("$CONVERT" --dump=tree "$TMP/$name.fxt") <("$CONVERT" --dump=tree "$TMP/$name.junk.fxt") >"$TMP/$name.diff"; then
		fail "$name" "the junk frames changed the slices: $(head -c 600 "$TMP/$name.diff" | tr '\n' '|')"
	else
		ok "$name"
	fi
}

# each case as it is, and with its chains reaching no root (junk_frames
# NOROOT: where nothing but the junk rule cuts them)
for name in $CASES; do
	dir="$SNAPTRACE_TOP/tests/cases/$name"
	junk_frames "$dir/input.txt" "$TMP/$name.junk.txt"
	same "junk-$name" "$dir" input.txt "$TMP/$name.junk.txt"
	junk_frames "$dir/input.txt" "$TMP/$name.noroot-junk.txt" "$TMP/$name.noroot.txt"
	same "junk-noroot-$name" "$dir" "$TMP/$name.noroot.txt" "$TMP/$name.noroot-junk.txt"
done
