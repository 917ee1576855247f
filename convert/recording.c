/* SPDX-License-Identifier: MIT */
#include "recording.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "escape.h"
#include "inpath.h"
#include "jsonstream.h"
#include "parse.h"
#include "perfdata.h"

#define RECORDING_MAX_BYTES (256u << 20)   /* a record.json larger than this is no report */
/* How a recording's files are opened: regular files of the directory itself. */
#define RECORDING_OPEN (INPATH_NOFOLLOW | INPATH_OWNED)

/* The keys of a hit the converter reads itself; any other is an extra field. */
static const char *const hit_keys[] = { "pid", "tid", "time_ns", "ip", "args", "snapshot" };

/* Reading state: the file's name and the error being reported. */
/* Reading record.json: its helpers return 0, or 1 with ERR set and ERRNUM
 * saying what kind of failure it is (EINVAL unless set: not the shape
 * expected); the public functions return -ERRNUM (recording.h). */
struct reader {
	const char *file;
	char *err;
	size_t size;
	int errnum;            /* EINVAL, ENOMEM, or reading's errno */
};

bool recording_is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* "FILE: AT: expected WHAT, found VALUE" into the reader's error; returns 1. */
static int bad(struct reader *rd, const char *at, const char *what, struct json_object *found)
{
	const char *text = found ? json_object_to_json_string_ext(found, JSON_C_TO_STRING_PLAIN)
				 : "nothing";
	char shown[ESC_EXCERPT_SIZE];

	snprintf(rd->err, rd->size, "%s: %s: expected %s, found %s", rd->file, at, what,
		 esc_excerpt(shown, text, strlen(text)));
	return 1;
}

static int oom(struct reader *rd)
{
	snprintf(rd->err, rd->size, "%s: out of memory", rd->file);
	rd->errnum = ENOMEM;
	return 1;
}

/* A reader's result as the public functions return it: 0 or -errno. */
static int result(const struct reader *rd, int rc)
{
	return rc ? -(rd->errnum ? rd->errnum : EINVAL) : 0;
}

/* Member KEY of OBJ of TYPE into *OUT (NULL allowed when NULLABLE). Returns 0 or 1. */
static int member(struct reader *rd, struct json_object *obj, const char *at, const char *key,
		  enum json_type type, bool nullable, struct json_object **out)
{
	static const char *const type_names[] = {
		[json_type_null] = "null", [json_type_boolean] = "true or false",
		[json_type_double] = "a number", [json_type_int] = "an integer",
		[json_type_object] = "an object", [json_type_array] = "an array",
		[json_type_string] = "a string",
	};
	char where[160], what[64];

	snprintf(where, sizeof(where), "%s%s%s", at, *at ? "." : "", key);
	if (!json_object_object_get_ex(obj, key, out) && !nullable)
		return bad(rd, where, type_names[type], NULL);
	if (!*out || json_object_is_type(*out, type)) {
		if (!*out && !nullable)
			return bad(rd, where, type_names[type], NULL);
		return 0;
	}
	snprintf(what, sizeof(what), "%s%s", type_names[type], nullable ? " or null" : "");
	return bad(rd, where, what, *out);
}

/* The array member KEY of ROOT into *A, and *ELEMS allocated (zeroed) for
 * its elements of SIZE bytes each, *N of them. Returns 0 or 1. */
static int array_member(struct reader *rd, struct json_object *root, const char *key,
			struct json_object **a, void **elems, size_t size, size_t *n)
{
	if (member(rd, root, "", key, json_type_array, false, a))
		return 1;
	*n = json_object_array_length(*a);
	*elems = calloc(*n ? *n : 1, size);
	return *elems ? 0 : oom(rd);
}

/* Element I of the array member KEY, O: its place "KEY[I]" into AT (SIZE
 * bytes), for messages. Returns 0, or 1 after bad() when O is no object. */
static int element(struct reader *rd, const char *key, size_t i, struct json_object *o,
		   char *at, size_t size)
{
	snprintf(at, size, "%s[%zu]", key, i);
	if (!json_object_is_type(o, json_type_object))
		return bad(rd, at, "an object", o);
	return 0;
}

/* The elements of an array member of record.json, one at a time (the
 * prologue of every reader of a list): elements_open() checks the member
 * and allocates the list, elements_next() hands each element. */
struct elements {
	const char *key;
	bool objects;             /* each element must be an object (element()) */
	struct json_object *a;    /* the array */
	size_t n;                 /* its length: the list's allocated elements */
	size_t i;                 /* the index of the element handed last */
	size_t next;              /* the index of the one to hand next */
	struct json_object *o;    /* the element handed last */
	char at[48];              /* its place, "KEY[I]", for messages */
	bool bad;                 /* the last one was no object: bad() said so */
};

/* Opens the array member KEY of ROOT into IT (OBJECTS: its elements must
 * be objects), *ELEMS allocated (zeroed) for its elements of SIZE bytes
 * each, IT->n of them. Returns 0 or 1. */
static int elements_open(struct reader *rd, struct json_object *root, const char *key,
			 bool objects, void **elems, size_t size, struct elements *it)
{
	*it = (struct elements){ .key = key, .objects = objects };
	return array_member(rd, root, key, &it->a, elems, size, &it->n);
}

/* The next element of IT into IT->o, its index in IT->i and its place in
 * IT->at. Returns true, or false at the end, and when an element that must
 * be an object is none (IT->bad, after bad()). */
static bool elements_next(struct reader *rd, struct elements *it)
{
	if (it->bad || it->next >= it->n)
		return false;
	it->i = it->next++;
	it->o = json_object_array_get_idx(it->a, it->i);
	if (it->objects)
		it->bad = element(rd, it->key, it->i, it->o, it->at, sizeof(it->at));
	else
		snprintf(it->at, sizeof(it->at), "%s[%zu]", it->key, it->i);
	return !it->bad;
}

/* A non-negative integer member (up to 2^64-1) into *OUT; 0 when null and NULLABLE. */
static int member_u64(struct reader *rd, struct json_object *obj, const char *at, const char *key,
		      bool nullable, uint64_t *out)
{
	struct json_object *v;
	char where[160];

	*out = 0;
	if (member(rd, obj, at, key, json_type_int, nullable, &v))
		return 1;
	if (!v)
		return 0;
	if (json_object_get_int64(v) < 0) {
		snprintf(where, sizeof(where), "%s%s%s", at, *at ? "." : "", key);
		return bad(rd, where, "a non-negative integer", v);
	}
	*out = json_object_get_uint64(v);
	return 0;
}

