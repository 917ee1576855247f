# tests/stats: mkfxt, which writes FXT files from a script through the
# project's writer (exact durations, magic-trace's layout) for the stats suite.
$(O)/test/stats-mkfxt: $(call obj,tests/stats/mkfxt.c) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(DEFLATE_LIBS)

TEST_BINS += $(O)/test/stats-mkfxt
