# `make fuzz`: the fuzz targets of tests/fuzz/ built with clang's libFuzzer
# and ASan/UBSan into $(O)/fuzz/, each run for FUZZ_SECONDS (default 120):
#   fuzz_convert     text (up to 16 KiB: 4 blocks of the fuzz build) through
#                    the converter's real input path (file, binary check,
#                    block pipeline, long-line check, converter), seeded
#                    with the golden cases' inputs, also with source lines
#                    on, and tests/fuzz/seeds/convert (functions of the
#                    binaries of fuzz_conv.h's symfs: an ELF with DWARF,
#                    one cut short, a JIT's perf map, a text file); the
#                    output must read back balanced with no problem;
#   fuzz_binstream   any bytes as perf script's output with snaptrace's
#                    dlfilter (binary records and text lines), seeded with
#                    the golden cases rewritten by tests/gen/text2bin;
#   fuzz_record_json any bytes as a recording directory's record.json
#                    (read, its hits streamed, its snapshots converted with
#                    their markers), seeded with tests/fuzz/seeds/record-json;
#   fuzz_fxt_reader  any bytes through the FXT reader behind --dump, seeded
#                    with the FXT of the golden cases.
# A crash, a sanitizer report or a failed check stops a target and leaves
# the input as $(O)/fuzz/crash-*. `make fuzz-regress` runs each target once
# on every input of tests/fuzz/regress/ and every seed of tests/fuzz/seeds/ (.txt files through
# fuzz_convert, .bin through fuzz_binstream, .json through
# fuzz_record_json, .fxt through fuzz_fxt_reader; each as the target
# takes it, its options byte first): what CI runs. Installs clang and its libFuzzer runtime
# when missing (scripts/install-deps.sh). FUZZ_CC is the compiler (default
# clang), FUZZ_FLAGS adds libFuzzer flags.
FUZZ_SECONDS ?= 120
# ASan's quarantine of freed memory cut from 256 MiB to 16 MiB: a run frees
# far less, so a use after free within a run is still caught, and memory is
# reused instead of faulted in afresh (fuzz_convert: 600 -> 770 runs per CPU
# second).
FUZZ_ENV := ASAN_OPTIONS=quarantine_size_mb=16
# The converter's warnings on stderr discarded while fuzzing
# (-close_fd_mask=2: libFuzzer keeps its own lines and the sanitizers'
# reports; fuzz_conv.h prints why it aborts on stdout): every run warned,
# and the writes into the pipe were a fifth of fuzz_convert's CPU.
FUZZ_RUN := -close_fd_mask=2
FUZZ_CC ?= clang
FUZZ_FLAGS ?=
FUZZ_TARGETS := fuzz_convert fuzz_binstream fuzz_record_json fuzz_fxt_reader
FUZZ_BINS := $(addprefix $(O)/fuzz/,$(FUZZ_TARGETS))
FUZZ_LIB_SRC := $(CONVERT_SRC) $(FXT_SRC) $(COMMON_SRC)
FUZZ_PACKAGES := clang libclang-rt-dev

.PHONY: fuzz-deps
fuzz-deps:
	@scripts/install-deps.sh $(FUZZ_PACKAGES)

