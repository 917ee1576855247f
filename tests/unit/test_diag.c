/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of common/diag: each message reaches stderr in one write(2), so
 * that the traced program's own output cannot land inside it. stderr is a
 * SOCK_SEQPACKET socket here: each write is one packet, and a recv gives
 * back exactly one write.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "diag.h"
#include "unit.h"

static int reader = -1;

/* The next write on stderr, NUL-ended, into BUF; its length, or -1 if none. */
static ssize_t next_write(char *buf, size_t size)
{
	ssize_t n = recv(reader, buf, size - 1, MSG_DONTWAIT);

	if (n >= 0)
		buf[n] = 0;
	return n;
}

static void one_write_each(void)
{
	char buf[8192], name[600];

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	diag_warn("trigger hit %d: a call of %s in thread \x1b[31m%d", 0, name, 7);
	CHECK(next_write(buf, sizeof(buf)) > 0);
	CHECK(!strncmp(buf, "t: warning: trigger hit 0: a call of xxx", 40));
	CHECK(strstr(buf, " in thread \\x1b[31m7\n") != NULL);
	CHECK_INT_EQ(next_write(buf, sizeof(buf)), -1);

	diag_error("cannot write %s", "out.fxt");
	CHECK_INT_EQ(next_write(buf, sizeof(buf)), (ssize_t)strlen("t: cannot write out.fxt\n"));
	CHECK_STR_EQ(buf, "t: cannot write out.fxt\n");
	CHECK_INT_EQ(next_write(buf, sizeof(buf)), -1);

	diag_block("perf said\nthis \x07 too");
	CHECK_STR_EQ(next_write(buf, sizeof(buf)) > 0 ? buf : "", "  perf said\n");
	CHECK_STR_EQ(next_write(buf, sizeof(buf)) > 0 ? buf : "", "  this \\x07 too\n");
	CHECK_INT_EQ(next_write(buf, sizeof(buf)), -1);
}

int main(void)
{
	int sv[2];

	/* the writer's end non-blocking: written piece by piece, a line's
	 * packets would fill the socket before the test reads them */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv) ||
	    dup2(sv[1], STDERR_FILENO) < 0) {
		printf("FAIL one_write_each: socketpair: %s\n", strerror(errno));
		return 1;
	}
	reader = sv[0];
	diag_init("t");
	UNIT_RUN(one_write_each);
	return unit_exit();
}
