# What a test may need of the host, each defined once (sourced by
# tests/lib.sh, and by tests/run.sh for the list of names). A test that
# cannot run without something says so with
#     requires NAME REQ...  || return
# (tests/lib.sh), which prints "skip NAME: requires REQ: why" for the first
# REQ missing here. tests/run.sh counts skips per REQ and takes a skip line
# that names no requirement below as a FAIL: a test never skips silently.
# A unit program prints the same line itself (tests/unit/unit.h UNIT_SKIP)
# and names one of these.
#
# Each requirement is a function req_NAME (NAME: lowercase letters, digits,
# "_") run in a subshell: it returns 0 when the host has it, else prints why
# not (one line) and returns non-zero. It may write into $TMP (the suite's
# scratch directory, tests/lib.sh) and runs at most once per suite.

# the perf the tests run
req_perf() {
	command -v "${SNAPTRACE_PERF:-perf}" >/dev/null 2>&1 || {
		echo "no perf (${SNAPTRACE_PERF:-perf})"
		return 1
	}
}

req_root() {
	[ "$(id -u)" -eq 0 ] || { echo "not root"; return 1; }
}

# perf records a cpu-clock sampling of a program here (installed, allowed).
req_recording() {
	req_perf || return 1
	if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -gt 2 ]; then
		echo "perf_event_paranoid > 2 and not root"
		return 1
	fi
	reqh_perf_record -e cpu-clock
}

# reqh_perf_record ARGS...: perf record ARGS of `true` works (no BPF event
# synthesis where perf has the option: a second less).
reqh_perf_record() {
	local perf=${SNAPTRACE_PERF:-perf} f="$TMP/req-probe.data" opt=--no-bpf-event
	"$perf" record -h 2>&1 | grep -q -- "$opt" || opt=
	if ! "$perf" record -q $opt "$@" -o "$f" -- true >"$f.out" 2>&1; then
		echo "perf record $* failed: $(grep -v '^\[' "$f.out" | head -n 2 | tr '\n' '|')"
		return 1
	fi
}

# sched:sched_switch samples (tracefs mounted, the tracepoint allowed)
req_sched_switch() {
	req_recording || return 1
	reqh_perf_record -e sched:sched_switch
}

# the signal tracepoints the recorder watches (signal:signal_deliver, as
# sched_switch needs: tracefs, CAP_PERFMON or perf_event_paranoid -1)
req_signal_tracepoints() {
	req_recording || return 1
	reqh_perf_record -e signal:signal_deliver -e signal:signal_generate
}

# perf record --buildid-mmap (perf 5.12 and later)
req_buildid_mmap() {
	req_recording || return 1
	reqh_perf_record -e cpu-clock --buildid-mmap
}

req_intel_pt() {
	[ -d /sys/bus/event_source/devices/intel_pt ] || {
		echo "no Intel PT on this host (/sys/bus/event_source/devices/intel_pt)"
		return 1
	}
	req_recording || return 1
	reqh_perf_record -e intel_pt//u
}

# perf record --control=fd: (perf 5.10 and later): the recorder asks for a
# snapshot on the control fd and waits for perf's ack
req_perf_control() {
	req_perf || return 1
	"${SNAPTRACE_PERF:-perf}" record -h 2>&1 | grep -q -e '--control' || {
		echo "perf record has no --control (perf < 5.10)"
		return 1
	}
}

# perf record --snapshot=e, a snapshot when the target exits (perf 5.4 and
# later; the option is not in perf's help: its version says)
req_perf_snapshot_e() {
	local v
	req_perf || return 1
	v=$("${SNAPTRACE_PERF:-perf}" --version 2>/dev/null | sed -n 's/^perf version \([0-9]*\)\.\([0-9]*\).*/\1 \2/p')
	set -- $v
	[ $# -eq 2 ] && { [ "$1" -gt 5 ] || { [ "$1" -eq 5 ] && [ "$2" -ge 4 ]; }; } || {
		echo "perf ${v:-of unknown version} has no --snapshot=e (perf < 5.4)"
		return 1
	}
}

# The CPU's Intel PT has PSB frequency control, or there is no Intel PT (the
# dry run then assumes the common case): the presets differ.
req_psb_cyc() {
	local caps=/sys/bus/event_source/devices/intel_pt/caps/psb_cyc
	[ "$(cat "$caps" 2>/dev/null)" != 0 ] || {
		echo "this CPU's Intel PT lacks psb_cyc: the normal and high presets fall back to low"
		return 1
	}
}

