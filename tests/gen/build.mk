# Test input generators (tests/gen/*.c): one program per file, built into
# $(O)/test/gen/ and added to TEST_BINS. The awk generators need no build.
GEN_BINS := $(patsubst tests/gen/%.c,$(O)/test/gen/%,$(wildcard tests/gen/*.c))
TEST_BINS += $(GEN_BINS)

$(O)/test/gen/%: tests/gen/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

# text2bin reads lines with the converter's parser.
$(O)/test/gen/text2bin: tests/gen/text2bin.c $(call obj,convert/parse.c) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Iconvert $(ALL_LDFLAGS) -o $@ $< $(call obj,convert/parse.c)

# perfdata_strip rewrites a perf.data with common/perfdata.c.
$(O)/test/gen/perfdata_strip: tests/gen/perfdata_strip.c $(call obj,common/perfdata.c common/perfattr.c common/inpath.c common/pathtrust.c) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GEN     $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Icommon $(ALL_LDFLAGS) -o $@ $< $(call obj,common/perfdata.c common/perfattr.c common/inpath.c common/pathtrust.c)
