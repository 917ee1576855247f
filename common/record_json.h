/* SPDX-License-Identifier: MIT */
/*
 * record_json: the format of a recording directory's record.json, defined
 * once: snaptrace-record writes it (record/report.c), snaptrace-convert
 * reads it (convert/recording.c) and prints it one field per line
 * (--dump=recording). JSON (RFC 8259), one object:
 *   "format": RECORD_JSON_FORMAT (below): a reader refuses another
 *   "command_line": [the recorder's argv]
 *   "perf": {"path", "version", "command": [perf's argv]}
 *   "boot_id": the kernel's boot id when recorded (PROC_BOOT_ID), or null:
 *               recordings of one boot share the perf clock (-k mono), of
 *               two boots not (snaptrace-convert says so when given both)
 *   "mode": "pt" | "sampling", "event", "unwinder" (sampling) or null
 *   "launched": bool, "executable", "pids": [..],
 *   "uids": [{"pid", "uid", "euid", "born"}] the real and effective uids each
 *               recorded process was seen with: a process of "pids" when
 *               the recorder attached to or launched it, at its perf map's
 *               first open, at its exit (launched) and at the recording's
 *               end; a descendant of one whose perf map appeared while it
 *               ran likewise (record/perfmaps.h); a pid once for each
 *               user it had (one whose uids could not be read left out):
 *               whose perf map may name its frames (common/perfmap.h
 *               perfmap_users); "born" (absent when not known, and in
 *               older reports): when the process came to be, ns since
 *               the epoch: a /tmp map at its name older than that is an
 *               earlier process's, not its (perfmap_file_ok()); "uids"
 *               absent in older reports
 *   "threads": [{"pid", "tid", "comm"; attached: "state" (its scheduler
 *               state at start_ns, /proc's letter) and "wchan" (where it
 *               waited in the kernel then, "" when not told)}]
 *   "trigger": {"spec", "mechanism", "file", "symbol", "name" (as perf names
 *               its frames), "vaddr" (its link-time entry), "file_offset",
 *               "slower_than_ns", "tsc"} or null; "slower_than_ns": the
 *               --trigger-slower-than threshold, null without it, and then
 *               "calls" (calls measured: a return matched to its entry),
 *               "calls_slower" (those longer than the threshold),
 *               "calls_thrown", "calls_slower_thrown" (of each, those left
 *               by a C++ exception, ended at its catch), "calls_unended"
 *               (ended unseen: longjmp; not measured),
 *               "returns_unmatched", "entries_untracked" (slowcall.h),
 *               "calls_unrecorded" (of "calls", those in threads the
 *               recording leaves out: not in the trace) and
 *               "threads_unrecorded" ([tid]: the first REC_UNRECORDED_TIDS
 *               of them, record/unrecorded.h);
 *               "tsc": {"time_shift", "time_mult", "time_zero"} of the
 *               trigger event's mmap page (TSC -> perf clock), null when the
 *               kernel offers none (cap_user_time_zero: no TSC sched_clock)
 *   "measure": [{"spec", "symbol", "name" (demangled, without parameters: as
 *               perf names its frames), "file", "vaddr" (its entry's link-time
 *               address), "file_offset", "calls", "total_ns",
 *               "min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns", "histogram",
 *               "slowest" (each with "left_by": "exception" when left by
 *               one), "calls_thrown" (of "calls", those left by a C++
 *               exception, measured to their catch), "calls_unended" (ended
 *               unseen: in no other number), "returns_unmatched",
 *               "entries_untracked", "first_second_calls",
 *               "calls_unrecorded", "threads_unrecorded" (as the trigger's), "cost_ns", "calls_file", "calls_written",
 *               "calls_dropped"}] the --measure functions (measure.h), in the
 *           order given: every call of the recording; percentiles within 1%
 *           (common/hist.h), null without calls; "histogram": [[from_ns,
 *           below_ns, calls]] a bucket per power of two that has calls;
 *           "slowest": [{"pid", "tid", "entry_ns", "duration_ns"}] longest
 *           first (perf clock); "first_second_calls": calls that returned
 *           within a second of the first one's entry; "cost_ns": the CPU a
 *           measured call costs on this host (null: unknown); "calls_file":
 *           REC_MEASURE_CALLS_FILE (a line per call, its place in "measure"
 *           first) or null when no call was written, "calls_written" the
 *           calls in it, "calls_dropped" those the ring lost before a snapshot;
 *           "shared": the --trigger-slower-than function, whose probes it shares
 *   "arming": {"by": "ring" | "option" | "at-once", "after_ms", "fill_ms"}
 *           when hits start to count (arming.h): after the ring's estimated
 *           fill time "fill_ms" (at most 2 s), --arm-after, or at once
 *   "hits": [{"pid", "tid", "time_ns" (perf clock), ["entry_ns", "duration_ns",
 *             "left_by", "caller", "call_first_snapshot", "call_last_snapshot",]
 *             "ip", "args", "snapshot" (index or null), "deferred"}]
 *           the hits that asked for a snapshot (the first; with
 *           --multi-snapshot one per --min-interval at most); a slow call's
 *           hit is its return: "time_ns" the return, "entry_ns" the call's
 *           entry (perf clock), "duration_ns" = time_ns - entry_ns; "ip": the
 *           user address hit, "args": [the call's first two integer
 *           arguments] (x86-64 rdi, rsi), both null when the registers
 *           were not sampled; "snapshot": the one holding it (sampling: the
 *           file holding the most of a slow call's samples, else the first
 *           whose samples and switches span its return, else the one
 *           spanning the largest part of the call, null when none has a
 *           record of it: record/hitholder.h); "call_first_snapshot",
 *           "call_last_snapshot": the first and the last file holding a
 *           sample of a slow call whose samples are in more than one, null
 *           otherwise; "deferred": it came before the arming,
 *           which took its snapshot
 *   "hits_total": every hit seen, "hits_before_armed": those before the
 *           arming ignored with --arm-after (in no snapshot),
 *           "hits_coalesced": those that took no
 *           snapshot of their own (within --min-interval of the last one, or
 *           while a snapshot was waiting or in flight, or after the end, or
 *           replaced before the arming by a later hit, whose snapshot
 *           holds them),
 *           "hits_lost": hits the kernel dropped (the trigger's ring was full),
 *           "hits_unrecorded": hits in threads the recording leaves out (no
 *           --multi-thread), which took no snapshot. Every hit seen but a
 *           lost one is in exactly one place: hits_total = len(hits) (each
 *           in its "snapshot", or in none: null) + hits_coalesced +
 *           hits_before_armed + hits_unrecorded
 *   "coalesced_hits": [objects as "hits" has them, without "deferred"]
 *           the coalesced hits (of "hits_coalesced") that a snapshot holds,
 *           by the rule of "hits" ("snapshot" never null), in the order
 *           seen: they took no snapshot, but the trace draws each where a
 *           snapshot shows its moment (at most RECORD_COALESCED_MAX: the
 *           first ones; the sampling mode's, where the recorder reads what
 *           each file holds)
 *   "children_unrecorded": the child processes the targets started during
 *           the recording, which it did not record (without --multi-thread:
 *           record/forks.h; 0 where the host allows no tracepoints)
 *   "abort_probes": the uprobe events the recorder opened to tell an abort's
 *           cause (record/sigwatch.h, record/abortcause.h): one per file
 *           holding causes (the C library; libstdc++, a Rust executable) on
 *           each thread of the targets, or on each CPU when the threads
 *           outnumber the CPUs; 0 where none could be
 *   "snapshots": [{"file", "reason" (a word of enum record_end), "time_ns", "live_ns", "freeze_ms", "ms", "problem"}]
 *                one per line, in time order, every file perf wrote (reason "none":
 *                a file perf switched to by itself); "time_ns" = perf clock when it
 *                was asked for (after the ring was frozen), null: unknown;
 *                "live_ns" = for a snapshot perf's stop wrote (Ctrl-C, --duration,
 *                the target's exit), perf clock just before the recorder asked
 *                perf to stop: perf still recorded then, so the file holds every
 *                switch record up to it; null: unknown (perf had stopped by
 *                itself), or a hit took it (the hit's time says as much);
 *                "freeze_ms" = from the request until perf stopped
 *                filling the ring (sampling), "ms" = until perf confirmed it (for
 *                one perf's stop wrote: from the stop request; 0 when perf
 *                had stopped by itself);
 *                "problem": null for a perf.data perf finished, else why it is
 *                not one (common/perfdata.h: "its header was never written (all zero
 *                bytes)", "cut short inside its data section (...)", "empty"):
 *                kept, never to be converted; file "": a snapshot perf confirmed no file for
 *                (a full disk), problem null, or one whose file perf lost, problem
 *                "lost: ..." (perf's next file got its name and replaced it, or the
 *                file perf announced is not there: record/snapshot.h)
 *   (not listed: "perf-PID.map", a copy of each recorded process's JIT perf map,
 *   common/perfmap.h PERFMAP_KEPT)
 *   "buildids": [{"file", "build_id"}] only where another user names what
 *           a target maps (their process, or a file where they may change
 *           a name: record/mapids.h): the build ids of the executable files
 *           the targets mapped (as perf starts and as it stops), read from
 *           the mapped files, "file" as /proc/PID/maps names it (as perf
 *           does): perf record ran with --no-buildid, its perf.data names none
 *   "binaries": the directory (PERFDATA_BINARIES_DIR) holding the binaries
 *           the snapshots name, copied with --keep-binaries (perf's build-id
 *           cache), and "binaries_kept" how many; both null without it
 *   "signals": [{"pid", "tid", "time_ns" (perf clock), "signal" (number),
 *                "name" ("SIGSEGV"), "code" (si_code), "code_name"
 *                ("SEGV_MAPERR", null when unknown), "errno", "handled" (the
 *                program's handler ran), "fatal" (it ended the process),
 *                "by_stop" (the recorder's stop signal, Ctrl-C on the
 *                terminal, reached the program too: no snapshot, no marker),
 *                "unrecorded" (its thread is one the recording leaves out,
 *                without --multi-thread: its stack is not in the trace),
 *                "ip" (user ip when it came),
 *                "addr" (fault address) or null, "cause": what aborted
 *                ("assert() failed", ... record/abortcause.c's abort_funcs[],
 *                from the stack at the abort probe's hit) or null, "sender": {"pid", "tid",
 *                "comm"} of another process that sent it, or null,
 *                "snapshot" (index or null)}] one per line: the signals
 *           delivered to the targets that end a process, the crash signals
 *           and SIGABRT however handled, the --trigger signal (sigwatch.h);
 *           at most 256, "signals_dropped" counts the rest
 *   "exits": [{"pid", "status" (exit status) or null, "signal" (number) or
 *           null, "name" or null, "core" (a core was dumped) or null,
 *           "after_end", "sigterm"}] the target processes that ended during
 *           the recording (status and signal both null: the status is
 *           unknown, an attached process on a kernel before 6.15), and a
 *           launched one that still ran at the recording's end ("end": the
 *           trigger, duration, interrupt...) and exited with a status of its
 *           own before the recorder ended it: "after_end" true (it exited
 *           while perf stopped; false or absent: during the recording), and
 *           "sigterm" true when at the SIGTERM the recorder then sent it
 *           (record/target.h rec_target_end()); one the recorder killed so
 *           (it ran) is listed too: "signal" 15, or 9 (the SIGKILL 500 ms
 *           later), "after_end" and "sigterm" true (older recorders: none)
 *   "end": a word of enum record_end but "none"
 *          ("signal": a signal ended the target, the snapshot was taken at it)
 *   "error": null, or why the recording failed before perf recorded (its
 *          start failed: "perf exited before recording; perf said: ..."):
 *          a directory where perf left files ends with this report, end
 *          "none", no snapshot (an empty one the recorder created is removed)
 *   "end_ns": perf clock when the recording ended (null while it runs, or
 *          unknown); "end" and "end_ns" each on a line of their own
 *   "start_ns": perf clock once perf recorded (the first snapshot's switch
 *          records are complete from then), or null
 *   "end": "none" while the recording runs (the report written at its
 *          start, left as it is when the recorder is killed)
 *   "ready_ms": from start to perf recording (null before), "total_ms"
 * Readers take the fields by name, never by line: `snaptrace-convert
 * --dump=recording DIR` prints every field as PATH=VALUE (convert/recording.h
 * recording_dump()).
 */
