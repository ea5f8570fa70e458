/* SPDX-License-Identifier: MIT */
/*
 * The user's pipe quota (fs.pipe-user-pages-soft): every slot of every
 * pipe a user holds counts against it for as long as the pipe lives, and
 * past it each new pipe of that user gets two slots instead of sixteen,
 * so all of the user's pipelines crawl. Root is exempt, so each case runs
 * its programs as an ordinary user: fio_pipe_grow never takes the last of
 * the quota; every program gives the same output with the quota spent; a
 * crowd of copies blocked on full pipes leaves it alone; and a yes that
 * is blocked before it has shown a long stream holds no more than GNU
 * HEAD's (one pipe of 512 KiB).
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fastio/fastio.h"
#include "spawn.h"

#define MIB	   ((size_t)1 << 20)
#define INPUT_LINE "line %u\tof\001the input\n"

/* A user of the test's own, from the pid: no other test's pipes count. */
static uid_t
own_user(unsigned base)
{
	return base + (uid_t)getpid() % 1000000u;
}

static int
become(uid_t uid)
{
	return setgroups(0, NULL) < 0 || setgid(uid) < 0 || setuid(uid) < 0 ? -1
									    : 0;
}

/*
 * Growing a pipe never takes the last of its user's soft pipe quota
 * (root has none: the child becomes a user of its own). With the quota
 * spent to within one pipe of 1 MiB, a growth to 1 MiB would leave the
 * user's next pipe two slots: it is undone, and the size in effect is
 * the old one; a growth to 256 KiB leaves room, and stays.
 */
START_TEST(pipe_grow_leaves_quota)
{
	uid_t uid = own_user(3100000000u);
	long page = sysconf(_SC_PAGESIZE);
	int p[2], held[2048], n = 0, status;
	pid_t pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		if (become(uid) < 0)
			_exit(2);
		/* Pipes of 1 MiB until a new one gets two slots. */
		for (;;) {
			if (n + 2 > 2048 || pipe(held + n) < 0)
				_exit(3);
			if (fcntl(held[n + 1], F_GETPIPE_SZ) <= 2 * page)
				break;
			if (fcntl(held[n + 1], F_SETPIPE_SZ, 1 << 20) < 0)
				_exit(4);
			n += 2;
		}
		close(held[n]);
		close(held[n + 1]);
		/* One back: room for a new pipe and one growth to 1 MiB. */
		n -= 2;
		close(held[n]);
		close(held[n + 1]);
		if (pipe(p) < 0 || fcntl(p[1], F_GETPIPE_SZ) != 16 * page)
			_exit(5);
		if (fio_pipe_grow(p[1], 1 << 20) != (size_t)(16 * page) ||
		    fcntl(p[1], F_GETPIPE_SZ) != 16 * page)
			_exit(6);
		if (fio_pipe_grow(p[1], 256 << 10) != 256 << 10)
			_exit(7);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the child failed at step %d", WEXITSTATUS(status));
}
END_TEST

/*
 * The user's soft pipe quota spent (as nobody: root has none): every pipe
 * a program makes starts with two slots, and none can grow. Every
 * strategy still gives the output it gives with the quota free. (A
 * failing F_SETPIPE_SZ needs fs.pipe-user-pages-hard, a global setting a
 * test should not change: the fault matrix fails it with EPERM and EBUSY.)
 */
static const struct {
	const char *prog, *args[3], *env;
} quota_cases[] = {
    {"cat", {"@"}, NULL},
    {"cat", {"@"}, "FASTIO_DISABLE=splice"},
    {"cat", {"-n", "@"}, NULL},
    {"cat", {"-n", "@"}, "FASTIO_FORCE=thread"},
    {"cat", {"-"}, NULL},
    {"cat", {"-"}, "FASTIO_DISABLE=splice"},
    {"yes", {NULL}, NULL},
    {"yes", {"longer line"}, NULL},
    {"yes", {NULL}, "FASTIO_DISABLE=pages"},
    {"yes", {NULL}, "FASTIO_DISABLE=tee"},
    {"yes", {NULL}, "FASTIO_DISABLE=all"},
    {"pipebench", {"-Q"}, NULL},
    {"pipebench", {"-Q", "--touch"}, NULL},
};
#define NQUOTA (int)(sizeof quota_cases / sizeof quota_cases[0])

