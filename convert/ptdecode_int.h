/* SPDX-License-Identifier: MIT */
/*
 * ptdecode_int (private to the in-process Intel PT decoder: ptdecode.c,
 * ptdata.c, ptimage.c, ptblock.c, pttime.c): what its parts share. See ptdecode.h for
 * what it does, docs/design.md "Decoding" for why.
 *
 *   ptdata.c   the perf.data: attrs, AUXTRACE_INFO, side-band records, the
 *              AUX queues and the PSBs of their data
 *   ptimage.c  threads, processes, their mapped files (symbols, bytes) and
 *              libipt images
 *   ptblock.c  one chunk of a queue's AUX data (PSB to PSB) decoded into
 *              perf's samples, on any thread
 *   pttime.c   perf's time of the timing packets (TSC, TMA, MTC, CBR, CYC)
 *   ptdecode.c the chunks decoded on worker threads, perf's order of the
 *              queues and the side-band, the lines handed to the converter
 */
#ifndef SNAPTRACE_CONVERT_PTDECODE_INT_H
#define SNAPTRACE_CONVERT_PTDECODE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

#include "driver.h"
#include "hash.h"
#include "parse.h"
#include "perfsym.h"

#define PTD_SYM_CACHE 4096      /* direct-mapped symbol lookups per process */
#define PTD_POOL 4              /* sample buffers kept for reuse */

/* A side-band record, replayed in time order. */
struct ptd_sb {
	uint64_t time;          /* perf time, ns */
	uint32_t type, misc;    /* PERF_RECORD_* and its header's misc */
	int32_t pid, tid;       /* the task it names (COMM, MMAP, FORK, EXIT, ITRACE_START),
	                         * else its sample_id's */
	int32_t spid, stid;     /* its sample_id's task (what perf script prints) */
	int32_t cpu;            /* its sample_id's CPU (-1: none) */
	int32_t np_pid, np_tid; /* SWITCH_CPU_WIDE: the next (out) or previous (in) task;
	                         * FORK, EXIT: the parent */
	uint64_t addr, len, pgoff;  /* MMAP, MMAP2 */
	uint32_t prot;
	char *str;              /* COMM: the comm; MMAP: the file name (owned) */
	size_t seq;             /* file order */
};

/* A mapped ELF file: its symbols and its bytes (instruction lengths). */
struct ptd_dso {
	char *name;             /* as perf prints it: the path, "[vdso]" */
	char *file;             /* where it is read (--symfs prefix), owned */
	struct perfsym_dso *syms;
	const uint8_t *bytes;   /* the file mapped, or the vdso's copy */
	size_t size;
	bool mapped;            /* BYTES is an mmap of FILE */
};

struct ptd_map {
	uint64_t start, end, pgoff;
	struct ptd_dso *dso;
};

struct ptd_sym_hit {
	uint64_t ip;            /* 0: empty */
	const struct ptd_map *map;
	const struct perfsym *sym;
	uint32_t func;          /* (sym, map's dso) interned: its ptdecode funcs[]
	                         * index + 1; 0: not yet */
};

/* A process: its maps, its libipt image, a symbol cache (main thread). */
struct ptd_proc {
	int32_t pid;
	struct ptd_map *maps;
	size_t nmaps, capmaps;
	struct pt_image *image;
	struct ptd_sym_hit cache[PTD_SYM_CACHE];
};

struct ptd_thread {
	int32_t tid, pid;       /* pid -1: unknown */
	char comm[32];          /* "": perf's ":TID" */
	uint32_t comm_len;
	bool used;              /* LAST_TIME and GEN are those of its last branch */
	uint64_t last_time, gen;
};

/* One of perf's samples. */
enum ptd_sample_kind {
	PTD_BRANCH,             /* a branch (FLAGS one of perf's plain names) */
	PTD_BEGIN,              /* "tr strt" to ADDR */
	PTD_END,                /* "tr end" from IP (FLAGS: TRACE_END and the kind) */
	PTD_HIDDEN,             /* perf's first state of a queue: no line */
};

#define PTD_NO_WALK UINT16_MAX  /* a sample no code was walked to */

struct ptd_sample {
	uint16_t kind;          /* enum ptd_sample_kind */
	uint16_t walk;          /* the process (ptdecode procs[] index) whose code the
	                         * decoder walked to it; PTD_NO_WALK: none (a queue's
	                         * first state, "tr strt" after tracing was off) */
	uint32_t flags;         /* enum conv_flag bits */
	uint64_t tsc;
	uint64_t ip, addr;
};

