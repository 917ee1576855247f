# snaptrace build. `make` builds the programs into $(O)/bin; `make test` installs
# missing packages, builds everything and runs the suite; `make asan` runs the
# suite on a sanitizer build in $(O)/asan; `make demo` records the bundled demo.
#
# Knobs: O=DIR (object and program directory, default build), SAN=1
# (address+undefined sanitizers; remembered in $(O)/san, so a later make of
# that directory without SAN, e.g. a test's `make install`, keeps them), V=1
# (show commands), PREFIX=DIR (install), T=SUITE[/CASE] (`make test` runs
# only that suite or golden case).
#
# The version is the one line of the file VERSION: compiled in as
# SNAPTRACE_VERSION (common/version.h) and written into the installed front end.

O ?= build
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
ALL_CFLAGS = $(WARN) $(CFLAGS) $(SANFLAGS) -DSNAPTRACE_VERSION='"$(VERSION)"' -Icommon -Ifxt -Idlfilter \
	$(TRACEEVENT_CFLAGS) -MMD -MP
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
CONVERT_LIBS := -lz -ljson-c $(DEBUGINFO_LIBS) -pthread

obj = $(patsubst %.c,$(O)/obj/%.o,$(1))
LIB_OBJ := $(call obj,$(COMMON_SRC) $(FXT_SRC))

# snaptrace-dlfilter.so goes with the programs: snaptrace-convert finds it
# beside itself (dlfilter/build.mk).
PROGRAMS := $(O)/bin/snaptrace-convert $(O)/bin/snaptrace-record $(O)/bin/snaptrace-stats \
	$(O)/bin/snaptrace-dlfilter.so
UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/test/unit/%,$(UNIT_SRC))
TEST_BINS := $(UNIT_BINS)

.PHONY: all test unit asan demo bench fuzz deps install clean help FORCE
all: $(PROGRAMS)

$(O)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/bin/snaptrace-convert: $(call obj,convert/main.c $(CONVERT_SRC)) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CONVERT_LIBS)

$(O)/bin/snaptrace-record: $(call obj,record/main.c $(RECORD_SRC)) $(call obj,$(COMMON_SRC))
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(RECORD_LIBS)

# Unit tests link the library parts of every program.
$(O)/test/unit/%: tests/unit/%.c $(call obj,$(CONVERT_SRC) $(RECORD_SRC)) $(LIB_OBJ) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Iconvert -Irecord -Itests/unit $(ALL_LDFLAGS) -o $@ \
		$(filter-out $(FLAGS_STAMP),$^) $(CONVERT_LIBS) -lZydis -ltraceevent

# Components with build rules of their own (test tools, examples, benchmarks)
# add to TEST_BINS and friends from their fragment.
include $(sort $(wildcard */build.mk tests/*/build.mk))

deps:
	@scripts/install-deps.sh

test: deps
	@$(MAKE) --no-print-directory all tests-build
	@tests/run.sh $(O) $(T)

tests-build: $(PROGRAMS) $(TEST_BINS)

unit: $(PROGRAMS) $(UNIT_BINS)
	@tests/run.sh $(O) unit

# The sanitizer build lives beside the normal one: $(O)/asan.
asan:
	@$(MAKE) --no-print-directory O=$(O)/asan SAN=1 test

# The front end gets the version written in (a source tree's reads VERSION).
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/snaptrace
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/libexec/snaptrace/
	sed 's/@SNAPTRACE_VERSION@/$(VERSION)/' scripts/snaptrace >$(DESTDIR)$(PREFIX)/bin/snaptrace
	chmod 755 $(DESTDIR)$(PREFIX)/bin/snaptrace

# Only O itself, never the source tree it may be part of.
clean:
	@case '$(abspath $(O))' in '$(abspath .)' | '$(abspath ..)' | / | '') \
		echo "make clean: O=$(O) is not a build directory" >&2; exit 2 ;; esac
	rm -rf $(O)

help:
	@echo "targets: all test unit asan demo bench fuzz install clean"
	@echo "knobs:   O=DIR SAN=1 V=1 PREFIX=DIR T=SUITE[/CASE]"

-include $(shell find $(O)/obj $(O)/test -name '*.d' 2>/dev/null)
