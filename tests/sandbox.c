/* SPDX-License-Identifier: MIT */
/*
 * A sandbox of the kind container and service profiles make, for the
 * tests: `sandbox ERRNO CALL[,CALL...] PROGRAM [ARG...]` runs PROGRAM
 * under a seccomp filter that fails each CALL with ERRNO (EPERM, ENOSYS
 * or EINVAL) every time, from the first call on, and lets everything
 * else through. The calls: splice, tee, vmsplice, copy_file_range,
 * sendfile, setpipe (fcntl's F_SETPIPE_SZ alone) and clone3 (threads:
 * glibc's pthread_create asks clone3 first and fails with its EPERM;
 * fork asks clone). The filter needs no privileges (no_new_privs).
 * Exits 77, saying why, where no filter can be installed (a CPU whose
 * filter architecture is not named here, qemu-user, a kernel without
 * seccomp). Never installed.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#elif defined(__arm__) && __BYTE_ORDER == __LITTLE_ENDIAN
#define ARCH AUDIT_ARCH_ARM
#elif defined(__s390x__)
#define ARCH AUDIT_ARCH_S390X
#elif defined(__powerpc64__) && __BYTE_ORDER == __LITTLE_ENDIAN
#define ARCH AUDIT_ARCH_PPC64LE
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH AUDIT_ARCH_RISCV64
#endif

#define MAX_RULES 64

static struct sock_filter prog[MAX_RULES];
static unsigned short len;

static void
add(struct sock_filter f)
{
	if (len == MAX_RULES) {
		fprintf(stderr, "sandbox: too many calls\n");
		exit(2);
	}
	prog[len++] = f;
}

/* Fail system call nr with err: the comparison jumps over the return
 * when nr does not match. */
static void
refuse(long nr, int err)
{
	add((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					 (unsigned)nr, 0, 1));
	add((struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					 SECCOMP_RET_ERRNO | (unsigned)err));
}

/* fcntl(fd, F_SETPIPE_SZ, ...) alone: the command is the low half of the
 * second argument, which byte order places. Loads the argument, so it
 * comes last, before the final allow. */
static void
refuse_setpipe(long nr, int err)
{
	unsigned low = (unsigned)offsetof(struct seccomp_data, args[1]) +
		       (__BYTE_ORDER == __BIG_ENDIAN ? 4u : 0u);

	add((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					 offsetof(struct seccomp_data, nr)));
	add((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					 (unsigned)nr, 0, 3));
	add((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, low));
	add((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
					 F_SETPIPE_SZ, 0, 1));
	add((struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					 SECCOMP_RET_ERRNO | (unsigned)err));
}

static int
errno_named(const char *name)
{
	if (strcmp(name, "EPERM") == 0)
		return EPERM;
	if (strcmp(name, "ENOSYS") == 0)
		return ENOSYS;
	if (strcmp(name, "EINVAL") == 0)
		return EINVAL;
	return 0;
}

int
main(int argc, char *argv[])
{
	struct sock_fprog fprog;
	char *calls, *name, *save = NULL;
	int err, setpipe = 0;

	if (argc < 4 || (err = errno_named(argv[1])) == 0) {
		fprintf(stderr, "usage: sandbox EPERM|ENOSYS|EINVAL "
				"CALL[,CALL...] PROGRAM [ARG...]\n");
		return 2;
	}
#ifndef ARCH
	fprintf(stderr,
		"sandbox: no seccomp architecture known for this CPU\n");
	return 77;
#else
	/* Another architecture's calls (x32, 32-bit on 64-bit) are not ours
	 * to number: they pass. */
	add((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					 offsetof(struct seccomp_data, arch)));
	add((struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1,
					 0));
	add((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	add((struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					 offsetof(struct seccomp_data, nr)));
	calls = argv[2];
	for (name = strtok_r(calls, ",", &save); name != NULL;
	     name = strtok_r(NULL, ",", &save)) {
		if (strcmp(name, "splice") == 0) {
			refuse(SYS_splice, err);
		} else if (strcmp(name, "tee") == 0) {
			refuse(SYS_tee, err);
		} else if (strcmp(name, "vmsplice") == 0) {
			refuse(SYS_vmsplice, err);
		} else if (strcmp(name, "copy_file_range") == 0) {
			refuse(SYS_copy_file_range, err);
		} else if (strcmp(name, "sendfile") == 0) {
			refuse(SYS_sendfile, err);
#ifdef SYS_sendfile64
			refuse(SYS_sendfile64, err);
#endif
		} else if (strcmp(name, "clone3") == 0) {
#ifdef SYS_clone3
			refuse(SYS_clone3, err);
#endif
		} else if (strcmp(name, "setpipe") == 0) {
			setpipe = 1;
		} else {
			fprintf(stderr, "sandbox: unknown call %s\n", name);
			return 2;
		}
	}
	if (setpipe) {
		refuse_setpipe(SYS_fcntl, err);
#ifdef SYS_fcntl64
		refuse_setpipe(SYS_fcntl64, err);
#endif
	}
	add((struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	fprog.len = len;
	fprog.filter = prog;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) < 0) {
		fprintf(stderr, "sandbox: no seccomp filter here: %s\n",
			strerror(errno));
		return 77;
	}
	execv(argv[3], argv + 3);
	fprintf(stderr, "sandbox: %s: %s\n", argv[3], strerror(errno));
	return 127;
#endif
}