/* A stretch of a queue's AUX data decoded at once: from a PSB (or the
 * data's start) up to the next chunk's PSB+, whose end it reads too. */
enum ptd_chunk_state { PTD_TODO, PTD_BUSY, PTD_DONE };

struct ptd_chunk {
	size_t q;               /* its queue */
	uint64_t begin, end;    /* AUX bytes [begin, end) */
	uint64_t tsc;           /* its first PSB's time: the order of decoding */
	size_t psb;             /* its first PSB: its queue's psbs[] index */
	bool first, last;       /* the queue's first, last chunk */
	enum ptd_chunk_state state;
	struct ptd_sample *s;   /* its samples (owned; freed once converted) */
	size_t n, cap;
	bool failed;            /* WHY says what the decoder met */
	char *why;              /* malloc'd, when FAILED (NULL: out of memory); not
	                         * an array: a chunk of every 16 KiB of AUX data is
	                         * planned, and 200 bytes each were a tenth of the
	                         * converter's memory at 64 MB */
};

/* perf's CTC to TSC conversion of MTC and TMA packets (intel_pt_calc_tma(),
 * intel_pt_calc_mtc_timestamp()): from AUXTRACE_INFO's TSC:CTC ratio and
 * the intel_pt event's MTC period. */
struct ptd_ctc {
	unsigned shift;                /* the MTC period: an MTC holds CTC >> SHIFT */
	uint32_t n, d;                 /* TSC:CTC = N / D; D 0: MTC and TMA change no time */
	uint64_t mult;                 /* N / D where whole, else 0 */
	double max_nonturbo;           /* AUXTRACE_INFO's max_non_turbo_ratio (0: none): the
	                                * TSC ticks of a cycle at a CBR are it / CBR (CYC) */
};

/* perf's time of a queue's packets so far (pttime.c): decoder->timestamp
 * and what it is computed from. */
struct pttime {
	const struct ptd_ctc *ctc;     /* the queue's decoder's */
	const uint8_t *data;           /* the queue's AUX data, LEN bytes (the CYC ratio's
	                                * lookahead reads to the buffer's end) */
	uint64_t len;
	uint64_t ref;                  /* the AUX buffer's reference time (its TSC) */
	uint64_t time;                 /* perf's decoder->timestamp (0: no TSC yet) */
	uint64_t tsc;                  /* the last TSC packet's */
	/* MTC (perf's intel_pt_calc_tma(), intel_pt_calc_mtc_timestamp()) */
	bool have_tma;                 /* a TMA since it */
	bool fixup_mtc;                /* LAST_MTC lacks the bits a TMA cannot give (an
	                                * MTC period above 8): the next MTC's */
	uint32_t last_mtc;
	uint64_t ctc_time, ctc_delta;  /* the TSC of the TMA's last CTC tick, CTC ticks since */
	/* CYC (perf's intel_pt_calc_cyc_timestamp(), intel_pt_calc_cyc_to_tsc()) */
	enum pt_packet_type last, prev; /* the type of the last packet (PAD aside), and
	                                 * of the one before it */
	uint64_t cyc_ref;              /* the time of the TSC or MTC right after a CYC,
	                                * or of a CBR of another ratio */
	uint64_t cycles;               /* CYC cycles since then */
	bool have_calc;                /* CALC: TSC ticks a cycle, from the MTCs after */
	double calc;
	unsigned cbr;                  /* the last CBR packet's ratio, 0: none */
	double cbr_cyc;                /* TSC ticks a cycle at CBR */
};

/* From TSC on, a queue's code is that of process PROC (ptdecode procs[]
 * index; PTD_NO_WALK: task PID maps none): a CPU's queue walks the code of
 * the task the CPU runs once perf has processed the side-band up to the
 * queue's time (ptdecode.c's cpu_tasks()). */
struct ptd_task {
	uint64_t tsc;
	int32_t pid;
	uint16_t proc;
	const struct ptd_proc *p;      /* procs[PROC] (NULL: none) */
};

