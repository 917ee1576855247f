/* SPDX-License-Identifier: MIT */
/*
 * recording: a recording directory as snaptrace-record leaves it
 * (DIR/record.json and the perf.data files it lists; the shape of
 * record.json is common/record_json.h), read with json-c. What the
 * converter takes from it: the snapshot files in order with their reasons
 * and times, the trigger hits (perf clock), the threads' names, the
 * recording's end, and the TSC conversion of the trigger's mmap page.
 * Why: docs/design.md "Recording directories".
 * Errors: a function that can fail returns 0 or a negative errno, with one
 * line naming the file in its ERR when it takes one (the converter's input
 * layer's convention; convert/main.c alone turns them into exit statuses).
 */
#ifndef SNAPTRACE_CONVERT_RECORDING_H
#define SNAPTRACE_CONVERT_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "perfmap.h"
#include "record_json.h"

struct json_object;

/* An integer or string field of a hit that the converter does not know
 * (a later recorder's: "entry_ns", "duration_ns"...): shown on the marker.
 * The strings are borrowed for the call of recording_hits()'s FN. */
struct recording_field {
	const char *name;
	const char *str;       /* NULL: an integer or a boolean */
	bool is_bool;          /* a boolean: i64 is 0 or 1 */
	int64_t i64;           /* the integer (when str is NULL) */
	bool is_unsigned;      /* the integer is u64 (above INT64_MAX): read it as such */
};

/* A trigger hit that asked for a snapshot, or a coalesced one that a
 * snapshot holds, as recording_hits() hands it over (valid for that call). */
struct recording_hit {
	size_t index;          /* in record.json's "hits" (COALESCED: "coalesced_hits") */
	bool coalesced;        /* one of "coalesced_hits": it took no snapshot */
	int64_t pid, tid;
	uint64_t time_ns;      /* perf clock, ns */
	bool has_ip;
	uint64_t ip;           /* the user address hit (when has_ip) */
	bool has_args;
	uint64_t args[2];      /* the call's first two integer arguments (rdi, rsi) */
	long snapshot;         /* index into snapshots, -1: none */
	const struct recording_field *extra;   /* nextra of them */
	size_t nextra;
};

/* A signal delivered to a target (record.json's "signals": one that ended
 * its process, a crash signal or SIGABRT however handled, the --trigger
 * signal). */
struct recording_signal {
	int64_t pid, tid;
	uint64_t time_ns;      /* perf clock, ns */
	int sig, code;         /* signal number, si_code */
	bool handled;          /* the program's handler ran */
	bool fatal;            /* it ended the process */
	bool by_stop;          /* the recorder's own stop (Ctrl-C) reached the program too */
	bool unrecorded;       /* its thread is one the recording leaves out */
	bool has_ip, has_addr;
	uint64_t ip;           /* the user ip when it came */
	uint64_t addr;         /* the fault address */
	char *cause;           /* what aborted ("assert() failed"), owned; NULL: unknown */
	int64_t sender_pid;    /* another process that sent it, 0: none known */
	char *sender_comm;     /* its comm, owned; NULL: unknown */
	long snapshot;         /* index into snapshots, -1: none */
};

/* How a target process ended during the recording (record.json "exits"). */
struct recording_exit {
	int64_t pid;
	bool has_status;       /* it exited with STATUS */
	int status;
	bool has_signal;       /* a signal killed it: SIG, and CORE (a core was dumped) */
	int sig;
	bool core;
	bool after_end;        /* it exited after the recording's end (record.json
				* "after_end"): by itself, or SIGTERM at the
				* SIGTERM the recorder then sent it ("sigterm"),
				* with a status of its own or killed by it
				* (recording_exit_by_recorder()) */
	bool sigterm;
};

/* A file the recorder read the build id of, from the mapped file itself
 * (record.json "buildids": where another user named what a target
 * mapped, whose perf.data names none: record/mapids.h). */
struct recording_buildid {
	char *file;            /* as perf names it (owned) */
	char *hex;             /* its build id, lowercase hex, 2 to 40 digits (owned) */
};

