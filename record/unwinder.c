/* SPDX-License-Identifier: MIT */
#include "unwinder.h"

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "run.h"

/* Scripts followed to their interpreter at most (a script run by a script...). */
#define SCRIPT_DEPTH 4

/* Interpreters that run other programs rather than being the program: a
 * shell script is a launcher (pyenv's shims, wrappers) whose program is not
 * known until it runs. */
static const char *const shells[] = { "sh", "bash", "dash", "zsh", "ksh", "mksh", "busybox" };

static bool is_shell(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(shells) / sizeof(shells[0]); i++)
		if (!strcmp(base, shells[i]))
			return true;
	return false;
}

/*
 * The interpreter of PATH when it is a script ("#!INTERP [ARG]"; with
 * /usr/bin/env, its first word that is no option, found in PATH) into
 * INTERP (SIZE bytes, a real path): 1; 0 when PATH is no script; -1 when
 * its interpreter cannot be found (INTERP: what its line names).
 */
static int script_interpreter(const char *path, char *interp, size_t size)
{
	char line[256], *p, *word, *save = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return 0;
	n = fstat(fd, &st) || !S_ISREG(st.st_mode) ? -1 : read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n < 3 || line[0] != '#' || line[1] != '!')
		return 0;
	line[n] = 0;
	line[strcspn(line, "\n")] = 0;
	p = line + 2;
	word = strtok_r(p, " \t", &save);
	if (!word)
		return 0;
	if (!strcmp(strrchr(word, '/') ? strrchr(word, '/') + 1 : word, "env"))
		while ((word = strtok_r(NULL, " \t", &save)) && word[0] == '-')
			;
	if (!word)
		return 0;
	if (run_find_program(word, interp, size)) {
		snprintf(interp, size, "%s", word);
		return -1;
	}
	return 1;
}

/* rec_callgraph_pick() for the ELF executable FILE, named EXE in WHY. */
static enum rec_callgraph pick_elf(const char *exe, const char *file, char *why, size_t size)
{
	uint64_t with, total;
	int err = rec_elf_frame_pointers(file, &with, &total);
	unsigned pct;

	if (err) {
		snprintf(why, size, "--callgraph auto: %s: %s: using fp", exe,
			 rec_elf_strerror(err));
		return REC_CG_FP;
	}
	pct = (unsigned)(100 * with / total);
	if (pct >= 50) {
		snprintf(why, size, "--callgraph auto: %s: %u%% of its code sets up frame "
			 "pointers: using fp", exe, pct);
		return REC_CG_FP;
	}
	snprintf(why, size, "--callgraph auto: %s: %u%% of its code sets up frame pointers "
		 "(built without them): using dwarf, which reaches back about 70 times less far "
		 "(--snapshot-size raises that)", exe, pct);
	return REC_CG_DWARF;
}

enum rec_callgraph rec_callgraph_pick(const char *exe, char *why, size_t size)
{
	char interp[SCRIPT_DEPTH][PATH_MAX], chain[PATH_MAX * 2];
	const char *judged = exe;
	size_t len = (size_t)snprintf(chain, sizeof(chain), "%s", exe);
	int depth = 0, r;

	/* CHAIN: "EXE is a script run by I1, a script run by I2..." */
	while (depth < SCRIPT_DEPTH && (r = script_interpreter(judged, interp[depth],
							       sizeof(interp[depth])))) {
		if (r < 0) {
			snprintf(why, size, "--callgraph auto: %s%s script whose interpreter %s is "
				 "not found: judged nothing: using fp", chain, depth ? ", a" : " is a",
				 interp[depth]);
			return REC_CG_FP;
		}
		if (is_shell(interp[depth])) {
			snprintf(why, size, "--callgraph auto: %s%s shell script (%s): the "
				 "program it runs (a launcher's, as pyenv's shims) is not known before "
				 "it runs: judged nothing: using fp (cheap; complete where that program "
				 "keeps frame pointers: else --callgraph dwarf)", chain,
				 depth ? ", a" : " is a", interp[depth]);
			return REC_CG_FP;
		}
		if (len < sizeof(chain))
			len += (size_t)snprintf(chain + len, sizeof(chain) - len, "%s script run by ",
						depth ? ", a" : " is a");
		judged = interp[depth++];
		if (len < sizeof(chain))
			len += (size_t)snprintf(chain + len, sizeof(chain) - len, "%s", judged);
	}
	return pick_elf(chain, judged, why, size);
}
