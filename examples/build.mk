# examples/build.mk: the demo target (included by the top Makefile).
#
#   make demo   installs missing packages, then `make demo-run`.
#   make demo-run  builds, records the demo with the front end, $(O)/bin/snaptrace run
#               (default trigger: magic_trace_stop_indicator) into
#               $(DEMO_TRACE) (default trace.fxt.gz) and prints its summary:
#               `snaptrace stats`' own table of the functions with the most
#               time, never a re-parse of a tool's output.
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

DEMO_TRACE ?= trace.fxt.gz
DEMO_ROWS := 8

.PHONY: demo-run
demo: deps
	@$(MAKE) --no-print-directory demo-run

demo-run:
	@$(MAKE) --no-print-directory all $(DEMO)
	@$(O)/bin/snaptrace run -o $(DEMO_TRACE) -- $(DEMO)
	@echo
	@$(O)/bin/snaptrace stats --limit $(DEMO_ROWS) $(DEMO_TRACE)
