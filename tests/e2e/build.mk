# tests/e2e: perfdata_dump, what common/perfdata.c reads of a perf.data
# without perf (the pt-variants suite compares it with perf's own view),
# built with the build's flags once, not compiled by each run of a suite.
$(O)/test/perfdata_dump: tests/e2e/perfdata_dump.c $(call obj,common/perfdata.c common/perfattr.c common/inpath.c common/pathtrust.c) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Icommon $(ALL_LDFLAGS) -o $@ $< $(call obj,common/perfdata.c common/perfattr.c common/inpath.c common/pathtrust.c)

TEST_BINS += $(O)/test/perfdata_dump
