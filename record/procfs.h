/* SPDX-License-Identifier: MIT */
/*
 * procfs: the few facts the recorder reads from /proc about a target:
 * whether it exists, its threads and their names, and its file mappings
 * (format of /proc/PID/maps: proc(5), "START-END PERMS OFFSET DEV INODE PATH",
 * a newline in PATH written as \012).
 */
#ifndef SNAPTRACE_REC_PROCFS_H
#define SNAPTRACE_REC_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* One line of /proc/PID/maps that maps a file. */
struct rec_map {
	uint64_t start, end;    /* runtime addresses, end exclusive */
	uint64_t pgoff;         /* file offset of START, bytes */
	bool exec;              /* 'x' permission */
	char path[4096];
};

/* Reads up to SIZE - 1 bytes of the /proc file PATH into BUF, NUL-terminated
 * (SIZE >= 1). Returns the bytes read or a negative errno (BUF then ""). */
ssize_t rec_proc_read(const char *path, char *buf, size_t size);

/* rec_proc_read() from byte OFFSET of PATH (/proc/PID/mem: an address of
 * the process's). */
ssize_t rec_proc_read_at(const char *path, uint64_t offset, char *buf, size_t size);

/* Whether process (or thread) ID exists and is not a zombie. */
bool rec_proc_alive(pid_t id);

/* Whether process (or thread) ID is a kernel thread: the PF_KTHREAD flag
 * (0x00200000) in the flags of /proc/ID/stat (its 9th field, after the
 * comm in parentheses); false when it cannot be read. */
bool rec_proc_kernel_thread(pid_t id);

/* When process (or thread) ID started, in clock ticks after boot (the 22nd
 * field of /proc/ID/stat, proc(5)): with the pid, which process it is (a
 * pid is reused once its process is reaped). 0 when unreadable. */
uint64_t rec_proc_start_time(pid_t id);

/* rec_proc_start_time() of ID, with its parent's pid (the 4th field of
 * /proc/ID/stat: the process that forked it, or the reaper that took it
 * over when that one ended) into *PARENT (0 when unreadable). */
uint64_t rec_proc_parent(pid_t id, pid_t *parent);

/*
 * A process held from the moment it is chosen (the picker, -p): a pidfd
 * (pidfd_open(2)) of it and its start time. While the pidfd does not say
 * the process ended, its pid is not another's.
 */
struct rec_proc_held {
	pid_t pid;
	int pidfd;              /* owned, -1: none */
	uint64_t start;         /* rec_proc_start_time() */
};

/*
 * Holds process PID into *H: opens its pidfd and reads its start time,
 * which must be START (0: any). Returns 0; -ESRCH when it is gone, has
 * ended, or started at another time (another process has the pid now),
 * *H then holding nothing; or another negative errno of pidfd_open.
 */
int rec_proc_hold(pid_t pid, uint64_t start, struct rec_proc_held *h);

/* Whether H's process is still the one held: 0 while its pidfd says it
 * runs and its pid's start time is the same, else -ESRCH. */
int rec_proc_still_held(const struct rec_proc_held *h);

/* Closes H's pidfd (none: nothing). */
void rec_proc_release(struct rec_proc_held *h);

/* The real uid of process ID (the first of /proc/ID/status's "Uid:": who
 * started it, which it cannot change without privileges), or -1 when
 * unreadable. */
long rec_proc_uid(pid_t id);

/* The real and effective uids of process ID (the first two of
 * /proc/ID/status's "Uid:") into UID. Returns 0, or -1 when unreadable. */
int rec_proc_uids(pid_t id, uid_t uid[2]);

/* Whether process ID may be another user's to change: one of its uids
 * (/proc/ID/status's "Uid:": real, effective, saved, file system) is
 * neither root nor the caller's (pathtrust_uid_ours()), or they cannot be
 * read. Such a user decides what it maps, and the names its mapped files
 * have (docs/design.md "Threat model"). */
bool rec_proc_others(pid_t id);

/* The thread group (process) id of thread TID, or a negative errno. */
pid_t rec_proc_tgid(pid_t tid);

/*
 * Reads the name of thread TID of process PID (/proc/PID/task/TID/comm) into
 * BUF (SIZE bytes, newline removed). Returns 0 or a negative errno.
 */
int rec_proc_comm(pid_t pid, pid_t tid, char *buf, size_t size);

/*
 * The scheduler state of thread TID of process PID (/proc/PID/task/TID/stat:
 * 'R', 'S', 'D', ...) into *STATE, and where it waits in the kernel
 * (/proc/PID/task/TID/wchan: "do_nanosleep"; "" when it runs or is not
 * told) into WCHAN (SIZE bytes). Returns 0 or a negative errno.
 */
int rec_proc_state(pid_t pid, pid_t tid, char *state, char *wchan, size_t size);

/*
 * Adds the children of process PID, every thread's
 * (/proc/PID/task/TID/children), to PIDS after its first N, up to MAX in
 * all. Returns the new count (N when none could be read).
 */
int rec_proc_children(pid_t pid, pid_t *pids, int n, int max);

