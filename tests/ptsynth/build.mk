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
