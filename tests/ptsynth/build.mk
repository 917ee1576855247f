# tests/ptsynth: the Intel PT generator (a test tool, built by `make test`,
# never installed) and the expected-listing tool of its suite.
#
# It needs libipt and Zydis (libipt-dev, libzydis-dev) and a C++ compiler.
# Where one is missing nothing of it is built: $(O)/test/ptsynth.skip says
# what is missing and the suite (pt.test.sh) reports a skip with that text.
PTSYNTH_SRC := $(filter-out tests/ptsynth/expect.c,$(wildcard tests/ptsynth/*.c))
# The libraries are probed by compiling and linking a program against both
# (some 0.5 s, which every make paid, the tests' own makes too): once found,
# $(O)/test/ptsynth.found holds the compiler they were found with and later
# makes of that directory trust it (make clean forgets it); a library not
# found is probed again by every make, so installing it is seen.
PTSYNTH_FOUND := $(O)/test/ptsynth.found
ifeq ($(file <$(PTSYNTH_FOUND)),$(CC))
PTSYNTH_LIBS := y
else
PTSYNTH_LIBS := $(shell echo 'int main(void) { return 0; }' | $(CC) -x c - -include intel-pt.h \
	-include Zydis/Zydis.h -o /dev/null -lipt -lZydis 2>/dev/null && echo y)
ifneq ($(and $(PTSYNTH_LIBS),$(BUILDING)),)
$(shell mkdir -p $(dir $(PTSYNTH_FOUND)))
$(file >$(PTSYNTH_FOUND),$(CC))
endif
endif
PTSYNTH_MISSING := $(strip $(if $(PTSYNTH_LIBS),,libipt-dev or libzydis-dev) \
	$(if $(shell command -v $(CXX)),,a C++ compiler ($(CXX))))

ifneq ($(PTSYNTH_MISSING),)
$(O)/test/ptsynth.skip: FORCE
	@mkdir -p $(dir $@)
	@echo "the Intel PT generator needs $(PTSYNTH_MISSING) (scripts/install-deps.sh)" \
		| tee $@ >&2

TEST_BINS += $(O)/test/ptsynth.skip
else
$(shell rm -f $(O)/test/ptsynth.skip)
$(O)/test/ptsynth: $(call obj,$(PTSYNTH_SRC) common/diag.c common/escape.c common/utf8.c common/spawn.c common/stopwatch.c common/signals.c common/childenv.c common/inpath.c common/pathtrust.c common/runas.c \
	common/demangle.c convert/perfsym.c convert/pltents.c)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lipt -lZydis -lelf -liberty

TEST_BINS += $(O)/test/ptsynth
# the generator names functions with the converter's perfsym.c
$(call obj,$(PTSYNTH_SRC)): ALL_CFLAGS += -Iconvert

$(O)/test/ptsynth-expect: $(call obj,tests/ptsynth/expect.c common/diag.c common/escape.c common/utf8.c)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

TEST_BINS += $(O)/test/ptsynth-expect

# The test programs: fixed flags (never sanitizers: they are traced, not
# tested), static where possible so the trace from main stays short.
PTSYNTH_PROGS_DIR := $(O)/test/ptsynth-progs
PTSYNTH_PROG_FLAGS := -g -fno-omit-frame-pointer -fno-plt
PTSYNTH_PROGS := $(addprefix $(PTSYNTH_PROGS_DIR)/,calls-static calls-pie recurse tailcall \
	indirect longjmp except vdso threads stop bench calls-nodebug phases crash)

$(PTSYNTH_PROGS_DIR)/calls-static: tests/ptsynth/progs/calls.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(PTSYNTH_PROG_FLAGS) -O1 -static -o $@ $<

$(PTSYNTH_PROGS_DIR)/calls-pie: tests/ptsynth/progs/calls.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(PTSYNTH_PROG_FLAGS) -O1 -fPIE -pie -o $@ $<

# Without debug info: its slices get no source lines.
$(PTSYNTH_PROGS_DIR)/calls-nodebug: tests/ptsynth/progs/calls.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(filter-out -g,$(PTSYNTH_PROG_FLAGS)) -O1 -fPIE -pie -o $@ $<

$(PTSYNTH_PROGS_DIR)/tailcall $(PTSYNTH_PROGS_DIR)/indirect: $(PTSYNTH_PROGS_DIR)/%: \
		tests/ptsynth/progs/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(PTSYNTH_PROG_FLAGS) -O2 -static -o $@ $<

$(PTSYNTH_PROGS_DIR)/recurse $(PTSYNTH_PROGS_DIR)/longjmp $(PTSYNTH_PROGS_DIR)/vdso \
		$(PTSYNTH_PROGS_DIR)/stop $(PTSYNTH_PROGS_DIR)/crash: $(PTSYNTH_PROGS_DIR)/%: \
		tests/ptsynth/progs/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(PTSYNTH_PROG_FLAGS) -O1 -static -o $@ $<

$(PTSYNTH_PROGS_DIR)/threads $(PTSYNTH_PROGS_DIR)/bench $(PTSYNTH_PROGS_DIR)/phases: \
		$(PTSYNTH_PROGS_DIR)/%: tests/ptsynth/progs/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(PTSYNTH_PROG_FLAGS) -O1 -static -pthread -o $@ $<

$(PTSYNTH_PROGS_DIR)/except: tests/ptsynth/progs/except.cc
	@mkdir -p $(dir $@)
	$(Q)$(CXX) $(PTSYNTH_PROG_FLAGS) -O1 -o $@ $<

TEST_BINS += $(PTSYNTH_PROGS)
endif
