/* SPDX-License-Identifier: MIT */
#include "kallsyms.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "array.h"
#include "perfdata.h"

#define PROC_KALLSYMS "/proc/kallsyms"
#define KERNEL_NOTES "/sys/kernel/notes"
#define NT_GNU_BUILD_ID 3
#define ADDRS_MAX (1u << 19)        /* distinct kernel addresses kept track of at most */
#define TABLE_MAX (64u << 20)       /* bytes of /proc/kallsyms read at most */

/* A sample's u64 that may be a kernel address: the top half of the address
 * space, below perf's call chain context markers (PERF_CONTEXT_MAX,
 * (u64)-4095, and up). A sample's fields are all u64-aligned; reading every
 * one (a stack copy's words, a tracepoint's data too) can only add
 * addresses, which adds symbols perf does not need but never changes how
 * it names a frame. */
static bool kernel_addr(uint64_t v)
{
	return v >> 63 && v < (uint64_t)-4095;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sorts A (*N of them) and drops repeats. */
static void sort_unique(uint64_t *a, size_t *n)
{
	size_t k = 0;

	array_sort(a, *n, sizeof(*a), by_u64);
	for (size_t i = 0; i < *n; i++)
		if (!k || a[i] != a[k - 1])
			a[k++] = a[i];
	*n = k;
}

/* The kernel addresses sample_kernel_addrs() collects. */
struct kernel_addrs {
	uint64_t *addrs;
	size_t n, cap;
};

/* perfdata_samples()'s callback: the kernel addresses of the sample REC
 * (SIZE bytes) into ARG. Returns 0, -ENOMEM or -E2BIG past ADDRS_MAX. */
static int add_kernel_addrs(void *arg, const unsigned char *rec, size_t size)
{
	struct kernel_addrs *k = arg;

	for (size_t at = 8; at + 8 <= size; at += 8) {
		uint64_t v = perfdata_u64(rec + at), *p;

		if (!kernel_addr(v))
			continue;
		if (k->n == 2 * ADDRS_MAX) {
			sort_unique(k->addrs, &k->n);
			if (k->n > ADDRS_MAX)
				return -E2BIG;
		}
		if (!(p = array_grow(k->addrs, &k->cap, k->n, sizeof(*k->addrs))))
			return -ENOMEM;
		k->addrs = p;
		k->addrs[k->n++] = v;
	}
	return 0;
}

/* The kernel addresses in the samples of the perf.data at PATH, sorted and
 * distinct, into *ADDRS (the caller frees it) and *N. Returns 0; -E2BIG
 * past ADDRS_MAX; or a negative errno (the file unreadable, -ENOMEM). */
static int sample_kernel_addrs(const char *path, uint64_t **addrs, size_t *n)
{
	struct kernel_addrs k = { 0 };
	int err = perfdata_samples(path, add_kernel_addrs, &k);

	if (err) {
		free(k.addrs);
		k.addrs = NULL;
		k.n = 0;
	} else {
		sort_unique(k.addrs, &k.n);
	}
	*addrs = k.addrs;
	*n = k.n;
	return err;
}

/* The running kernel's build id (its GNU build-id note) in hex into HEX.
 * Returns 0, or -1 when it has none or it cannot be read. */
static int running_buildid(char hex[41])
{
	unsigned char b[4096];
	int fd = open(KERNEL_NOTES, O_RDONLY | O_CLOEXEC);
	ssize_t len = fd < 0 ? -1 : read(fd, b, sizeof(b));

	if (fd >= 0)
		close(fd);
	for (size_t at = 0; len > 0 && at + 12 <= (size_t)len;) {
		uint32_t namesz = perfdata_u32(b + at), descsz = perfdata_u32(b + at + 4);
		size_t name = at + 12, desc = name + ((namesz + 3u) & ~3u);

		if (desc + descsz > (size_t)len)
			break;
		if (perfdata_u32(b + at + 8) == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(b + name, "GNU", 4) && descsz >= 1 && descsz <= 20) {
			perfdata_hex(b + desc, descsz, hex);
			return 0;
		}
		at = desc + ((descsz + 3u) & ~3u);
	}
	return -1;
}

/* perfdata_buildids()'s callback: the kernel's build id into ARG (41 bytes):
 * "[kernel.kallsyms]" in the build id table, "[kernel.kallsyms]_text" (its
 * reference symbol appended) in an mmap record of perf record --buildid-mmap. */
static int kernel_buildid(void *arg, const char *hex, const char *path)
{
	static const char kernel[] = "[kernel.kallsyms]";

	if (!strncmp(path, kernel, sizeof(kernel) - 1))
		snprintf(arg, 41, "%s", hex);
	return 0;
}

/* Whether a vmlinux perf script looks for before /proc/kallsyms exists
 * (perf's vmlinux_path, tools/perf/util/symbol.c: vmlinux_path__init(),
 * in the current directory and with the running kernel's release). */
static bool vmlinux_exists(void)
{
	static const char *const fixed[] = { "vmlinux", "/boot/vmlinux" };
	static const char *const of_release[] = {
		"/boot/vmlinux-%s", "/usr/lib/debug/boot/vmlinux-%s", "/lib/modules/%s/build/vmlinux",
		"/usr/lib/debug/lib/modules/%s/vmlinux", "/usr/lib/debug/boot/vmlinux-%s.debug",
	};
	struct utsname u;
	char path[512];

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!access(fixed[i], F_OK))
			return true;
	if (uname(&u))
		return true;
	for (size_t i = 0; i < sizeof(of_release) / sizeof(of_release[0]); i++) {
		snprintf(path, sizeof(path), of_release[i], u.release);
		if (!access(path, F_OK))
			return true;
	}
	return false;
}