/* A power-of-two bucket of a measured function's calls: CALLS in [FROM, BELOW) ns. */
struct recording_bucket {
	uint64_t from, below, calls;
};

/* A --measure function (record.json's "measure"): its calls of the whole
 * recording, and where those the snapshots hold are (CALLS_PATH). */
#define RECORDING_UNRECORDED_TIDS 8   /* threads_unrecorded kept per measured function */

struct recording_measure {
	char *name;            /* as perf names its frames (demangled, without the
				* parameters), owned */
	char *symbol;          /* the symbol it resolved to, owned; NULL when absent */
	char *file;            /* its binary, owned */
	uint64_t vaddr;        /* its entry's link-time address */
	uint64_t calls, total_ns;
	uint64_t min_ns, p50_ns, p90_ns, p99_ns, max_ns;   /* 0 without calls */
	struct recording_bucket *buckets;                   /* owned */
	size_t nbuckets;
	uint64_t calls_unrecorded;  /* of CALLS, those in threads the recording left out
				     * (no --multi-thread); 0 in older reports */
	int64_t threads_unrecorded[RECORDING_UNRECORDED_TIDS];  /* the first of those threads */
	size_t nthreads_unrecorded;
	char *calls_path;      /* DIR/the calls file (for messages), owned; NULL: none */
	char *calls_file;      /* the calls file, its name in DIR (recording_open()), owned */
};

struct recording_snapshot {
	char *path;            /* DIR/FILE (for messages), owned; NULL: perf never wrote
			        * it (file ""), or the converter left it out (an
			        * unfinished perf.data) */
	char *file;            /* FILE, the name in the directory (open it with
				* recording_open()), owned; NULL with PATH */
	char *refused;         /* why the converter does not read the file, owned (it
				* is no regular file of the directory: inpath.h); NULL:
				* none */
	enum record_end reason;
	uint64_t time_ns;      /* perf clock when it was taken; 0: unknown */
	uint64_t live_ns;      /* perf clock when perf still recorded into it, just before
				* the recorder asked for it; 0: unknown (null, or absent
				* in an older report) */
	char *problem;         /* why the recorder marked the file not to be
				* converted (record.json's "problem"), owned;
				* NULL: none (null or absent) */
	bool hit;              /* a hit took it (its "snapshot" is this one) */
	uint64_t hit_ns;       /* the first such hit's time */
};

struct recording_thread {
	int64_t pid, tid;
	char *comm;            /* owned */
	char *state;           /* attached: its scheduler state at start_ns ("S", "D",
				* "R"...), or NULL; owned */
	char *wchan;           /* attached: where it waited in the kernel then, or NULL
				* ("": not told); owned */
};

/* TSC -> perf clock (perf_event_mmap_page's time_shift, time_mult, time_zero). */
struct recording_tsc {
	bool known;
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
};

