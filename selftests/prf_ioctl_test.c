// SPDX-License-Identifier: GPL-2.0
/*
 * prf_ioctl_test - the four prf(7) ioctls.
 *
 * prf(7): PRF_GETSTATUS (bit 0 ON, bit 1 LOADED; three states only, never
 * ON without LOADED), PRF_GETSIZE, PRF_SETSTATE (low bit of arg; no effect
 * when not loaded), PRF_GETMAX; any other command fails with EINVAL.  uapi:
 * the getters store an int at arg (EFAULT if they cannot), SETSTATE takes
 * arg by value, GETSIZE is 0 when unloaded, max defaults to 1048576.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>
#include <sys/mman.h>

#include "prf_fixture.h"

PRF_FIXTURE(ioctl);

#define BASE	0xffffffff81000000ULL
#define PRF_DEFAULT_MAX	1048576

static void load(struct __test_metadata *_metadata, int fd, size_t n)
{
	__u64 *t = prf_make_table(n, BASE, 0x40);

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, prf_load(fd, t, n));
	free(t);
}

/* ---- PRF_GETSTATUS ------------------------------------------------------- */

TEST_F(ioctl, status_unloaded_is_0)
{
	EXPECT_EQ(0, prf_status(self->fd));
}

TEST_F(ioctl, status_loaded_off_is_loaded_bit)
{
	load(_metadata, self->fd, 5);
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
}

TEST_F(ioctl, status_on_is_both_bits)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->fd));
}

TEST_F(ioctl, status_walks_the_three_states)
{
	static const int want[] = { 0, 2, 3, 2, 3, 0 };
	int seen[6];

	seen[0] = prf_status(self->fd);
	load(_metadata, self->fd, 5);
	seen[1] = prf_status(self->fd);
	ASSERT_EQ(0, prf_on(self->fd));
	seen[2] = prf_status(self->fd);
	ASSERT_EQ(0, prf_off(self->fd));
	seen[3] = prf_status(self->fd);
	ASSERT_EQ(0, prf_on(self->fd));
	seen[4] = prf_status(self->fd);
	ASSERT_EQ(0, prf_unload(self->fd));
	seen[5] = prf_status(self->fd);
	EXPECT_EQ(0, memcmp(want, seen, sizeof(want)));
}

TEST_F(ioctl, never_on_without_loaded)
{
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(0, prf_status(self->fd));
	ASSERT_EQ(0, prf_set_state(self->fd, ~0UL));
	EXPECT_EQ(0, prf_status(self->fd));
}

TEST_F(ioctl, status_of_each_minor_is_its_own)
{
	PRF_NEED_CPU(0);
	load(_metadata, self->cpu[0], 5);
	ASSERT_EQ(0, prf_on(self->cpu[0]));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(self->cpu[0]));
	EXPECT_EQ(0, prf_status(self->fd));
}

/* ---- PRF_SETSTATE -------------------------------------------------------- */

TEST_F(ioctl, setstate_unloaded_succeeds_without_effect)
{
	EXPECT_EQ(0, prf_set_state(self->fd, 1));
	EXPECT_EQ(0, prf_status(self->fd));
	EXPECT_EQ(0, prf_set_state(self->fd, 0));
	EXPECT_EQ(0, prf_status(self->fd));
	EXPECT_EQ(0, prf_size(self->fd));
}

TEST_F(ioctl, setstate_arg_by_value_bit0_on)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_state(self->fd, 1));
	EXPECT_EQ(3, prf_status(self->fd));
}

TEST_F(ioctl, setstate_arg_by_value_bit0_clear_off)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	ASSERT_EQ(0, prf_set_state(self->fd, 0));
	EXPECT_EQ(2, prf_status(self->fd));
}

TEST_F(ioctl, setstate_ignores_other_bits)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_set_state(self->fd, 3));
	EXPECT_EQ(3, prf_status(self->fd));
	ASSERT_EQ(0, prf_set_state(self->fd, 2));
	EXPECT_EQ(2, prf_status(self->fd));
	ASSERT_EQ(0, prf_set_state(self->fd, 0xfffffff1UL));
	EXPECT_EQ(3, prf_status(self->fd));
	ASSERT_EQ(0, prf_set_state(self->fd, ~1UL));
	EXPECT_EQ(2, prf_status(self->fd));
}

TEST_F(ioctl, setstate_arg_is_not_dereferenced)
{
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	load(_metadata, self->fd, 5);
	/* an address with bit 0 set: ON, and no EFAULT */
	EXPECT_EQ(0, prf_set_state(self->fd, (unsigned long)p + 1));
	EXPECT_EQ(3, prf_status(self->fd));
	EXPECT_EQ(0, prf_set_state(self->fd, (unsigned long)p));
	EXPECT_EQ(2, prf_status(self->fd));
	munmap(p, 4096);
}

TEST_F(ioctl, setstate_repeated_is_idempotent)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(3, prf_status(self->fd));
	ASSERT_EQ(0, prf_off(self->fd));
	EXPECT_EQ(0, prf_off(self->fd));
	EXPECT_EQ(2, prf_status(self->fd));
}