# reqh_check ITEM VALUE: snaptrace-record --check's report (run once a
# suite) says "ITEM: VALUE"; else prints what it says of ITEM.
reqh_check() {
	local rec="${SNAPTRACE_BIN:-$SNAPTRACE_TOP/build/bin}/snaptrace-record" line
	[ -s "$TMP/req-check.out" ] || "$rec" --check >"$TMP/req-check.out" 2>/dev/null
	line=$(grep "^$1: " "$TMP/req-check.out")
	[ "$line" = "$1: $2" ] || {
		echo "${line:-snaptrace-record --check says nothing of the $1}"
		return 1
	}
}

# hardware execute breakpoints fire (the recorder's self-test: some VMs
# open the event and never deliver it)
req_breakpoints() { reqh_check "breakpoint trigger" fires; }

# hardware breakpoints open but never fire (the host the warning is for)
req_dead_breakpoints() { reqh_check "breakpoint trigger" "opens but does not fire"; }

# uprobes fire for this user (the unit programs' self-test says so itself)
req_uprobes() { reqh_check "uprobe trigger" fires; }

# a uprobe can be set through tracefs (root, tracefs mounted, uprobes in
# the kernel): it puts an int3 in the probed file's code of every process
# that maps it, whether or not it fires
req_uprobe_events() {
	req_root || return 1
	[ -w /sys/kernel/tracing/uprobe_events ] || {
		echo "no writable /sys/kernel/tracing/uprobe_events"
		return 1
	}
}

# the kernel offers perf's TSC conversion (cap_user_time_zero), which it
# does only with a TSC clocksource, and in a VM only where the kernel's
# sched_clock is the TSC (not the hypervisor's): read from a perf mmap page
# by the test tool captime (tests/record/captime.c)
req_tsc() {
	local cs why
	cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
	[ "$cs" = tsc ] || { echo "clocksource ${cs:-unknown}, not tsc: no TSC conversion"; return 1; }
	why=$("$SNAPTRACE_O/test/captime" 2>&1) || { echo "clocksource tsc, but ${why:-captime failed}"; return 1; }
}

# a hardware event perf knows but this host cannot count (a VM without a PMU)
req_uncountable_event() {
	"${SNAPTRACE_PERF:-perf}" stat -x, -e branch-misses -- true 2>&1 | grep -q '<not supported>' || {
		echo "this host counts branch-misses"
		return 1
	}
}

# something the recorder must refuse on this host: a sample rate limit below
# 1,000,000, or no hardware PMU (no LBR)
req_host_limits() {
	local max evsrc=/sys/bus/event_source/devices
	max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 0)
	if [ "$max" -gt 0 ] && [ "$max" -lt 1000000 ]; then
		return 0
	fi
	[ -e $evsrc/cpu/type ] || [ -e $evsrc/cpu_core/type ] || return 0
	echo "this host has a PMU and a sample rate limit of $max"
	return 1
}

# a device node can be made here (mknod: root, or CAP_MKNOD)
req_mknod() {
	if ! mknod "$TMP/req-null" c 1 3 2>"$TMP/req-mknod.err"; then
		echo "cannot mknod here: $(head -n 1 "$TMP/req-mknod.err")"
		return 1
	fi
	rm -f "$TMP/req-null"
}

req_two_cpus() {
	[ "$(nproc)" -ge 2 ] || { echo "$(nproc) CPU"; return 1; }
}

# root, setpriv and the user nobody: a test runs a program as another user
req_second_user() {
	req_root || return 1
	command -v setpriv >/dev/null || { echo "no setpriv"; return 1; }
	id nobody >/dev/null 2>&1 || { echo "no user nobody"; return 1; }
}

# sg (newgrp), setuid root (Debian's login package): a process of another
# user's whose effective uid is root's, under the same pid
req_setuid_sg() {
	[ -u /usr/bin/sg ] || [ -u "$(readlink -f /usr/bin/sg 2>/dev/null)" ] || {
		echo "no setuid /usr/bin/sg"
		return 1
	}
}

# a normal user may record (perf_event_paranoid <= 2)
req_user_recording() {
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 2 ] || {
		echo "perf_event_paranoid > 2: perf is for root only here"
		return 1
	}
}

