# tests/security: what a user may do to a helper root runs as them:
# ptraceat (rootsafe's theirs-perf-ptrace) and leaseat, a write lease on a
# file of theirs (theirs-lease, theirs-perf-prestop), with procs.c, their
# looks at /proc.
SECURITY_TOOLS := $(O)/test/ptraceat $(O)/test/leaseat

$(SECURITY_TOOLS): $(O)/test/%: tests/security/%.c tests/security/procs.c tests/security/procs.h \
		$(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< tests/security/procs.c

TEST_BINS += $(SECURITY_TOOLS)
