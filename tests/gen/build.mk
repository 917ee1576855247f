# Test input generators (tests/gen/*.c): one program per file, built into
# $(O)/test/gen/ and added to TEST_BINS. The awk generators need no build.
GEN_BINS := $(patsubst tests/gen/%.c,$(O)/test/gen/%,$(wildcard tests/gen/*.c))
TEST_BINS += $(GEN_BINS)

$(O)/test/gen/%: tests/gen/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<
