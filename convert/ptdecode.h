/* SPDX-License-Identifier: MIT */
/*
 * ptdecode: Intel PT decoded in process (docs/design.md "Decoding"): the
 * perf.data read by common/perfdata.c (its attrs, AUXTRACE_INFO, side-band
 * records and AUX data), each process's image built from the ELF files its
 * MMAP2 records name, the AUX data of each queue decoded by libipt's block
 * decoder, and perf script's samples rebuilt from it as perf 6.1 makes them
 * (tools/perf/util/intel-pt.c: the branches of --itrace=b with their flags,
 * times and perf's symbol names, "tr strt"/"tr end", the switch records of
 * --show-switch-events, the queues interleaved by time as perf's
 * intel_pt_process_queues() does), fed to the converter as the lines perf
 * script with snaptrace's dlfilter would give it. A queue is a thread's or
 * a CPU's; a CPU's samples are the thread it runs, followed through
 * ITRACE_START and the switch records as perf's intel_pt_set_pid_tid_cpu()
 * follows it.
 *
 * It takes only what it reproduces exactly. Anything else, found before
 * any line is converted, makes ptdecode_open() answer with the reason and
 * the input goes through perf script: a pipe-format file, have_sched_switch
 * 1, kernel code traced, packets whose events perf reads its own way (OVF,
 * PTWRITE, power and VMX packets), lost
 * records or truncated AUX data, several AUX buffers in a queue, samples of other
 * events, an executable mapping made over another (an exec, a library
 * replaced), one whose file is missing or has another build id than the
 * recorded one. What it meets only while decoding (libipt refusing the
 * stream; a CPU's AUX data while that CPU runs a task whose process maps
 * no code, or walked in another process's code than perf walks there) is
 * PIPELINE_FALLBACK.
 */
#ifndef SNAPTRACE_CONVERT_PTDECODE_H
#define SNAPTRACE_CONVERT_PTDECODE_H

#include <stddef.h>

#include "driver.h"

struct ptdecode;

/*
 * Opens the Intel PT perf.data PATH for decoding in process; SYMFS (or
 * NULL) is perf script's --symfs: the directory the mapped files are read
 * under; JOBS (0 or 1: one) the threads that decode (its AUX data split at
 * PSBs). Returns 0 and *OUT; 1 when perf script must decode it, with the
 * reason in WHY ("kernel code traced"); or a negative errno with a reason
 * in WHY (out of memory, the file cannot be read). Memory: the AUX data,
 * the side-band records, the files' symbols, and the samples of at most
 * 4 x JOBS chunks of 16 KiB of AUX data.
 */
int ptdecode_open(const char *path, const char *symfs, unsigned jobs, struct ptdecode **out,
		  char *why, size_t whylen);

/*
 * Decodes D and hands each line to CV, in perf script's order. Returns a
 * pipeline_status (pipeline_types.h): PIPELINE_OK; PIPELINE_CONVERT with the
 * converter's code in *CONV_ERR; PIPELINE_FALLBACK when the decoder met
 * something it does not reproduce after all (reason in ERRBUF: the whole
 * conversion must be redone through perf script); or PIPELINE_NOMEM.
 */
int ptdecode_convert(struct ptdecode *d, struct conv_driver *cv, int *conv_err, char *errbuf,
		     size_t errlen);

/* Frees D. */
void ptdecode_close(struct ptdecode *d);

#endif
