# examples/build.mk: the demo target (included by the top Makefile).
#
#   make demo   installs missing packages, builds, records the demo with
#               `scripts/snaptrace run` (default trigger:
#               magic_trace_stop_indicator) into trace.fxt.gz and prints
#               a summary.
#
# The demo is built like a program one wants to see in a timeline: with
# debug info and frame pointers in every function, leaves included where the
# compiler honours it (clang does; gcc 12 omits them in leaves that need no
# stack).

DEMO := $(O)/examples/demo
DEMO_CFLAGS := -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer

$(DEMO): examples/demo.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(DEMO_CFLAGS) -o $@ $< -ldl -lpthread

# the record tests use the demo as their known target
TEST_BINS += $(DEMO)

demo: deps
	@$(MAKE) --no-print-directory all $(DEMO)
	@SNAPTRACE_BIN=$(abspath $(O)/bin) scripts/snaptrace run -o trace.fxt.gz -- $(DEMO)
	@echo "functions in the snapshot (slices per function):"
	@SNAPTRACE_BIN=$(abspath $(O)/bin) scripts/snaptrace convert --dump=slices trace.fxt.gz \
		| awk '{ n[$$3]++ } END { for (f in n) printf "  %6d  %s\n", n[f], f }' \
		| sort -rn | head -n 8
	@echo "open trace.fxt.gz in https://ui.perfetto.dev"
