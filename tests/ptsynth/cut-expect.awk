# cut-expect.awk: what `snaptrace-convert --filter START,STOP` keeps, from
# ptsynth-expect's listing of the whole trace ("TID DEPTH NAME" in begin
# order, each thread nested): per thread, from each line naming START to the
# next line naming STOP (left out), the frames open at START (the last line
# at each lower depth), then the lines from START on. Frames below TRIM are
# left out of those open ones: callers of the function a trace starts in are
# found only when it returns (after the test's intervals). Depths count from
# the first open frame kept. Prints that listing, and into the file DISTINCT
# how many of the input's lines it holds (an open frame kept in two intervals
# counts once).
#   awk -v start=S -v stop=S -v trim=F -v distinct=FILE -f cut-expect.awk LISTING
{
	tid = $1
	d = $2 + 0
	name = $0
	sub(/^[^ ]+ [^ ]+ /, "", name)
	at[tid, d] = NR
	nm[NR] = name
	if (kept_in[tid] && name == stop) {
		kept_in[tid] = 0
	} else if (!kept_in[tid] && name == start) {
		kept_in[tid] = 1
		base[tid] = 0
		for (k = 0; k < d; k++)
			if (nm[at[tid, k]] == trim)
				base[tid] = k
		for (k = base[tid]; k < d; k++) {
			print tid, k - base[tid], nm[at[tid, k]]
			kept[at[tid, k]] = 1
		}
	}
	if (kept_in[tid]) {
		print tid, d - base[tid], name
		kept[NR] = 1
	}
}
END {
	n = 0
	for (i in kept)
		n++
	print n > distinct
}
