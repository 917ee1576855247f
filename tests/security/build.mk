# tests/security: ptraceat, what a user may do to a helper root runs as
# them (rootsafe's theirs-perf-ptrace).
$(O)/test/ptraceat: tests/security/ptraceat.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $<

TEST_BINS += $(O)/test/ptraceat
