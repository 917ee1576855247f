/* SPDX-License-Identifier: MIT */
/*
 * outpath: the one way every program writes an output (a trace, a
 * recording directory and its record.json, a cache), safe where others can
 * write too (docs/design.md "Threat model"):
 *
 *   - "-" is standard output.
 *   - The path is walked one component at a time from the current (or the
 *     root) directory, each directory held open: what is written is where
 *     the walk ended, whatever is renamed meanwhile. A symbolic link on the
 *     way (or at the end) is followed only where nobody but the caller and
 *     root may have put it there or may replace it (PATHTRUST_US,
 *     pathtrust.h: the caller's or root's link, in a directory of theirs
 *     nobody else may write, or sticky); another user's link, or one in
 *     another user's directory, is refused with a message naming it and
 *     the rule.
 *   - A regular file or a new name is written as an unnamed file in its
 *     directory (O_TMPFILE), linked under its name on outpath_commit(): a
 *     new name with link (never replacing what appeared meanwhile), an
 *     existing regular file through a rename. A process killed at any moment
 *     leaves nothing. Where the file system has no O_TMPFILE the file is
 *     created (O_EXCL|O_NOFOLLOW) under an unpredictable hidden name
 *     ".snaptrace-XXXXXXXXXXXX.tmp"; the name is also used for the instant of
 *     the rename. Such a temporary is locked (flock) while its writer lives:
 *     one left by a killed writer (unlocked, the caller's, a minute old) is
 *     removed when an output is next opened in that directory.
 *   - Anything else (a device such as /dev/null, a FIFO) is opened and
 *     written straight, with no temporary, when it belongs to the caller, or
 *     to root and has no other name: it stays what it is. The open never
 *     waits (O_NONBLOCK, cleared once open): a FIFO that no one reads is
 *     refused (-ENXIO, OUTPATH_NO_READER), never waited for. Another user's
 *     FIFO or device is refused (the kernel's fs.protected_fifos, for every
 *     directory), and so is a hard link to root's.
 *   - A directory is refused (-EISDIR).
 * Named temporaries still open, and temporary directories (outpath_temp_dir()),
 * are removed when the process is killed by
 * SIGINT, SIGTERM, SIGHUP or SIGPIPE (one not ignored at start) once outpath_remove_on_signals() was
 * called, or by a caller's own handler through outpath_remove_temps().
 *
 * Errors are a negative errno with one line in ERRBUF naming the path:
 * -EPERM for a link, FIFO or device another user owns ("... the rule").
 */
#ifndef SNAPTRACE_OUTPATH_H
#define SNAPTRACE_OUTPATH_H

/* Why a FIFO output is refused (-ENXIO), after "PATH: ". */
#define OUTPATH_NO_READER "a FIFO that no process reads: start its reader first " \
	"(e.g. `cat FIFO >trace.fxt &`), or give a file"

/* Why a terminal output is refused (-ENOTTY), after "PATH: is " (as gzip
 * refuses to write compressed data to one). */
#define OUTPATH_TERMINAL "a terminal: expected a file or a pipe for the binary trace, " \
	"which a terminal would show as garbage"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* An output being written. Fields are read-only for the caller. */
struct outpath {
	int fd;                  /* write here; -1 when closed */
	char *path;              /* as given (for messages), or "-"; owned */
	int dirfd;               /* the directory it is linked into (O_PATH); -1: none
				  * (standard output, or written straight) */
	char name[NAME_MAX + 1]; /* its name in DIRFD */
	char tmp[32];            /* its named temporary in DIRFD, or "" (unnamed) */
	int slot;                /* the named temporary's removal registry slot, or -1 */
};

/*
 * Opens PATH for writing as above (a new file: OUTPATH_FILE_MODE less the umask).
 * Returns 0 with *O ready, or a negative errno with a one-line reason in
 * ERRBUF ("PATH: cannot write: ..."; -ENOTTY: a terminal, standard output
 * for "-", OUTPATH_TERMINAL); nothing is created on failure.
 */
int outpath_open(struct outpath *o, const char *path, char *errbuf, size_t errlen);

/*
 * Links O's file under its name (see above) and closes it. Returns 0, or a
 * negative errno (the close or link failed; -EEXIST: what now has the name
 * is no regular file, and is left alone) after removing the file. Frees
 * what O holds either way.
 */
