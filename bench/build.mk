# `make bench`: the converter benchmark (bench/bench.sh), on inputs made by
# tests/gen/gen_branch_text under $(O)/bench/ (removed at the end; KEEP=1 keeps
# them). BENCH_LINES=N changes the 1x size.
bench: deps $(O)/bin/snaptrace-convert $(O)/test/gen/gen_branch_text
	@bench/bench.sh $(O)
