/* SPDX-License-Identifier: MIT */
/*
 * perfdata: perf.data files read without perf (perf's on-disk format,
 * tools/perf/Documentation/perf.data-file-format.txt): the files perf
 * wrote into a recording directory ("perf.data", "perf.data.<timestamp>"),
 * for a recording whose own list of them is missing (its recorder was
 * killed, or perf died first); a file's header, its feature sections and
 * its records; the build ids it names (what `perf buildid-list` prints,
 * without perf's start-up: docs/design.md "The converter"); and whether
 * perf finished a file (a full disk, perf killed while writing it, a file
 * cut short since: docs/design.md "Unfinished perf.data files").
 */
#ifndef SNAPTRACE_PERFDATA_H
#define SNAPTRACE_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The unsigned 64- and 32-bit numbers at P, in this host's byte order (a
 * perf.data's, which perfdata_header_read() checks). */
static inline uint64_t perfdata_u64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint32_t perfdata_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * Stores in *NAMES (owned by the caller: each string and the array, which
 * is NULL-terminated) the name of every entry of directory DIRFD that
 * starts with "perf.data", in name order, whatever it is (the caller opens
 * each as inpath.h allows). Returns their number, or a negative errno (the
 * directory cannot be listed, -ENOMEM) with *NAMES NULL.
 */
int perfdata_scan(int dirfd, char ***names);

/* The directory of a recording (snaptrace-record --keep-binaries) that keeps
 * the binaries its perf.data files name, as perf's build-id cache lays them
 * out (.build-id/XX/REST, PATH/BUILDID/elf): what `perf --buildid-dir`
 * reads. */
#define PERFDATA_BINARIES_DIR "binaries"
/* Bytes of it at most: what a program, its libraries and their debug
 * information take. The recorder keeps no binary past it (a sparse file of
 * another user's, 20 KiB on disk, once had root's recorder write 2 GiB);
 * the converter copies no more of it (convert/binaries.c). */
#define PERFDATA_BINARIES_BYTES_MAX (4LL << 30)

/* The build id of N bytes at ID as lowercase hex into HEX (2 * N + 1 bytes). */
void perfdata_hex(const unsigned char *id, size_t n, char *hex);

/* Whether a file's build id HEX is the one a perf.data records, RECORDED
 * (perf pads a short id with zeros to 20 bytes). */
bool perfdata_same_buildid(const char *recorded, const char *hex);

/* perf's header feature bits (HEADER_* of tools/perf/util/header.h). */
enum perfdata_feature {
	PERFDATA_FEAT_BUILD_ID = 2,
	PERFDATA_FEAT_HOSTNAME = 3,
	PERFDATA_FEAT_EVENT_DESC = 12,
	PERFDATA_FEAT_AUXTRACE = 18,  /* an index of the AUXTRACE records' file offsets */
	PERFDATA_FEAT_DIR_FORMAT = 24,
	PERFDATA_FEAT_BITS = 256,     /* the size of the header's bitmap */
};

/* perf's record types read here (PERF_RECORD_*). */
enum perfdata_record_type {
	PERFDATA_REC_MMAP = 1,
	PERFDATA_REC_COMM = 3,
	PERFDATA_REC_FORK = 7,
	PERFDATA_REC_SAMPLE = 9,
	PERFDATA_REC_MMAP2 = 10,
	PERFDATA_REC_SWITCH = 14,
	PERFDATA_REC_SWITCH_CPU_WIDE = 15,
	PERFDATA_REC_HEADER_BUILD_ID = 67,
	PERFDATA_REC_AUXTRACE_INFO = 70,
	PERFDATA_REC_AUXTRACE = 71,   /* followed by its own size of AUX data */
	PERFDATA_REC_COMPRESSED = 81, /* records zstd-compressed (perf record -z) */
};

/* The file header of a perf.data (struct perf_file_header), in this host's
 * byte order; or of perf's pipe format (perf record -o -), whose records
 * start right after its 16 bytes and go to the end of the file. */
struct perfdata_header {
	bool pipe;                    /* the pipe format: no attrs, no features */
	uint64_t file_size;           /* bytes */
	uint64_t attr_size;           /* bytes of one attr entry */
	uint64_t attrs_off, attrs_size;
	uint64_t data_off, data_size; /* the records */
	uint64_t features[PERFDATA_FEAT_BITS / 64];  /* adds_features */
};

