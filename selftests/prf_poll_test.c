// SPDX-License-Identifier: GPL-2.0
/*
 * prf_poll_test - prf(7): "select always returns READY for both read and
 * write operations"; uapi: poll(2)/select(2) always report readable and
 * writable, loaded or not, ON or OFF.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/select.h>

#include "prf_fixture.h"

PRF_FIXTURE(poll);

static void load(struct __test_metadata *_metadata, int fd)
{
	__u64 *t = prf_make_table(5, 0xffffffff81000000ULL, 0x40);

	ASSERT_EQ(0, prf_load(fd, t, 5));
	free(t);
}

static void poll_ready(struct __test_metadata *_metadata, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };

	ASSERT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLIN | POLLOUT, p.revents & (POLLIN | POLLOUT));
	EXPECT_EQ(0, p.revents & (POLLERR | POLLHUP | POLLNVAL));
}

static void select_ready(struct __test_metadata *_metadata, int fd)
{
	struct timeval tv = { 0, 0 };
	fd_set r, w;

	FD_ZERO(&r);
	FD_ZERO(&w);
	FD_SET(fd, &r);
	FD_SET(fd, &w);
	ASSERT_EQ(2, select(fd + 1, &r, &w, NULL, &tv));
	EXPECT_TRUE(FD_ISSET(fd, &r));
	EXPECT_TRUE(FD_ISSET(fd, &w));
}

enum state { UNLOADED, LOADED_OFF, ON };

/* Bring @fd (unloaded, as the fixture leaves it) to @state. */
static void enter(struct __test_metadata *_metadata, int fd, enum state state)
{
	if (state == UNLOADED)
		return;
	load(_metadata, fd);
	if (state == ON)
		ASSERT_EQ(0, prf_on(fd));
}

/* TEST_F(poll, name): in @state, @check (poll_ready or select_ready) holds. */
#define READY_TEST(name, state, check)					\
	TEST_F(poll, name)						\
	{								\
		enter(_metadata, self->fd, state);			\
		check(_metadata, self->fd);				\
	}

READY_TEST(poll_ready_unloaded, UNLOADED, poll_ready)
READY_TEST(poll_ready_loaded_off, LOADED_OFF, poll_ready)
READY_TEST(poll_ready_on, ON, poll_ready)

TEST_F(poll, poll_ready_cpu_minor)
{
	PRF_NEED_CPU(0);
	poll_ready(_metadata, self->cpu[0]);
}

TEST_F(poll, poll_in_only_reports_in)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN };

	ASSERT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLIN, p.revents & (POLLIN | POLLOUT));
}

TEST_F(poll, poll_out_only_reports_out)
{
	struct pollfd p = { .fd = self->fd, .events = POLLOUT };

	ASSERT_EQ(1, poll(&p, 1, 0));
	EXPECT_EQ(POLLOUT, p.revents & (POLLIN | POLLOUT));
}

TEST_F(poll, poll_with_infinite_timeout_returns_at_once)
{
	struct pollfd p = { .fd = self->fd, .events = POLLIN | POLLOUT };
	double t0 = prf_now();

	ASSERT_EQ(1, poll(&p, 1, -1));
	EXPECT_GT(1.0, prf_now() - t0);
}

READY_TEST(select_ready_unloaded, UNLOADED, select_ready)
READY_TEST(select_ready_loaded_off, LOADED_OFF, select_ready)
READY_TEST(select_ready_on, ON, select_ready)

TEST_F(poll, epoll_ready)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT }, out;
	int ep = epoll_create1(EPOLL_CLOEXEC);

	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ev));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 0));
	EXPECT_EQ(EPOLLIN | EPOLLOUT, out.events & (EPOLLIN | EPOLLOUT));
	close(ep);
}

TEST_HARNESS_MAIN