/* The whole of /proc/kallsyms into *BUF (NUL-terminated; the caller frees
 * it) and *LEN. Returns 0 or a negative errno (-E2BIG past TABLE_MAX). */
static int read_table(char **buf, size_t *len)
{
	int fd = open(PROC_KALLSYMS, O_RDONLY | O_CLOEXEC), err = 0;
	size_t cap = 1 << 20;
	char *b = NULL;

	*len = 0;
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got;

		if (!b || *len + 1 >= cap) {
			char *p;

			if (b && cap >= TABLE_MAX) {
				err = -E2BIG;
				break;
			}
			if (!(p = realloc(b, b ? cap *= 2 : cap))) {
				err = -ENOMEM;
				break;
			}
			b = p;
		}
		got = read(fd, b + *len, cap - *len - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			err = got < 0 ? -errno : 0;
			break;
		}
		*len += (size_t)got;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	b[*len] = 0;
	*buf = b;
	return 0;
}

static int by_start(const void *a, const void *b, void *arg)
{
	const struct kallsyms_line *l = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (l[x].start != l[y].start)
		return l[x].start < l[y].start ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Fills line L (LEN bytes at P, the newline included) from its text. */
static void parse_line(const char *p, size_t len, struct kallsyms_line *l)
{
	char *e;
	size_t name;

	l->start = strtoull(p, &e, 16);
	if (!(e + 2 < p + len && e[0] == ' ' && e[2] == ' '))
		return;
	l->text = toupper((unsigned char)e[1]) == 'T' || toupper((unsigned char)e[1]) == 'W';
	name = (size_t)(e + 3 - p);
	l->ref = (len - name >= 5 && !memcmp(p + name, "_text", 5) && strchr("\t\n", p[name + 5])) ||
		 (len - name >= 6 && !memcmp(p + name, "_stext", 6) && strchr("\t\n", p[name + 6]));
}

int kallsyms_table_parse(const char *text, size_t len, struct kallsyms_table *t)
{
	size_t cap = 0;

	*t = (struct kallsyms_table){ .text = text, .len = len };
	for (size_t at = 0; at < len;) {
		const char *p = text + at, *nl = memchr(p, '\n', len - at);
		size_t l = nl ? (size_t)(nl - p) + 1 : len - at;
		struct kallsyms_line *grown = array_grow(t->lines, &cap, t->nlines, sizeof(*grown));

		if (!grown)
			goto nomem;
		t->lines = grown;
		t->lines[t->nlines] = (struct kallsyms_line){ .off = at, .len = l };
		parse_line(p, l, &t->lines[t->nlines++]);
		at += l;
	}
	t->by_start = malloc((t->nlines ? t->nlines : 1) * sizeof(*t->by_start));
	t->text_starts = malloc((t->nlines ? t->nlines : 1) * sizeof(*t->text_starts));
	if (!t->by_start || !t->text_starts)
		goto nomem;
	for (size_t i = 0; i < t->nlines; i++) {
		t->by_start[i] = i;
		if (t->lines[i].text)
			t->text_starts[t->ntext++] = t->lines[i].start;
	}
	array_sort_r(t->by_start, t->nlines, sizeof(*t->by_start), by_start, t->lines);
	sort_unique(t->text_starts, &t->ntext);
	return 0;
nomem:
	kallsyms_table_free(t);
	return -ENOMEM;
}

void kallsyms_table_free(struct kallsyms_table *t)
{
	free(t->lines);
	free(t->by_start);
	free(t->text_starts);
	*t = (struct kallsyms_table){ 0 };
}

/* The first of T's lines in start order whose start is LO or above. */
static size_t first_from(const struct kallsyms_table *t, uint64_t lo)
{
	size_t a = 0, b = t->nlines;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (t->lines[t->by_start[m]].start < lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

int kallsyms_select(const struct kallsyms_table *t, const uint64_t *addrs, size_t n, FILE *out)
{
	unsigned char *keep = calloc(t->nlines ? t->nlines : 1, 1);
	uint64_t lo = 0, hi = 0;
	bool open = false;
	int err = 0;

	if (!keep)
		return -ENOMEM;
	for (size_t i = 0; i < t->nlines; i++)
		keep[i] = t->lines[i].ref;
	/* each address's window, from the text symbol at or below it to the
	 * next, merged in address order: every line with a start in it kept */
	for (size_t i = 0, k = 0; i <= n; i++) {
		uint64_t wlo = 0, whi = 0;

		if (i < n) {
			while (k < t->ntext && t->text_starts[k] <= addrs[i])
				k++;
			wlo = k ? t->text_starts[k - 1] : 0;
			whi = k < t->ntext ? t->text_starts[k] : UINT64_MAX;
			if (open && wlo <= hi) {
				hi = whi > hi ? whi : hi;
				continue;
			}
		}
		for (size_t j = open ? first_from(t, lo) : t->nlines;
		     j < t->nlines && t->lines[t->by_start[j]].start <= hi; j++)
			keep[t->by_start[j]] = 1;
		lo = wlo, hi = whi, open = true;
	}
	for (size_t i = 0; i < t->nlines && !err; i++)
		if (keep[i] && fwrite(t->text + t->lines[i].off, 1, t->lines[i].len, out) !=
		    t->lines[i].len)
			err = -EIO;
	free(keep);
	return err;
}

/* /proc/kallsyms as this process read and parsed it first (one read for all
 * its inputs: the kernel formats its ~120,000 lines anew at every read), or
 * none (TABLE.text NULL) when it could not be: freed at exit. */
static struct kallsyms_table table;
static char *table_text;
static bool table_tried;

static void table_free(void)
{
	kallsyms_table_free(&table);
	free(table_text);
}

/* Writes the selection of /proc/kallsyms for ADDRS (N) into K's directory
 * with the links beside it. Returns 0 or a negative errno. */
static int write_copy(struct kallsyms_copy *k, const uint64_t *addrs, size_t n)
{
	int err = 0, fd = -1;
	FILE *f = NULL;

	if (!table_tried) {
		size_t len;

		table_tried = true;
		if (!read_table(&table_text, &len)) {
			atexit(table_free);
			kallsyms_table_parse(table_text, len, &table);
		}
	}
	if (!table.text)
		return -ENOENT;
	if (symlinkat("/proc/kcore", k->dir.fd, "kcore") ||
	    symlinkat("/proc/modules", k->dir.fd, "modules"))
		err = -errno;
	if (!err) {
		fd = openat(k->dir.fd, "kallsyms",
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f)
			err = -errno;
	}
	if (!err)
		err = kallsyms_select(&table, addrs, n, f);
	if (f) {
		if (fclose(f) && !err)
			err = -EIO;
	} else if (fd >= 0) {
		close(fd);
	}
	return err;
}

int kallsyms_copy_make(const char *perfdata, struct kallsyms_copy *k)
{
	char recorded[41] = "", running[41], why[200];
	uint64_t *addrs = NULL;
	size_t n = 0;
	int err;

	*k = (struct kallsyms_copy){ .dir = BINARIES_KEPT_NONE };
	if (perfdata_buildids(perfdata, kernel_buildid, recorded, why, sizeof(why)) ||
	    !recorded[0] || running_buildid(running) ||
	    !perfdata_same_buildid(recorded, running) || vmlinux_exists())
		return 0;
	if (sample_kernel_addrs(perfdata, &addrs, &n) || !n) {
		free(addrs);
		return 0;
	}
	err = binaries_kept_dir(&k->dir);
	if (!err) {
		snprintf(k->path, sizeof(k->path), "%s/kallsyms", k->dir.handle);
		err = write_copy(k, addrs, n);
	}
	free(addrs);
	if (err) {
		kallsyms_copy_free(k);
		return 0;
	}
	return 1;
}

int kallsyms_copy_untrusted(const char *perfdata, const char *kept, struct kallsyms_copy *k)
{
	char recorded[41] = "", why[200];
	struct stat st;
	int fd, err;

	*k = (struct kallsyms_copy){ .dir = BINARIES_KEPT_NONE };
	if (kept && !perfdata_buildids(perfdata, kernel_buildid, recorded, why, sizeof(why)) &&
	    recorded[0] &&
	    (size_t)snprintf(k->path, sizeof(k->path), "%s/[kernel.kallsyms]/%s/kallsyms", kept,
			     recorded) < sizeof(k->path) &&
	    !stat(k->path, &st) && S_ISREG(st.st_mode))
		return 1;	/* perf's layout; the copy is ours (binaries.h) */
	k->path[0] = 0;
	err = binaries_kept_dir(&k->dir);
	if (err)
		return err;
	snprintf(k->path, sizeof(k->path), "%s/kallsyms", k->dir.handle);
	fd = openat(k->dir.fd, "kallsyms", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0) {
		err = -errno;
		kallsyms_copy_free(k);
		return err;
	}
	close(fd);
	return 0;
}

void kallsyms_copy_free(struct kallsyms_copy *k)
{
	binaries_kept_remove(&k->dir);
	k->path[0] = 0;
}
