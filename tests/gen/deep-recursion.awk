# Generates a `deep-recursion` input: perf script branch text (perf 6.1
# column layout) of one thread where main calls rec, which calls itself
# (rec+0x20 => rec+0x0) until DEPTH frames of rec are open, then every rec
# returns (the last one to main). Expected conversion: main at depth 0 and
# rec at depths 1..DEPTH, each ending in reverse order.
#   awk -v depth=600 -f tests/gen/deep-recursion.awk > OUT
function line(flags, src, dst) {
	ns += 10
	printf "%16s %5d/%-5d %5d.%09d: %10d  branches:u:   %-19s %16s => %16s\n", \
		"deep", 4100, 4100, 7, ns, 1, flags, src, dst
}
BEGIN {
	if (depth == "") depth = 600
	line("call", "401010 main+0x10 (/opt/deep)", "402000 rec+0x0 (/opt/deep)")
	for (i = 1; i < depth; i++)
		line("call", "402020 rec+0x20 (/opt/deep)", "402000 rec+0x0 (/opt/deep)")
	for (i = 1; i < depth; i++)
		line("return", "402030 rec+0x30 (/opt/deep)", "402025 rec+0x25 (/opt/deep)")
	line("return", "402030 rec+0x30 (/opt/deep)", "401015 main+0x15 (/opt/deep)")
}