struct recording {
	bool files;            /* no directory: inputs given in a row, each a snapshot
				* (timeline_files(), timeline.h): no record.json, no
				* hit or time; a snapshot's file is its argument, opened
				* from the working directory */
	char *dir;             /* as given, owned; NULL for FILES */
	int dirfd;             /* the directory, open (owned); -1 when not read */
	struct stat json_st;   /* what record.json was when read (its inode) */
	char *trigger;         /* the trigger as the user gave it ("spec"); NULL: none; owned */
	char *trigger_symbol;  /* the symbol it resolved to ("" for an address); owned */
	char *trigger_name;    /* that symbol as perf names frames; NULL in older
				* reports (then the symbol's frames are not drawn
				* from the hits); owned */
	char *trigger_file;    /* the binary it is in; owned */
	uint64_t trigger_vaddr;  /* its link-time entry (0: not known) */
	uint64_t slower_than_ns; /* the slow-call trigger's threshold; 0: none (a
				  * hit then has no entry nor duration) */
	bool launched;         /* the recorder started the program (else attached) */
	bool ring;             /* its sampling event ("event") has the term overwrite:
				* each snapshot's samples reach back only as far as
				* its ring held them, its switch records further */
	int64_t *pids;         /* the traced processes, owned */
	size_t npids;
	struct perfmap_user *uids;   /* "uids": their users when recorded, owned */
	size_t nuids;
	bool has_uids;         /* record.json has "uids" (older reports not) */
	uint64_t *pid_last_hit;  /* per process of pids: the time of its last hit */
	size_t *pid_hits;        /* per process of pids: how many hits */
	struct recording_tsc tsc;
	size_t nhits;            /* record.json's hits: read again by recording_hits(),
				  * never kept (memory does not grow with them) */
	struct json_object *coalesced;  /* record.json's "coalesced_hits" (at most
					 * RECORD_COALESCED_MAX), checked; owned;
					 * NULL: none (older reports too) */
	struct recording_snapshot *snapshots; /* owned, in time order */
	size_t nsnapshots;
	struct recording_thread *threads;     /* owned */
	size_t nthreads;
	struct recording_signal *signals;     /* owned, in the order seen */
	size_t nsignals;
	struct recording_exit *exits;         /* owned */
	size_t nexits;
	struct recording_measure *measures;   /* owned, record.json's order */
	size_t nmeasures;
	struct recording_buildid *buildids;   /* owned; none in recordings perf read
					       * them for (older reports too) */
	size_t nbuildids;
	enum record_end end;            /* RECORD_END_NONE: the recorder did not finish */
	uint64_t end_ns;       /* perf clock when the recording ended; 0: unknown */
	uint64_t start_ns;     /* perf clock once perf recorded: the first snapshot's
				* switch records are complete from then; 0: unknown */
	char *boot_id;         /* record.json's "boot_id" (the kernel's boot it was
				* recorded in), owned; NULL: not told (older reports,
				* FILES) */
	char *error;           /* why the recording failed before perf recorded
				* (record.json's "error"), owned; NULL: it did not */
	char *file;            /* DIR/record.json, owned */
	int fd;                /* record.json, open until recording_free; -1: none */
};

/* Is PATH a directory (a recording to read with recording_read)? */
bool recording_is_dir(const char *path);

/*
 * Reads DIR/record.json into *R (zeroed first; free it with recording_free
 * whatever the result). A recording whose record.json lists no snapshot
 * (the recorder was killed: "end": "none") gets the non-empty perf.data*
 * files of DIR, in name order, as snapshots of reason RECORD_END_NONE.
 * A recording's directory may be another user's: record.json and the
 * snapshot files are read only as regular files of DIR itself (no
 * symbolic link, no FIFO or device, no hard link to a file of another
 * user than DIR's owner: inpath.h); a snapshot file that is not one is
 * kept with its REFUSED reason, a record.json that is not one fails.
 * Returns 0, or a negative errno with ERR (SIZE bytes) one line naming
 * the file ("DIR/record.json[:LINE]: expected ..., found ..."): -ENOENT
 * only when DIR has no record.json (DIR is no recording: the caller's
 * usage error); -EINVAL when record.json is not JSON or not the shape
 * expected, or lists a snapshot file that is missing; -ENOMEM; another
 * when DIR or record.json cannot be opened or read (-EIO for DIR).
 */
int recording_read(const char *dir, struct recording *r, char *err, size_t size);

/*
 * Calls FN(ARG, H) for each trigger hit of R, in record.json's order, as
 * read again from the file (hits are not kept: a record.json of 200,000
 * hits took 368 MB when they were), each coalesced hit a snapshot holds
 * ("coalesced_hits") before the first hit listed after it in time, the
 * rest last; FN returns 0 to go on, anything else
 * to stop. Returns 0; FN's non-zero return (ERR untouched); or a negative
 * errno with ERR set, as recording_read() does (-EINVAL: record.json no
 * longer reads as recording_read() found it).
 */
int recording_hits(const struct recording *r, int (*fn)(void *arg, const struct recording_hit *h),
		   void *arg, char *err, size_t size);

/* The time of the last hit in process PID of R into *NS and how many it
 * had into *N; false when none (or PID is not one of R's pids). */
