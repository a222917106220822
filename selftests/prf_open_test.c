// SPDX-License-Identifier: GPL-2.0
/*
 * prf_open_test - device nodes, minors, open/close, access control.
 *
 * prf(7): minor 255 profiles all processors, minor N processor N, "any
 * other minor device number is illegal"; open and close behave as for an
 * ordinary disk file.  uapi: opening needs CAP_PERFMON or CAP_SYS_ADMIN
 * (EPERM otherwise); a minor with no CPU behind it fails with ENXIO.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "prf_fixture.h"

PRF_FIXTURE(open);

static const __u64 table5[] = {
	0xffffffff81000000ULL, 0xffffffff81000100ULL, 0xffffffff81000200ULL,
	0xffffffff81000300ULL, 0xffffffff81000400ULL,
};

TEST_F(open, all_cpus_device_is_char_minor_255)
{
	struct stat st;

	ASSERT_EQ(0, stat(PRF_DEVICE, &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(PRF_ALL_MINOR, minor(st.st_rdev));
}

TEST_F(open, cpu_device_minor_is_its_cpu)
{
	dev_t all = prf_rdev(PRF_ALL);
	int cpu;

	ASSERT_NE(0, all);
	for (cpu = 0; cpu < self->ncpus; cpu++) {
		char path[32];
		struct stat st;

		prf_dev_path(cpu, path, sizeof(path));
		ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s missing", path);
		ASSERT_TRUE(S_ISCHR(st.st_mode));
		EXPECT_EQ(prf_cpu_minor(cpu), minor(st.st_rdev)) TH_LOG("%s", path);
		EXPECT_EQ(major(all), major(st.st_rdev)) TH_LOG("%s", path);
	}
}

TEST_F(open, no_device_beyond_possible_cpus)
{
	char path[32];

	EXPECT_NE(0, access(prf_dev_path(self->ncpus, path, sizeof(path)),
			    F_OK)) TH_LOG("%s exists", path);
}

TEST_F(open, nodes_are_root_mode_0600)
{
	int cpu;

	for (cpu = PRF_ALL; cpu < self->ncpus; cpu++) {
		char path[32];
		struct stat st;

		ASSERT_EQ(0, stat(prf_dev_path(cpu, path, sizeof(path)), &st));
		EXPECT_EQ(0600, st.st_mode & 07777) TH_LOG("%s mode %o", path,
							   st.st_mode & 07777);
		EXPECT_EQ(0, st.st_uid) TH_LOG("%s", path);
	}
}

/* Open a node made with mknod for @minor: 0 or -errno. */
static int open_minor(unsigned int mnr, char *path, size_t len)
{
	dev_t all = prf_rdev(PRF_ALL);
	int fd, r;

	r = prf_mknod(makedev(major(all), mnr), 0600, path, len);
	if (r)
		return r;
	fd = open(path, O_RDWR);
	r = fd < 0 ? -errno : 0;
	if (fd >= 0)
		close(fd);
	unlink(path);
	return r;
}

TEST_F(open, minor_200_without_cpu_enxio)
{
	char path[64];

	if (self->ncpus > 200)
		SKIP(return, "CPU 200 exists");
	EXPECT_EQ(-ENXIO, open_minor(200, path, sizeof(path)));
}

TEST_F(open, minor_254_without_cpu_enxio)
{
	char path[64];

	if (self->ncpus > 254)
		SKIP(return, "CPU 254 exists");
	EXPECT_EQ(-ENXIO, open_minor(254, path, sizeof(path)));
}

TEST_F(open, first_minor_past_last_cpu_enxio)
{
	char path[64];

	EXPECT_EQ(-ENXIO, open_minor(prf_cpu_minor(self->ncpus), path,
				     sizeof(path)));
}

TEST_F(open, mknod_node_reaches_the_same_instance)
{
	dev_t all = prf_rdev(PRF_ALL);
	char path[64];
	int fd;

	ASSERT_EQ(0, prf_mknod(makedev(major(all), prf_cpu_minor(0)), 0600,
			       path, sizeof(path)));
	fd = open(path, O_RDWR);
	unlink(path);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, prf_load(fd, table5, 5));
	close(fd);
	EXPECT_EQ(5, prf_size(self->cpu[0]));
	EXPECT_EQ(0, prf_size(self->fd));
}

