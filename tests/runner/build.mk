# tests/runner: sigdfl, which tests/run.sh starts every suite and unit
# program through (SIGINT, SIGQUIT, SIGTERM, SIGHUP at their default action,
# however the runner was started). Built without sanitizers: it only execs.
$(O)/test/sigdfl: tests/runner/sigdfl.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) -o $@ $<

TEST_BINS += $(O)/test/sigdfl