# a small tmpfs can be mounted (a full disk made on purpose)
req_tmpfs_mount() {
	local m="$TMP/req-tmpfs"
	mkdir -p "$m" || return 1
	if ! mount -t tmpfs -o size=64k tmpfs "$m" 2>"$TMP/req-tmpfs.err"; then
		echo "cannot mount a tmpfs: $(head -n 1 "$TMP/req-tmpfs.err")"
		return 1
	fi
	umount "$m"
}

# SIGINT, SIGTERM or SIGHUP takes its default action in this shell: one
# ignored when the shell started (nohup, a background job) cannot be reset
# by bash and is ignored in every child (tests/run.sh starts each suite with
# them reset: tests/runner/sigdfl.c)
req_sigint() { reqh_signal INT; }
req_sigterm() { reqh_signal TERM; }
req_sighup() { reqh_signal HUP; }
reqh_signal() {
	local ign
	ign=$(sed -n 's/^SigIgn:\t*//p' /proc/$$/status)
	[ $((0x$ign >> ($(kill -l "$1") - 1) & 1)) = 0 ] || {
		echo "SIG$1 is ignored in this shell (started under nohup, or as a background job?)"
		return 1
	}
}

# a mount namespace of its own can be made (unshare; root)
req_mount_namespace() {
	unshare --mount --propagation private true 2>/dev/null || {
		echo "cannot make a mount namespace (unshare --mount: not root?)"
		return 1
	}
}

req_pid_namespace() {
	unshare --pid --fork --mount-proc true 2>/dev/null || {
		echo "cannot make a pid namespace (unshare --pid: not root?)"
		return 1
	}
}

# the second user (tests/security/rootsafe.test.sh) can make a user and
# mount namespace of its own (unprivileged user namespaces allowed)
req_user_namespace() {
	req_second_user >/dev/null || { echo "no second user"; return 1; }
	setpriv --reuid=65534 --regid=65534 --clear-groups unshare -Urm true 2>/dev/null || {
		echo "uid 65534 cannot unshare -Urm (unprivileged user namespaces off?)"
		return 1
	}
}

# the suite's scratch directory's file system keeps POSIX ACLs (a default
# ACL set as its xattr, python3: no acl tools needed)
req_posix_acl() {
	mkdir -p "$TMP/req-acl" || return 1
	python3 -c '
import os, struct, sys
e = lambda tag, perm: struct.pack("<HHI", tag, perm, 0xffffffff)
os.setxattr(sys.argv[1], "system.posix_acl_default",
            struct.pack("<I", 2) + e(1, 7) + e(4, 5) + e(0x20, 5))' "$TMP/req-acl" 2>"$TMP/req-acl.err" || {
		echo "no default ACL on $TMP's file system: $(tail -n 1 "$TMP/req-acl.err")"
		return 1
	}
}

# reqh_tools NAME...: every NAME is a program on PATH
reqh_tools() {
	local t
	for t; do
		command -v "$t" >/dev/null 2>&1 || { echo "no $t"; return 1; }
	done
}
# the tree is a git checkout (the tests of what git would commit)
req_git_checkout() {
	git -C "$SNAPTRACE_TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
		echo "$SNAPTRACE_TOP is not a git checkout"
		return 1
	}
}

req_cc() { reqh_tools cc; }
req_gcc() { reqh_tools gcc; }
req_cxx() { reqh_tools g++; }
req_python3() { reqh_tools python3; }
req_strace() { reqh_tools strace; }
req_dwz() { reqh_tools dwz; }
req_fzf() { reqh_tools fzf; }
req_binutils() { reqh_tools addr2line nm objdump readelf; }
req_script() { reqh_tools script; }
# the kernel's keyrings (a session keyring joined and read back, python3)
req_keyrings() {
	reqh_tools python3 || return 1
	python3 -c 'import ctypes, sys; l = ctypes.CDLL(None, use_errno=True)
sys.exit(l.syscall(250, 1, b"snaptrace-req") < 0)' 2>/dev/null ||
		{ echo "no keyrings (keyctl KEYCTL_JOIN_SESSION_KEYRING failed)"; return 1; }
}
# rustc: on PATH or where rustup puts it; rustc_cmd prints the one to run
rustc_cmd() {
	command -v rustc 2>/dev/null || { [ -x "$HOME/.cargo/bin/rustc" ] && echo "$HOME/.cargo/bin/rustc"; }
}
req_rustc() { rustc_cmd >/dev/null || { echo "no rustc (on PATH or in ~/.cargo/bin)"; return 1; }; }
# the process picker shows its own numbered list on a terminal (script(1)'s)
req_picker_list() {
	reqh_tools script || return 1
	! command -v fzf >/dev/null 2>&1 || {
		echo "fzf is installed: the picker runs it, and fzf draws the list itself"
		return 1
	}
}

