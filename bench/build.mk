# `make bench`: the converter and stats benchmark (bench/bench.sh), on inputs
# made by tests/gen/gen_branch_text under $(O)/bench/, then the whole
# pipeline's (bench/pipeline.sh: perf.data -> trace.fxt.gz on synthesized
# Intel PT, under $(O)/bench-pt/). Inputs are removed at the end; KEEP=1 keeps
# them. BENCH_LINES=N changes the text benchmark's 1x size.
bench: deps $(PROGRAMS) $(O)/test/gen/gen_branch_text $(O)/test/ptsynth \
		$(O)/test/ptsynth-progs/bench $(O)/bench-tools/mt-dlfilter.so
	@bench/bench.sh $(O)
	@bench/pipeline.sh $(O)

# The stand-in for magic-trace's dlfilter (reference (b) of pipeline.sh).
$(O)/bench-tools/mt-dlfilter.so: bench/mt_dlfilter.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) -fPIC -shared -o $@ $<
