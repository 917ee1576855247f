/* SPDX-License-Identifier: MIT */
/*
 * numparse: strict parsers for the numbers of a command line (counts, pids,
 * sizes, durations). Integer arithmetic only: no strtod, so "inf", "nan",
 * "1e30", "0x10" and hex floats are refused, and so are signs, spaces, empty
 * strings and anything that overflows. (The model is uftrace's parse_size.)
 *
 * Every parser returns 0 with the value in *OUT, -EINVAL when S does not have
 * the expected form, or -ERANGE when the value is outside [MIN, MAX]; *OUT
 * is left alone on error.
 */
#ifndef SNAPTRACE_NUMPARSE_H
#define SNAPTRACE_NUMPARSE_H

#include <stddef.h>
#include <stdint.h>

/* S: decimal digits only ("0".."18446744073709551615"). */
int num_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * S: decimal digits with an optional binary unit K, M, G or T (KiB, MiB,
 * GiB, TiB; either case; a trailing "B" or "iB" allowed: "4M", "4MiB",
 * "4096"). *OUT: bytes.
 */
int num_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * S: a duration, the one form every duration option reads: decimal digits
 * with an optional fraction of up to nine digits, then a unit ns, us, ms or
 * s, optional when BARE_NS is not 0: a bare number counts BARE_NS
 * nanoseconds ("2", "0.5", ".25", "1.000000001", "10ms", "2.5us"). A
 * fraction finer than a nanosecond is refused. *OUT: nanoseconds; MIN and
 * MAX are nanoseconds too.
 */
int num_parse_time(const char *s, uint64_t bare_ns, uint64_t min, uint64_t max, uint64_t *out);

/* num_parse_time(), a bare number in seconds. */
int num_parse_seconds(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* num_parse_time(), the unit required ("10ms", "1.5ms", "250us"). */
int num_parse_duration(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * NS nanoseconds as a person reads a duration, the inverse of
 * num_parse_duration(): the largest unit of ns, us, ms and s in which it is
 * at least 1, with at most three decimals and no trailing zeros ("5 ms",
 * "12.5 ms", "250 us", "10000 s"; never an exponent). Writes into BUF (SIZE
 * bytes; 32 is enough) and returns it.
 */
const char *num_duration_text(uint64_t ns, char *buf, size_t size);

#endif