/* A perf-clock time member (ns, below 2^62 as every input time) into *OUT;
 * 0 when null and NULLABLE. */
static int member_time(struct reader *rd, struct json_object *obj, const char *at,
		       const char *key, bool nullable, uint64_t *out)
{
	char where[160];

	if (member_u64(rd, obj, at, key, nullable, out))
		return 1;
	if (*out <= CONV_TS_MAX)
		return 0;
	snprintf(where, sizeof(where), "%s%s%s", at, *at ? "." : "", key);
	return bad(rd, where, "a time in ns below 2^62", json_object_object_get(obj, key));
}

/* A thread or process id member (1 to 2^31-1) into *OUT. */
static int member_id(struct reader *rd, struct json_object *obj, const char *at, const char *key,
		     int64_t *out)
{
	struct json_object *v;
	char where[160];

	if (member(rd, obj, at, key, json_type_int, false, &v))
		return 1;
	*out = json_object_get_int64(v);
	if (*out < 1 || *out > 0x7fffffff) {
		snprintf(where, sizeof(where), "%s%s%s", at, *at ? "." : "", key);
		return bad(rd, where, "a process or thread id (1 to 2147483647)", v);
	}
	return 0;
}

/* Element V of array AT, a thread id, into *OUT. Returns 0 or 1. */
static int member_tid(struct reader *rd, struct json_object *v, const char *at, int64_t *out)
{
	*out = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : 0;
	if (*out < 1 || *out > 0x7fffffff)
		return bad(rd, at, "thread ids (1 to 2147483647)", v);
	return 0;
}

/* A string member, copied into *OUT (NULL for null when NULLABLE). */
static int member_str(struct reader *rd, struct json_object *obj, const char *at, const char *key,
		      bool nullable, char **out)
{
	struct json_object *v;

	*out = NULL;
	if (member(rd, obj, at, key, json_type_string, nullable, &v))
		return 1;
	if (v && !(*out = strdup(json_object_get_string(v)))) {
		return oom(rd);
	}
	return 0;
}

/* Whether perf event EVENT ("cpu-clock/freq=5000,overwrite/u") has the term
 * "overwrite" between its slashes. */
static bool event_overwrites(const char *event)
{
	const char *p = strchr(event, '/');

	while (p && *p && p[1] && p[1] != '/') {
		size_t n = strcspn(++p, ",/");

		if (n == 9 && !strncmp(p, "overwrite", 9))
			return true;
		p += n;
	}
	return false;
}

/* A reason word member into *OUT. */
static int member_reason(struct reader *rd, struct json_object *obj, const char *at,
			 const char *key, enum record_end *out)
{
	struct json_object *v;
	char where[160], words[96];

	if (member(rd, obj, at, key, json_type_string, false, &v))
		return 1;
	if (record_end_parse(json_object_get_string(v), out))
		return 0;
	snprintf(where, sizeof(where), "%s%s%s", at, *at ? "." : "", key);
	return bad(rd, where, record_end_words(words, sizeof(words)), v);
}

static int read_tsc(struct reader *rd, struct json_object *trigger, struct recording_tsc *tsc)
{
	struct json_object *v;
	uint64_t shift, mult;

	if (member(rd, trigger, "trigger", "tsc", json_type_object, true, &v))
		return 1;
	if (!v)
		return 0;   /* the recording's host had no TSC conversion */
	if (member_u64(rd, v, "trigger.tsc", "time_shift", false, &shift) ||
	    member_u64(rd, v, "trigger.tsc", "time_mult", false, &mult) ||
	    member_u64(rd, v, "trigger.tsc", "time_zero", false, &tsc->time_zero))
		return 1;
	if (shift > 63 || mult > UINT32_MAX)
		return bad(rd, "trigger.tsc", "time_shift below 64 and a 32-bit time_mult", v);
	tsc->time_shift = (uint16_t)shift;
	tsc->time_mult = (uint32_t)mult;
	tsc->known = true;
	return 0;
}

/* Reading the hits: the extra fields of the hit being read (reused). */
struct hit_reader {
	struct reader *rd;
	const struct recording *r;
	bool coalesced;        /* reading "coalesced_hits" (else "hits") */
	struct recording_field *extra;
	size_t capextra;
	int (*fn)(void *arg, const struct recording_hit *h);
	void *arg;
};

/* The fields of hit object H not in hit_keys, as extras (borrowing H's
 * strings). */
static int read_extra(struct hit_reader *hr, struct json_object *h, const char *at,
		      struct recording_hit *hit)
{
	struct reader *rd = hr->rd;
	size_t n = (size_t)json_object_object_length(h);

	if (n > hr->capextra) {
		struct recording_field *e = realloc(hr->extra, n * sizeof(*e));

		if (!e)
			return oom(rd);
		hr->extra = e;
		hr->capextra = n;
	}
	hit->extra = hr->extra;
	hit->nextra = 0;
	json_object_object_foreach(h, key, v) {
		struct recording_field *f = &hr->extra[hit->nextra];
		bool known = false;
		char where[160];

		for (size_t k = 0; k < sizeof(hit_keys) / sizeof(hit_keys[0]); k++)
			known |= !strcmp(key, hit_keys[k]);
		if (known || json_object_is_type(v, json_type_null))
			continue;
		snprintf(where, sizeof(where), "%s.%s", at, key);
		if (!json_object_is_type(v, json_type_int) && !json_object_is_type(v, json_type_string) &&
		    !json_object_is_type(v, json_type_boolean))
			return bad(rd, where, "an integer, a string or a boolean", v);
		*f = (struct recording_field){
			.name = key, .is_bool = json_object_is_type(v, json_type_boolean),
			.str = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL,
			.i64 = json_object_get_int64(v),
		};
		if (!f->str && f->i64 == INT64_MAX && json_object_get_uint64(v) > INT64_MAX) {
			f->i64 = (int64_t)json_object_get_uint64(v);
			f->is_unsigned = true;
		}
		hit->nextra++;
	}
	return 0;
}