START_TEST(pipe_quota)
{
	const char *argv[5] = {quota_cases[_i].prog};
	const char *env[2] = {quota_cases[_i].env, NULL};
	struct spawn s = {0};
	struct spawn_result r, good;
	char *data = spawn_lines(3 * MIB, INPUT_LINE);
	char *path = spawn_temp_path(data, 3 * MIB);

	spawn_with_args(argv, quota_cases[_i].args, 3, path);
	ck_assert_int_eq(chmod(path, 0644), 0);
	spawn_init(&s, quota_cases[_i].prog, argv, env, OUT_PIPE);
	spawn_feed(&s, IN_PIPE, data, 3 * MIB);
	s.out_max = strcmp(quota_cases[_i].prog, "yes") == 0 ? 4 * MIB : 0;
	s.uid = 65534;
	ck_assert_int_eq(spawn_run(&s, &good), 0);
	s.spend_pipe_quota = 1;
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_uint_eq(r.out_len, good.out_len);
	ck_assert(memcmp(r.out, good.out, r.out_len) == 0);
	if (s.out_max) { /* yes */
		ck_assert_msg(r.signaled && r.signal == SIGPIPE, "status %d",
			      r.status);
	} else {
		ck_assert_msg(r.exited && r.status == 0, "status %d: %s",
			      r.status, r.err);
		ck_assert_str_eq(r.err, good.err);
	}
	spawn_free(&r);
	spawn_free(&good);
	unlink(path);
	free(path);
	free(data);
}
END_TEST

/*
 * Many copies at once, as one ordinary user, each stopped by a full pipe
 * that nobody reads (`cat BIG | sleep`, `yes | sleep`): the pipe slots
 * they hold count against the user's soft pipe quota, and must leave a
 * new pipe of that user its default sixteen. A cat that grew its output
 * pipe and its private one to 1 MiB each failed at 32 copies, GNU HEAD's
 * (512 KiB each) fails at 64, and a yes holding three pipes of 1 MiB
 * failed at 32. The user is one of its own (from the pid), so that no
 * other test's pipes count.
 */
static const struct {
	const char *prog;
	int copies;
} crowds[] = {
    {"cat", 64},
    {"yes", 32},
};
#define CROWD_FILE (8 * MIB)
#define CROWD_MAX  64

/*
 * Wait until pid has filled the pipe whose read end is fd: it has grown
 * what it grows once its pipe is full, and waits there (a full pipe of
 * tee's slots may hold less than its size: a slot holds a page's whole
 * patterns, so within a 64th of it counts). A program that ended instead
 * fails the child (status 5). A pipe has no "full" event: it looks again
 * and again; no timing is asserted.
 */
static void
wait_full(int fd, pid_t pid)
{
	int queued, cap, status;

	for (;;) {
		cap = fcntl(fd, F_GETPIPE_SZ);
		if (ioctl(fd, FIONREAD, &queued) < 0 || cap <= 0)
			_exit(4);
		if (queued >= cap - cap / 64)
			return;
		if (waitpid(pid, &status, WNOHANG) == pid)
			_exit(5);
		usleep(100);
	}
}

/* The child, as uid: the crowd, then a new pipe's size to report. */
static _Noreturn void
crowd(int report, const char *exe, const char *file, int copies, uid_t uid)
{
	int out[CROWD_MAX], i, p[2], size = -1, status;
	pid_t pids[CROWD_MAX];

	if (become(uid) < 0)
		_exit(2);
	for (i = 0; i < copies; i++) {
		if (pipe(p) < 0)
			_exit(3);
		pids[i] = fork();
		if (pids[i] == 0) {
			dup2(p[1], STDOUT_FILENO);
			close(p[0]);
			close(p[1]);
			execl(exe, exe, file, (char *)NULL);
			_exit(127);
		}
		close(p[1]);
		out[i] = p[0];
	}
	for (i = 0; i < copies; i++)
		wait_full(out[i], pids[i]);
	if (pipe(p) == 0)
		size = fcntl(p[1], F_GETPIPE_SZ);
	for (i = 0; i < copies; i++) {
		kill(pids[i], SIGKILL);
		close(out[i]);
		waitpid(pids[i], &status, 0);
	}
	_exit(write(report, &size, sizeof size) == sizeof size ? 0 : 6);
}

