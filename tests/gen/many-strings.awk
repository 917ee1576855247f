# Generates the `many-strings` input (docs/contributing.md "Golden cases"):
# perf script branch text (perf 6.1 column layout) of one thread whose main
# calls N distinct functions fn_00000 .. fn_(N-1) in turn, and, after the
# first half of them, one function whose name is LONGLEN characters long
# ("long_" followed by the digits 0-9 repeated). Expected conversion: main at
# depth 0, then every fn_* (and the long one, truncated) at depth 1 in order.
#   awk -v n=40000 -v longlen=40000 -f tests/gen/many-strings.awk > OUT
# mawk-compatible: addresses stay below 2^31, times are printed as s.ns.

function line(flags, sa, ss, so, da, ds, do_) {
	ns += 10
	printf "%16s %5d/%-5d %5d.%09d: %10d  branches:u:   %-19s %16x %s+0x%x (/opt/many) => %16x %s+0x%x (/opt/many)\n", \
		"many", 4000, 4000, 3, ns, 1, flags, sa + so, ss, so, da + do_, ds, do_
}

function call_and_return(name, base) {
	line("call", MAIN, "main", 16, base, name, 0)
	line("return", base, name, 32, MAIN, "main", 21)
}

BEGIN {
	if (n == "") n = 40000
	if (longlen == "") longlen = 40000
	MAIN = 4198400   # 0x401000
	long = "long_"
	while (length(long) < longlen) long = long "0123456789"
	long = substr(long, 1, longlen)
	for (i = 0; i < n; i++) {
		call_and_return(sprintf("fn_%05d", i), 5242880 + i * 256)
		if (i == int(n / 2) - 1)
			call_and_return(long, 5242880 + n * 256)
	}
}