/* jsonstream's callback: hit I of the file, checked, handed to HR->fn. */
static int read_hit(void *arg, struct json_object *h, size_t i)
{
	struct hit_reader *hr = arg;
	struct reader *rd = hr->rd;
	size_t nsnaps = hr->r->nsnapshots;
	struct recording_hit one = { .index = i, .coalesced = hr->coalesced }, *hit = &one;
	struct json_object *args, *snap;
	const char *list = hr->coalesced ? "coalesced_hits" : "hits";
	char at[48];

	if (element(rd, list, i, h, at, sizeof(at)))
		return 1;
	if (member_id(rd, h, at, "pid", &hit->pid) || member_id(rd, h, at, "tid", &hit->tid) ||
	    member_time(rd, h, at, "time_ns", false, &hit->time_ns) ||
	    member_u64(rd, h, at, "ip", true, &hit->ip) ||
	    member(rd, h, at, "args", json_type_array, true, &args) ||
	    member(rd, h, at, "snapshot", json_type_int, true, &snap))
		return 1;
	hit->has_ip = json_object_object_get_ex(h, "ip", NULL) &&
		      !json_object_is_type(json_object_object_get(h, "ip"), json_type_null);
	hit->snapshot = -1;
	if (snap) {
		int64_t k = json_object_get_int64(snap);

		if (k < 0 || (uint64_t)k >= nsnaps) {
			snprintf(at, sizeof(at), "%s[%zu].snapshot", list, i);
			return bad(rd, at, "the index of a listed snapshot or null", snap);
		}
		hit->snapshot = (long)k;
	}
	if (args) {
		snprintf(at, sizeof(at), "%s[%zu].args", list, i);
		if (json_object_array_length(args) != 2)
			return bad(rd, at, "[two integers]", args);
		for (size_t k = 0; k < 2; k++) {
			struct json_object *a = json_object_array_get_idx(args, k);

			if (!json_object_is_type(a, json_type_int))
				return bad(rd, at, "[two integers]", args);
			hit->args[k] = json_object_get_uint64(a);
			if (json_object_get_int64(a) < 0)   /* a signed value as written: keep its bits */
				hit->args[k] = (uint64_t)json_object_get_int64(a);
		}
		hit->has_args = true;
	}
	snprintf(at, sizeof(at), "%s[%zu]", list, i);
	if (read_extra(hr, h, at, hit))
		return 1;
	/* a coalesced hit is drawn only where a snapshot holds it */
	return hit->coalesced && hit->snapshot < 0 ? 0 : hr->fn(hr->arg, hit);
}

/*
 * Checks snapshot SN's file (SN->file) in R's directory: taken, or given
 * its REFUSED reason (not a regular file of the directory). Returns 0, 1
 * with the reader's error (out of memory), or -ENOENT when there is no such
 * file.
 */
static int check_file(struct reader *rd, const struct recording *r, struct recording_snapshot *sn,
		      off_t *size)
{
	char why[160];
	struct stat st;
	int fd = recording_open(r, sn->file, 0, why, sizeof(why));

	*size = 0;
	if (fd == -ENOENT)
		return -ENOENT;
	if (fd >= 0) {
		if (!fstat(fd, &st))
			*size = st.st_size;
		close(fd);
		return 0;
	}
	sn->refused = strdup(why);
	return sn->refused ? 0 : oom(rd);
}

/* A recording without a snapshot list (its recorder was killed): every
 * non-empty perf.data* file of the directory, in name order; an entry of
 * that name that is no regular file is listed refused. */
static int scan_dir(struct reader *rd, struct recording *r)
{
	char **names;
	int n = perfdata_scan(r->dirfd, &names), err = 0;

	if (n < 0) {
		rd->errnum = -n;
		snprintf(rd->err, rd->size, "%s: cannot list it: %s", r->dir, strerror(-n));
		return 1;
	}
	r->snapshots = calloc((size_t)n + 1, sizeof(*r->snapshots));
	for (int i = 0; i < n; i++) {
		struct recording_snapshot *sn = r->snapshots ? &r->snapshots[r->nsnapshots] : NULL;
		off_t size;

		if (!sn || err) {
			free(names[i]);
			continue;
		}
		sn->file = names[i];
		if (asprintf(&sn->path, "%s/%s", r->dir, sn->file) < 0) {
			sn->path = NULL;
			err = oom(rd);
		} else if (!(err = check_file(rd, r, sn, &size)) && (size > 0 || sn->refused)) {
			r->nsnapshots++;
			continue;
		}
		free(sn->file);
		free(sn->path);
		free(sn->refused);
		memset(sn, 0, sizeof(*sn));
		err = err > 0 ? err : 0;
	}
	free(names);
	if (!r->snapshots) {
		snprintf(rd->err, rd->size, "%s: out of memory", r->dir);
		return 1;
	}
	return err;
}

static int read_snapshots(struct reader *rd, struct json_object *root, struct recording *r)
{
	struct elements e;

	if (elements_open(rd, root, "snapshots", true, (void **)&r->snapshots,
			  sizeof(*r->snapshots), &e))
		return 1;
	if (!e.n) {
		free(r->snapshots);
		r->snapshots = NULL;
		/* a failed recording's files are what perf left: no snapshot */
		return r->error ? 0 : scan_dir(rd, r);
	}
	while (elements_next(rd, &e)) {
		struct json_object *o = e.o, *v;
		struct recording_snapshot *sn = &r->snapshots[e.i];
		const char *at = e.at;
		char *file;
		off_t size;
		int err;

		if (member_reason(rd, o, at, "reason", &sn->reason) ||
		    member_time(rd, o, at, "time_ns", true, &sn->time_ns) ||
		    member_time(rd, o, at, "live_ns", true, &sn->live_ns) ||
		    member_str(rd, o, at, "file", false, &file))
			return 1;
		r->nsnapshots++;
		/* optional (older reports have none): a string, or null */
		if (json_object_object_get_ex(o, "problem", &v) &&
		    json_object_is_type(v, json_type_string) &&
		    !(sn->problem = strdup(json_object_get_string(v)))) {
			free(file);
			return oom(rd);
		}
		if (!*file) {   /* perf never confirmed it: nothing to convert */
			free(file);
			continue;
		}
		if (strchr(file, '/') || !strcmp(file, ".") || !strcmp(file, "..")) {
			free(file);
			return bad(rd, at, "a file name in the recording directory",
				   json_object_object_get(o, "file"));
		}
		sn->file = file;
		if (asprintf(&sn->path, "%s/%s", r->dir, file) < 0) {
			sn->path = NULL;
			return oom(rd);
		}
		err = check_file(rd, r, sn, &size);
		if (err == -ENOENT) {
			char shown[ESC_EXCERPT_SIZE];

			/* its name is record.json's: one line, escaped (fuzz_record_json) */
			snprintf(rd->err, rd->size, "%s: %s: expected the snapshot file %s/%s, found "
				 "none", rd->file, at, r->dir, esc_excerpt(shown, file, strlen(file)));
			return 1;
		}
		if (err)
			return err;
	}
	return e.bad;
}

