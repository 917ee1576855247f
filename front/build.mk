# front/: snaptrace, the front end (front/snaptrace.c), beside the programs
# it runs ($(O)/bin; `make install` puts it in bin/ and them in
# libexec/snaptrace). Linked statically (glibc's libc.a): no dynamic loader
# runs before its first instruction blocks the stop signals. A SAN=1 build
# links it as the other programs (the sanitizers need the loader). On
# x86-64 its entry point is snaptrace_entry, which blocks them before libc's
# _start runs.
front_comma := ,
FRONT_ENTRY := $(if $(filter x86_64-%,$(shell $(CC) -dumpmachine)),-Wl$(front_comma)-e$(front_comma)snaptrace_entry)
FRONT_END := $(O)/bin/snaptrace

$(FRONT_END): $(call obj,front/snaptrace.c common/escape.c common/utf8.c common/diag.c \
	common/outpath.c common/inpath.c common/pathtrust.c common/signals.c \
	common/tmptree.c)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $(if $(filter 1,$(SAN)),,-static) $(FRONT_ENTRY) -o $@ $^

all tests-build: $(FRONT_END)