$(O)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz_file.h tests/fuzz/fuzz_conv.h tests/fuzz/build.mk VERSION $(FUZZ_LIB_SRC) $(wildcard convert/*.h fxt/*.h common/*.h)
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz needs clang: scripts/install-deps.sh $(FUZZ_PACKAGES), or FUZZ_CC=..." >&2; exit 1; }
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
		-DPIPELINE_BLOCK=4096 -DCONV_LINE_MAX=2048 -DSNAPTRACE_VERSION='"$(VERSION)"' \
		-Icommon -Ifxt -Iconvert -Idlfilter -Itests/fuzz -o $@ $< $(FUZZ_LIB_SRC) $(CONVERT_LIBS)

# Seeds: every case's input (also with source lines on: its first byte,
# which picks the options, 4), in the dlfilter's form, the FXT the converter
# makes of it, the seeds of tests/fuzz/seeds, and the record.json files of
# the recording tests.
$(O)/fuzz/seeds.stamp: $(O)/bin/snaptrace-convert $(O)/test/gen/text2bin $(wildcard tests/cases/*/input.txt tests/fuzz/seeds/*/*)
	@mkdir -p $(O)/fuzz/corpus-convert $(O)/fuzz/corpus-fxt $(O)/fuzz/corpus-bin $(O)/fuzz/corpus-json
	@for d in tests/cases/*/; do [ -f "$$d/input.txt" ] || continue; n=$$(basename $$d); \
		cp "$$d/input.txt" "$(O)/fuzz/corpus-convert/$$n.txt"; \
		{ printf '\004'; cat "$$d/input.txt"; } >"$(O)/fuzz/corpus-convert/$$n-srcline.txt"; \
		{ printf '\000'; $(O)/test/gen/text2bin <"$$d/input.txt"; } \
			>"$(O)/fuzz/corpus-bin/$$n.bin" 2>/dev/null || true; \
		$(O)/bin/snaptrace-convert -q "$$d/input.txt" -o "$(O)/fuzz/corpus-fxt/$$n.fxt" \
			2>/dev/null || true; done
	@cp tests/fuzz/seeds/convert/* $(O)/fuzz/corpus-convert/
	@cp tests/fuzz/seeds/record-json/* $(O)/fuzz/corpus-json/
	@touch $@

fuzz: fuzz-deps
	@$(MAKE) --no-print-directory fuzz-run

.PHONY: fuzz-regress fuzz-regress-run
fuzz-regress: fuzz-deps
	@$(MAKE) --no-print-directory fuzz-regress-run

# (given files, libFuzzer runs each once and stops; given none it would fuzz)
# The hand-written seeds of tests/fuzz/seeds/ run too: a seed the target
# aborts on (fuzz_record_json's hit order, stale once coalesced hits came
# through its callback) failed only `make test-stress`'s fuzzing, at its start.
FUZZ_REGRESS_TXT := $(wildcard tests/fuzz/regress/*.txt tests/fuzz/seeds/convert/*.txt)
FUZZ_REGRESS_BIN := $(wildcard tests/fuzz/regress/*.bin)
FUZZ_REGRESS_JSON := $(wildcard tests/fuzz/regress/*.json tests/fuzz/seeds/record-json/*.json)
FUZZ_REGRESS_FXT := $(wildcard tests/fuzz/regress/*.fxt)
fuzz-regress-run: $(FUZZ_BINS)
	$(if $(FUZZ_REGRESS_TXT),@$(O)/fuzz/fuzz_convert -max_len=16384 $(FUZZ_REGRESS_TXT))
	$(if $(FUZZ_REGRESS_BIN),@$(O)/fuzz/fuzz_binstream -max_len=16384 $(FUZZ_REGRESS_BIN))
	$(if $(FUZZ_REGRESS_JSON),@$(O)/fuzz/fuzz_record_json -max_len=16384 $(FUZZ_REGRESS_JSON))
	$(if $(FUZZ_REGRESS_FXT),@$(O)/fuzz/fuzz_fxt_reader $(FUZZ_REGRESS_FXT))

.PHONY: fuzz-run
fuzz-run: $(FUZZ_BINS) $(O)/fuzz/seeds.stamp
	@cd $(O)/fuzz && $(FUZZ_ENV) ./fuzz_convert $(FUZZ_RUN) -max_total_time=$(FUZZ_SECONDS) -max_len=16384 $(FUZZ_FLAGS) corpus-convert
	@cd $(O)/fuzz && $(FUZZ_ENV) ./fuzz_binstream $(FUZZ_RUN) -max_total_time=$(FUZZ_SECONDS) -max_len=16384 $(FUZZ_FLAGS) corpus-bin
	@cd $(O)/fuzz && $(FUZZ_ENV) ./fuzz_record_json $(FUZZ_RUN) -max_total_time=$(FUZZ_SECONDS) -max_len=16384 $(FUZZ_FLAGS) corpus-json
	@cd $(O)/fuzz && $(FUZZ_ENV) ./fuzz_fxt_reader $(FUZZ_RUN) -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) corpus-fxt