static int read_threads(struct reader *rd, struct json_object *root, struct recording *r)
{
	struct elements e;

	if (elements_open(rd, root, "threads", true, (void **)&r->threads, sizeof(*r->threads),
			  &e))
		return 1;
	while (elements_next(rd, &e)) {
		struct recording_thread *t = &r->threads[e.i];

		if (member_id(rd, e.o, e.at, "pid", &t->pid) ||
		    member_id(rd, e.o, e.at, "tid", &t->tid) ||
		    member_str(rd, e.o, e.at, "comm", false, &t->comm) ||
		    member_str(rd, e.o, e.at, "state", true, &t->state) ||
		    member_str(rd, e.o, e.at, "wchan", true, &t->wchan))
			return 1;
		r->nthreads++;
	}
	return e.bad;
}

static int read_pids(struct reader *rd, struct json_object *root, struct recording *r)
{
	struct elements e;

	if (elements_open(rd, root, "pids", false, (void **)&r->pids, sizeof(*r->pids), &e))
		return 1;
	while (elements_next(rd, &e)) {
		int64_t *pid = &r->pids[e.i];

		*pid = json_object_is_type(e.o, json_type_int) ? json_object_get_int64(e.o) : 0;
		if (*pid < 1 || *pid > 0x7fffffff)
			return bad(rd, "pids[]", "process ids (1 to 2147483647)", e.o);
		r->npids++;
	}
	return 0;
}

/* A boolean member into *OUT (false when absent: older reports). */
static int member_bool(struct reader *rd, struct json_object *obj, const char *at,
		       const char *key, bool *out)
{
	struct json_object *v;

	if (member(rd, obj, at, key, json_type_boolean, true, &v))
		return 1;
	*out = v && json_object_get_boolean(v);
	return 0;
}

/* An integer member from MIN to MAX into *OUT; *HAS false (and 0) for null
 * or absent. */
static int member_int(struct reader *rd, struct json_object *obj, const char *at,
		      const char *key, int64_t min, int64_t max, bool *has, int *out)
{
	struct json_object *v;
	char where[160];

	*out = 0;
	if (member(rd, obj, at, key, json_type_int, true, &v))
		return 1;
	*has = v != NULL;
	if (!v)
		return 0;
	if (json_object_get_int64(v) < min || json_object_get_int64(v) > max) {
		snprintf(where, sizeof(where), "%s.%s", at, key);
		return bad(rd, where, "an integer in range", v);
	}
	*out = (int)json_object_get_int64(v);
	return 0;
}

/* Element E of "signals" (an object), of a recording of NSNAPS snapshots, into *SG. */
static int read_signal(struct reader *rd, const struct elements *e, size_t nsnaps,
		       struct recording_signal *sg)
{
	struct json_object *v, *sender, *o = e->o;
	const char *at = e->at;
	char sub[64];
	bool has;
	int snap;

	if (member_id(rd, o, at, "pid", &sg->pid) || member_id(rd, o, at, "tid", &sg->tid) ||
	    member_time(rd, o, at, "time_ns", false, &sg->time_ns) ||
	    member_int(rd, o, at, "signal", 1, 64, &has, &sg->sig) ||
	    member_int(rd, o, at, "code", INT32_MIN, INT32_MAX, &has, &sg->code) ||
	    member_bool(rd, o, at, "handled", &sg->handled) ||
	    member_bool(rd, o, at, "fatal", &sg->fatal) ||
	    member_bool(rd, o, at, "by_stop", &sg->by_stop) ||
	    member_bool(rd, o, at, "unrecorded", &sg->unrecorded) ||
	    member_u64(rd, o, at, "ip", true, &sg->ip) ||
	    member_u64(rd, o, at, "addr", true, &sg->addr) ||
	    member_int(rd, o, at, "snapshot", 0, (int64_t)nsnaps - 1, &has, &snap) ||
	    member(rd, o, at, "sender", json_type_object, true, &sender) ||
	    member_str(rd, o, at, "cause", true, &sg->cause))
		return 1;
	sg->snapshot = has ? snap : -1;
	sg->has_ip = json_object_object_get_ex(o, "ip", &v) && !json_object_is_type(v, json_type_null);
	sg->has_addr = json_object_object_get_ex(o, "addr", &v) &&
		       !json_object_is_type(v, json_type_null);
	if (sender) {
		snprintf(sub, sizeof(sub), "%s.sender", at);
		if (member_id(rd, sender, sub, "pid", &sg->sender_pid) ||
		    member_str(rd, sender, sub, "comm", true, &sg->sender_comm))
			return 1;
	}
	return 0;
}

/* "signals" and "exits" (absent in older reports: none). */
static int read_signals(struct reader *rd, struct json_object *root, struct recording *r)
{
	struct elements e;

	if (!json_object_object_get_ex(root, "signals", NULL))
		return 0;
	if (elements_open(rd, root, "signals", true, (void **)&r->signals, sizeof(*r->signals),
			  &e))
		return 1;
	while (elements_next(rd, &e)) {
		r->nsignals++;
		if (read_signal(rd, &e, r->nsnapshots, &r->signals[e.i]))
			return 1;
	}
	if (e.bad)
		return 1;
	if (!json_object_object_get_ex(root, "exits", NULL))
		return 0;
	if (elements_open(rd, root, "exits", true, (void **)&r->exits, sizeof(*r->exits), &e))
		return 1;
	while (elements_next(rd, &e)) {
		struct recording_exit *x = &r->exits[e.i];

		if (member_id(rd, e.o, e.at, "pid", &x->pid) ||
		    member_int(rd, e.o, e.at, "status", 0, 255, &x->has_status, &x->status) ||
		    member_int(rd, e.o, e.at, "signal", 1, 64, &x->has_signal, &x->sig) ||
		    member_bool(rd, e.o, e.at, "core", &x->core) ||
		    member_bool(rd, e.o, e.at, "after_end", &x->after_end) ||
		    member_bool(rd, e.o, e.at, "sigterm", &x->sigterm))
			return 1;
		r->nexits++;
	}
	return e.bad;
}

