# The expected statistics of a trace, computed independently of
# snaptrace-stats from `snaptrace-convert --dump=tree FILE` (the whole-trace
# reader, slices sorted as Perfetto does). Prints per function (name, dso):
#   NAME<TAB>DSO<TAB>calls<TAB>total<TAB>self<TAB>min<TAB>max<TAB>p50<TAB>p90<TAB>p99
# total counts only activations with no activation of the same function
# above them on their thread; percentiles are exact (nearest rank).
# Slices that never ended are left out.
/^# thread / { depth_top = -1; next }
{
	rest = $0
	sub(/^[0-9]+ [0-9]+ +/, "", rest)
	if (!match(rest, / \[[0-9]+, [0-9]+\] dur=[0-9]+ cat="/))
		next
	name = substr(rest, 1, RSTART - 1)
	m = substr(rest, RSTART, RLENGTH)
	dur = m; sub(/.*dur=/, "", dur); sub(/ .*/, "", dur); dur += 0
	cat = substr(rest, RSTART + RLENGTH); sub(/".*/, "", cat)
	key = name "\t" cat
	d = $2 + 0
	id = ++n
	skey[id] = key; sdur[id] = dur; child[id] = 0
	if (d > 0) child[at[d - 1]] += dur
	outer = 1
	for (i = 0; i < d; i++) if (skey[at[i]] == key) outer = 0
	at[d] = id
	calls[key]++
	if (outer) total[key] += dur
	if (!(key in mn) || dur < mn[key]) mn[key] = dur
	if (!(key in mx) || dur > mx[key]) mx[key] = dur
	durs[key] = durs[key] " " dur
}
END {
	for (id = 1; id <= n; id++) self[skey[id]] += sdur[id] - child[id]
	for (key in calls) {
		c = split(durs[key], v, " ")
		# insertion sort: test traces are small
		for (i = 2; i <= c; i++) { x = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
		printf "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\n", key, calls[key], total[key], self[key], mn[key], mx[key], v[rank(50, c)], v[rank(90, c)], v[rank(99, c)]
	}
}
function rank(p, c,   r) { r = int(p * c / 100); if (r < p * c / 100) r++; if (r < 1) r = 1; return r }
