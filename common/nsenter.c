/* SPDX-License-Identifier: MIT */
#include "nsenter.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* What setns(fd, CLONE_NEWNS) checks (the kernel's mntns_install()). */
static const int setns_caps[] = { CAP_SYS_ADMIN, CAP_SYS_CHROOT };

int nsenter_drop(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	for (size_t i = 0; i < sizeof(setns_caps) / sizeof(setns_caps[0]); i++)
		if (prctl(PR_CAPBSET_DROP, setns_caps[i], 0, 0, 0) && errno != EPERM)
			return -errno;
	if (syscall(SYS_capget, &h, d))
		return -errno;
	for (size_t i = 0; i < sizeof(setns_caps) / sizeof(setns_caps[0]); i++) {
		uint32_t bit = UINT32_C(1) << (setns_caps[i] % 32);
		int at = setns_caps[i] / 32;

		d[at].effective &= ~bit;
		d[at].permitted &= ~bit;
		d[at].inheritable &= ~bit;
	}
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}