/*
 * Reads the header of the perf.data open as FD. Returns 0 and *H; -EINVAL
 * when FD is not a perf.data this reads (another magic or byte order, an
 * unknown header size), -EIO when it is cut short within its header or its
 * data section lies past its end, or another negative errno (pread).
 */
int perfdata_header_read(int fd, struct perfdata_header *h);

/*
 * Finds the section of feature FEAT (< PERFDATA_FEAT_BITS) of the file H
 * was read from (FD): returns 0 with its file offset in *OFF and its length
 * in *SIZE; -ENOENT when the file has no such feature (the pipe format has
 * none); -EIO when the section table or the section lies past the end of
 * the file; or another negative errno.
 */
int perfdata_feature(int fd, const struct perfdata_header *h, unsigned feat, uint64_t *off,
		     uint64_t *size);

/* A walk over the records of a data section through one buffer. */
struct perfdata_records {
	int fd;
	uint64_t off, end;            /* the next record's file offset; the section's end */
	uint64_t rec_off;             /* the file offset of the record last returned */
	uint64_t buf_off;             /* the file offset of BUF[0] */
	size_t buf_len;
	unsigned char buf[1 << 16];   /* a record is at most 65535 bytes */
};

/*
 * Starts R on the data section of the file H was read from (FD, borrowed;
 * H's data section, or the rest of the file for the pipe format).
 */
void perfdata_records_start(struct perfdata_records *r, int fd, const struct perfdata_header *h);

/*
 * The next record of R: returns its bytes (its perf_event_header first; its
 * size is the u16 at byte 6; valid until the next call), its file offset
 * in R->rec_off; NULL at the end of the section, with *ERR 0, or when the
 * records are damaged (a record shorter than its header, or cut short by
 * the end of the section or file), with *ERR -EIO and the damaged record's
 * offset in R->rec_off. The AUX
 * data after an AUXTRACE record (its u64 at byte 8 says how long) is
 * skipped: it starts at R->rec_off plus the record's size.
 */
const unsigned char *perfdata_record_next(struct perfdata_records *r, int *err);

/* Where a perf.data was recorded, as far as it says (perfdata_origin()). */
#define PERFDATA_ORIGIN_COMMS 4
struct perfdata_origin {
	char host[65];                            /* HEADER_HOSTNAME; "": not told */
	char comms[PERFDATA_ORIGIN_COMMS][16];    /* the first distinct names of its COMM
						   * records (the programs it recorded) */
	int ncomms;
};

/*
 * Reads into *O where the perf.data open as FD was recorded: its host
 * (HEADER_HOSTNAME) and the programs its first PERFDATA_ORIGIN_RECORDS
 * records name (COMM: perf synthesizes the targets' at its start). Returns
 * 0, or a negative errno (perfdata_header_read()'s; damaged records end the
 * walk, what was read kept).
 */
#define PERFDATA_ORIGIN_RECORDS 4096
int perfdata_origin(int fd, struct perfdata_origin *o);

/*
 * Opens the perf.data PATH to read (close-on-exec), only when it is a
 * regular file (inpath.h: a FIFO is never waited on, a device never opened;
 * a symbolic link is followed: give /proc/self/fd/N of a checked file).
 * Every reader of a perf.data opens it this way. Returns the descriptor, or
 * -1 with errno set (EINVAL: no regular file).
 */
int perfdata_open(const char *path);

/*
 * Calls FN(ARG, HEX, PATH) for each build id the perf.data at PATH names:
 * HEX its build id in lowercase hex (NUL-terminated, 40 digits or fewer),
 * PATH the binary's path as perf names it ("/usr/lib/x86_64-linux-gnu/
 * libc.so.6", "[kernel.kallsyms]"); both valid only during the call. The
 * ids come from the HEADER_BUILD_ID feature (perf record's default), else
 * from the MMAP2 records that carry one (perf record --buildid-mmap) and
 * the pipe format's HEADER_BUILD_ID records: `perf buildid-list -i PATH`
 * prints the same ids for the same paths (in the --buildid-mmap case only
 * of binaries with samples; here of every one mapped). A path named twice
 * is given twice. Returns 0; FN's nonzero return (which stops the walk;
 * it must not be -EIO); or
 * -EINVAL when PATH is not a perf.data this reads, -EIO when it is cut
 * short or its build ids or records are damaged, or another negative errno,
 * with a one-line reason in ERRBUF ("HEADER_BUILD_ID is cut short at byte
 * 4880"; without the path).
 */