struct ptd_queue {
	uint64_t data_off, data_len;   /* its AUX bytes in the file */
	int32_t tid;                   /* its thread; a CPU's queue: the thread now on it */
	int32_t cpu;                   /* its CPU (-1: a thread's queue) */
	uint64_t reference;            /* its AUXTRACE record's reference (a TSC) */
	bool cpu_thread;               /* its thread is its CPU's current one (perf's
	                                * intel_pt_set_pid_tid_cpu()) */
	const uint8_t *data;           /* DATA_LEN bytes, in MAP */
	void *map;                     /* the file mapped from MAP_OFF, MAP_LEN bytes */
	uint64_t map_off, map_len;
	struct ptd_proc *proc;         /* a thread's: its process; a CPU's: that of the
	                                * task it runs now (NULL: none with code) */
	struct ptd_task *tasks;        /* the processes its code is walked in, by TSC */
	size_t ntasks;
	const struct ptd_ctc *ctc;     /* the decoder's */
	uint64_t *psbs;                /* offsets of the PSBs of DATA, ascending */
	uint64_t *psb_ends;            /* the end of each PSB+ (past PSBEND) */
	uint64_t *psb_tscs;            /* the TSC of each PSB+ (0: none) */
	struct pttime *psb_times;      /* perf's time just before each PSB; NULL where the
	                                * data has no CYC (a PSB+ sets all the rest) */
	size_t npsbs;
	size_t chunk0, nchunks;        /* its chunks: d->chunks[chunk0 ...] */
	size_t cur_chunk, cur_pos;     /* the next sample: in chunk cur_chunk */
	uint64_t forgot;               /* DATA before it is given back (ptdata_forget_before()) */
	bool ready;                    /* chunk cur_chunk is decoded */
	struct ptd_sample cur;         /* perf's state: the sample to emit next */
	bool have_cur;
	uint64_t ts;                   /* perf's ptq->timestamp */
};

struct ptd_heap_item {
	size_t q;
	uint64_t ord;
};

/* A (symbol, dso) the converter interned, by pointer (ptdecode.c). */
struct ptd_func {
	const struct perfsym *sym;
	const struct ptd_dso *dso;
	const struct conv_func *f;
	struct conv_span name, dso_name;  /* as binstream.c spans them */
};

struct ptdecode {
	const char *symfs;
	int fd;
	uint64_t shift, mult, zero;    /* TSC <-> perf time (AUXTRACE_INFO) */
	uint64_t data_end;             /* the end of the last AUX data in the file */
	bool per_cpu;                  /* AUXTRACE_INFO's per_cpu_mmaps */
	uint64_t pmu_type;             /* AUXTRACE_INFO's: the intel_pt events' attr type */
	uint64_t mtc_freq_bits;        /* AUXTRACE_INFO's: the MTC period in an attr's config */
	struct ptd_ctc ctc;
	uint64_t sched_switch;         /* AUXTRACE_INFO's have_sched_switch (0, 2 or 3 here) */
	bool sb_cpu;                   /* side-band records carry their CPU */
	struct ptd_cpu { int32_t pid, tid; } *cpus;  /* each CPU's current task (-1: unknown) */
	size_t ncpus;
	struct ptd_sb *sbs;            /* in time order */
	size_t nsbs, capsbs;
	struct ptd_queue *queues;
	size_t nqueues, capqueues;
	struct ptd_dso **dsos;
	size_t ndsos, capdsos;
	struct ptd_proc **procs;
	size_t nprocs, capprocs;
	struct ptd_thread *threads;
	size_t nthreads, capthreads;
	struct hash_index thread_index;  /* tid -> threads[] */
	struct pt_image_section_cache *iscache;
	struct ptd_buildid { char *path, *hex; } *buildids;  /* the perf.data's (perfdata_buildids()) */
	size_t nbuildids, capbuildids;
	uint8_t *vdso;                 /* this process's vdso (perf's own, as perf uses it) */
	size_t vdso_len;
	/* decoding */
	struct ptd_chunk *chunks;      /* every queue's, in queue order */
	size_t nchunks;
	size_t *order;                 /* chunk indexes in the order they are decoded */
	size_t next_todo;              /* in ORDER */
	size_t ahead, ahead_max;       /* chunks decoded and not yet converted */
	struct ptd_buffer { struct ptd_sample *s; size_t cap; } pool[PTD_POOL];  /* for reuse */
	size_t npool;
	struct pt_image **images;      /* each process's image (the converter's thread's) */
	struct ptd_worker {
		pthread_t thread;
		struct ptdecode *d;
		struct pt_image **images;  /* its copy of each process's image, made
		                            * before any decoding: libipt reorders an
		                            * image's sections as it reads them */
	} *workers;
	size_t nworkers;
	bool stop;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* perf's order */
	struct ptd_heap_item *heap;
	size_t nheap;
	/* conversion (main thread) */
	uint64_t gen;                  /* bumped at every text line */
	struct conv_line line;         /* a branch's: each sets the fields it has, the
	                                * rest stay zero (clearing a whole conv_line
	                                * for each was a twentieth of the CPU) */
	struct conv_driver *cv;
	int conv_err;
	char *errbuf;
	size_t errlen;
	int status;                    /* the first failure: a pipeline_status */
	struct hash_index func_index;  /* (sym, dso) pointers mixed -> funcs[] */
	struct ptd_func *funcs;
	size_t capfuncs, nfuncs;
};