# an x86-64 host (tests/e2e/jit_target.c copies x86-64 machine code)
req_x86_64() {
	[ "$(uname -m)" = x86_64 ] || { echo "$(uname -m), not x86_64"; return 1; }
}

# the Intel PT generator (tests/ptsynth) is built: it needs libipt, Zydis
# and a C++ compiler, and the build leaves ptsynth.skip saying what lacked
req_ptsynth() {
	local bin=${SNAPTRACE_TEST_BIN:-$SNAPTRACE_TOP/build/test}
	if [ -f "$bin/ptsynth.skip" ]; then
		cat "$bin/ptsynth.skip"
		return 1
	fi
	[ -x "$bin/ptsynth" ] || { echo "$bin/ptsynth is not built"; return 1; }
}

# a program may single-step another (ptrace; the generator runs its
# programs so)
req_ptrace() {
	local bin=${SNAPTRACE_TEST_BIN:-$SNAPTRACE_TOP/build/test}
	req_ptsynth || return 1
	if ! "$bin/ptsynth" -q -o "$TMP/req-ptrace.data" -- "$bin/ptsynth-progs/tailcall" \
		>"$TMP/req-ptrace.out" 2>&1 && grep -q -i 'permission\|not permitted' "$TMP/req-ptrace.out"; then
		echo "ptrace is not permitted here: $(head -n 1 "$TMP/req-ptrace.out")"
		return 1
	fi
}

# requirement_names: every requirement, one a line.
requirement_names() {
	compgen -A function req_ | sed 's/^req_//'
}

# requirement REQ: 0 when the host has REQ, else prints why not and returns
# 1; 2 when REQ is no requirement. Each answer is kept in $TMP for the rest
# of the suite.
requirement() {
	local cache="$TMP/.requirements/$1" rc
	case "$1" in
	*[!a-z0-9_]* | '') return 2 ;;
	esac
	declare -F "req_$1" >/dev/null || return 2
	if [ ! -f "$cache" ]; then
		mkdir -p "$TMP/.requirements"
		("req_$1") >"$cache.why" 2>&1
		rc=$?
		[ $rc -eq 0 ] || rc=1
		{ echo "$rc"; head -n 1 "$cache.why"; } >"$cache"
	fi
	rc=$(head -n 1 "$cache")
	[ "$rc" -eq 0 ] || tail -n +2 "$cache"
	return "$rc"
}

# The requirements that mean a test records with perf (or has the recorder
# check the host by recording): such a test runs alone, in a suite of the
# record tier (tests/run.sh), never beside others in the check tier, where
# its timing would be at the mercy of the suites around it.
RECORDING_REQS="recording sched_switch signal_tracepoints buildid_mmap intel_pt
	perf_control perf_snapshot_e breakpoints dead_breakpoints uprobes user_recording"

# requires NAME REQ...: 0 when the host has every REQ; else prints "skip
# NAME: requires REQ: why" for the first one missing and returns 1. A REQ
# that is no requirement, or one of RECORDING_REQS in a suite the runner
# started in the check tier (SNAPTRACE_TEST_TIER), is a FAIL line.
requires() {
	local name=$1 req why rc
	shift
	for req; do
		if [ "${SNAPTRACE_TEST_TIER:-}" = check ] && [[ " $(echo $RECORDING_REQS) " == *" $req "* ]]; then
			echo "FAIL $name: requires $req (it records with perf) in a suite of the check tier: its suite needs '# tier: record'"
			return 1
		fi
		why=$(requirement "$req")
		rc=$?
		if [ $rc -eq 2 ]; then
			echo "FAIL $name: requires '$req', which tests/requirements.sh does not define"
			return 1
		elif [ $rc -ne 0 ]; then
			echo "skip $name: requires $req: ${why:-(no reason given)}"
			return 1
		fi
	done
}

# requires_all REQ...: unless the host has every REQ, a skip line for every
# test named in NAMES (the suite's list), then exits 0.
requires_all() {
	local n
	requires "${NAMES%%[[:space:]]*}" "$@" >/dev/null && return 0
	for n in $NAMES; do
		requires "$n" "$@"
	done
	exit 0
}
