// SPDX-License-Identifier: GPL-2.0
/*
 * prf_lockdown_test - uapi: opening is refused with EPERM under kernel
 * lockdown (confidentiality), even for root with every capability.
 *
 * Lockdown cannot be lifted until reboot, and an unsigned prf.ko cannot be
 * loaded once the kernel is locked down, so this program only runs when
 * the kernel already is in confidentiality mode or when asked to lock it
 * (PRF_LOCKDOWN=1, which makes the rest of that boot locked: run it alone,
 * `selftests/vm/run -- env PRF_LOCKDOWN=1 selftests/prf_lockdown_test`).
 * Otherwise it reports SKIP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prf_fixture.h"

#define LOCKDOWN "/sys/kernel/security/lockdown"

FIXTURE(lockdown) {
	double t0;		/* prf_now() at set-up */
};

FIXTURE_SETUP(lockdown)
{
	char buf[128];
	const char *ask = getenv("PRF_LOCKDOWN");

	self->t0 = prf_now();
	if (prf_read_file(LOCKDOWN, buf, sizeof(buf)) < 0)
		SKIP(return, "no %s (no lockdown LSM)", LOCKDOWN);
	if (strstr(buf, "[confidentiality]"))
		return;
	if (!ask || strcmp(ask, "1"))
		SKIP(return, "not locked down; PRF_LOCKDOWN=1 locks this boot");
	ASSERT_EQ(0, prf_write_file(LOCKDOWN, "confidentiality"));
	ASSERT_LT(0, prf_read_file(LOCKDOWN, buf, sizeof(buf)));
	ASSERT_NE(NULL, strstr(buf, "[confidentiality]"));
}

FIXTURE_TEARDOWN(lockdown)
{
	prf_fixture_time(_metadata, self->t0);
}

TEST_F(lockdown, open_all_cpus_device_eperm)
{
	EXPECT_EQ(-EPERM, prf_open(PRF_ALL, O_RDWR));
	EXPECT_EQ(-EPERM, prf_open(PRF_ALL, O_RDONLY));
}

TEST_F(lockdown, open_cpu_device_eperm)
{
	EXPECT_EQ(-EPERM, prf_open(0, O_RDWR));
}

TEST_HARNESS_MAIN