/* "uids" (absent in older reports): the users the recorded processes were
 * seen as, a process of "pids" or one of their descendants, a pid once for
 * each user (common/record_json.h). */
static int read_uids(struct reader *rd, struct json_object *root, struct recording *r)
{
	struct elements e;

	if (!json_object_object_get_ex(root, "uids", NULL))
		return 0;
	r->has_uids = true;
	if (elements_open(rd, root, "uids", true, (void **)&r->uids, sizeof(*r->uids), &e))
		return 1;
	while (elements_next(rd, &e)) {
		struct perfmap_user *u = &r->uids[e.i];
		uint64_t id[2], born;
		int64_t pid;

		if (member_id(rd, e.o, e.at, "pid", &pid) ||
		    member_u64(rd, e.o, e.at, "uid", false, &id[0]) ||
		    member_u64(rd, e.o, e.at, "euid", false, &id[1]) ||
		    member_u64(rd, e.o, e.at, "born", true, &born))
			return 1;
		if (born > INT64_MAX)
			return bad(rd, e.at, "born below 2^63", json_object_object_get(e.o, "born"));
		for (int k = 0; k < 2; k++)
			if (id[k] >= (uid_t)-1)
				return bad(rd, e.at, "uids below 4294967295",
					   json_object_object_get(e.o, k ? "euid" : "uid"));
		*u = (struct perfmap_user){ (pid_t)pid, { (uid_t)id[0], (uid_t)id[1] }, (int64_t)born };
		r->nuids++;
	}
	return e.bad;
}

/* "buildids" (only where another user named what a target mapped: record/mapids.h). */
static int read_buildids(struct reader *rd, struct json_object *root, struct recording *r)
{
	struct elements e;

	if (!json_object_object_get_ex(root, "buildids", NULL))
		return 0;
	if (elements_open(rd, root, "buildids", true, (void **)&r->buildids,
			  sizeof(*r->buildids), &e))
		return 1;
	while (elements_next(rd, &e)) {
		struct recording_buildid *b = &r->buildids[e.i];

		r->nbuildids++;
		if (member_str(rd, e.o, e.at, "file", false, &b->file) ||
		    member_str(rd, e.o, e.at, "build_id", false, &b->hex))
			return 1;
		if (strlen(b->hex) < 2 || strlen(b->hex) > 40 ||
		    strspn(b->hex, "0123456789abcdef") != strlen(b->hex))
			return bad(rd, e.at, "a build id of 2 to 40 lowercase hex digits",
				   json_object_object_get(e.o, "build_id"));
	}
	return e.bad;
}

/* "measure" (absent in older reports: none): the --measure functions. */
static int read_measures(struct reader *rd, struct json_object *root, struct recording *r)
{
	static const char *const pct[] = { "min_ns", "p50_ns", "p90_ns", "p99_ns", "max_ns" };
	struct elements e;

	if (!json_object_object_get_ex(root, "measure", NULL))
		return 0;
	if (elements_open(rd, root, "measure", true, (void **)&r->measures, sizeof(*r->measures),
			  &e))
		return 1;
	while (elements_next(rd, &e)) {
		struct json_object *o = e.o, *h, *v;
		struct recording_measure *m = &r->measures[e.i];
		uint64_t *pv[] = { &m->min_ns, &m->p50_ns, &m->p90_ns, &m->p99_ns, &m->max_ns };
		const char *at = e.at;
		char sub[80], *file = NULL;
		size_t i = e.i;

		r->nmeasures++;
		if (member_str(rd, o, at, "name", false, &m->name) ||
		    member_str(rd, o, at, "symbol", true, &m->symbol) ||
		    member_str(rd, o, at, "file", false, &m->file) ||
		    member_u64(rd, o, at, "vaddr", false, &m->vaddr) ||
		    member_u64(rd, o, at, "calls", false, &m->calls) ||
		    member_u64(rd, o, at, "total_ns", false, &m->total_ns) ||
		    member(rd, o, at, "histogram", json_type_array, false, &h) ||
		    member_str(rd, o, at, "calls_file", true, &file) ||
		    member_u64(rd, o, at, "calls_unrecorded", true, &m->calls_unrecorded) ||
		    member(rd, o, at, "threads_unrecorded", json_type_array, true, &v))
			return 1;
		for (size_t k = 0; v && k < json_object_array_length(v) &&
				   m->nthreads_unrecorded < RECORDING_UNRECORDED_TIDS; k++) {
			snprintf(sub, sizeof(sub), "measure[%zu].threads_unrecorded", i);
			if (member_tid(rd, json_object_array_get_idx(v, k), sub,
				       &m->threads_unrecorded[m->nthreads_unrecorded++]))
				return 1;
		}
		for (size_t k = 0; k < sizeof(pct) / sizeof(pct[0]); k++)
			if (member_u64(rd, o, at, pct[k], true, pv[k]))
				return 1;
		if (file && (strchr(file, '/') || !*file)) {
			free(file);
			snprintf(sub, sizeof(sub), "measure[%zu].calls_file", i);
			return bad(rd, sub, "a file name in the recording", json_object_object_get(o,
				   "calls_file"));
		}
		if (file && asprintf(&m->calls_path, "%s/%s", r->dir, file) < 0) {
			free(file);
			return oom(rd);
		}
		m->calls_file = file;
		m->nbuckets = json_object_array_length(h);
		m->buckets = calloc(m->nbuckets + 1, sizeof(*m->buckets));
		if (!m->buckets)
			return oom(rd);
		for (size_t k = 0; k < m->nbuckets; k++) {
			struct recording_bucket *b = &m->buckets[k];

			v = json_object_array_get_idx(h, k);
			snprintf(sub, sizeof(sub), "measure[%zu].histogram[%zu]", i, k);
			if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) != 3)
				return bad(rd, sub, "[from_ns, below_ns, calls]", v);
			b->from = json_object_get_uint64(json_object_array_get_idx(v, 0));
			b->below = json_object_get_uint64(json_object_array_get_idx(v, 1));
			b->calls = json_object_get_uint64(json_object_array_get_idx(v, 2));
		}
	}
	return e.bad;
}