#ifndef SNAPTRACE_RECORD_JSON_H
#define SNAPTRACE_RECORD_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* At most this many coalesced hits are listed ("coalesced_hits"): a storm
 * of hits is counted in "hits_coalesced", its first ones drawn. About 100
 * KiB of record.json at most (a listed hit takes some 200 bytes): within
 * what the recorder keeps for it on a disk perf fills (record/report.h
 * REC_REPORT_RESERVE, 256 KiB; 4096 of them took 800 KiB, and a storm's
 * record.json on a full disk was never written). */
#define RECORD_COALESCED_MAX 512

/* The file's name in a recording directory. */
#define RECORD_JSON_FILE "record.json"
/* Its "format" member, the format's version: a change that an older reader
 * would misread gets a new number. */
#define RECORD_JSON_FORMAT "snaptrace-record 1"

/* Where "boot_id" is read: a random id the kernel makes at each boot. */
#define PROC_BOOT_ID "/proc/sys/kernel/random/boot_id"

/* Why a snapshot was taken ("reason") and why the recording ended ("end"). */
enum record_end {
	RECORD_END_NONE,        /* "none": not ended (the recorder runs, or was killed); a
				 * snapshot file perf switched to by itself */
	RECORD_END_TRIGGER,     /* "trigger": the (first) trigger hit */
	RECORD_END_INTERRUPT,   /* "interrupt": a stop signal to the recorder (sig_stops) */
	RECORD_END_EXIT,        /* "exit": the target exited */
	RECORD_END_DURATION,    /* "duration": --duration elapsed */
	RECORD_END_PERF_DIED,   /* "perf-died": perf exited on its own while the target ran */
	RECORD_END_SIGNAL,      /* "signal": a signal ended the target, the snapshot was
				 * taken at it */
	RECORD_ENDS,
};

/* The record.json word of END ("trigger", ...); "?" for no enum record_end. */
const char *record_end_name(enum record_end end);

/* END in words, for a line that tells what a launched program did then:
 * "the recording ended at --duration", "the recording was stopped", "perf
 * exited"... (the recorder's "...: ended the launched program", the
 * converter's "the program exited with status 3 after ..."). */
const char *record_end_said(enum record_end end);

/* The enum record_end whose word is WORD into *END. Returns false (*END
 * untouched) for any other word. */
bool record_end_parse(const char *word, enum record_end *end);

/* The words into BUF (SIZE bytes, cut to fit), "trigger, interrupt, ..., signal
 * or none": what a reader expected, for its error messages. Returns BUF. */
char *record_end_words(char *buf, size_t size);

#endif
