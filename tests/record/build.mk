# tests/record: slowperf, the slow perf stand-in of the lifecycle suite (a
# test tool, built with the build's flags).
$(O)/test/slowperf: tests/record/slowperf.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

TEST_BINS += $(O)/test/slowperf