/* Reads record.json (open as R->fd) with jsonstream: the document (its
 * hits left out) into *ROOT when ROOT, every hit through HR (NULL: hits
 * only scanned). Returns 0, HR->fn's non-zero, or 1 with the reader's
 * error set. */
static int stream(struct reader *rd, const struct recording *r, struct json_object **root,
		  struct hit_reader *hr)
{
	struct jsonstream_ops ops = { .key = "hits", .elem = hr ? read_hit : NULL, .arg = hr,
				      .doc = root != NULL };
	struct jsonstream_error e;
	int rc = jsonstream_read(r->fd, RECORDING_MAX_BYTES, &ops, root, NULL, &e);

	if (rc == -2) {
		rd->errnum = errno ? errno : EIO;
		snprintf(rd->err, rd->size, "%s: cannot read it: %s", rd->file, strerror(errno));
	} else if (rc == -1)
		snprintf(rd->err, rd->size, "%s:%zu: expected the JSON of snaptrace-record's "
			 "report, found %s", rd->file, e.line, e.what);
	return rc < 0 ? 1 : rc;
}

/* The per-process hit summary of R: the last time and count of each pid. */
static int count_hit(void *arg, const struct recording_hit *h)
{
	struct recording *r = arg;

	if (h->snapshot >= 0 && !r->snapshots[h->snapshot].hit) {
		r->snapshots[h->snapshot].hit = true;
		r->snapshots[h->snapshot].hit_ns = h->time_ns;
	}
	for (size_t i = 0; i < r->npids; i++)
		if (r->pids[i] == h->pid) {
			if (!r->pid_hits[i]++ || h->time_ns > r->pid_last_hit[i])
				r->pid_last_hit[i] = h->time_ns;
			break;
		}
	r->nhits++;
	return 0;
}

/* OBJ's member KEY when it is a string, copied into *OUT (else *OUT stays
 * NULL: absent or null). Returns 0, or -1 out of memory (said in RD). */
static int optional_str(struct reader *rd, struct json_object *obj, const char *key, char **out)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
		return 0;
	*out = strdup(json_object_get_string(v));
	if (*out)
		return 0;
	oom(rd);
	return -1;
}

/* The hits of R, checked, into its summary (count_hit). */
static int read_hits(struct reader *rd, struct json_object *root, struct recording *r)
{
	struct hit_reader hr = { .rd = rd, .r = r, .fn = count_hit, .arg = r };
	struct json_object *a;
	int rc;

	if (member(rd, root, "", "hits", json_type_array, false, &a))
		return 1;
	if (json_object_array_length(a))   /* not streamed: a key spelled with escapes */
		return bad(rd, "hits", "the key \"hits\" spelled plainly", NULL);
	r->pid_last_hit = calloc(r->npids + 1, sizeof(*r->pid_last_hit));
	r->pid_hits = calloc(r->npids + 1, sizeof(*r->pid_hits));
	if (!r->pid_last_hit || !r->pid_hits)
		return oom(rd);
	rc = stream(rd, r, NULL, &hr);
	free(hr.extra);
	return rc;
}

static int no_hit(void *arg, const struct recording_hit *h)
{
	(void)arg;
	(void)h;
	return 0;
}

/* R's "coalesced_hits" (optional: older reports have none), checked as hits
 * are, kept in R (at most RECORD_COALESCED_MAX: the recorder's bound). */
static int read_coalesced(struct reader *rd, struct json_object *root, struct recording *r)
{
	struct hit_reader hr = { .rd = rd, .r = r, .coalesced = true, .fn = no_hit };
	struct json_object *a = NULL;
	size_t n;
	int rc = 0;

	if (member(rd, root, "", "coalesced_hits", json_type_array, true, &a))
		return 1;
	if (!a)
		return 0;
	n = json_object_array_length(a);
	if (n > RECORD_COALESCED_MAX) {
		char what[48];

		snprintf(what, sizeof(what), "at most %d hits", RECORD_COALESCED_MAX);
		return bad(rd, "coalesced_hits", what, a);
	}
	for (size_t i = 0; !rc && i < n; i++)
		rc = read_hit(&hr, json_object_array_get_idx(a, i), i);
	free(hr.extra);
	if (!rc && n)
		r->coalesced = json_object_get(a);
	return rc;
}

struct hits_pass {
	int (*fn)(void *arg, const struct recording_hit *h);
	void *arg;
	size_t n;
	int stop;              /* FN's non-zero return, which stopped the reading */
	struct hit_reader coalesced;   /* R's coalesced hits, handed over by pass_hit() */
	size_t next;           /* the next of them */
};

/* Hands P's coalesced hits before BEFORE (perf clock ns) to P->fn. Returns
 * 0 or FN's non-zero return (in P->stop). */
static int pass_coalesced(struct hits_pass *p, uint64_t before)
{
	struct json_object *a = p->coalesced.r->coalesced;
	size_t n = a ? json_object_array_length(a) : 0;

	while (!p->stop && p->next < n) {
		struct json_object *h = json_object_array_get_idx(a, p->next), *t;

		if (json_object_object_get_ex(h, "time_ns", &t) &&
		    (uint64_t)json_object_get_int64(t) >= before)
			break;
		p->stop = read_hit(&p->coalesced, h, p->next++);
	}
	return p->stop;
}

static int pass_hit(void *arg, const struct recording_hit *h)
{
	struct hits_pass *p = arg;

	p->n++;
	if (pass_coalesced(p, h->time_ns))
		return p->stop;
	return p->stop = p->fn(p->arg, h);
}

int recording_hits(const struct recording *r, int (*fn)(void *arg, const struct recording_hit *h),
		   void *arg, char *err, size_t size)
{
	struct reader rd = { .file = r->file, .err = err, .size = size };
	struct hits_pass p = {
		.fn = fn, .arg = arg,
		.coalesced = { .rd = &rd, .r = r, .coalesced = true, .fn = fn, .arg = arg },
	};
	struct hit_reader hr = { .rd = &rd, .r = r, .fn = pass_hit, .arg = &p };
	int rc = 0;

	if (r->nhits)
		rc = stream(&rd, r, NULL, &hr);
	if (!rc && !p.stop)
		rc = pass_coalesced(&p, UINT64_MAX);
	free(hr.extra);
	free(p.coalesced.extra);
	if (!rc && p.n != r->nhits) {
		snprintf(err, size, "%s: changed while it was read (%zu hits, then %zu)", r->file,
			 r->nhits, p.n);
		rc = 1;
	}
	return p.stop ? p.stop : result(&rd, rc);
}

