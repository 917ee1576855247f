/* SPDX-License-Identifier: MIT */
/* mapids: build ids of another user's mapped files, from the files mapped (mapids.h). */
#include "mapids.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "array.h"
#include "buildcache.h"
#include "escape.h"
#include "hash.h"
#include "procfs.h"

/* The index key of a file FILE (mapped file DEV, INO). */
static uint64_t key_of(const char *file, dev_t dev, ino_t ino)
{
	return hash_pair(hash_pair((uint64_t)dev, (uint64_t)ino), hash_bytes(file, strlen(file)));
}

/* Whether M lists FILE (DEV, INO) under KEY, in index IDX. */
static bool listed(const struct rec_mapids *m, const struct hash_index *idx, uint64_t key,
		   const char *file, dev_t dev, ino_t ino)
{
	size_t probe = 0;

	for (uint32_t i; (i = hash_index_next(idx, key, &probe)) != HASH_NONE;)
		if (m->ids[i].dev == dev && m->ids[i].ino == ino && !strcmp(m->ids[i].file, file))
			return true;
	return false;
}

/* The build id of the file mapping MAP of PID maps into HEX: the mapping's
 * own file (rec_proc_map_open(), never its name), its status into *ST.
 * Returns 0, or -1 when it is no regular ELF file or cannot be opened. */
static int mapped_id(pid_t pid, const struct rec_map *map, char *hex, struct stat *st)
{
	int fd = rec_proc_map_open(pid, map, st), err;

	if (fd < 0)
		return -1;
	err = rec_build_id(fd, hex);
	close(fd);
	return err ? -1 : 0;
}

/* What rec_mapids_read() walks the maps with. */
struct walk {
	struct rec_mapids *m;
	struct hash_index idx;   /* M's files */
	pid_t pid;
	int err;
};

/* rec_proc_each_map()'s callback: lists mapping MAP's file in W, when an
 * executable ELF file not listed yet; stops when out of memory. */
static int add_map(const struct rec_map *map, void *arg)
{
	struct walk *w = arg;
	struct rec_mapids *m = w->m;
	char hex[REC_BUILD_ID_HEX + 1];
	struct rec_mapid *id;
	struct stat st;
	uint64_t key;

	if (!map->exec || map->path[0] != '/' ||
	    mapped_id(w->pid, map, hex, &st))
		return 0;
	key = key_of(map->path, st.st_dev, st.st_ino);
	if (listed(m, &w->idx, key, map->path, st.st_dev, st.st_ino))
		return 0;
	if (m->n >= REC_MAPIDS_MAX) {
		m->left++;
		return 0;
	}
	if (!(id = array_grow(m->ids, &m->cap, m->n, sizeof(*m->ids)))) {
		w->err = -ENOMEM;
		return 1;
	}
	m->ids = id;
	id = &m->ids[m->n];
	*id = (struct rec_mapid){ .file = strdup(map->path), .dev = st.st_dev, .ino = st.st_ino };
	snprintf(id->hex, sizeof(id->hex), "%s", hex);
	if (!id->file || hash_index_add(&w->idx, key, (uint32_t)m->n)) {
		free(id->file);
		w->err = -ENOMEM;
		return 1;
	}
	m->n++;
	return 0;
}

int rec_mapids_read(struct rec_mapids *m, pid_t pid)
{
	struct walk w = { .m = m, .pid = pid };
	int err = 0;

	for (size_t i = 0; !err && i < m->n; i++)
		if (hash_index_add(&w.idx, key_of(m->ids[i].file, m->ids[i].dev, m->ids[i].ino),
				   (uint32_t)i))
			err = -ENOMEM;
	if (!err)
		err = rec_proc_each_map(pid, add_map, &w);
	hash_index_free(&w.idx);
	return err ? err : w.err;
}

void rec_mapids_write(FILE *f, const struct rec_mapids *m)
{
	int n = 0;

	fputc('[', f);
	for (size_t i = 0; i < m->n; i++) {
		if (!m->ids[i].hex[0])
			continue;	/* nothing to check the file against */
		fputs(n++ ? ",\n    {\"file\": " : "\n    {\"file\": ", f);
		esc_json_string(f, m->ids[i].file);
		fprintf(f, ", \"build_id\": \"%s\"}", m->ids[i].hex);
	}
	fputs(n ? "\n  ]" : "]", f);
}

void rec_mapids_free(struct rec_mapids *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->ids[i].file);
	free(m->ids);
	*m = (struct rec_mapids){ 0 };
}