int perfdata_buildids(const char *path, int (*fn)(void *arg, const char *hex, const char *path),
		      void *arg, char *errbuf, size_t errlen);

/* A mapping a MMAP or MMAP2 record names (struct perf_record_mmap, mmap2). */
struct perfdata_mmap {
	const char *file;        /* its file name, as perf saw it (NUL-terminated) */
	uint64_t at;             /* the file offset of FILE's first byte: strlen(FILE) + 1
				  * bytes of the record are its */
	uint32_t pid, tid;       /* the process and thread that mapped it */
	uint64_t start, len;     /* where it is mapped in the process, bytes */
	uint64_t pgoff;          /* the file offset mapped at START */
	uint32_t flags;          /* MMAP2's mmap flags (MAP_*); 0 for a MMAP */
	bool exec;               /* executable: MMAP2's prot has PROT_EXEC; a MMAP
				  * without PERF_RECORD_MISC_MMAP_DATA (as perf reads them) */
};

/*
 * Calls FN(ARG, M) for each MMAP and MMAP2 record of the perf.data at PATH
 * (what the traced processes mapped; M valid only during the call), in the
 * records' order, until FN returns nonzero.
 * Returns 0; FN's nonzero return; -EINVAL when PATH is not a perf.data this
 * reads; -EIO when its records are damaged or cut short; -ENOTSUP at a
 * PERFDATA_REC_COMPRESSED record (perf record -z: the mappings inside are
 * not read; no zstd here); or another negative errno.
 */
int perfdata_mmaps(const char *path, int (*fn)(void *arg, const struct perfdata_mmap *m),
		   void *arg);

/*
 * The events the perf.data at PATH recorded, from its HEADER_EVENT_DESC
 * feature: what `perf evlist -F -i PATH` prints, one "NAME: sample_freq=N"
 * or "NAME: sample_period=N" a line ("cpu-clock: sample_freq=4000",
 * "intel_pt//u: sample_period=1"), into BUF (SIZE bytes, NUL-terminated;
 * lines past its end are left out). Returns 0;
 * -ENOENT when the file has no such feature (the pipe format; perf must
 * be asked); -EINVAL or -EIO as perfdata_header_read() and
 * perfdata_feature() return them, also -EIO for a damaged section; or
 * another negative errno.
 */
int perfdata_event_names(const char *path, char *buf, size_t size);

/*
 * Writes to OUT_FD (at its offset 0; a new, empty file) a copy of the
 * perf.data at PATH whose data section is PREFIX (LEN bytes of whole
 * records) followed by the records of PATH that KEEP(REC, ARG) accepts (REC
 * a record, its perf_event_header first; KEEP NULL: all), and the sections
 * after the data section moved with it (the feature table's offsets); the
 * header (its data size) and the attributes are PATH's. perf reads the copy
 * as it reads PATH, with the records of PREFIX first. Returns 0; -ENOTSUP
 * for the pipe format and a file whose features or records hold file
 * offsets of its records (HEADER_AUXTRACE, HEADER_DIR_FORMAT, an AUXTRACE
 * record: Intel PT); -EINVAL or -EIO as perfdata_header_read() and
 * perfdata_record_next() return them, also -EIO for a feature table past
 * the end of the file; or another negative errno (a failed write).
 */
int perfdata_rewrite(const char *path, const void *prefix, size_t len,
		     bool (*keep)(const unsigned char *rec, void *arg), void *arg, int out_fd);

/* A record's time, as perfdata_sample_times() reads it. */
struct perfdata_time {
	uint64_t ns;                 /* perf clock */
	int event;                   /* a sample's event: the index of its attribute
				      * (perfdata_sample_types' order, perf evlist's);
				      * PERFDATA_TIME_SWITCH for a context switch
				      * record, PERFDATA_TIME_UNKNOWN for a sample
				      * whose identifier names no event */
};
#define PERFDATA_TIME_SWITCH (-1)
#define PERFDATA_TIME_UNKNOWN (-2)

