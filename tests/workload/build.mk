# tests/workload: the program the recorder's suites record (workload.c, a
# mode per behaviour) and the call counter that checks it (callcount.c).
#
# The workload is a traced program, not code under test: its flags are fixed
# (never CFLAGS or the sanitizers of the build), so that every build's
# suites record the same program. workload has frame pointers in every
# function the compiler honours it for (as a program one wants to see in a
# timeline), workload-nofp none (the broken-stack warning's case).
WORKLOAD_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wstrict-prototypes -O1 -g \
	-pthread
WORKLOADS := $(O)/test/workload $(O)/test/workload-nofp

$(O)/test/workload: tests/workload/workload.c tests/workload/build.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -o $@ $<

$(O)/test/workload-nofp: tests/workload/workload.c tests/workload/build.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -fomit-frame-pointer -o $@ $<

# callcount is a test tool like the others: built with the build's flags.
$(O)/test/callcount: tests/workload/callcount.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< -lelf

TEST_BINS += $(WORKLOADS) $(O)/test/callcount
