/* SPDX-License-Identifier: MIT */
#include "kallsyms.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
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

/* One line of a kallsyms table. */
struct line {
	uint64_t start;
	size_t off, len;      /* its bytes in the table, the newline included */
	bool text, ref;       /* type T or W; _text or _stext */
};

/* The lines of TABLE (LEN bytes, NUL-terminated after them) into *LINES. */
static int parse_table(const char *table, size_t len, struct line **lines, size_t *n)
{
	size_t cap = 0;

	*lines = NULL;
	*n = 0;
	for (size_t at = 0; at < len;) {
		const char *p = table + at, *nl = memchr(p, '\n', len - at), *e;
		size_t l = nl ? (size_t)(nl - p) + 1 : len - at;
		struct line *grown = array_grow(*lines, &cap, *n, sizeof(**lines));
		size_t name;

		if (!grown) {
			free(*lines);
			*lines = NULL;
			return -ENOMEM;
		}
		*lines = grown;
		(*lines)[*n] = (struct line){ .start = strtoull(p, (char **)&e, 16), .off = at,
					      .len = l };
		if (e + 2 < p + l && e[0] == ' ' && e[2] == ' ') {
			struct line *s = &(*lines)[*n];

			s->text = toupper((unsigned char)e[1]) == 'T' ||
				  toupper((unsigned char)e[1]) == 'W';
			name = (size_t)(e + 3 - p);
			s->ref = (l - name >= 5 && !memcmp(p + name, "_text", 5) &&
				  strchr("\t\n", p[name + 5])) ||
				 (l - name >= 6 && !memcmp(p + name, "_stext", 6) &&
				  strchr("\t\n", p[name + 6]));
		}
		(*n)++;
		at += l;
	}
	return 0;
}

/* A range of start addresses whose lines are kept (both ends included). */
struct window {
	uint64_t lo, hi;
};

static int by_window(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key;
	const struct window *w = elem;

	return a < w->lo ? -1 : a > w->hi;
}

int kallsyms_select(const char *table, size_t len, const uint64_t *addrs, size_t n, FILE *out)
{
	struct line *lines;
	struct window *win = NULL;
	uint64_t *text = NULL;
	size_t nlines, ntext = 0, nwin = 0;
	int err = parse_table(table, len, &lines, &nlines);

	if (err)
		return err;
	text = malloc((nlines ? nlines : 1) * sizeof(*text));
	win = malloc((n ? n : 1) * sizeof(*win));
	if (!text || !win) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nlines; i++)
		if (lines[i].text)
			text[ntext++] = lines[i].start;
	sort_unique(text, &ntext);
	/* each address's window: from the text symbol at or below it to the
	 * next, merged in address order */
	for (size_t i = 0, k = 0; i < n; i++) {
		struct window w;

		while (k < ntext && text[k] <= addrs[i])
			k++;
		w.lo = k ? text[k - 1] : 0;
		w.hi = k < ntext ? text[k] : UINT64_MAX;
		if (nwin && w.lo <= win[nwin - 1].hi)
			win[nwin - 1].hi = w.hi > win[nwin - 1].hi ? w.hi : win[nwin - 1].hi;
		else
			win[nwin++] = w;
	}
	for (size_t i = 0; i < nlines && !err; i++) {
		const struct line *l = &lines[i];

		if ((l->ref || array_search(&l->start, win, nwin, sizeof(*win), by_window)) &&
		    fwrite(table + l->off, 1, l->len, out) != l->len)
			err = -EIO;
	}
out:
	free(lines);
	free(text);
	free(win);
	return err;
}

/* /proc/kallsyms as this process read it first (one read for all its
 * inputs: the kernel formats its ~120,000 lines anew at every read), or
 * NULL when it could not be: freed at exit. */
static char *table;
static size_t table_len;
static bool table_tried;

static void table_free(void)
{
	free(table);
}

/* Writes the selection of /proc/kallsyms for ADDRS (N) into K's directory
 * with the links beside it. Returns 0 or a negative errno. */
static int write_copy(struct kallsyms_copy *k, const uint64_t *addrs, size_t n)
{
	int err = 0, fd = -1;
	FILE *f = NULL;

	if (!table_tried) {
		table_tried = true;
		if (!read_table(&table, &table_len))
			atexit(table_free);
	}
	if (!table)
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
		err = kallsyms_select(table, table_len, addrs, n, f);
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

	*k = (struct kallsyms_copy){ .dir = { .fd = -1, .parent = -1 } };
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

void kallsyms_copy_free(struct kallsyms_copy *k)
{
	binaries_kept_remove(&k->dir);
	k->path[0] = 0;
}
