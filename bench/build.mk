# `make bench`: the converter and stats benchmark (bench/bench.sh), on inputs
# made by tests/gen/gen_branch_text under $(O)/bench/, then the whole
# pipeline's (bench/pipeline.sh: perf.data -> trace.fxt.gz on synthesized
# Intel PT, under $(O)/bench-pt/), then the cost of the unwound switches
# (bench/offcpu.sh: real recordings of tests/record/waits_target.c, under
# $(O)/bench-offcpu/). Inputs are removed at the end; KEEP=1 keeps them.
# BENCH_LINES=N changes the text benchmark's 1x size; BENCH_RUNS=N how many runs
# the text benchmark and pipeline.sh take the best of (default 3).
bench: deps $(PROGRAMS) $(O)/test/gen/gen_branch_text $(O)/test/ptsynth \
		$(O)/test/ptsynth-progs/bench $(O)/bench-tools/mt-dlfilter.so \
		$(O)/bench-tools/waits_target
	@bench/bench.sh $(O)
	@bench/pipeline.sh $(O)
	@bench/offcpu.sh $(O)

# The stand-in for magic-trace's dlfilter (reference (b) of pipeline.sh).
$(O)/bench-tools/mt-dlfilter.so: bench/mt_dlfilter.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) -fPIC -shared -o $@ $<

# The traced program of bench/offcpu.sh: a traced program, not code under
# test, built as tests/record/waits.test.sh builds it (fixed flags).
$(O)/bench-tools/waits_target: tests/record/waits_target.c bench/build.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=c11 -Wall -Wextra -Werror -g -O2 -fno-omit-frame-pointer -pthread -o $@ $<
