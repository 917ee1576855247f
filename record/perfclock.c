/* SPDX-License-Identifier: MIT */
#include "perfclock.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "perfring.h"

int rec_perf_clock_now(uint64_t *ns)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TIME, .comm = 1, .sample_id_all = 1,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *mp;
	struct perf_event_header h;
	char name[16] = "";
	int fd, err = -EIO;

	fd = rec_perf_open(&attr, 0, -1);
	if (fd < 0)
		return fd;
	mp = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mp == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	/* the same name: a comm event, and nothing changes */
	if (!prctl(PR_GET_NAME, name) && !prctl(PR_SET_NAME, name) &&
	    __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE) >= sizeof(h)) {
		const char *data = (const char *)mp + page;

		memcpy(&h, data, sizeof(h));
		/* the record's last 8 bytes: sample_id's time */
		if (h.type == PERF_RECORD_COMM && h.size >= sizeof(h) + 16 && h.size <= page) {
			memcpy(ns, data + h.size - sizeof(*ns), sizeof(*ns));
			err = 0;
		}
	}
	munmap(mp, (size_t)page * 2);
	close(fd);
	return err;
}