int outpath_commit(struct outpath *o);

/* Closes O and removes its file (a straight output keeps what was
 * written). Frees what O holds. */
void outpath_abort(struct outpath *o);

/*
 * Does output path OUT name the file ST describes (the same device and
 * inode), the way outpath_open() would reach it? "-" names none.
 */
bool outpath_names(const char *out, const struct stat *st);

/*
 * Reaches the existing directory PATH as an output's path is walked (a
 * symbolic link followed only where nobody but the caller and root may
 * have put it: never another user's link in /tmp). Returns its descriptor
 * (O_PATH, close-on-exec: to create in with mkdirat()) with its path, as
 * the kernel names the directory reached (absolute, no link), in REAL
 * (SIZE bytes); or a negative errno with one line "PATH: ..." in ERRBUF.
 */
int outpath_walk_dir(const char *path, char *real, size_t size, char *errbuf, size_t errlen);

/*
 * LEN (at most 64) unpredictable characters of [A-Za-z0-9_-] (getrandom())
 * and a NUL into OUT: a name nobody can make first. Returns 0 or a negative
 * errno (-EINVAL: LEN too large; no randomness).
 */
int outpath_random(char *out, size_t len);

/*
 * Opens the recording directory PATH, given by option FLAG ("-o", "-d":
 * messages name both; NULL: a name the program chose), walked as above: a new directory is created (mode
 * 0755 less the umask; *CREATED set), or an existing one taken when it is
 * empty, the caller's, and writable by nobody else (perf writes its files
 * there by name). Returns its descriptor (O_DIRECTORY, close-on-exec), or a
 * negative errno with a one-line reason "[FLAG ]PATH: ..." in ERRBUF:
 * -ENOTDIR (no directory), -ENOTEMPTY (it holds something; "an earlier
 * recording" when that is a record.json), -EPERM (another user's link or
 * directory, or one others may write), -EACCES (no file can be written in
 * it: a read-only mount, sysfs; a directory it created for that is
 * removed), and -EACCES, -EPERM or -EROFS of the directory's creation: the
 * name given is wrong, a usage error; any other: it could not be created,
 * or a write there fails (-ENOSPC, -EDQUOT: a file system with no block
 * left, the directory it created removed), a runtime failure as
 * outpath_check() says.
 */
int outpath_dir(const char *flag, const char *path, bool *created, char *errbuf, size_t errlen);

/*
 * The mode of every file the tools create (an output, a recording's files,
 * a temporary; less the umask): nobody but the owner writes it, whatever
 * the umask. A directory's default ACL replaces the umask (POSIX.1e: the
 * new file inherits the ACL, its mask the mode's group bits), so a mode
 * that left write to the umask (0666) made root's record.json, created in
 * another user's directory with a default ACL naming her, writable by her
 * (hostile16 NEW 4). Directories are made 0755 or 0700 (mask r-x or none).
 */
#define OUTPATH_FILE_MODE 0644

/*
 * Creates file NAME in directory DIRFD, which must not exist
 * (O_CREAT|O_EXCL|O_NOFOLLOW, OUTPATH_FILE_MODE less the umask), for writing.
 * Returns its descriptor (close-on-exec) or a negative errno.
 */
int outpath_create_at(int dirfd, const char *name);

/*
 * Creates file NAME in directory DIRFD as outpath_create_at() does, with
 * mode MODE & 0755 (no write but the owner's) less the umask, holding the
 * SIZE bytes of regular file FROM (an open descriptor, read from offset 0;
 * copied in the kernel, a reflink where the file system can). Returns 0, or a negative errno with nothing
 * left under NAME (-EIO: FROM shrank meanwhile).
 */
int outpath_copy_at(int dirfd, const char *name, int from, off_t size, mode_t mode);

/*
 * How messages name output PATH, into BUF (SIZE bytes): PATH itself, or for
 * "-" "standard output", followed by the file or device it is where it is
 * one ("standard output (/dev/full)", from /proc/self/fd/1; a pipe or a
 * socket has no path). Returns BUF.
 */
const char *outpath_shown(const char *path, char *buf, size_t size);

