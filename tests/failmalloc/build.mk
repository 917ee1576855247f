# tests/failmalloc: allocation-failure injection (failmalloc.h). The
# converter is linked a second time with every allocation of its own code
# wrapped, for the nomem suite; the writer's unit test of out-of-memory
# stickiness is linked the same way. Never installed.
FAILMALLOC_LDFLAGS := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup \
	-Wl,--wrap=strndup,--wrap=asprintf
FAILMALLOC_OBJ := $(call obj,tests/failmalloc/failmalloc.c)

$(O)/test/failmalloc/snaptrace-convert: $(call obj,convert/main.c $(CONVERT_SRC)) $(LIB_OBJ) \
		$(DEBUGINFO_OBJ) $(FAILMALLOC_OBJ)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $(FAILMALLOC_LDFLAGS) -o $@ $^ $(CONVERT_LIBS)

TEST_BINS += $(O)/test/failmalloc/snaptrace-convert

# The unit tests that count and fail allocations.
FAILMALLOC_UNIT := $(O)/test/unit/test_fxt_writer_nomem
$(FAILMALLOC_UNIT): $(FAILMALLOC_OBJ)
$(FAILMALLOC_UNIT): ALL_LDFLAGS += $(FAILMALLOC_LDFLAGS)
$(FAILMALLOC_UNIT): ALL_CFLAGS += -Itests/failmalloc