/* ptdata.c */

/* Writes the reason FMT... into WHY (LEN bytes); returns 1 (perf script
 * must decode the file). */
int ptdata_why(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Reads D->fd's records into D (side-band, queues, time conversion).
 * Returns 0, 1 with a reason in WHY (perf script must decode it), or
 * -ENOMEM. */
int ptdata_read(struct ptdecode *d, char *why, size_t len);

/* Checks every packet of Q's data (only those ptblock.c reproduces) and
 * lists its PSBs. Returns 0, 1 with a reason, or -ENOMEM. */
int ptdata_scan(struct ptd_queue *q, char *why, size_t len);

/* Gives back the whole pages of Q's AUX data within [FROM, TO), read
 * again from the file if touched again: the memory decoding holds stays
 * flat. */
void ptdata_forget(const struct ptd_queue *q, uint64_t from, uint64_t to);

/* Gives back Q's AUX data before TO, which nothing reads again: from
 * Q->forgot (where the last call ended) on, and the 2 MiB before it,
 * which a page fault may have mapped again since (ptdata.c's
 * PTD_REMAP_SPAN). Q->forgot is then TO. */
void ptdata_forget_before(struct ptd_queue *q, uint64_t to);

/* perf's tsc_to_perf_time() and perf_time_to_tsc() */
uint64_t ptdata_perf_time(const struct ptdecode *d, uint64_t tsc);
uint64_t ptdata_tsc(const struct ptdecode *d, uint64_t ns);

/* ptimage.c */

/* The thread TID (added when new, pid -1; tid 0 is perf's idle task, pid 0
 * and comm "swapper"), or NULL when out of memory. */
struct ptd_thread *ptimage_thread(struct ptdecode *d, int32_t tid);

/* Names T as perf names its idle task. */
void ptimage_idle_comm(struct ptd_thread *t);

/* The processes, threads and maps as the side-band leaves them, each
 * thread's queue's process and image. Returns 0, 1 with a reason, or
 * -ENOMEM. */
int ptimage_setup(struct ptdecode *d, char *why, size_t len);

/* The procs[] index of process PID when it maps code, else PTD_NO_WALK. */
uint16_t ptimage_proc_index(const struct ptdecode *d, int32_t pid);

/* The bytes at IP in process P (up to 16, their number in *N), or NULL.
 * *MAP (NULL or one of P's maps): where IP is looked for first, then the
 * map that holds IP (most blocks end in the map of the block before). */
const uint8_t *ptimage_code(const struct ptd_proc *p, uint64_t ip, size_t *n,
			    const struct ptd_map **map);

/* perf's resolution of IP in P: P's cache entry of IP, with its map (NULL:
 * none) and symbol (NULL: none), valid until the next call. Main thread
 * only (P's cache). */
struct ptd_sym_hit *ptimage_resolve(struct ptd_proc *p, uint64_t ip);

/* Frees the threads, processes and files. */
void ptimage_free(struct ptdecode *d);

/* pttime.c */

/* The 7-byte TSC T given the top byte of REF, the nearer of the two ways
 * across a wrap (perf's intel_pt_8b_tsc()). */
uint64_t pttime_8b(uint64_t t, uint64_t ref);

/* Applies packet P (just read by PD, a packet decoder over T->data) to T.
 * Returns true when P is a timing packet (TSC, TMA, MTC, CBR, CYC), which
 * no branch takes. *AHEAD: a packet decoder of T->data for the CYC ratio's
 * lookahead, made here when first needed (the caller frees it). */
bool pttime_packet(struct pttime *t, const struct pt_packet *p, const struct pt_packet_decoder *pd,
		   struct pt_packet_decoder **ahead);

/* ptblock.c */

/* Decodes chunk C of queue Q into C->s, walking the code of each process
 * of Q->tasks in IMAGES[its procs[] index] (the processes' images, or the
 * calling thread's copies of them); C->failed and C->why when the decoder
 * met something perf would read otherwise (C->why NULL: memory ran out). */
void ptblock_decode(struct ptd_chunk *c, const struct ptd_queue *q, struct pt_image *const *images);

#endif