bool recording_last_hit(const struct recording *r, int64_t pid, uint64_t *ns, size_t *n);

/*
 * Opens FILE (a name, no '/') of R's directory to read, as recording_read()
 * checks its files: a regular file of the directory itself (no symbolic
 * link, no FIFO or device, no hard link to another user's file: inpath.h),
 * with the inpath_open() FLAGS added (close-on-exec: a snapshot perf reads
 * as /proc/self/fd/N is named on its command line, which spawn.h passes
 * on); of a recording of files (R->files), FILE is
 * the argument, opened from the working directory with FLAGS alone.
 * Returns the fd, or a negative errno with WHY (SIZE bytes) a phrase
 * without the path.
 */
int recording_open(const struct recording *r, const char *file, unsigned flags, char *why,
		   size_t size);

/*
 * Prints R's record.json (read by recording_read()) to OUT a field per
 * line, in the file's order: PATH=VALUE, PATH the members' names and the
 * arrays' indexes joined by "." ("snapshots.0.reason=signal",
 * "trigger.tsc.time_shift=10", "pids.0=300"), VALUE a string as it is
 * (escape.h ESC_TEXT), a number as written, true, false or null; an empty
 * array or object prints as [] or {}. For scripts and tests: they never
 * depend on where record.json breaks its lines. Returns 0, or a negative
 * errno with ERR (SIZE bytes) set when record.json no longer reads
 * (recording_read()'s); the caller checks OUT (outpath_stdout_done()).
 */
int recording_dump(const struct recording *r, FILE *out, char *err, size_t size);

/* Frees what R owns and zeroes it. */
void recording_free(struct recording *r);

/* The comm of thread TID of R, or NULL. */
const char *recording_comm(const struct recording *r, int64_t tid);

/* Whether R's "exits" (record.json) lists an end of process PID's own: not
 * one the recorder's signal made (recording_exit_by_recorder()). */
bool recording_exit_listed(const struct recording *r, int64_t pid);

/* Whether X is the recorder's own end of a launched program still running
 * at the recording's end: killed by the signal it sent ("after_end" and
 * "sigterm" with a signal; older recorders listed no exit then). */
bool recording_exit_by_recorder(const struct recording_exit *x);

/* Thread TID of R's "threads" (record.json), or NULL. Borrowed from R. */
const struct recording_thread *recording_thread(const struct recording *r, int64_t tid);

/*
 * Converts a TSC value to perf's clock with R's TSC conversion (the
 * kernel's formula for cap_user_time_zero, include/uapi/linux/perf_event.h).
 * Returns false when R has none (TSC unknown on the recording's host).
 */
bool recording_tsc_to_perf(const struct recording_tsc *tsc, uint64_t cyc, uint64_t *ns);

/*
 * When snapshot I of R was taken, in perf clock (its "[snapshot]" marker):
 * the time of the hit that took it, else the snapshot's own time, else (the
 * last snapshot) the recording's end. 0: unknown.
 */
uint64_t recording_snapshot_end(const struct recording *r, size_t i);

/*
 * How far snapshot I of R is known to reach, in perf clock: the later of
 * the hit that took it (perf recorded when the hit came) and its live_ns
 * (perf recorded when the recorder asked for it). A thread's last switch
 * out in the file holds until then; after it nothing is known (the
 * snapshot's time_ns comes after perf stopped recording into it). 0: unknown.
 */
uint64_t recording_snapshot_live(const struct recording *r, size_t i);

/*
 * Where snapshot I of R is marked "[snapshot] REASON" (markers.c): a
 * snapshot no hit took (Ctrl-C, --duration, the program's exit, perf's
 * death), where it is known to end: its live_ns (perf recorded until then;
 * the marker's taken_ns argument says its time_ns), else its end
 * (recording_snapshot_end); 0 when it has no such mark
 * (a hit took it, its end is unknown, or its reason is "trigger", "none" or
 * "signal": the signal's own marker names that one).
 */
uint64_t recording_snapshot_mark(const struct recording *r, size_t i);

#endif
