/* SPDX-License-Identifier: MIT */
/* runcache: traced runs kept on disk (see runcache.h). */
#include "runcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "diag.h"

#define RUNCACHE_FORMAT "ptsynth-run 1"

/* What a mapped file was when the run was traced. */
struct file_id {
	uint64_t dev, ino, size, mtime_s, mtime_ns;
};

static void fnv(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * 0x100000001b3ull;
}

/* Hashes the bytes of the file PATH into *H; false when it cannot be read. */
static bool fnv_file(uint64_t *h, const char *path)
{
	unsigned char buf[1 << 16];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fnv(h, buf, (size_t)n);
	close(fd);
	return n == 0;
}

/* The entry's key into KEY (17 bytes); false when the run cannot be cached
 * (a program found through PATH, a file that cannot be read). */
static bool run_key(char *const argv[], const char *start_sym, uint64_t max_steps, char *key)
{
	uint64_t h = 0xcbf29ce484222325ull;
	struct utsname u;

	if (!strchr(argv[0], '/') || uname(&u) < 0)
		return false;
	fnv(&h, RUNCACHE_FORMAT, sizeof(RUNCACHE_FORMAT));
	if (!fnv_file(&h, "/proc/self/exe") || !fnv_file(&h, argv[0]))
		return false;
	for (size_t i = 0; argv[i]; i++)
		fnv(&h, argv[i], strlen(argv[i]) + 1);
	fnv(&h, start_sym ? start_sym : "", strlen(start_sym ? start_sym : "") + 1);
	fnv(&h, &max_steps, sizeof(max_steps));
	fnv(&h, u.release, strlen(u.release) + 1);
	fnv(&h, u.version, strlen(u.version) + 1);
	snprintf(key, 17, "%016llx", (unsigned long long)h);
	return true;
}

/* The identity of the mapped file PATH now; false when it has none (not a
 * path, gone). */
static bool file_id(const char *path, struct file_id *id)
{
	struct stat st;

	memset(id, 0, sizeof(*id));
	if (path[0] != '/' || stat(path, &st) < 0)
		return path[0] != '/';	/* [vdso]: the kernel, in the key */
	*id = (struct file_id){ st.st_dev, st.st_ino, (uint64_t)st.st_size,
				(uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec };
	return true;
}

static bool put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n;
}

static bool get(FILE *f, void *p, size_t n)
{
	return fread(p, 1, n, f) == n;
}

/* Writes RUN as the entry PATH (through a temporary file). */
static bool store(const char *path, const char *key, const struct ps_run *run)
{
	char tmp[4200];
	struct file_id id;
	uint64_t n;
	FILE *f;
	int fd;
	bool ok = true;

	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	ok = put(f, RUNCACHE_FORMAT, sizeof(RUNCACHE_FORMAT)) && put(f, key, 16) &&
	     put(f, &run->pid, sizeof(run->pid)) && put(f, &run->status, sizeof(run->status)) &&
	     put(f, &run->nsteps, sizeof(run->nsteps)) && put(f, &run->filled, sizeof(run->filled)) &&
	     put(f, &run->nthreads, sizeof(run->nthreads)) && put(f, &run->nmaps, sizeof(run->nmaps)) &&
	     put(f, &run->vdso_len, sizeof(run->vdso_len)) &&
	     put(f, &run->icache.used, sizeof(run->icache.used));
	for (size_t i = 0; ok && i < run->nthreads; i++) {
		const struct ps_thread *th = &run->threads[i];

		ok = put(f, &th->tid, sizeof(th->tid)) && put(f, th->comm, sizeof(th->comm)) &&
		     put(f, &th->started, sizeof(th->started)) &&
		     put(f, &th->fault_sig, sizeof(th->fault_sig)) && put(f, &th->n, sizeof(th->n)) &&
		     put(f, th->steps, th->n * sizeof(*th->steps));
	}
	for (size_t i = 0; ok && i < run->nmaps; i++) {
		const struct ps_map *m = &run->maps[i];

		n = strlen(m->path);
		ok = file_id(m->path, &id) && put(f, m, sizeof(*m)) && put(f, &id, sizeof(id)) &&
		     put(f, &n, sizeof(n)) && put(f, m->path, n);
	}
	ok = ok && put(f, run->vdso, run->vdso_len);
	for (size_t i = 0; ok && i < run->icache.cap; i++)
		if (run->icache.slots[i].ip)
			ok = put(f, &run->icache.slots[i], sizeof(run->icache.slots[i]));
	ok = fclose(f) == 0 && ok && rename(tmp, path) == 0;
	if (!ok)
		unlink(tmp);
	return ok;
}

