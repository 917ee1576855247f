/* SPDX-License-Identifier: MIT */
/*
 * A program whose stripped copy's unwind table has a part of a function
 * that a jump enters (tests/record/unnamed.test.sh cold_*):
 * cold_split.cold (tests/unit/cold_split.h).
 */
#include "../unit/cold_split.h"

int main(int argc, char **argv)
{
	(void)argv;
	return cold_split(argc) == 3 ? 0 : 1;
}