TEST_F(ioctl, setstate_off_keeps_table)
{
	struct prf_snap s;

	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	ASSERT_EQ(0, prf_off(self->fd));
	EXPECT_EQ(5, prf_size(self->fd));
	ASSERT_EQ(0, prf_snap(self->fd, &s));
	EXPECT_EQ(BASE, s.addrs[0]);
	prf_snap_free(&s);
}

/* ---- PRF_GETSIZE / PRF_GETMAX -------------------------------------------- */

TEST_F(ioctl, getsize_unloaded_is_0)
{
	EXPECT_EQ(0, prf_size(self->fd));
}

TEST_F(ioctl, getsize_is_number_loaded)
{
	load(_metadata, self->fd, 3);
	EXPECT_EQ(3, prf_size(self->fd));
	load(_metadata, self->fd, 4321);
	EXPECT_EQ(4321, prf_size(self->fd));
}

TEST_F(ioctl, getsize_unchanged_by_on)
{
	load(_metadata, self->fd, 17);
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(17, prf_size(self->fd));
}

TEST_F(ioctl, getsize_back_to_0_after_einval)
{
	load(_metadata, self->fd, 17);
	ASSERT_EQ(0, prf_unload(self->fd));
	EXPECT_EQ(0, prf_size(self->fd));
}

TEST_F(ioctl, getmax_is_at_least_default)
{
	EXPECT_LE(PRF_DEFAULT_MAX, prf_max(self->fd));
}

TEST_F(ioctl, getmax_same_on_every_minor_and_state)
{
	int max = prf_max(self->fd), cpu;

	for (cpu = 0; cpu < self->ncpus && cpu < PRF_FIXTURE_CPUS; cpu++)
		EXPECT_EQ(max, prf_max(self->cpu[cpu])) TH_LOG("cpu %d", cpu);
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(max, prf_max(self->fd));
}

/* ---- bad arguments ------------------------------------------------------- */

static void getters_efault(struct __test_metadata *_metadata, int fd)
{
	static const unsigned long cmds[] = {
		PRF_GETSTATUS, PRF_GETSIZE, PRF_GETMAX,
	};
	void *none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	size_t i;

	ASSERT_NE(MAP_FAILED, none);
	ASSERT_NE(MAP_FAILED, ro);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, cmds[i], NULL)) TH_LOG("cmd %zu", i);
		EXPECT_EQ(EFAULT, errno) TH_LOG("cmd %zu NULL", i);
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, cmds[i], none)) TH_LOG("cmd %zu", i);
		EXPECT_EQ(EFAULT, errno) TH_LOG("cmd %zu PROT_NONE", i);
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, cmds[i], ro)) TH_LOG("cmd %zu", i);
		EXPECT_EQ(EFAULT, errno) TH_LOG("cmd %zu PROT_READ", i);
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, cmds[i], (void *)(unsigned long)BASE));
		EXPECT_EQ(EFAULT, errno) TH_LOG("cmd %zu kernel address", i);
	}
	munmap(none, 4096);
	munmap(ro, 4096);
}

TEST_F(ioctl, getters_bad_pointer_efault_unloaded)
{
	getters_efault(_metadata, self->fd);
	EXPECT_EQ(0, prf_status(self->fd));
}

TEST_F(ioctl, getters_bad_pointer_efault_loaded)
{
	load(_metadata, self->fd, 5);
	getters_efault(_metadata, self->fd);
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_EQ(5, prf_size(self->fd));
}

static void unknown_einval(struct __test_metadata *_metadata, int fd)
{
	const unsigned long cmds[] = {
		_IO(PRF_IOC_MAGIC, 99), _IO(PRF_IOC_MAGIC, 0), TCGETS, 0,
		_IOR(PRF_IOC_MAGIC, 1, long),	/* GETSTATUS of the wrong size */
		_IOW(PRF_IOC_MAGIC, 3, int),	/* SETSTATE with a direction */
		_IOR('T', 1, int), 0xffffffffUL,
		_IOR(PRF_IOC_MAGIC, 11, __u32),	/* next free number */
	};
	int v = 0;
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, cmds[i], &v)) TH_LOG("cmd %#lx", cmds[i]);
		EXPECT_EQ(EINVAL, errno) TH_LOG("cmd %#lx", cmds[i]);
	}
}

TEST_F(ioctl, unknown_commands_einval_unloaded)
{
	unknown_einval(_metadata, self->fd);
	EXPECT_EQ(0, prf_status(self->fd));
}

TEST_F(ioctl, unknown_commands_einval_on_and_state_unchanged)
{
	load(_metadata, self->fd, 5);
	ASSERT_EQ(0, prf_on(self->fd));
	unknown_einval(_metadata, self->fd);
	EXPECT_EQ(3, prf_status(self->fd));
	EXPECT_EQ(5, prf_size(self->fd));
}

TEST_F(ioctl, unknown_commands_einval_on_cpu_minor)
{
	PRF_NEED_CPU(0);
	unknown_einval(_metadata, self->cpu[0]);
}

TEST_HARNESS_MAIN