/* Reads the entry PATH into RUN (zeroed); false (RUN freed) when it is
 * missing, damaged or stale. */
static bool load(const char *path, const char *key, struct ps_run *run)
{
	char magic[sizeof(RUNCACHE_FORMAT)], k[16];
	struct file_id was, now;
	size_t nthreads = 0, nmaps = 0, nicache = 0;
	uint64_t n;
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = get(f, magic, sizeof(magic)) && !memcmp(magic, RUNCACHE_FORMAT, sizeof(magic)) &&
	     get(f, k, 16) && !memcmp(k, key, 16) &&
	     get(f, &run->pid, sizeof(run->pid)) && get(f, &run->status, sizeof(run->status)) &&
	     get(f, &run->nsteps, sizeof(run->nsteps)) && get(f, &run->filled, sizeof(run->filled)) &&
	     get(f, &nthreads, sizeof(nthreads)) && get(f, &nmaps, sizeof(nmaps)) &&
	     get(f, &run->vdso_len, sizeof(run->vdso_len)) && get(f, &nicache, sizeof(nicache)) &&
	     nthreads < 1024 && nmaps < 4096 && run->vdso_len < (1 << 24) &&
	     (run->threads = calloc(nthreads + 1, sizeof(*run->threads))) &&
	     (run->maps = calloc(nmaps + 1, sizeof(*run->maps)));
	if (ok) {
		run->nthreads = nthreads;
		run->nmaps = nmaps;
	}
	for (size_t i = 0; ok && i < run->nthreads; i++) {
		struct ps_thread *th = &run->threads[i];

		ok = get(f, &th->tid, sizeof(th->tid)) && get(f, th->comm, sizeof(th->comm)) &&
		     get(f, &th->started, sizeof(th->started)) &&
		     get(f, &th->fault_sig, sizeof(th->fault_sig)) && get(f, &th->n, sizeof(th->n)) &&
		     th->n <= run->nsteps && (th->steps = malloc((th->n + 1) * sizeof(*th->steps))) &&
		     get(f, th->steps, th->n * sizeof(*th->steps));
		th->cap = th->n + 1;
	}
	for (size_t i = 0; ok && i < run->nmaps; i++) {
		struct ps_map m;

		ok = get(f, &m, sizeof(m)) && get(f, &was, sizeof(was)) && get(f, &n, sizeof(n)) &&
		     n < 4096 && (m.path = malloc(n + 1));
		if (!ok)
			break;
		run->maps[i] = m;	/* its path is ours from here */
		ok = get(f, m.path, n);
		m.path[n] = 0;
		ok = ok && file_id(m.path, &now) && !memcmp(&was, &now, sizeof(was));
	}
	ok = ok && (!run->vdso_len || ((run->vdso = malloc(run->vdso_len)) &&
				       get(f, run->vdso, run->vdso_len)));
	for (size_t i = 0; ok && i < nicache; i++) {
		struct ps_insn in;

		ok = get(f, &in, sizeof(in)) && ps_icache_put(&run->icache, &in) == 0;
	}
	ok = ok && fgetc(f) == EOF;
	fclose(f);
	if (!ok)
		ps_run_free(run);
	return ok;
}

int ps_runcache_trace(const char *dir, struct ps_run *run, char *const argv[],
		      const char *start_sym, uint64_t max_steps, int *cached, char *err,
		      size_t errlen)
{
	char key[17], path[4096], lock[4096];
	int fd = -1, rc;

	*cached = 0;
	memset(run, 0, sizeof(*run));
	if (run_key(argv, start_sym, max_steps, key) &&
	    (mkdir(dir, 0755) == 0 || errno == EEXIST) &&
	    (size_t)snprintf(lock, sizeof(lock), "%s/%s.lock", dir, key) < sizeof(lock)) {
		snprintf(path, sizeof(path), "%s/%s.run", dir, key);
		fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0 && load(path, key, run)) {
			close(fd);
			err[0] = 0;
			*cached = 1;
			return 0;
		}
	}
	rc = ps_run_trace(run, argv, start_sym, max_steps, err, errlen);
	if (rc == 0 && fd >= 0 && !store(path, key, run))
		diag_warn("cannot keep the run in %s: %s", dir, strerror(errno));
	if (fd >= 0)
		close(fd);	/* and its lock */
	return rc;
}