/*
 * Flushes standard output, where a program printed what was asked (a
 * report, a dump, a listing, its help), at its end with exit status RC.
 * Returns RC when it is not 0 (the program failed, and said why), else 0,
 * or EXIT_RUNTIME after the one line "standard output (PATH): cannot
 * write: REASON" (diag_error()) when it could not be written (a full disk,
 * /dev/full: what was printed is lost). A pipe whose reader stopped
 * reading (| head) ends the program by SIGPIPE, without a word, as it ends
 * a program whose SIGPIPE is at its default (the recorder's is ignored):
 * one rule for every program's --help, --version and output; unless
 * SIGPIPE was ignored when the program started (then the line says).
 */
int outpath_stdout_done(int rc);

/* The trace format an output path names (the one suffix rule of
 * snaptrace-convert -o and snaptrace run|attach -o). */
enum outpath_format {
	OUTPATH_FORMAT_NONE,  /* any other name (".zst", ".json", a directory, none...) */
	OUTPATH_FORMAT_RAW,   /* "-" (stdout), "*.fxt", or an existing device/FIFO/socket */
	OUTPATH_FORMAT_GZIP,  /* "*.fxt.gz" or "*.gz" */
};

/* The format PATH's name asks for (see enum outpath_format). */
enum outpath_format outpath_format(const char *path);

/*
 * Checks, before anything is recorded or converted, that a trace can be
 * written at PATH: a known format (outpath_format), not a directory, in an
 * existing directory where a file can be made and given a block (tried, as
 * outpath_open() makes it, and dropped: a full file system fails here, not
 * after the recording), reached and named as outpath_open() allows; a
 * device takes a write of no bytes (/dev/full refuses it: no space). "-"
 * passes unless stdout was closed when outpath_keep_std_fds() ran, is a
 * terminal (OUTPATH_TERMINAL) or a device that refuses that write.
 * Returns EXIT_OK (0), or an exit status with a one-line reason naming PATH
 * in ERRBUF: EXIT_RUNTIME when a write there fails (no space, a quota, an
 * I/O error: /dev/full, a full file system), else EXIT_USAGE (what PATH
 * names is no place for a trace: a caller adds its "(see --help)").
 */
int outpath_check(const char *path, char *errbuf, size_t errlen);

/*
 * Call first in main(), before anything is opened: puts /dev/null on each of
 * stdin, stdout and stderr that is closed, so that no file opened later takes
 * their number (and the trace never goes into, say, a signalfd), and
 * remembers a closed stdout for outpath_check("-").
 */
void outpath_keep_std_fds(void);

/* Installs handlers for SIGINT, SIGTERM, SIGHUP and SIGPIPE that remove
 * every named temporary and temporary directory, then die of the signal as they would have; one
 * ignored when the program started stays ignored (sig_ignored_at_start()). */
void outpath_remove_on_signals(void);

/* Removes every named temporary and temporary directory (async-signal-safe:
 * for a signal handler; errno is kept). */
void outpath_remove_temps(void);

/* Characters of randomness in a temporary directory's name. */
#define OUTPATH_TEMP_DIR_RANDOM 6

/*
 * Makes a new private temporary directory in directory PARENT (held open by
 * the caller until outpath_temp_forget()): named PREFIX and
 * OUTPATH_TEMP_DIR_RANDOM unpredictable characters (outpath_random(); the
 * name into NAME, SIZE bytes, at most 32 with its NUL), mode 0700, and
 * registered first, so that from before it exists until
 * outpath_temp_forget(SLOT) a signal outpath_remove_on_signals() handles
 * removes it with everything in it (tmptree_empty(): only what its owner
 * could remove). Returns its descriptor (O_RDONLY|O_DIRECTORY, close-on-exec)
 * with *SLOT (-1: the registry was full; then only the caller removes it),
 * or a negative errno with nothing made (-ENAMETOOLONG: PREFIX too long).
 */
int outpath_temp_dir(int parent, const char *prefix, char *name, size_t size, int *slot);

/* Stops removing the temporary of *SLOT (-1: none) on signals, once the
 * caller removed it (or keeps it); sets *SLOT to -1. */
void outpath_temp_forget(int *slot);

/*
 * A new unnamed file for scratch data, open read-write: O_TMPFILE in
 * $TMPDIR (or /tmp), else a mkostemp file unlinked at once; it is gone when
 * its last descriptor closes, whatever ends the program. Returns its
 * descriptor (close-on-exec) or a negative errno.
 */
int outpath_unnamed(void);

#endif
