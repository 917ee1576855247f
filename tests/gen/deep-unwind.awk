# Generates a `deep-unwind` input: perf script branch text (perf 6.1 column
# layout) of one thread whose trace begins inside a recursion DEPTH deep that
# then unwinds: DEPTH returns of rec into rec, each past the bottom of the
# known stack. Every return infers one more caller below all the others, so
# the callers nest DEPTH deep: beyond Perfetto's 512 levels the outermost
# are left out and the rest must read back balanced.
#   awk -v depth=600 -f tests/gen/deep-unwind.awk > OUT
BEGIN {
	if (depth == "") depth = 600
	for (i = 0; i < depth; i++) {
		ns += 10
		printf "%16s %5d/%-5d %5d.%09d: %10d  branches:u:   %-19s %s => %s\n", \
			"deep", 4200, 4200, 7, ns, 1, "return", \
			"402030 rec+0x30 (/opt/deep)", "402025 rec+0x25 (/opt/deep)"
	}
}
