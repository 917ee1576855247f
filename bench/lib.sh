# Helpers of the benchmarks (sourced by bench/bench.sh and bench/pipeline.sh).

die() { echo "bench: $*" >&2; exit 1; }

# scratch DIR: creates DIR, removed when the script exits (kept, with a
# note, when KEEP=1).
scratch() {
	mkdir -p "$1" || die "cannot create $1"
	if [ "${KEEP:-0}" = 1 ]; then
		trap "read -r _exit_pid _ </proc/self/stat; [ \"\$_exit_pid\" != \"\$\$\" ] || echo 'bench: kept $1' >&2" EXIT
	else
		# the script's shell alone (tests/lib.sh on_exit says why)
		trap "read -r _exit_pid _ </proc/self/stat; [ \"\$_exit_pid\" != \"\$\$\" ] || rm -rf '$1'" EXIT
	fi
}
