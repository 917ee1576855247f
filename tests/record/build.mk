# tests/record: test tools built with the build's flags: slowperf, the
# slow perf stand-in of the lifecycle suite, and trigspec.
$(O)/test/slowperf: tests/record/slowperf.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

TEST_BINS += $(O)/test/slowperf

# trigspec: --trigger SPECs resolved as the recorder does, without recording
# (the triggers suite); links the recorder's parts as the unit tests do.
$(O)/test/trigspec: tests/record/trigspec.c $(call obj,$(RECORD_SRC) $(COMMON_SRC)) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) -Irecord $(ALL_LDFLAGS) -o $@ $< \
		$(call obj,$(RECORD_SRC) $(COMMON_SRC)) $(RECORD_LIBS)

TEST_BINS += $(O)/test/trigspec

# sigat: a command signalled at a chosen moment of its start (the frontend
# suite's early signals).
$(O)/test/sigat: tests/record/sigat.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

TEST_BINS += $(O)/test/sigat

# captime: whether the kernel offers perf's TSC conversion (req_tsc).
$(O)/test/captime: tests/record/captime.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

TEST_BINS += $(O)/test/captime

# beforeexec.so: preloaded into the recorder, signals as it starts a
# program (outcomes' never-started programs). Built without the sanitizers:
# a library preloaded into a sanitized recorder cannot bring its runtime.
$(O)/test/beforeexec.so: tests/record/beforeexec.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) -fPIC -shared -o $@ $< -ldl

TEST_BINS += $(O)/test/beforeexec.so
