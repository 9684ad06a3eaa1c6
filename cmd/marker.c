// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail marker: write trace_marker text (or raw bytes) into a running
 * trace from a shell, as `echo text > trace_marker` does for the kernel.
 *
 * The traced program holds the session block (session.h) in the memfd
 * named by its FTRAIL_SHM_FD variable; we open it through /proc/PID/fd/N
 * (same user or root, as for ptrace), claim a ring slot of our own
 * (ringbuf.h: slots are claimed lock-free by any process), write one
 * FT_EXT_MARKER / FT_EXT_BINMARKER record with the common TSC clock, and
 * detach: the recorder drains and recycles the slot like a thread that
 * exited.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "clock.h"
#include "ringbuf.h"
#include "session.h"
#include "util.h"

const char cmd_marker_usage[] =
	"usage: ftrail marker [-p PID] [--raw] TEXT...\n"
	"\n"
	"Write TEXT (the words joined by spaces, as echo does) into the trace of a\n"
	"program that `ftrail record` is tracing now, as a trace_marker record\n"
	"('tracing_mark_write: TEXT' in `ftrail show`).  Without -p, the one traced\n"
	"program running is found in /proc.\n"
	"\n"
	"  -p PID     the traced process (any process of the traced session)\n"
	"  --raw      write TEXT's bytes as a trace_marker_raw record ('raw_data:')\n";

static const struct option long_options[] = {
	{ "raw", no_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The session fd number in PID's environment, or -1. */
static int session_fd_of(pid_t pid)
{
	char path[64], buf[65536];
	size_t n, key = strlen(FT_SESSION_ENV_FD "=");
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strncmp(buf + i, FT_SESSION_ENV_FD "=", key))
			return atoi(buf + i + key);
	return -1;
}

/* Open PID's session memfd; -1 when it has none we can open. */
static int open_session(pid_t pid, struct stat *st)
{
	char path[64];
	int fd, n = session_fd_of(pid);

	if (n < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, n);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, st)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The one traced session running now: its fd, or die with why not. */
static int find_session(void)
{
	struct stat st, first = { 0 };
	struct dirent *de;
	int fd = -1, nr = 0;
	pid_t self = getpid(), pids[2] = { 0, 0 };
	DIR *d = opendir("/proc");

	if (!d)
		ft_die("cannot read /proc: %s", strerror(errno));
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		int f;

		if (pid <= 0 || pid == self)
			continue;
		f = open_session(pid, &st);
		if (f < 0)
			continue;
		if (fd >= 0 && st.st_dev == first.st_dev && st.st_ino == first.st_ino) {
			close(f); /* another process of the same session (fork) */
			continue;
		}
		if (nr < 2)
			pids[nr] = pid;
		nr++;
		if (fd < 0) {
			fd = f;
			first = st;
		} else {
			close(f);
		}
	}
	closedir(d);
	if (!nr)
		ft_die("no program is being traced by ftrail record now (or not as this user)");
	if (nr > 1)
		ft_die("%d traced sessions are running (pids %d, %d...): choose one with -p PID", nr,
		       (int)pids[0], (int)pids[1]);
	return fd;
}

int cmd_marker(int argc, char **argv)
{
	struct ft_session_hdr *h;
	struct ft_rb_thread t = { 0 };
	struct ft_rb_area *a;
	struct stat st;
	char err[256], *text;
	size_t len = 0, ring_len;
	pid_t pid = 0;
	int c, raw = 0, fd;
	uint64_t v;
	void *mem, *ring;

	while ((c = getopt_long(argc, argv, "+:p:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (ft_parse_u64(optarg, 1, INT32_MAX, &v))
				ft_die("marker: -p wants a process id, not '%s'", optarg);
			pid = (pid_t)v;
			break;
		case 'r':
			raw = 1;
			break;
		case 'h':
			fputs(cmd_marker_usage, stdout);
			return 0;
		default:
			ft_bad_option("marker", c, argv);
		}
	}
	if (optind >= argc)
		ft_die("marker: no text (usage: ftrail marker [-p PID] [--raw] TEXT...)");
	for (int i = optind; i < argc; i++)
		len += strlen(argv[i]) + 1;
	text = ft_malloc(len);
	text[0] = 0;
	for (int i = optind; i < argc; i++) {
		strcat(text, argv[i]);
		if (i + 1 < argc)
			strcat(text, " ");
	}
	len = strlen(text);
	if (len > 4000)
		ft_die("marker: text of %zu bytes is longer than a record may be (4000)", len);

	if (pid) {
		fd = open_session(pid, &st);
		if (fd < 0)
			ft_die("marker: process %d is not traced by ftrail record (or not ours)", (int)pid);
	} else {
		fd = find_session();
		if (fstat(fd, &st))
			ft_die("marker: %s", strerror(errno));
	}
	mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (mem == MAP_FAILED)
		ft_die("marker: cannot map the session: %s", strerror(errno));
	h = ft_session_check(mem, (size_t)st.st_size, err, sizeof(err));
	if (!h)
		ft_die("marker: %s", err);
	if (!__atomic_load_n(&ft_session_ctl(h)->tracing_on, __ATOMIC_RELAXED))
		ft_die("marker: tracing is off in the traced program: nothing written");
	ring = ft_session_ring(h, &ring_len);
	a = ft_rb_area_attach(ring, ring_len);
	if (!a)
		ft_die("marker: the session's ring buffer is not usable");
	if (ft_rb_thread_attach(&t, a, (uint32_t)getpid(), (uint32_t)gettid()))
		ft_die("marker: every ring slot is taken: marker lost");
	if (ft_rb_ext(&t, raw ? FT_EXT_BINMARKER : FT_EXT_MARKER, text, (uint32_t)len, ft_rdtsc(),
		      1, 1))
		ft_die("marker: the ring buffer refused the record (counted as lost)");
	ft_rb_thread_detach(&t);
	munmap(mem, (size_t)st.st_size);
	free(text);
	return 0;
}
