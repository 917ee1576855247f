# `make fuzz`: the converter's fuzz target (tests/fuzz/fuzz_convert.c) built
# with clang's libFuzzer (FUZZ_CC, default clang) and ASan/UBSan into
# $(O)/fuzz/, then run for FUZZ_SECONDS (default 120) from the golden cases'
# inputs. A crash, a sanitizer report or an output the reader finds
# unbalanced stops it and leaves the input as $(O)/fuzz/crash-*. Not part of
# `make test`.
FUZZ_SECONDS ?= 120
FUZZ_CC ?= clang
FUZZ_BIN := $(O)/fuzz/fuzz_convert
FUZZ_SRC := tests/fuzz/fuzz_convert.c $(CONVERT_SRC) $(FXT_SRC) $(COMMON_SRC)

$(FUZZ_BIN): $(FUZZ_SRC) $(wildcard convert/*.h fxt/*.h common/*.h)
	@command -v $(FUZZ_CC) >/dev/null || { echo "make fuzz needs clang (apt-get install clang, or FUZZ_CC=...)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) $(WARN) -O1 -g -fsanitize=fuzzer,address,undefined -Icommon -Ifxt -Iconvert \
		-o $@ $(FUZZ_SRC) -lz -ldw -lelf -lstdc++ -pthread

fuzz: $(FUZZ_BIN)
	@mkdir -p $(O)/fuzz/corpus
	@for d in tests/cases/*/; do cp "$$d/input.txt" "$(O)/fuzz/corpus/$$(basename $$d).txt"; done
	@cd $(O)/fuzz && ./fuzz_convert -max_total_time=$(FUZZ_SECONDS) corpus