bool recording_last_hit(const struct recording *r, int64_t pid, uint64_t *ns, size_t *n)
{
	for (size_t i = 0; r->pid_hits && i < r->npids; i++)
		if (r->pids[i] == pid && r->pid_hits[i]) {
			*ns = r->pid_last_hit[i];
			*n = r->pid_hits[i];
			return true;
		}
	return false;
}

int recording_read(const char *dir, struct recording *r, char *err, size_t size)
{
	struct reader rd = { .err = err, .size = size };
	struct json_object *root = NULL, *v;
	char *file = NULL, *format = NULL, why[160];
	int rc = 1;

	memset(r, 0, sizeof(*r));
	r->dirfd = -1;
	r->fd = -1;
	err[0] = 0;
	if (!(r->dir = strdup(dir)) || asprintf(&r->file, "%s/" RECORD_JSON_FILE, dir) < 0) {
		r->file = NULL;
		snprintf(err, size, "%s: out of memory", dir);
		return -ENOMEM;
	}
	file = r->file;
	rd.file = file;
	r->dirfd = inpath_dir(AT_FDCWD, dir, why, sizeof(why));
	r->fd = r->dirfd < 0 ? r->dirfd : inpath_open(r->dirfd, RECORD_JSON_FILE, RECORDING_OPEN, why,
						    sizeof(why));
	if (r->dirfd < 0 || r->fd == -ENOENT) {
		if (r->dirfd >= 0)
			snprintf(err, size, "%s: expected a recording directory of snaptrace-record "
				 "(with record.json), found no record.json", dir);
		else
			snprintf(err, size, "%s: cannot open it: %s", dir, why);
		r->fd = -1;
		return r->dirfd >= 0 ? -ENOENT : -EIO;
	}
	if (r->fd < 0 || fstat(r->fd, &r->json_st)) {
		rc = r->fd < 0 ? r->fd : -errno;
		snprintf(err, size, "%s: %s", file, r->fd < 0 ? why : strerror(errno));
		if (r->fd < 0)
			r->fd = -1;
		return rc == -ENOENT ? -EIO : rc;	/* -ENOENT: no record.json only */
	}
	if (stream(&rd, r, &root, NULL))
		goto out;
	if (!json_object_is_type(root, json_type_object)) {
		bad(&rd, "the document", "an object", root);
		goto out;
	}
	if (member_str(&rd, root, "", "format", false, &format))
		goto out;
	if (strcmp(format, RECORD_JSON_FORMAT)) {
		bad(&rd, "format", "\"" RECORD_JSON_FORMAT "\"", json_object_object_get(root, "format"));
		goto out;
	}
	if (member(&rd, root, "", "trigger", json_type_object, true, &v))
		goto out;
	if (v && (member_str(&rd, v, "trigger", "spec", false, &r->trigger) ||
		  member_str(&rd, v, "trigger", "symbol", true, &r->trigger_symbol) ||
		  read_tsc(&rd, v, &r->tsc)))
		goto out;
	/* what draws a slow call from its hit; absent in older reports */
	if (v && json_object_object_get_ex(v, "name", NULL) &&
	    (member_str(&rd, v, "trigger", "name", false, &r->trigger_name) ||
	     member_str(&rd, v, "trigger", "file", false, &r->trigger_file) ||
	     member_u64(&rd, v, "trigger", "vaddr", false, &r->trigger_vaddr) ||
	     member_u64(&rd, v, "trigger", "slower_than_ns", true, &r->slower_than_ns)))
		goto out;
	if (read_pids(&rd, root, r) || read_uids(&rd, root, r) ||
	    member_bool(&rd, root, "", "launched", &r->launched))
		goto out;
	/* optional (null in Intel PT recordings) */
	if (json_object_object_get_ex(root, "event", &v) && json_object_is_type(v, json_type_string))
		r->ring = event_overwrites(json_object_get_string(v));
	/* optional (older reports have none): a string, or null */
	if (optional_str(&rd, root, "error", &r->error) ||
	    optional_str(&rd, root, "boot_id", &r->boot_id))
		goto out;
	if (member_reason(&rd, root, "", "end", &r->end) ||
	    member_time(&rd, root, "", "end_ns", true, &r->end_ns) ||
	    member_time(&rd, root, "", "start_ns", true, &r->start_ns) ||
	    read_threads(&rd, root, r) || read_snapshots(&rd, root, r) || read_hits(&rd, root, r) ||
	    read_coalesced(&rd, root, r) || read_signals(&rd, root, r) ||
	    read_measures(&rd, root, r) || read_buildids(&rd, root, r))
		goto out;
	rc = 0;
out:
	json_object_put(root);
	free(format);
	return result(&rd, rc);
}

/* Printing a record.json field per line: the output and the path so far. */
struct dumper {
	FILE *out;
	char path[512];
};

/* Prints V as D->path (LEN bytes of it) "=" VALUE lines, one per scalar. */
static void dump_value(struct dumper *d, size_t len, struct json_object *v);

/* Appends ".NAME" (escaped) or ".INDEX" to D->path at LEN; returns the new length. */
static size_t dump_step(struct dumper *d, size_t len, const char *name, size_t index)
{
	char esc[128];
	int n = name ? snprintf(d->path + len, sizeof(d->path) - len, "%s%s", len ? "." : "",
				esc_str(esc, sizeof(esc), name, ESC_TEXT))
		     : snprintf(d->path + len, sizeof(d->path) - len, "%s%zu", len ? "." : "", index);

	return n < 0 || (size_t)n >= sizeof(d->path) - len ? sizeof(d->path) - 1 : len + (size_t)n;
}

/* jsonstream's callback: hit I printed as "hits.I....". */
static int dump_hit(void *arg, struct json_object *h, size_t i)
{
	struct dumper *d = arg;

	dump_value(d, dump_step(d, dump_step(d, 0, "hits", 0), NULL, i), h);
	return 0;
}

