/* SPDX-License-Identifier: MIT */
/*
 * The version every snaptrace program prints for --version: the file VERSION
 * at the top of the tree, which the Makefile passes as -DSNAPTRACE_VERSION
 * (one definition for the programs, the test tools and the installed front
 * end).
 */
#ifndef SNAPTRACE_VERSION_H
#define SNAPTRACE_VERSION_H
#ifndef SNAPTRACE_VERSION
#error "SNAPTRACE_VERSION is not defined: build with the Makefile (it reads the file VERSION)"
#endif
#endif