START_TEST(quota_many)
{
	char *data = spawn_lines(CROWD_FILE, INPUT_LINE),
	     *path = spawn_temp_path(data, CROWD_FILE);
	const char *exe = spawn_path_as_other(crowds[_i].prog);
	uid_t uid = own_user(3000000000u);
	long page = sysconf(_SC_PAGESIZE);
	int report[2], size = 0, status;
	pid_t pid;

	ck_assert_ptr_nonnull(exe);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(pipe(report), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(report[0]);
		crowd(report[1], exe,
		      strcmp(crowds[_i].prog, "cat") == 0 ? path : "y",
		      crowds[_i].copies, uid);
	}
	close(report[1]);
	ck_assert_int_eq(read(report[0], &size, sizeof size), sizeof size);
	close(report[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the crowd's child: status %#x", status);
	ck_assert_msg(size == 16 * page,
		      "%d concurrent %s: a new pipe of their user holds %d "
		      "bytes, not %ld",
		      crowds[_i].copies, crowds[_i].prog, size, 16 * page);
	unlink(path);
	free(path);
	free(data);
}
END_TEST

static long
proc_long(const char *path)
{
	long v = -1;
	FILE *f = fopen(path, "re");

	if (f != NULL) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * Hold pipes of pages slots in all, each a power of two up to max (they
 * stay open until the process exits); -1 if the kernel would not.
 */
static int
hold_pages(long pages, long page, long max)
{
	int p[2];
	long k;

	while (pages > 0) {
		for (k = max; k > pages; k /= 2)
			;
		if (pipe(p) < 0 ||
		    fcntl(p[1], F_SETPIPE_SZ, k * page) != k * page)
			return -1;
		pages -= k;
	}
	return 0;
}

/* A new pipe's size; the pipe is closed again. */
static int
new_pipe_size(void)
{
	int p[2], size;

	if (pipe(p) < 0)
		return -1;
	size = fcntl(p[1], F_GETPIPE_SZ);
	close(p[0]);
	close(p[1]);
	return size;
}

/*
 * A yes blocked on a reader that takes nothing (`yes | less` at its first
 * screen, `yes | sleep 60`, a consumer that has not started reading)
 * holds no more pipe slots, its output pipe's included, than GNU HEAD's
 * yes: its output pipe grown to 512 KiB. The user's quota is spent to
 * exactly that much and one new pipe short of the soft limit (a
 * calibration first shows that one slot more gives the new pipe two
 * slots); the new pipe made once yes has filled its own keeps sixteen
 * only if yes held no more. The report: that pipe's size, or a step
 * that failed (negative).
 */
static const char *const blocked_args[] = {NULL, "longer line"};

static _Noreturn void
blocked(int report, const char *exe, const char *arg, uid_t uid)
{
	long page = sysconf(_SC_PAGESIZE), soft, max, limit;
	int out[2], size = -1;
	pid_t pid;

	soft = proc_long("/proc/sys/fs/pipe-user-pages-soft");
	max = proc_long("/proc/sys/fs/pipe-max-size") / page;
	limit = (long)(512 << 10) / page;
	if (become(uid) < 0 || soft <= 16 + limit || max < 1)
		_exit(2);
	if (hold_pages(soft - 16 - limit, page, max) < 0)
		_exit(3);
	/* Calibration: limit + 1 slots more, and a new pipe gets two. */
	if (new_pipe_size() != 16 * page || pipe(out) < 0 ||
	    fcntl(out[1], F_SETPIPE_SZ, limit * page) != limit * page)
		_exit(6);
	{
		int one[2];

		if (pipe(one) < 0 ||
		    fcntl(one[1], F_SETPIPE_SZ, page) != page ||
		    new_pipe_size() != 2 * page)
			_exit(7);
		close(one[0]);
		close(one[1]);
	}
	close(out[0]);
	close(out[1]);
	if (pipe(out) < 0)
		_exit(8);
	pid = fork();
	if (pid == 0) {
		dup2(out[1], STDOUT_FILENO);
		close(out[0]);
		close(out[1]);
		execl(exe, "yes", arg, (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	if (pid < 0)
		_exit(9);
	wait_full(out[0], pid);
	size = new_pipe_size();
	kill(pid, SIGKILL);
	close(out[0]);
	waitpid(pid, NULL, 0);
	_exit(write(report, &size, sizeof size) == sizeof size ? 0 : 10);
}

START_TEST(blocked_yes)
{
	const char *exe = spawn_path_as_other("yes");
	long page = sysconf(_SC_PAGESIZE);
	int report[2], size = 0, status;
	pid_t pid;

	ck_assert_ptr_nonnull(exe);
	ck_assert_int_eq(pipe(report), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(report[0]);
		blocked(report[1], exe, blocked_args[_i],
			own_user(3200000000u));
	}
	close(report[1]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the blocked yes's child: status %#x", status);
	ck_assert_int_eq(read(report[0], &size, sizeof size), sizeof size);
	close(report[0]);
	ck_assert_msg(size == 16 * page,
		      "a yes blocked on its reader holds more than 512 KiB of "
		      "pipes: a new pipe of its user holds %d bytes, not %ld",
		      size, 16 * page);
}
END_TEST

static spawn_need *const root[] = {spawn_need_root, NULL};

static Suite *
quota_suite(void)
{
	Suite *s = suite_create("quota");

	suite_add_needing(s, "grow", pipe_grow_leaves_quota, 1, root);
	suite_add_needing(s, "spent", pipe_quota, NQUOTA, root);
	suite_add_needing(s, "crowd", quota_many, 2, root);
	suite_add_needing(s, "blocked", blocked_yes, 2, root);
	return s;
}

int
main(void)
{
	return suite_main(quota_suite());
}
