# snaptrace build. `make` builds the programs into $(O)/bin; `make test` installs
# missing packages, builds everything and runs the suite; `make asan` runs the
# check tier on a sanitizer build in $(O)/asan; `make demo` records the
# bundled demo.
#
# Tests (tests/run.sh; docs/contributing.md "Run the tests"):
#   make test        the check and record tiers: what a change must pass (CI)
#   make check       the check tier only (no perf recording): the edit loop
#   make test-stress the record and stress tiers with the race hunts at full
#                    count, R times each (default 3), then `make fuzz`
#                    (FUZZ_SECONDS per target)
#   make test-pt-hardware  the real Intel PT cases (a host with Intel PT)
#   make asan        the check tier on an ASan + UBSan build in $(O)/asan
#                    (what CI runs; T=SUITE runs others under it, e.g. T=record)
#
# Knobs: O=DIR (object and program directory, default build), SAN=1
# (address+undefined sanitizers; remembered in $(O)/san, so a later make of
# that directory without SAN, e.g. a test's `make install`, keeps them), V=1
# (show commands), PREFIX=DIR and DESTDIR=DIR (install), T=SUITE[/CASE] (the test targets
# run only that suite or golden case, whatever its tier), R=N (run each
# suite N times), J=N (check-tier suites at a time; default the CPUs), RJ=N
# (record-tier suites at a time; default the CPUs plus one).
#
# The version is the one line of the file VERSION: compiled in as
# SNAPTRACE_VERSION (common/version.h) and written into the installed front end.

O ?= build
# One spelling of O for every make run (the tests pass it absolute): the
# targets the compiler writes into the .d files must be the names make
# builds, or a header's change rebuilds nothing.
override O := $(patsubst $(CURDIR)/%,%,$(abspath $(O)))
PREFIX ?= /usr/local
CC ?= cc
CFLAGS ?= -O2 -g

# Goals that build something (not clean or help): only they write into $(O).
BUILDING := $(if $(MAKECMDGOALS),$(filter-out clean help,$(MAKECMDGOALS)),all)
ifeq ($(origin SAN),command line)
ifneq ($(BUILDING),)
$(shell mkdir -p $(O))
$(file >$(O)/san,$(SAN))
endif
else ifeq ($(origin SAN),undefined)
SAN := $(file <$(O)/san)
endif
WARN := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wstrict-prototypes
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
VERSION := $(shell cat VERSION)
# gzip output: ISA-L's igzip (libisal-dev; fxt/fxt_deflate.c: a fifth of
# zlib's time), zlib where ISA-L is missing; zlib also reads gzip (fxt/fxt_reader.c).
ISAL_HEADER := $(wildcard /usr/include/isa-l/igzip_lib.h)
DEFLATE_CFLAGS := $(if $(ISAL_HEADER),-DFXT_DEFLATE_ISAL)
DEFLATE_LIBS := $(if $(ISAL_HEADER),-lisal) -lz
ALL_CFLAGS = $(WARN) $(CFLAGS) $(SANFLAGS) -DSNAPTRACE_VERSION='"$(VERSION)"' -Icommon -Ifxt -Idlfilter \
	$(TRACEEVENT_CFLAGS) $(DEFLATE_CFLAGS) -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)

# $(O)/flags holds the compiler and flags the objects of $(O) were built
# with; it is rewritten (and so every object rebuilds) only when they change.
FLAGS_STAMP := $(O)/flags
FLAGS_LINE = $(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)
ifneq ($(BUILDING),)
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_LINE))
$(shell mkdir -p $(O))
$(file >$(FLAGS_STAMP),$(FLAGS_LINE))
endif
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

