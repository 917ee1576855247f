/* SPDX-License-Identifier: MIT */
/* The version every snaptrace program prints for --version. */
#ifndef SNAPTRACE_VERSION_H
#define SNAPTRACE_VERSION_H
#define SNAPTRACE_VERSION "0.1.0"
#endif
