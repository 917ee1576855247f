# Generates the `many-threads` input (docs/contributing.md "Golden cases"):
# perf script branch text (perf 6.1 column layout) of NT threads of process
# 5000 (tids 5001..5000+NT, comm "pool") plus two threads of process 6000
# (tids 6000, 6001, comm "other"), each thread calling work() from main and
# returning once. All calls come first, round-robin over the threads, then
# all returns in reverse thread order, so threads interleave.
# Expected conversion: every thread "TID 0 main", "TID 1 work", each under
# its own process.
#   awk -v nt=300 -f tests/gen/many-threads.awk > OUT

function line(comm, pid, tid, flags, sa, ss, so, da, ds, do_) {
	ns += 7
	printf "%16s %5d/%-5d %5d.%09d: %10d  branches:u:   %-19s %16x %s+0x%x (/opt/pool) => %16x %s+0x%x (/opt/pool)\n", \
		comm, pid, tid, 8, ns, 1, flags, sa + so, ss, so, da + do_, ds, do_
}

BEGIN {
	if (nt == "") nt = 300
	MAIN = 4198400; WORK = 4202496
	for (i = 1; i <= nt; i++) {
		line("pool", 5000, 5000 + i, "call", MAIN, "main", 16, WORK, "work", 0)
		if (i == 100) line("other", 6000, 6000, "call", MAIN, "main", 16, WORK, "work", 0)
		if (i == 200) line("other", 6000, 6001, "call", MAIN, "main", 16, WORK, "work", 0)
	}
	for (i = nt; i >= 1; i--) {
		line("pool", 5000, 5000 + i, "return", WORK, "work", 48, MAIN, "main", 21)
		if (i == 150) {
			line("other", 6000, 6001, "return", WORK, "work", 48, MAIN, "main", 21)
			line("other", 6000, 6000, "return", WORK, "work", 48, MAIN, "main", 21)
		}
	}
}