COMMON_SRC := $(wildcard common/*.c)
FXT_SRC := $(wildcard fxt/*.c)
CONVERT_SRC := $(filter-out convert/main.c,$(wildcard convert/*.c))
RECORD_SRC := $(filter-out record/main.c,$(wildcard record/*.c))
UNIT_SRC := $(wildcard tests/unit/test_*.c)

# Debug information for both programs: libelf (ELF symbols), libdw (DWARF
# line tables: the converter's source lines, the recorder's line: triggers),
# libiberty (the demangler of C++ and Rust legacy and v0 names, perf's own:
# the converter's source lines, the recorder's triggers).
DEBUGINFO_LIBS := -lelf -ldw -liberty
# Zydis: the recorder decodes x86-64 to place probes on instruction starts
# (record/insnstart.c); libtraceevent: it reads the fields of the signal
# tracepoints it watches (record/sigwatch.c).
TRACEEVENT_CFLAGS := -I/usr/include/traceevent
RECORD_LIBS := $(DEBUGINFO_LIBS) -lZydis -ltraceevent
# json-c: the converter reads a recording's record.json (convert/recording.c).
CONVERT_LIBS := $(DEFLATE_LIBS) -ljson-c $(DEBUGINFO_LIBS) -lipt -pthread

obj = $(patsubst %.c,$(O)/obj/%.o,$(1))
# common/ parts that need libelf, libdw or libiberty: linked by the converter and
# the recorder (which takes all of common/); stats takes the demangler alone.
DEMANGLE_OBJ := $(call obj,common/demangle.c)
DEBUGINFO_OBJ := $(call obj,common/zdwarf.c common/dwalt.c common/elfid.c common/fdetab.c) $(DEMANGLE_OBJ)
LIB_OBJ := $(filter-out $(DEBUGINFO_OBJ),$(call obj,$(COMMON_SRC) $(FXT_SRC)))

# snaptrace-dlfilter.so goes with the programs: snaptrace-convert finds it
# beside itself (dlfilter/build.mk).
PROGRAMS := $(O)/bin/snaptrace-convert $(O)/bin/snaptrace-record $(O)/bin/snaptrace-stats \
	$(O)/bin/snaptrace-dlfilter.so
UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/test/unit/%,$(UNIT_SRC))
TEST_BINS := $(UNIT_BINS)

# The man pages and the bash completion, generated from the programs'
# option tables (common/opttab.h: --help=man, --help=bash); snaptrace(1)
# is the front end's, `snaptrace run`'s table.
MAN_PAGES := $(O)/man/snaptrace.1 $(O)/man/snaptrace-record.1 $(O)/man/snaptrace-convert.1 \
	$(O)/man/snaptrace-stats.1
COMPLETION := $(O)/completion/snaptrace

.PHONY: all test check test-stress test-pt-hardware unit asan demo bench fuzz deps install \
	clean help FORCE
all: $(PROGRAMS) $(MAN_PAGES) $(COMPLETION)

$(O)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/bin/snaptrace-convert: $(call obj,convert/main.c $(CONVERT_SRC)) $(LIB_OBJ) $(DEBUGINFO_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONVERT_LIBS)

$(O)/bin/snaptrace-record: $(call obj,record/main.c $(RECORD_SRC)) $(call obj,$(COMMON_SRC))
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(RECORD_LIBS)

$(filter-out $(O)/man/snaptrace.1,$(MAN_PAGES)): $(O)/man/%.1: $(O)/bin/%
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MAN     $@")
	$(Q)$< --help=man >$@.tmp && mv $@.tmp $@

$(O)/man/snaptrace.1: $(O)/bin/snaptrace-record
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MAN     $@")
	$(Q)$< --front-end run --help=man >$@.tmp && mv $@.tmp $@

$(COMPLETION): $(O)/bin/snaptrace-record $(O)/bin/snaptrace-convert $(O)/bin/snaptrace-stats
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q){ for p in $^; do $$p --help=bash || exit 1; done; \
	  $< --front-end run --help=bash; } >$@.tmp && mv $@.tmp $@

# Unit tests link the library parts of every program.
$(O)/test/unit/%: tests/unit/%.c $(call obj,$(CONVERT_SRC) $(RECORD_SRC)) $(LIB_OBJ) \
		$(DEBUGINFO_OBJ) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Iconvert -Irecord -Itests/unit $(ALL_LDFLAGS) -o $@ \
		$(filter-out $(FLAGS_STAMP),$^) $(CONVERT_LIBS) -lZydis -ltraceevent

# Components with build rules of their own (test tools, examples, benchmarks)
# add to TEST_BINS and friends from their fragment.
include $(sort $(wildcard */build.mk tests/*/build.mk))

deps:
	@scripts/install-deps.sh

RUN_FLAGS = $(if $(R),-r $(R)) $(if $(J),-j $(J)) $(if $(RJ),-J $(RJ))

# The build before a run of the suite is on every CPU unless make was given
# its own -j (a fresh clone's build was a quarter of make test's time when
# run one compiler at a time). Each recipe names $(MAKE) itself, so that
# make -n still shows the build.
BUILD_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))

test: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all tests-build
	@tests/run.sh $(RUN_FLAGS) --tiers check,record $(O) $(T)

check:
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all tests-build
	@tests/run.sh $(RUN_FLAGS) --tiers check $(O) $(T)

test-stress: deps fuzz-deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all tests-build
	@tests/run.sh --stress -r $(or $(R),3) $(if $(J),-j $(J)) $(if $(RJ),-J $(RJ)) --tiers record,stress $(O) $(T)
	@$(MAKE) --no-print-directory fuzz-run

test-pt-hardware: deps
	@$(MAKE) --no-print-directory $(BUILD_JOBS) all tests-build
	@tests/run.sh $(RUN_FLAGS) --tiers pt-hardware $(O) $(T)

tests-build: $(PROGRAMS) $(TEST_BINS)

unit: $(PROGRAMS) $(UNIT_BINS) $(O)/test/sigdfl
	@tests/run.sh $(O) unit

# The sanitizer build lives beside the normal one: $(O)/asan. It runs the
# check tier: the converter, FXT, stats, the recorder's command lines and
# the unit tests, none of which records (T= runs any suite under it).
asan: deps
	@$(MAKE) --no-print-directory O=$(O)/asan SAN=1 check

# PREFIX/bin: the front end (front/build.mk) and links to the programs; PREFIX/libexec/snaptrace: the
# programs and the dlfilter, which snaptrace-convert finds beside itself;
# the man pages; the bash completion, under each program's name.
BINDIR = $(DESTDIR)$(PREFIX)/bin
LIBEXECDIR = $(DESTDIR)$(PREFIX)/libexec/snaptrace
MANDIR = $(DESTDIR)$(PREFIX)/share/man/man1
COMPLETIONDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
install: all
	install -d $(BINDIR) $(LIBEXECDIR) $(MANDIR) $(COMPLETIONDIR)
	install -m 755 $(PROGRAMS) $(LIBEXECDIR)/
	install -m 755 $(FRONT_END) $(BINDIR)/snaptrace
	for p in record convert stats; do \
		ln -sfn ../libexec/snaptrace/snaptrace-$$p $(BINDIR)/snaptrace-$$p || exit 1; \
		ln -sfn snaptrace $(COMPLETIONDIR)/snaptrace-$$p || exit 1; \
	done
	install -m 644 $(MAN_PAGES) $(MANDIR)/
	install -m 644 $(COMPLETION) $(COMPLETIONDIR)/snaptrace

# Only O itself, never the source tree it may be part of.
clean:
	@case '$(abspath $(O))' in '$(abspath .)' | '$(abspath ..)' | / | '') \
		echo "make clean: O=$(O) is not a build directory" >&2; exit 2 ;; esac
	rm -rf $(O)

help:
	@echo "targets: all test check test-stress test-pt-hardware unit asan demo bench fuzz install clean"
	@echo "knobs:   O=DIR SAN=1 V=1 PREFIX=DIR DESTDIR=DIR T=SUITE[/CASE] R=N J=N RJ=N"

-include $(shell find $(O)/obj $(O)/test -name '*.d' 2>/dev/null)
