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

#define BIT(cap) (UINT32_C(1) << ((cap) % 32))
#define AT(cap) ((cap) / 32)

/* Reads the calling thread's capability sets into D. Returns 0 or -errno. */
static int caps_get(struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

	return syscall(SYS_capget, &h, d) ? -errno : 0;
}

static int caps_set(struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

int nsenter_drop(void)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	int err;

	for (size_t i = 0; i < sizeof(setns_caps) / sizeof(setns_caps[0]); i++)
		if (prctl(PR_CAPBSET_DROP, setns_caps[i], 0, 0, 0) && errno != EPERM)
			return -errno;
	if ((err = caps_get(d)))
		return err;
	for (size_t i = 0; i < sizeof(setns_caps) / sizeof(setns_caps[0]); i++) {
		d[AT(setns_caps[i])].effective &= ~BIT(setns_caps[i]);
		d[AT(setns_caps[i])].inheritable &= ~BIT(setns_caps[i]);
	}
	d[AT(CAP_SYS_CHROOT)].permitted &= ~BIT(CAP_SYS_CHROOT);	/* CAP_SYS_ADMIN: nsenter_admin() */
	return caps_set(d);
}

bool nsenter_admin_permitted(void)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	return !caps_get(d) && (d[AT(CAP_SYS_ADMIN)].permitted & BIT(CAP_SYS_ADMIN));
}

int nsenter_admin(bool on)
{
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	int err = caps_get(d);

	if (err)
		return err;
	if (on) {
		d[AT(CAP_SYS_ADMIN)].effective |= BIT(CAP_SYS_ADMIN);
	} else {
		d[AT(CAP_SYS_ADMIN)].effective &= ~BIT(CAP_SYS_ADMIN);
		d[AT(CAP_SYS_ADMIN)].permitted &= ~BIT(CAP_SYS_ADMIN);
	}
	return caps_set(d);
}
