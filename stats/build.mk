# stats/: snaptrace-stats, per-function statistics of an FXT trace, on the
# project's FXT reader (streaming).
STATS_SRC := $(wildcard stats/*.c)

# --function NAME takes a mangled name too: the demangler (libiberty's).
$(O)/bin/snaptrace-stats: $(call obj,$(STATS_SRC)) $(LIB_OBJ) $(DEMANGLE_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(DEFLATE_LIBS) -liberty -lm

# The unit tests of stats' reader (tests/unit/test_stats_agg.c) link it too.
$(O)/test/unit/test_stats_agg: $(call obj,stats/agg.c)
