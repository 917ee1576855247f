#!/bin/sh
# Installs the Debian packages snaptrace needs to build and test, only those
# missing. Quiet and quick when everything is there: then it runs neither
# sudo nor apt-get. Elsewhere than Debian it only lists the packages.
#   scripts/install-deps.sh          build + test + demo packages
#   scripts/install-deps.sh PKG...   the same and PKG... (make fuzz: clang)
set -eu

# gcc make libc6-dev: build; g++: a C++ test program (exceptions);
# libisal-dev (ISA-L's igzip): gzip output; zlib1g-dev: gzip input (and
# output where ISA-L is missing); libjson-c-dev: record.json read by the
# converter; libelf-dev: ELF symbols; libdw-dev: DWARF line
# tables (source lines of slices, line: triggers); libiberty-dev: the
# demangler (C++, Rust legacy and v0), perf's own; libzydis-dev: the
# recorder's instruction decoder (probes on instruction starts) and, with
# libipt-dev, the Intel PT generator of the tests; libtraceevent-dev: the
# recorder reads the signal tracepoints' fields; linux-perf: recording
# and decoding; binutils, procps: tests; dwz: a test's binaries with
# dwz's supplementary DWARF file; time: the benchmark's peak RSS;
# libc6-dbg: libc's symbols, so that perf and the Intel PT generator of the
# tests name libc functions the same way on every machine; man-db: the
# tests render the generated man pages (man -l).
PACKAGES="gcc g++ make man-db libc6-dev libc6-dbg libisal-dev zlib1g-dev libjson-c-dev libelf-dev libdw-dev libiberty-dev libipt-dev libzydis-dev libtraceevent-dev
linux-perf binutils procps dwz time $*"

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "install-deps: not a Debian system (no dpkg-query): nothing installed;" \
		"the build needs the equivalents of:" $PACKAGES >&2
	exit 0
fi
missing=""
for pkg in $PACKAGES; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	case "$status" in
	*"install ok installed"*) ;;
	*) missing="$missing $pkg" ;;
	esac
done
[ -z "$missing" ] && exit 0

echo "install-deps: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
	sudo=""
elif command -v sudo >/dev/null 2>&1; then
	sudo="sudo"
else
	echo "install-deps: need root to run: apt-get install$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >&2