/*
 * The times (perf clock, ns) of the samples (PERF_RECORD_SAMPLE) and the
 * context switches (PERF_RECORD_SWITCH, _CPU_WIDE: a thread's switch-in is
 * where a snapshot's data starts as much as a sample) of the perf.data at
 * PATH, in ascending order, each with its event, into *TIMES (a new array
 * the caller frees; NULL when there are none) and their number into *N,
 * read at the place every event's sample_type puts it: a sample's after the
 * identifier, ip and pid/tid each has, a switch's in the sample_id trailer
 * of the events that record switches (context_switch; none read when one
 * has no trailer, sample_id_all unset, or they put it at different
 * places). A sample's event is the one whose identifiers (the attribute
 * entry's ids section) hold its PERF_SAMPLE_IDENTIFIER, which perf gives
 * every event of a file of several; the only event of a file of one.
 * Returns 0; -ENOTSUP when its events put a sample's time at different
 * places, or one has none (and for the pipe format); -EINVAL or -EIO as
 * perfdata_header_read() and perfdata_record_next() return them, also -EIO
 * for an attribute whose ids lie past the end of the file; -ENOMEM; or
 * another negative errno.
 */
int perfdata_sample_times(const char *path, struct perfdata_time **times, size_t *n);

/*
 * Calls FN(ARG, REC, SIZE) for each sample record (PERF_RECORD_SAMPLE) of
 * the perf.data at PATH, in the file's order: REC its SIZE bytes, its
 * perf_event_header first, valid only during the call; until FN returns
 * nonzero. Returns 0; FN's nonzero return (which must not be -EIO); -EINVAL
 * or -EIO as perfdata_header_read() and perfdata_record_next() return them;
 * -ENOMEM; or another negative errno.
 */
int perfdata_samples(const char *path,
		     int (*fn)(void *arg, const unsigned char *rec, size_t size), void *arg);

/*
 * The sample_type bits (PERF_SAMPLE_*, include/uapi/linux/perf_event.h) of
 * each event the perf.data at PATH recorded, in the order of its header's
 * attributes (struct perf_file_attr: the attr's sample_type at byte 24),
 * which is the order of its event names (perfdata_event_names, perf
 * evlist): the first MAX into TYPES. PERF_SAMPLE_STACK_USER says the event
 * was unwound with --call-graph dwarf, PERF_SAMPLE_BRANCH_STACK lbr, and
 * PERF_SAMPLE_CALLCHAIN alone frame pointers. Returns the number of events
 * (may exceed MAX); -ENOENT for the pipe format (no attributes in its
 * header); -EINVAL or -EIO as perfdata_header_read() returns them, also -EIO
 * when the attributes lie past the end of the file; or another negative
 * errno.
 */
int perfdata_sample_types(const char *path, uint64_t *types, size_t max);

/* What perfdata_check() found in a file. */
enum perfdata_state {
	PERFDATA_FINISHED,   /* a perf.data whose header, attributes, data section and
			      * feature sections all lie within the file; or a pipe-mode
			      * perf.data (a stream: nothing to check) */
	PERFDATA_UNFINISHED, /* a perf.data perf did not finish (or cut short since): its
			      * header never written (all zero bytes), cut short inside it,
			      * data size 0, or a section past the end of the file */
	PERFDATA_OTHER,      /* not a perf.data this reads: empty, another kind of file
			      * (text), another byte order, or not a regular file (a FIFO,
			      * a device: never opened) */
	PERFDATA_UNREADABLE, /* cannot be opened or read */
	PERFDATA_DAMAGED,    /* whole, but an attribute holds bits perf does not define
			      * (perfattr.h): perf's reader would take them as they are */
};

/*
 * Checks the perf.data PATH against its header (perfdata_header_read()):
 * reads the header, the attributes (perfattr_check(), once the file is
 * whole) and the feature section table, never the data. Returns
 * what it found; for every state but PERFDATA_FINISHED, WHY (SIZE bytes)
 * holds one phrase without the path, e.g. "cut short inside its data
 * section (ending at byte 458968; the file ends at byte 100000)", "its
 * header was never written (all zero bytes)", "empty", "No such file or
 * directory".
 */
enum perfdata_state perfdata_check(const char *path, char *why, size_t size);

#endif
