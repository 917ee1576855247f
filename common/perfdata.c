/* SPDX-License-Identifier: MIT */
#include "perfdata.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_perf_data(const struct dirent *d)
{
	return !strncmp(d->d_name, "perf.data", 9);
}

int perfdata_scan(const char *dir, char ***paths)
{
	struct dirent **ents = NULL;
	int nents = scandir(dir, &ents, is_perf_data, alphasort), n = 0;
	char **v;

	*paths = NULL;
	if (nents < 0)
		return -errno;
	v = calloc((size_t)nents + 1, sizeof(*v));
	for (int i = 0; i < nents; i++) {
		struct stat st;
		char *path;

		if (v && asprintf(&path, "%s/%s", dir, ents[i]->d_name) >= 0) {
			if (!stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
				v[n++] = path;
			else
				free(path);
		}
		free(ents[i]);
	}
	free(ents);
	if (!v)
		return -ENOMEM;
	*paths = v;
	return n;
}
