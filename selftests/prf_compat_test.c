// SPDX-License-Identifier: GPL-2.0
/*
 * prf_compat_test - run prf_compat_test32, the 32-bit build of prf_compat.c,
 * so that the ioctls go through the driver's compat_ioctl path.  When the
 * 32-bit program is missing (no gcc-multilib at build time) or cannot run
 * (a kernel without IA32_EMULATION gives ENOEXEC), the whole program is a
 * kselftest SKIP, never a pass.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest.h"

int main(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int err;

	if (n < 0) {
		ksft_print_header();
		ksft_exit_fail_msg("readlink /proc/self/exe: %s\n", strerror(errno));
	}
	self[n] = 0;
	snprintf(path, sizeof(path), "%s/prf_compat_test32", dirname(self));
	argv[0] = path;
	execv(path, argv);
	err = errno;
	ksft_print_header();
	if (err == ENOENT)
		ksft_exit_skip("%s not built (no 32-bit toolchain: gcc-multilib)\n", path);
	ksft_exit_skip("32-bit programs cannot run here (%s): no compat path to test\n",
		       strerror(err));
}
