/* SPDX-License-Identifier: MIT */
/*
 * pipebench's export files (--export-csv, --export-json,
 * --export-markdown) go where the user points, as the shell's `>`
 * writes: through a symbolic link into the file it leads to, into a
 * FIFO or a device in place (never renamed over), a new file with 0666
 * less the umask, a replaced one keeping its mode; a path that cannot be
 * written refused before anything runs, with status 2 and the user's
 * name for it. Devices are only ever /dev/null as an ordinary user and a
 * pseudo-terminal: a test that went wrong as root must not replace a
 * device anyone needs.
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn.h"

/* Our yes, where spawn_path's buffer is needed again by spawn_run. */
static const char *
yes_path(void)
{
	static char path[4096];

	snprintf(path, sizeof path, "%s", spawn_path("yes"));
	return path;
}

#define CSV_HEAD "seconds,bytes,rate\n"

/* A directory of its own under /tmp, for the case's files. */
static char dir[64];

static void
make_dir(void)
{
	snprintf(dir, sizeof dir, "/tmp/fastio-export.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(chmod(dir, 0755), 0);
}

static void
remove_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static char *
in_dir(const char *name)
{
	char *p = malloc(strlen(dir) + strlen(name) + 2);

	sprintf(p, "%s/%s", dir, name);
	return p;
}

/* pipebench -q over a short stream of our yes, with option opt; uid 0:
 * ourselves. */
static void
run(const char *opt, unsigned uid, struct spawn_result *r)
{
	const char *argv[] = {"pipebench", "-q", "--bytes=1M", opt,
			      "--exec",	   "--", yes_path(),   NULL};
	struct spawn s = {0};
	char yes[4096];

	if (uid) {
		snprintf(yes, sizeof yes, "%s", spawn_path_as_other("yes"));
		argv[6] = yes;
	}
	spawn_init(&s, "pipebench", argv, NULL, OUT_DEVNULL);
	s.uid = uid;
	ck_assert_int_eq(spawn_run(&s, r), 0);
}

/* Through a symbolic link: the file it leads to, and the link stays. */
START_TEST(through_link)
{
	char *real = in_dir("real.csv"), *link = in_dir("link.csv"), opt[128],
	     target[64];
	struct spawn_result r;
	struct stat st;
	size_t len;
	char *got;

	/* A link to a file, and (_i) one to a name not yet taken. */
	if (!_i)
		close(open(real, O_WRONLY | O_CREAT, 0644));
	ck_assert_int_eq(symlink("real.csv", link), 0);
	snprintf(opt, sizeof opt, "--export-csv=%s", link);
	run(opt, 0, &r);
	ck_assert_msg(r.exited && r.status == 0, "status %d: %s", r.status,
		      r.err);
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(readlink(link, target, sizeof target), 8);
	got = spawn_slurp(real, &len);
	ck_assert(len >= strlen(CSV_HEAD) &&
		  memcmp(got, CSV_HEAD, strlen(CSV_HEAD)) == 0);
	free(got);
	spawn_free(&r);
	free(real);
	free(link);
}
END_TEST

/* A FIFO is written into, and its reader gets the file. */
START_TEST(into_fifo)
{
	char *fifo = in_dir("fifo"), opt[128], got[256];
	struct spawn_result r;
	struct stat st;
	int p[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	ck_assert_int_eq(mkfifo(fifo, 0644), 0);
	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(fifo, O_RDONLY);

		close(p[0]);
		while (fd >= 0 && (n = read(fd, got, sizeof got)) > 0)
			if (write(p[1], got, (size_t)n) != n)
				_exit(1);
		_exit(fd < 0);
	}
	close(p[1]);
	snprintf(opt, sizeof opt, "--export-csv=%s", fifo);
	run(opt, 0, &r);
	while ((n = read(p[0], got + len, sizeof got - 1 - (size_t)len)) > 0)
		len += n;
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(r.exited && r.status == 0, "status %d: %s", r.status,
		      r.err);
	ck_assert_int_eq(lstat(fifo, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	got[len] = '\0';
	ck_assert_msg(strncmp(got, CSV_HEAD, strlen(CSV_HEAD)) == 0, "'%s'",
		      got);
	spawn_free(&r);
	free(fifo);
}
END_TEST

/* New files get 0666 less the umask; a replaced one keeps its mode. */
START_TEST(modes)
{
	char *path = in_dir("out.csv"), opt[128];
	struct spawn_result r;
	struct stat st;
	mode_t old = umask(_i ? 022 : 027);

	if (_i)
		close(open(path, O_WRONLY | O_CREAT, 0604));
	snprintf(opt, sizeof opt, "--export-csv=%s", path);
	run(opt, 0, &r);
	umask(old);
	ck_assert_msg(r.exited && r.status == 0, "%s", r.err);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_msg((st.st_mode & 0777) == (_i ? 0604u : 0640u), "mode %o",
		      (unsigned)(st.st_mode & 0777));
	spawn_free(&r);
	free(path);
}
END_TEST

/*
 * A path that cannot be written: refused with status 2, under the name
 * given, before the producer runs (it would leave a file behind).
 */
START_TEST(refused_before)
{
	char *sub = in_dir("sub"), *missing = in_dir("no/such/x.csv"),
	     *ran = in_dir("ran"), opt[256], want[256], cmd[256];
	const char *path = _i == 1 ? missing : sub;
	const char *argv[] = {"pipebench", "-q", "--bytes=1M", opt,
			      "--exec",	   "--", "/bin/sh",    "-c",
			      cmd,	   NULL};
	struct spawn s = {0};
	struct spawn_result r;

	ck_assert_int_eq(mkdir(sub, 0755), 0);
	snprintf(opt, sizeof opt, "--export-%s=%s", _i == 2 ? "json" : "csv",
		 path);
	if (_i == 2)
		argv[4] = "--compare", argv[5] = cmd, argv[6] = NULL;
	snprintf(cmd, sizeof cmd, "touch %s; yes", ran);
	snprintf(want, sizeof want, "pipebench: %s: %s\n", path,
		 _i == 1 ? "No such file or directory" : "Is a directory");
	spawn_init(&s, "pipebench", argv, NULL, OUT_DEVNULL);
	ck_assert_int_eq(spawn_run(&s, &r), 0);
	ck_assert_msg(r.exited && r.status == 2, "status %d", r.status);
	ck_assert_msg(strcmp(r.err, want) == 0, "'%s'", r.err);
	ck_assert_msg(access(ran, F_OK) != 0, "the producer ran");
	spawn_free(&r);
	free(sub);
	free(missing);
	free(ran);
}
END_TEST

/* As an ordinary user: /dev/null stays a device and takes the file; a
 * directory that user may not write into is refused before any run. */
START_TEST(as_user)
{
	char opt[128], *locked = in_dir("locked");
	struct spawn_result r;
	struct stat st;

	ck_assert_int_eq(mkdir(locked, 0755), 0);
	snprintf(opt, sizeof opt, "--export-csv=%s", _i ? "/dev/null" : locked);
	if (!_i)
		strcat(opt, "/x.csv");
	run(opt, 65534, &r);
	if (_i) {
		ck_assert_msg(r.exited && r.status == 0, "status %d: %s",
			      r.status, r.err);
		ck_assert_int_eq(stat("/dev/null", &st), 0);
		ck_assert(S_ISCHR(st.st_mode));
	} else {
		ck_assert_msg(r.exited && r.status == 2 &&
				  strstr(r.err, "Permission denied") != NULL,
			      "status %d: %s", r.status, r.err);
	}
	spawn_free(&r);
	free(locked);
}
END_TEST

/* A terminal named by its path is written in place. */
START_TEST(into_terminal)
{
	char opt[128], got[256];
	struct spawn_result r;
	struct stat st;
	int master, slave;
	ssize_t n;

	ck_assert_int_eq(spawn_open_pty(&master, &slave), 0);
	snprintf(opt, sizeof opt, "--export-csv=%s", ptsname(master));
	run(opt, 0, &r);
	ck_assert_msg(r.exited && r.status == 0, "status %d: %s", r.status,
		      r.err);
	ck_assert_int_eq(stat(ptsname(master), &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	n = read(master, got, sizeof got - 1);
	ck_assert_int_gt(n, 0);
	got[n] = '\0';
	ck_assert_msg(strncmp(got, CSV_HEAD, strlen(CSV_HEAD)) == 0, "'%s'",
		      got);
	close(master);
	close(slave);
	spawn_free(&r);
}
END_TEST

static spawn_need *const root[] = {spawn_need_root, spawn_need_native, NULL};
static spawn_need *const pty[] = {spawn_need_pty, NULL};

static Suite *
export_suite(void)
{
	Suite *s = suite_create("pbexport");
	TCase *tc = tcase_create("export");

	tcase_add_checked_fixture(tc, make_dir, remove_dir);
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, through_link, 0, 2);
	tcase_add_test(tc, into_fifo);
	tcase_add_loop_test(tc, modes, 0, 2);
	tcase_add_loop_test(tc, refused_before, 0, 3);
	suite_add_tcase(s, tc);
	tc = suite_add_needing(s, "as_user", as_user, 2, root);
	if (tc != NULL)
		tcase_add_checked_fixture(tc, make_dir, remove_dir);
	suite_add_needing(s, "terminal", into_terminal, 1, pty);
	return s;
}

int
main(void)
{
	return suite_main(export_suite());
}