TEST_F(open, opens_for_read_write_and_both)
{
	int r = open(PRF_DEVICE, O_RDONLY), w = open(PRF_DEVICE, O_WRONLY);
	int rw = open(PRF_DEVICE, O_RDWR);

	EXPECT_LE(0, r);
	EXPECT_LE(0, w);
	EXPECT_LE(0, rw);
	EXPECT_EQ(0, close(r));
	EXPECT_EQ(0, close(w));
	EXPECT_EQ(0, close(rw));
}

TEST_F(open, many_opens_at_once)
{
	int fds[16], i;

	for (i = 0; i < 16; i++) {
		fds[i] = prf_open(i & 1 ? PRF_ALL : 0, O_RDWR);
		ASSERT_LE(0, fds[i]) TH_LOG("open %d: %s", i, strerror(-fds[i]));
	}
	for (i = 0; i < 16; i++)
		EXPECT_EQ(0, close(fds[i]));
}

TEST_F(open, state_survives_close_and_reopen)
{
	struct prf_snap s;
	int fd = prf_open(PRF_ALL, O_RDWR);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, prf_load(fd, table5, 5));
	ASSERT_EQ(0, prf_on(fd));
	ASSERT_EQ(0, close(fd));

	fd = prf_open(PRF_ALL, O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(fd));
	EXPECT_EQ(5, prf_size(fd));
	ASSERT_EQ(0, prf_snap(fd, &s));
	EXPECT_EQ(0, memcmp(s.addrs, table5, sizeof(table5)));
	prf_snap_free(&s);
	close(fd);
}

TEST_F(open, fds_of_one_minor_share_the_instance)
{
	int fd = prf_open(PRF_ALL, O_RDWR);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, prf_load(fd, table5, 5));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_EQ(5, prf_size(self->fd));
	ASSERT_EQ(0, prf_on(self->fd));
	EXPECT_EQ(PRF_STATUS_ON | PRF_STATUS_LOADED, prf_status(fd));
	close(fd);
}

TEST_F(open, write_on_read_only_fd_ebadf)
{
	int fd = open(PRF_DEVICE, O_RDONLY);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, write(fd, table5, sizeof(table5)));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(0, prf_status(fd));
	close(fd);
}

