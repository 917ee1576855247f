# dlfilter/: snaptrace-dlfilter.so, the perf script --dlfilter that hands
# snaptrace-convert decoded branches in binary (perf's header
# perf/perf_dlfilter.h, Debian package linux-perf). Built without the
# sanitizers even in a SAN=1 build: perf, which loads it, is not sanitized.
$(O)/bin/snaptrace-dlfilter.so: dlfilter/snaptrace_dlfilter.c dlfilter/binrec.h common/hash.h common/hash.c common/array.h \
		$(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(WARN) $(CFLAGS) -fPIC -shared -fvisibility=default -Idlfilter -Icommon \
		-o $@ $< common/hash.c