static void dump_value(struct dumper *d, size_t len, struct json_object *v)
{
	d->path[len] = '\0';
	switch (json_object_get_type(v)) {
	case json_type_object:
		if (!json_object_object_length(v))
			fprintf(d->out, "%s={}\n", d->path);
		json_object_object_foreach(v, key, e)
			dump_value(d, dump_step(d, len, key, 0), e);
		break;
	case json_type_array:
		if (!json_object_array_length(v))
			fprintf(d->out, "%s=[]\n", d->path);
		for (size_t i = 0; i < json_object_array_length(v); i++)
			dump_value(d, dump_step(d, len, NULL, i), json_object_array_get_idx(v, i));
		break;
	case json_type_string:
		fprintf(d->out, "%s=", d->path);
		esc_fputs(d->out, json_object_get_string(v), ESC_TEXT);
		fputc('\n', d->out);
		break;
	default:   /* null, true, false, a number as written */
		fprintf(d->out, "%s=%s\n", d->path, json_object_to_json_string(v));
		break;
	}
}

int recording_dump(const struct recording *r, FILE *out, char *err, size_t size)
{
	struct reader rd = { .file = r->file, .err = err, .size = size };
	struct dumper d = { .out = out };
	struct json_object *root = NULL;
	int rc = stream(&rd, r, &root, NULL);

	if (rc)
		return result(&rd, rc);
	json_object_object_foreach(root, key, v) {
		struct jsonstream_ops ops = { .key = "hits", .elem = dump_hit, .arg = &d };
		struct jsonstream_error e;
		size_t nhits;

		if (strcmp(key, "hits")) {
			dump_value(&d, dump_step(&d, 0, key, 0), v);
			continue;
		}
		if (jsonstream_read(r->fd, RECORDING_MAX_BYTES, &ops, NULL, &nhits, &e) < 0 ||
		    !nhits)   /* hits not streamed: recording_read() refused them */
			dump_value(&d, dump_step(&d, 0, key, 0), v);
	}
	json_object_put(root);
	return 0;
}

void recording_free(struct recording *r)
{
	json_object_put(r->coalesced);
	free(r->error);
	free(r->boot_id);
	for (size_t i = 0; i < r->nsnapshots; i++) {
		free(r->snapshots[i].path);
		free(r->snapshots[i].file);
		free(r->snapshots[i].refused);
		free(r->snapshots[i].problem);
	}
	if (r->dirfd >= 0)
		close(r->dirfd);
	for (size_t i = 0; i < r->nthreads; i++) {
		free(r->threads[i].comm);
		free(r->threads[i].state);
		free(r->threads[i].wchan);
	}
	for (size_t i = 0; i < r->nsignals; i++) {
		free(r->signals[i].sender_comm);
		free(r->signals[i].cause);
	}
	for (size_t i = 0; i < r->nmeasures; i++) {
		free(r->measures[i].name);
		free(r->measures[i].symbol);
		free(r->measures[i].file);
		free(r->measures[i].buckets);
		free(r->measures[i].calls_path);
		free(r->measures[i].calls_file);
	}
	free(r->measures);
	for (size_t i = 0; i < r->nbuildids; i++) {
		free(r->buildids[i].file);
		free(r->buildids[i].hex);
	}
	free(r->buildids);
	free(r->signals);
	free(r->exits);
	free(r->snapshots);
	free(r->threads);
	free(r->trigger);
	free(r->trigger_symbol);
	free(r->trigger_name);
	free(r->trigger_file);
	free(r->pids);
	free(r->uids);
	free(r->pid_last_hit);
	free(r->pid_hits);
	free(r->dir);
	if (r->file && r->fd >= 0)
		close(r->fd);
	free(r->file);
	memset(r, 0, sizeof(*r));
	r->dirfd = -1;
	r->fd = -1;
}

int recording_open(const struct recording *r, const char *file, unsigned flags, char *why,
		   size_t size)
{
	if (r->files)
		return inpath_open(AT_FDCWD, file, flags, why, size);
	return inpath_open(r->dirfd, file, RECORDING_OPEN | flags, why, size);
}

bool recording_exit_by_recorder(const struct recording_exit *x)
{
	return x->after_end && x->sigterm && x->has_signal;
}

bool recording_exit_listed(const struct recording *r, int64_t pid)
{
	for (size_t i = 0; r && i < r->nexits; i++)
		if (r->exits[i].pid == pid && !recording_exit_by_recorder(&r->exits[i]))
			return true;
	return false;
}

const struct recording_thread *recording_thread(const struct recording *r, int64_t tid)
{
	for (size_t i = 0; r && i < r->nthreads; i++)
		if (r->threads[i].tid == tid)
			return &r->threads[i];
	return NULL;
}

const char *recording_comm(const struct recording *r, int64_t tid)
{
	const struct recording_thread *t = recording_thread(r, tid);

	return t ? t->comm : NULL;
}

bool recording_tsc_to_perf(const struct recording_tsc *tsc, uint64_t cyc, uint64_t *ns)
{
	uint64_t quot, rem;

	if (!tsc->known)
		return false;
	quot = cyc >> tsc->time_shift;
	rem = cyc & ((UINT64_C(1) << tsc->time_shift) - 1);
	*ns = tsc->time_zero + quot * tsc->time_mult + ((rem * tsc->time_mult) >> tsc->time_shift);
	return true;
}

uint64_t recording_snapshot_mark(const struct recording *r, size_t i)
{
	enum record_end why = r->snapshots[i].reason;

	if (r->snapshots[i].hit)
		return 0;
	/* a signal's snapshot: the signal's own marker names it */
	if (why == RECORD_END_TRIGGER || why == RECORD_END_NONE || why == RECORD_END_SIGNAL)
		return 0;
	/* where perf stopped recording into it: its time_ns (Ctrl-C came,
	 * the program exited) is later, and nothing is known in between */
	return r->snapshots[i].live_ns ? r->snapshots[i].live_ns : recording_snapshot_end(r, i);
}

uint64_t recording_snapshot_end(const struct recording *r, size_t i)
{
	if (i >= r->nsnapshots)
		return 0;
	if (r->snapshots[i].hit)
		return r->snapshots[i].hit_ns;
	if (r->snapshots[i].time_ns)
		return r->snapshots[i].time_ns;
	return i + 1 == r->nsnapshots ? r->end_ns : 0;
}

uint64_t recording_snapshot_live(const struct recording *r, size_t i)
{
	uint64_t live;

	if (i >= r->nsnapshots)
		return 0;
	live = r->snapshots[i].live_ns;
	if (r->snapshots[i].hit && r->snapshots[i].hit_ns > live)
		live = r->snapshots[i].hit_ns;
	return live;
}
