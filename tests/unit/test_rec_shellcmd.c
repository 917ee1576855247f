/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of rec_target_shell_command() (record/target.h): which launched
 * commands are a shell given a command string, which runs it in a child
 * process (dash forks even for `sh -c ./prog`), and the command it finds.
 * Every expected answer is written out by hand.
 */
#include <stddef.h>

#include "target.h"
#include "unit.h"

#define SHELL_CMD(path, ...) rec_target_shell_command(path, (char *[]){ __VA_ARGS__, NULL })

static void shellcmd_shells(void)
{
	CHECK_STR_EQ(SHELL_CMD("/usr/bin/sh", "sh", "-c", "./prog"), "./prog");
	CHECK_STR_EQ(SHELL_CMD("/usr/bin/dash", "sh", "-c", "./prog; true"), "./prog; true");
	CHECK_STR_EQ(SHELL_CMD("/bin/bash", "bash", "-c", "x", "name", "arg"), "x");
	CHECK_STR_EQ(SHELL_CMD("sh", "sh", "-c", "x"), "x");	/* no directory */
	CHECK_STR_EQ(SHELL_CMD("/bin/zsh", "zsh", "-c", "x"), "x");
}

static void shellcmd_options(void)
{
	CHECK_STR_EQ(SHELL_CMD("/bin/sh", "sh", "-ec", "x"), "x");
	CHECK_STR_EQ(SHELL_CMD("/bin/sh", "sh", "-e", "-c", "x"), "x");
	CHECK_STR_EQ(SHELL_CMD("/bin/sh", "sh", "-c", "-e", "x"), "x");
	CHECK_STR_EQ(SHELL_CMD("/bin/sh", "sh", "-c", "--", "x"), "x");
	CHECK_STR_EQ(SHELL_CMD("/bin/sh", "sh", "-o", "errexit", "-c", "x"), "x");
	CHECK_STR_EQ(SHELL_CMD("/bin/bash", "bash", "--norc", "-c", "x"), "x");
	/* an option's name holding a 'c' is no -c; a long one neither */
	CHECK(!SHELL_CMD("/bin/sh", "sh", "-o", "noclobber", "script.sh"));
	CHECK(!SHELL_CMD("/bin/bash", "bash", "--rcfile", "script.sh"));
}

static void shellcmd_none(void)
{
	CHECK(!SHELL_CMD("/bin/sh", "sh", "script.sh"));	/* a script: runs in the shell */
	CHECK(!SHELL_CMD("/bin/sh", "sh", "script.sh", "-c"));	/* -c after the operand */
	CHECK(!SHELL_CMD("/bin/sh", "sh", "-c"));		/* no command */
	CHECK(!SHELL_CMD("/usr/bin/python3", "python3", "-c", "x"));
	CHECK(!SHELL_CMD("/opt/shc", "shc", "-c", "x"));	/* a name ending in "sh" is none */
	CHECK(!SHELL_CMD("/opt/app/sh-helper", "sh-helper", "-c", "x"));
}

int main(void)
{
	UNIT_RUN(shellcmd_shells);
	UNIT_RUN(shellcmd_options);
	UNIT_RUN(shellcmd_none);
	return unit_exit();
}