TEST_F(open, read_on_write_only_fd_ebadf)
{
	__u64 buf[12];
	int fd = open(PRF_DEVICE, O_WRONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, prf_load(fd, table5, 5));
	EXPECT_EQ(-1, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(EBADF, errno);
	close(fd);
}

TEST_F(open, ioctl_works_on_read_only_fd)
{
	int fd = open(PRF_DEVICE, O_RDONLY);

	ASSERT_LE(0, fd);
	EXPECT_EQ(0, prf_status(fd));
	EXPECT_LE(PRF_MIN_ADDRS, prf_max(fd));
	close(fd);
}

TEST_F(open, lseek_succeeds)
{
	EXPECT_LE(0, lseek(self->fd, 0, SEEK_SET));
	EXPECT_LE(0, lseek(self->fd, 4096, SEEK_SET));
	EXPECT_LE(0, lseek(self->fd, 8, SEEK_CUR));
	EXPECT_LE(0, lseek(self->fd, 0, SEEK_END));
}

/* ---- access control ------------------------------------------------------ */

#define NOBODY 65534

/*
 * open(2) of a 0666 node for @cpu's minor, so that only the driver can say
 * no, by nobody keeping only the capabilities in @keep: 0 or the errno
 * (prf_open_as()).
 */
static int open_as_nobody(struct __test_metadata *_metadata, int cpu,
			  __u64 keep)
{
	dev_t rdev = makedev(major(prf_rdev(PRF_ALL)), prf_minor(cpu));
	char path[64];
	int r;

	ASSERT_EQ(0, prf_mknod(rdev, 0666, path, sizeof(path)));
	r = prf_open_as(path, NOBODY, keep);
	unlink(path);
	return r;
}

TEST_F(open, unprivileged_open_eperm)
{
	EXPECT_EQ(EPERM, open_as_nobody(_metadata, PRF_ALL, 0));
}

TEST_F(open, unprivileged_open_of_cpu_minor_eperm)
{
	EXPECT_EQ(EPERM, open_as_nobody(_metadata, 0, 0));
}

TEST_F(open, root_without_perfmon_and_sys_admin_eperm)
{
	__u64 all = (1ULL << (CAP_LAST_CAP + 1)) - 1;

	EXPECT_EQ(EPERM, prf_open_as(PRF_DEVICE, -1,
				     all & ~PRF_CAP(CAP_PERFMON) &
				     ~PRF_CAP(CAP_SYS_ADMIN)));
}

TEST_F(open, cap_perfmon_alone_may_open)
{
	EXPECT_EQ(0, open_as_nobody(_metadata, PRF_ALL, PRF_CAP(CAP_PERFMON)));
}

TEST_F(open, cap_sys_admin_alone_may_open)
{
	EXPECT_EQ(0, open_as_nobody(_metadata, PRF_ALL,
				    PRF_CAP(CAP_SYS_ADMIN)));
}

TEST_F(open, mode_0600_keeps_others_out)
{
	/* The node itself: the file mode refuses before the driver is asked. */
	EXPECT_EQ(EACCES, prf_open_as(PRF_DEVICE, NOBODY, 0));
}

TEST_F(open, refused_open_leaves_state_alone)
{
	ASSERT_EQ(0, prf_load(self->fd, table5, 5));
	EXPECT_EQ(EPERM, open_as_nobody(_metadata, PRF_ALL, 0));
	EXPECT_EQ(PRF_STATUS_LOADED, prf_status(self->fd));
	EXPECT_EQ(5, prf_size(self->fd));
}

/*
 * The mode udev/60-prf.rules gives the nodes (group "prf"), read from the
 * rules file of the work tree (found from this source file's path, which
 * is the same in every guest, whatever directory the programs were built
 * into): the octal mode, or -errno.
 */
static int rules_mode(void)
{
	char path[4096], line[512], *p;
	FILE *f;
	int mode = -ENOENT;

	snprintf(path, sizeof(path) - 32, "%s", __FILE__);
	p = strrchr(path, '/');
	strcpy(p ? p : path, "/../udev/60-prf.rules");
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && strstr(line, "GROUP=\"prf\"") &&
		    (p = strstr(line, "MODE=\"")))
			mode = strtol(p + 6, NULL, 8);
	fclose(f);
	return mode;
}

#define PRF_GID	4711	/* the group "prf" of the test: any unused gid */

/*
 * The udev rule opens the nodes to a group; the module still asks for
 * CAP_PERFMON.  There is no udev in the guest: the test gives a node of
 * /dev/prf's minor the rule's group and mode by hand.
 */
TEST_F(open, group_prf_needs_cap_perfmon_too)
{
	dev_t rdev = prf_rdev(PRF_ALL);
	int mode = rules_mode();
	char path[64];

	ASSERT_LT(0, mode) TH_LOG("udev/60-prf.rules: %s", strerror(-mode));
	EXPECT_EQ(0660, mode);
	ASSERT_EQ(0, prf_mknod(rdev, mode, path, sizeof(path)));
	ASSERT_EQ(0, chown(path, 0, PRF_GID));
	ASSERT_EQ(0, chmod(path, mode));
	/* a member without CAP_PERFMON: the module refuses */
	EXPECT_EQ(EPERM, prf_open_as_member(path, NOBODY, PRF_GID, 0));
	/* a member with it (and nothing else) gets in */
	EXPECT_EQ(0, prf_open_as_member(path, NOBODY, PRF_GID,
					PRF_CAP(CAP_PERFMON)));
	/* not a member: the mode refuses, whatever the capability */
	EXPECT_EQ(EACCES, prf_open_as_member(path, NOBODY, -1,
					     PRF_CAP(CAP_PERFMON)));
	unlink(path);
}

TEST_HARNESS_MAIN