/*
 * Lists the threads of process PID into *TIDS, an array of *CAP elements
 * that grows as needed (common/array.h; owned by the caller, may start
 * NULL/0). Returns how many there are, or a negative errno.
 */
int rec_proc_tasks(pid_t pid, pid_t **tids, size_t *cap);

/*
 * Finds the mapping of process PID that maps FILE_OFFSET of the file whose
 * maps path is PATH (or, when PATH is NULL, the mapping containing runtime
 * address ADDR). Prefers executable mappings. Fills *M.
 * Returns 0, -ENOENT when there is none, or another negative errno.
 */
int rec_proc_find_map(pid_t pid, const char *path, uint64_t file_offset, uint64_t addr,
		      struct rec_map *m);

/*
 * Calls FN(M, ARG) for every file mapping of process PID, in the order of
 * /proc/PID/maps, until FN returns non-zero. Returns 0, or a negative errno
 * when the maps cannot be read.
 */
int rec_proc_each_map(pid_t pid, int (*fn)(const struct rec_map *m, void *arg), void *arg);

/*
 * Whether a file process PID maps executable is at a path another user may
 * change a name of (dsoview.h's rule: a directory on its way others may
 * rename entries in, "NAME (deleted)" too): they may put a FIFO or a link
 * there, which perf record would open by that name. True too when the maps
 * cannot be read; false for a process in another mount namespace, whose
 * paths name other files than here (its owner's, rec_proc_others()).
 */
bool rec_proc_maps_others(pid_t pid);

/* Whether another user may change a name on the way to file PATH (absolute:
 * rec_proc_maps_others()'s rule for one path, a program to be launched). */
bool rec_proc_path_others(const char *path);

/*
 * Opens the file process PID maps at M itself, to read: its
 * /proc/PID/map_files/START-END entry (the kernel's link to the very file,
 * a removed one too), looked up O_PATH and taken only when a regular file,
 * then opened from that descriptor; never M->path, which the file's owner
 * may have pointed since at a FIFO, a link or another file (docs/design.md
 * "Threat model"). Returns the descriptor (close-on-exec; its status into
 * *ST when not NULL) or a negative errno: -EINVAL for no regular file.
 */
int rec_proc_map_open(pid_t pid, const struct rec_map *m, struct stat *st);

/*
 * Lists the files process PID maps executable (its program, its libraries,
 * the loader), each once, in the order of /proc/PID/maps: their maps names
 * into PATHS ("PATH (deleted)" for a file removed since) and the mapped
 * files themselves, opened by rec_proc_map_open(), into FDS (the caller's
 * to close), up to MAX of each; not a memfd or shared memory, nor a mapping
 * whose file cannot be opened so. Returns how many there are (may exceed
 * MAX: past it nothing is opened), or a negative errno: -EXDEV when PID is
 * in another mount namespace (rec_proc_same_mntns()), where its paths name
 * other files than here.
 */
int rec_proc_exec_files(pid_t pid, char (*paths)[4096], int *fds, int max);

/*
 * Whether EXE is "/proc/PID/exe"; then its name for saying and recording,
 * never for opening, into OUT (SIZE bytes): the kernel's, the link's text
 * ("PATH (deleted)" for a program removed since it started: realpath() of
 * it once followed the program's owner's symbolic link at that very name
 * to a root-only file, which root then read), or EXE when the link cannot
 * be read. Whatever reads the program opens /proc/PID/exe itself. False:
 * OUT untouched.
 */
bool rec_proc_exe_name(const char *exe, char *out, size_t size);

/*
 * Whether process PID is in this process's mount namespace (/proc/PID/ns/mnt
 * is /proc/self/ns/mnt): only then do the paths of its /proc/PID/maps name
 * here the files it maps (a container's, or another user's in a user and
 * mount namespace of their own, name what that user chose; perf reads them
 * through the namespace). False when PID's cannot be read.
 */
bool rec_proc_same_mntns(pid_t pid);

/*
 * Finds a shared library named LIB among the mappings of process PID (pid 0:
 * skip), or in the usual library directories and $LD_LIBRARY_PATH. LIB is a
 * path (contains '/': a mapping of that path or of its real path, removed
 * since or not), a file name, or a prefix like "libm" or "m" that matches
 * "libm.so.6". Writes the path into OUT (SIZE bytes): a mapping's maps name,
 * its file then opened into *FD (rec_proc_map_open(): the mapped file, not
 * what the name leads to now; the caller's to close); else -1 there and OUT
 * a path found by name (LIB itself, or in a directory).
 * Returns 0, -ENOENT, or -EXDEV when PID is in another mount namespace
 * (rec_proc_same_mntns(): no path here names its library).
 */
int rec_proc_find_lib(pid_t pid, const char *lib, char *out, size_t size, int *fd);

/*
 * Finds a shared library named LIB (as rec_proc_find_lib() takes it) among
 * the mappings of process PID only: one it has loaded. Writes its maps name
 * into OUT (SIZE bytes) and opens the mapped file into *FD (-1 on failure).
 * Returns 0, -ENOENT, or -EXDEV when PID is in another mount namespace.
 */
int rec_proc_mapped_lib(pid_t pid, const char *lib, char *out, size_t size, int *fd);

#endif
