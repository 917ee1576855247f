# snaptrace build. `make` builds the programs into $(O)/bin; `make test` installs
# missing packages, builds everything and runs the suite; `make asan` runs the
# suite on a sanitizer build in build/asan; `make demo` records the bundled demo.
#
# Knobs: O=DIR (object and program directory, default build), SAN=1
# (address+undefined sanitizers), V=1 (show commands), PREFIX=DIR (install).

O ?= build
PREFIX ?= /usr/local
CC ?= cc
CFLAGS ?= -O2 -g
WARN := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wstrict-prototypes
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
ALL_CFLAGS = $(WARN) $(CFLAGS) $(SANFLAGS) -Icommon -Ifxt -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)

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

obj = $(patsubst %.c,$(O)/obj/%.o,$(1))
LIB_OBJ := $(call obj,$(COMMON_SRC) $(FXT_SRC))

PROGRAMS := $(O)/bin/snaptrace-convert $(O)/bin/snaptrace-record $(O)/bin/snaptrace-stats
UNIT_BINS := $(patsubst tests/unit/%.c,$(O)/test/unit/%,$(UNIT_SRC))
TEST_BINS := $(UNIT_BINS)

.PHONY: all test unit asan demo bench fuzz deps install clean help
all: $(PROGRAMS)

$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/bin/snaptrace-convert: $(call obj,convert/main.c $(CONVERT_SRC)) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lz -pthread

$(O)/bin/snaptrace-record: $(call obj,record/main.c $(RECORD_SRC)) $(call obj,$(COMMON_SRC))
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lelf

# Unit tests link the library parts of every program.
$(O)/test/unit/%: tests/unit/%.c $(call obj,$(CONVERT_SRC) $(RECORD_SRC)) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  TEST    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Iconvert -Irecord -Itests/unit $(ALL_LDFLAGS) -o $@ $^ -lz -lelf -pthread

# Components with build rules of their own (test tools, examples, benchmarks)
# add to TEST_BINS and friends from their fragment.
include $(sort $(wildcard */build.mk tests/*/build.mk))

deps:
	@scripts/install-deps.sh

test: deps
	@$(MAKE) --no-print-directory all tests-build
	@tests/run.sh $(O)

tests-build: $(PROGRAMS) $(TEST_BINS)

unit: $(PROGRAMS) $(UNIT_BINS)
	@tests/run.sh $(O) unit

asan:
	@$(MAKE) --no-print-directory O=build/asan SAN=1 test

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/libexec/snaptrace
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/libexec/snaptrace/
	install -m 755 scripts/snaptrace $(DESTDIR)$(PREFIX)/bin/snaptrace

clean:
	rm -rf build

help:
	@echo "targets: all test unit asan demo bench fuzz install clean"
	@echo "knobs:   O=DIR SAN=1 V=1 PREFIX=DIR"

-include $(shell find $(O)/obj $(O)/test -name '*.d' 2>/dev/null)
