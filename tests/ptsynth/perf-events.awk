# perf-events.awk: turns `perf script --itrace=bep -F comm,pid,tid,time,flags,
# ip,addr,sym,symoff,dso,event,period` text into "TID KIND SRC DST" lines
# (the form of `ptsynth-expect --events`): call, ret, jump (to another
# function), syscall, error, async (an interrupt: preempted); and, from `--show-switch-events`, "TID
# switch-out blocked|preempt TIME" and "TID switch-in - TIME" (TIME in ns).
# Same-function jumps, calls within a function (call next), trace starts and
# power/PSB events are left out.
# Symbols may hold spaces: each side is split from the right.

# "IP SYM+0xOFF (DSO)" -> sets S_IP, S_SYM, S_OFF, S_DSO
function side(s,   i) {
	sub(/^ +/, "", s); sub(/ +$/, "", s)
	S_DSO = ""
	i = last_index(s, " (")
	if (i > 0 && substr(s, length(s)) == ")") {
		S_DSO = substr(s, i + 2, length(s) - i - 2)
		s = substr(s, 1, i - 1)
	}
	i = index(s, " ")
	S_IP = substr(s, 1, i - 1); s = substr(s, i + 1)
	S_OFF = 0
	if (match(s, /\+0x[0-9a-f]+$/)) {
		S_OFF = substr(s, RSTART + 3)
		s = substr(s, 1, RSTART - 1)
	}
	S_SYM = s
}
function last_index(s, t,   i, j) {
	j = 0
	while ((i = index(substr(s, j + 1), t)) > 0) j += i
	return j
}
function same(a, ad, b, bd) { return a == b && ad == bd }
/ PERF_RECORD_SWITCH(_CPU_WIDE)? (OUT|IN) / {
	for (i = 2; i <= NF && $i !~ /^PERF_RECORD_SWITCH/; i++)
		;
	split($(i - 2), pt, "/"); tid = pt[2]
	t = $(i - 1); sub(/:$/, "", t); sub(/\./, "", t)
	if ($(i + 1) == "OUT")
		printf "%s switch-out %s %.0f\n", tid, $(i + 2) == "preempt" ? "preempt" : "blocked", t
	else
		printf "%s switch-in - %.0f\n", tid, t
	next
}
/ instruction trace error / {
	tid = $0; sub(/.* tid /, "", tid); sub(/ .*/, "", tid)
	msg = $0; sub(/.*code [0-9]+: /, "", msg)
	print tid " error " msg " -"
	next
}
/ => / {
	n = split($0, w, " ")
	split(w[2], pt, "/"); tid = pt[2]
	line = $0
	i = index(line, " => ")
	left = substr(line, 1, i - 1); right = substr(line, i + 4)
	# the flags follow the event field "NAME:MODS:"
	j = index(left, "branches")
	if (!j) next
	left = substr(left, j); left = substr(left, index(left, " "))
	sub(/^ +/, "", left)
	flags = ""
	if (match(left, /^(tr strt|tr end  [a-z]+|tr end|call|return|jcc|jmp|syscall)/)) {
		flags = substr(left, 1, RLENGTH); left = substr(left, RLENGTH + 1)
	}
	side(left); sip = S_IP; ssym = S_SYM; sdso = S_DSO; soff = S_OFF
	side(right); dip = S_IP; dsym = S_SYM; ddso = S_DSO; doff = S_OFF
	if (flags == "tr strt") next
	if (flags ~ /syscall/) { print tid " syscall " ssym " -"; next }
	if (flags == "tr end  async") { print tid " async " ssym " -"; next }
	if (flags == "call") {
		if (ssym == dsym && doff != "0") next
		print tid " call " ssym " " dsym; next
	}
	if (flags == "return") { print tid " ret " ssym " " dsym; next }
	if (flags == "jmp" || flags == "jcc") {
		if (same(ssym, sdso, dsym, ddso)) next
		print tid " jump " ssym " " dsym; next
	}
	print tid " unknown-flags(" flags ") " ssym " " dsym
}
