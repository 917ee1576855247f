# tests/ptsynth: the Intel PT generator (a test tool, built by `make test`,
# never installed) and the expected-listing tool of its suite.
PTSYNTH_SRC := $(filter-out tests/ptsynth/expect.c,$(wildcard tests/ptsynth/*.c))

$(O)/test/ptsynth: $(call obj,$(PTSYNTH_SRC) common/diag.c)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ -lipt -lZydis -lelf -lstdc++

TEST_BINS += $(O)/test/ptsynth

$(O)/test/ptsynth-expect: $(call obj,tests/ptsynth/expect.c common/diag.c)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^

TEST_BINS += $(O)/test/ptsynth-expect

# The test programs: fixed flags (never sanitizers: they are traced, not
# tested), static where possible so the trace from main stays short.
PTSYNTH_PROGS_DIR := $(O)/test/ptsynth-progs
PTSYNTH_PROG_FLAGS := -g -fno-omit-frame-pointer -fno-plt
PTSYNTH_PROGS := $(addprefix $(PTSYNTH_PROGS_DIR)/,calls-static calls-pie recurse tailcall \
	indirect longjmp except vdso threads stop)

$(PTSYNTH_PROGS_DIR)/calls-static: tests/ptsynth/progs/calls.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(PTSYNTH_PROG_FLAGS) -O1 -static -o $@ $<

$(PTSYNTH_PROGS_DIR)/calls-pie: tests/ptsynth/progs/calls.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(PTSYNTH_PROG_FLAGS) -O1 -fPIE -pie -o $@ $<

$(PTSYNTH_PROGS_DIR)/tailcall $(PTSYNTH_PROGS_DIR)/indirect: $(PTSYNTH_PROGS_DIR)/%: \
		tests/ptsynth/progs/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(PTSYNTH_PROG_FLAGS) -O2 -static -o $@ $<

$(PTSYNTH_PROGS_DIR)/recurse $(PTSYNTH_PROGS_DIR)/longjmp $(PTSYNTH_PROGS_DIR)/vdso \
		$(PTSYNTH_PROGS_DIR)/stop: $(PTSYNTH_PROGS_DIR)/%: tests/ptsynth/progs/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(PTSYNTH_PROG_FLAGS) -O1 -static -o $@ $<

$(PTSYNTH_PROGS_DIR)/threads: tests/ptsynth/progs/threads.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(PTSYNTH_PROG_FLAGS) -O1 -static -pthread -o $@ $<

$(PTSYNTH_PROGS_DIR)/except: tests/ptsynth/progs/except.cc
	@mkdir -p $(dir $@)
	$(Q)g++ $(PTSYNTH_PROG_FLAGS) -O1 -o $@ $<

TEST_BINS += $(PTSYNTH_PROGS)
