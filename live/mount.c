// SPDX-License-Identifier: GPL-2.0
/*
 * The live mount's FUSE side (live/mount.h): libfuse3's high-level API,
 * worker threads serving requests (fuse_loop_mt: a trace_pipe reader
 * waiting for events must not hold up the others) under one lock, the
 * nodes of mount_files.c.
 *
 * Files are opened with direct_io: every read goes to the server, so a
 * size of 0 in getattr is fine and nothing is cached between opens, as
 * tracefs' files are generated on each open.
 *
 * Ending: a watcher thread waits for SIGINT, SIGTERM or SIGHUP (their
 * handlers write to a pipe), for the recorder to end (pidfd), or for the
 * traced process to end and then its recorder (which finishes the trace
 * file after it; 10 s at most).  It then sets m->ended, gives blocked
 * trace_pipe readers time to take the last events and return end of file,
 * ends the loop (fuse_session_exit, and SIGUSR2 to the main thread, again
 * every 100 ms, to get it out of its wait) and the tree is unmounted
 * (fuse_unmount) before the server exits, so nobody is left with a dead
 * mount point.
 */
#define FUSE_USE_VERSION 31

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "core/session.h"
#include "core/util.h"
#include "live/mount.h"
#include "live/mount_int.h"

static struct mnt *get_mnt(void)
{
	return fuse_get_context()->private_data;
}

#define MAX_THREADS 4096 /* per_thread/ entries listed */

/* Is tid a thread with a ring now (per_thread/<tid> exists)? */
static int thread_exists(struct mnt *m, uint32_t tid)
{
	uint32_t *tids = ft_malloc(MAX_THREADS * sizeof(*tids));
	size_t n = mnt_threads(m, tids, MAX_THREADS);
	int found = 0;

	for (size_t i = 0; i < n && !found; i++)
		found = tids[i] == tid;
	free(tids);
	return found;
}

/*
 * The node of path, per_thread/<tid>/ ones only while tid has a ring,
 * events/u/ ones only for events the program has (names in sys, name).
 */
static const struct mnt_node *lookup(struct mnt *m, const char *path, uint32_t *tid, char *sys,
				     char *name)
{
	const struct mnt_node *n = mnt_lookup(path, tid);

	sys[0] = name[0] = 0;
	if (n && *tid && !thread_exists(m, *tid))
		return NULL;
	if (!n)
		n = mnt_events_lookup(m, path, sys, name);
	return n;
}

static int is_dir(const struct mnt_node *n)
{
	return n->kind == MK_DIR || n->kind == MK_PT_DIR || n->kind == MK_EV_DIR;
}

struct fill_ctx {
	fuse_fill_dir_t fill;
	void *buf;
};

static int fill_one(void *arg, const char *name)
{
	struct fill_ctx *c = arg;

	return c->fill(c->buf, name, NULL, 0, 0);
}

static int mnt_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct mnt *m = get_mnt();
	char sys[64], name[64];
	uint32_t tid;
	const struct mnt_node *n = lookup(m, path, &tid, sys, name);

	if (!n)
		return -ENOENT;
	memset(st, 0, sizeof(*st));
	st->st_mode = (is_dir(n) ? S_IFDIR : S_IFREG) | n->mode;
	st->st_nlink = is_dir(n) ? 2 : 1;
	st->st_uid = m->uid;
	st->st_gid = m->gid;
	st->st_atime = st->st_mtime = st->st_ctime = m->t0;
	return 0;
}

static int mnt_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct mnt *m = get_mnt();
	struct fill_ctx fc = { fill, buf };
	char sys[64], name[64];
	uint32_t tid;
	const struct mnt_node *d = lookup(m, path, &tid, sys, name);
	size_t dl;

	if (!d)
		return -ENOENT;
	if (!is_dir(d))
		return -ENOTDIR;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	if (d->kind == MK_EV_DIR && name[0]) {
		fill(buf, "enable", NULL, 0, 0);
		fill(buf, "filter", NULL, 0, 0);
		fill(buf, "trigger", NULL, 0, 0);
		fill(buf, "format", NULL, 0, 0);
		fill(buf, "id", NULL, 0, 0);
		return 0;
	}
	if (d->kind == MK_EV_DIR || !strcmp(path, "/events/u")) {
		fill(buf, "enable", NULL, 0, 0);
		mnt_events_readdir(m, d->kind == MK_EV_DIR ? sys : NULL, &fc, fill_one);
		return 0;
	}
	if (d->kind == MK_PT_DIR) {
		fill(buf, "trace", NULL, 0, 0);
		fill(buf, "trace_pipe", NULL, 0, 0);
		fill(buf, "stats", NULL, 0, 0);
		return 0;
	}
	if (!strcmp(path, "/per_thread")) {
		uint32_t *tids = ft_malloc(MAX_THREADS * sizeof(*tids));
		size_t n = mnt_threads(m, tids, MAX_THREADS);
		char num[16];

		for (size_t i = 0; i < n; i++) {
			snprintf(num, sizeof(num), "%u", tids[i]);
			fill(buf, num, NULL, 0, 0);
		}
		free(tids);
		return 0;
	}
	dl = strcmp(path, "/") ? strlen(path) : 0;
	for (size_t i = 0; i < mnt_nr_nodes; i++) {
		const char *p = mnt_nodes[i].path;

		/* children: "<dir>/<name>" with no further '/' */
		if (p[1] == 0 || strncmp(p, path, dl) || p[dl] != '/' || strchr(p + dl + 1, '/'))
			continue;
		fill(buf, p + dl + 1, NULL, 0, 0);
	}
	return 0;
}

static int mnt_open_locked(const char *path, struct fuse_file_info *fi)
{
	struct mnt *m = get_mnt();
	int acc = fi->flags & O_ACCMODE, r;
	char sys[64], name[64];
	uint32_t tid;
	const struct mnt_node *n = lookup(m, path, &tid, sys, name);
	struct mnt_fh *fh;

	if (!n)
		return -ENOENT;
	if (is_dir(n))
		return -EISDIR;
	/* read-only files refuse writing even to root, as tracefs' do */
	if (acc != O_RDONLY && !(n->mode & 0200))
		return -EACCES;
	if (acc != O_WRONLY && !(n->mode & 0400))
		return -EACCES;
	fh = ft_calloc(1, sizeof(*fh));
	fh->node = n;
	fh->tid = tid;
	memcpy(fh->ev_sys, sys, sizeof(fh->ev_sys));
	memcpy(fh->ev_name, name, sizeof(fh->ev_name));
	if ((fi->flags & O_TRUNC) || (m->pending_trunc == n && acc != O_RDONLY)) {
		r = mnt_open_trunc(m, fh);
		if (r < 0) {
			free(fh);
			return r;
		}
	}
	m->pending_trunc = NULL;
	if (n->kind == MK_TRACE_PIPE) {
		if (m->trace_fd < 0) {
			free(fh);
			return -ENODEV; /* the recorder writes no trace file */
		}
		fi->nonseekable = 1;
	} else if (acc != O_WRONLY) {
		r = mnt_fill(m, fh);
		if (r < 0) {
			free(fh->rbuf);
			free(fh);
			return r;
		}
	}
	fi->fh = (uintptr_t)fh;
	fi->direct_io = 1;
	fh->next = m->open;
	if (m->open)
		m->open->prev = fh;
	m->open = fh;
	return 0;
}

static int mnt_open(const char *path, struct fuse_file_info *fi)
{
	struct mnt *m = get_mnt();
	int r;

	pthread_mutex_lock(&m->lock);
	r = mnt_open_locked(path, fi);
	pthread_mutex_unlock(&m->lock);
	return r;
}

/* Reads of what open made need no lock: the handle is the reader's own. */
static int mnt_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct mnt_fh *fh = (struct mnt_fh *)(uintptr_t)fi->fh;

	if (fh->node->kind == MK_TRACE_PIPE)
		return mnt_trace_pipe_read(get_mnt(), fh, buf, size);

	if (off < 0 || (size_t)off >= fh->rlen)
		return 0;
	if (size > fh->rlen - (size_t)off)
		size = fh->rlen - (size_t)off;
	memcpy(buf, fh->rbuf + off, size);
	return (int)size;
}

static int mnt_write_op(const char *path, const char *buf, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	struct mnt_fh *fh = (struct mnt_fh *)(uintptr_t)fi->fh;

	struct mnt *m = get_mnt();
	int r;

	if (size > 1 << 20)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	r = mnt_write(m, fh, buf, size);
	pthread_mutex_unlock(&m->lock);
	return r;
}

static void fh_free(struct mnt_fh *fh)
{
	free(fh->rbuf);
	free(fh->wbuf);
	free(fh);
}

static int mnt_release_op(const char *path, struct fuse_file_info *fi)
{
	struct mnt_fh *fh = (struct mnt_fh *)(uintptr_t)fi->fh;
	struct mnt *m = get_mnt();

	pthread_mutex_lock(&m->lock);
	mnt_release(m, fh);
	if (fh->prev)
		fh->prev->next = fh->next;
	else
		m->open = fh->next;
	if (fh->next)
		fh->next->prev = fh->prev;
	pthread_mutex_unlock(&m->lock);
	fh_free(fh);
	return 0;
}

/*
 * truncate(2) and, without atomic O_TRUNC, the kernel's way to say "> file"
 * before the open: remembered for the next open of the node.
 */
static int mnt_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct mnt *m = get_mnt();
	char sys[64], name[64];
	uint32_t tid;
	const struct mnt_node *n = lookup(m, path, &tid, sys, name);
	int r = 0;

	if (!n)
		return -ENOENT;
	if (!(n->mode & 0200))
		return -EACCES;
	pthread_mutex_lock(&m->lock);
	if (fi) {
		r = mnt_open_trunc(m, (struct mnt_fh *)(uintptr_t)fi->fh);
	} else {
		struct mnt_fh tmp = { .node = n, .tid = tid };

		m->pending_trunc = n;
		if (n->kind == MK_ERROR_LOG || n->kind == MK_TRACE)
			r = mnt_open_trunc(m, &tmp);
	}
	pthread_mutex_unlock(&m->lock);
	return r;
}

static void *mnt_init_op(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	cfg->direct_io = 1;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	return fuse_get_context()->private_data;
}

static const struct fuse_operations mnt_ops = {
	.getattr = mnt_getattr,
	.readdir = mnt_readdir,
	.open = mnt_open,
	.read = mnt_read,
	.write = mnt_write_op,
	.release = mnt_release_op,
	.truncate = mnt_truncate,
	.init = mnt_init_op,
};

/* ---- checks, watcher, lifecycle ---- */

int ft_mount_check(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	struct dirent *de;
	DIR *d;
	int fd;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		ft_seterr(err, errlen, "mount point %s is not an empty directory (%s)", dir,
			  errno && !S_ISDIR(st.st_mode) ? strerror(errno) : "not a directory");
		return -1;
	}
	d = opendir(dir);
	if (!d) {
		ft_seterr(err, errlen, "mount point %s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			closedir(d);
			ft_seterr(err, errlen, "mount point %s is not an empty directory", dir);
			return -1;
		}
	closedir(d);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		ft_seterr(err, errlen, "no /dev/fuse (%s): the mount needs FUSE", strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

struct watcher {
	pthread_t main;
	struct fuse_session *se;
	int fds[2];  /* pidfds of the program and of its recorder (-1: none) */
	int stop[2]; /* a pipe: the main thread's "the loop is over" */
	struct mnt *m;
};

/* The stop signals' pipe to the watcher (write end), for the handler. */
static int sig_pipe = -1;

static void on_stop_signal(int sig)
{
	int e = errno;

	if (write(sig_pipe, "s", 1) < 0) {
		/* full: the watcher has been told already */
	}
	errno = e;
}

/* SIGUSR2: only interrupts the main thread's wait in fuse_loop_mt */
static void on_wake(int sig)
{
}

/* Handle sig unless it is ignored (record --mount's server ignores SIGINT). */
static void catch_signal(int sig, void (*fn)(int))
{
	struct sigaction sa, old;

	if (sigaction(sig, NULL, &old) || old.sa_handler == SIG_IGN)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn; /* no SA_RESTART: the main thread's wait must end */
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static int pidfd_of(pid_t pid)
{
	if (pid <= 0)
		return -1;
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void *watch(void *arg)
{
	struct watcher *w = arg;
	struct timespec grace = { 0, 300 * 1000 * 1000 };
	struct pollfd p[4] = {
		{ w->stop[0], POLLIN, 0 },
		{ w->m->sig_r, POLLIN, 0 },
		{ w->fds[1], POLLIN, 0 },
		{ w->fds[0], POLLIN, 0 },
	};
	int nfds = 4, timeout = -1;

	for (;;) {
		int n = poll(p, (nfds_t)nfds, timeout);

		if (n < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			return NULL;
		if (p[1].revents || p[2].revents)
			break;
		if (!n && timeout >= 0)
			break; /* the recorder did not finish within 10 s */
		if (nfds == 4 && p[3].revents) {
			/* the program is gone: the recorder finishes the file, then goes */
			nfds = 3;
			timeout = 10000;
		}
	}
	__atomic_store_n(&w->m->ended, 1, __ATOMIC_RELAXED);
	/* the trace's last events into the log, then readers take them and get EOF */
	mnt_trace_end(w->m);
	nanosleep(&grace, NULL);
	fuse_session_exit(w->se);
	for (;;) {
		pthread_kill(w->main, SIGUSR2);
		if (poll(p, 1, 100) > 0)
			return NULL;
	}
}

/*
 * A recording started without --mount has no live thread in the program:
 * a change reaches it only at its next traced call, and a selection that
 * patches nothing it runs would leave it deaf.  Mark the session live and
 * move its generation: the runtime's next hook starts its live thread
 * (runtime/control.c, core/session.h "Live control").
 */
static void make_live(struct mnt *m)
{
	struct ft_session_hdr *h = m->s.hdr;
	struct ft_session_ctl *c = ft_session_ctl(h);

	if (__atomic_load_n(&c->live, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&c->live, 1, __ATOMIC_RELAXED);
	ft_session_ctl_begin(h);
	ft_session_ctl_end(h);
}

static int attach_retry(const struct ft_mount_params *p, struct mnt *m, char *err, size_t errlen)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int waited = 0;

	for (;;) {
		if (!ft_live_session_attach(p->pid, &m->s, err, errlen))
			return 0;
		/* record -P: the program was attached to; its recorder holds the session */
		if (p->also_watch && !ft_live_session_attach(p->also_watch, &m->s, err, errlen))
			return 0;
		if (waited >= p->wait_ms || (p->pid && kill(p->pid, 0) && errno == ESRCH))
			return -1;
		nanosleep(&ts, NULL);
		waited += 10;
	}
}

int ft_mount_serve(const struct ft_mount_params *p, char *err, size_t errlen)
{
	char *argv[] = { "ftrail", "-o", "default_permissions,fsname=ftrail,subtype=ftrail", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct watcher w = { .fds = { -1, -1 }, .stop = { -1, -1 } };
	int sigp[2] = { -1, -1 };
	sigset_t block, old;
	pthread_t th;
	struct fuse *f;
	struct mnt m;
	int r = -1;

	memset(&m, 0, sizeof(m));
	if (ft_mount_check(p->dir, err, errlen))
		return -1;
	if (attach_retry(p, &m, err, errlen))
		return -1;
	prctl(PR_SET_NAME, "ftrail"); /* run as /proc/self/exe by record --mount: "exe" otherwise */
	m.pid = p->pid;
	m.uid = getuid();
	m.gid = getgid();
	m.t0 = (long)time(NULL);
	pthread_mutex_init(&m.lock, NULL);
	mnt_init_state(&m);
	mnt_trace_find(&m);
	mnt_events_attach(&m);
	if (mnt_trace_start(&m, err, errlen))
		goto out_state;
	make_live(&m);

	f = fuse_new(&args, &mnt_ops, sizeof(mnt_ops), &m);
	if (!f) {
		ft_seterr(err, errlen, "cannot set up FUSE");
		goto out_state;
	}
	/*
	 * The stop signals wait until their handlers are in place: one that
	 * came right after the mount would otherwise leave it behind, dead.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	if (fuse_mount(f, p->dir)) {
		ft_seterr(err, errlen, "cannot mount on %s (FUSE)", p->dir);
		goto out_new;
	}
	w.m = &m;
	w.se = fuse_get_session(f);
	w.main = pthread_self();
	w.fds[0] = pidfd_of(p->pid);
	w.fds[1] = pidfd_of(p->also_watch ? p->also_watch : (pid_t)m.s.hdr->recorder_pid);
	if (pipe2(w.stop, O_CLOEXEC) || pipe2(sigp, O_CLOEXEC | O_NONBLOCK)) {
		ft_seterr(err, errlen, "pipe: %s", strerror(errno));
		goto out_sig;
	}
	m.sig_r = sigp[0];
	sig_pipe = sigp[1];
	catch_signal(SIGINT, on_stop_signal);
	catch_signal(SIGTERM, on_stop_signal);
	catch_signal(SIGHUP, on_stop_signal);
	catch_signal(SIGUSR2, on_wake);
	/* the watcher is created with them blocked: they are for the handlers' pipe */
	r = pthread_create(&th, NULL, watch, &w);
	if (r) {
		ft_seterr(err, errlen, "cannot start the watcher thread");
		r = -1;
		goto out_pipe;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	fuse_loop_mt(f, 0);
	r = 0;
	if (write(w.stop[1], "x", 1) < 0) {
		/* cannot happen with the pipe empty; the join would wait forever */
		pthread_cancel(th);
	}
	pthread_join(th, NULL);
out_pipe:
	/*
	 * The handlers stay: a stop signal during the teardown finds no pipe
	 * (sig_pipe -1, the write fails) instead of killing us before the
	 * unmount.
	 */
out_sig:
	sig_pipe = -1; /* before its descriptor goes */
	for (int i = 0; i < 2; i++) {
		if (w.fds[i] >= 0)
			close(w.fds[i]);
		if (w.stop[i] >= 0)
			close(w.stop[i]);
		if (sigp[i] >= 0)
			close(sigp[i]);
	}
	fuse_unmount(f);
out_new:
	fuse_destroy(f);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
out_state:
	/* handles whose release never came (readers still open at the end) */
	while (m.open) {
		struct mnt_fh *fh = m.open;

		m.open = fh->next;
		fh_free(fh);
	}
	fuse_opt_free_args(&args);
	mnt_trace_stop(&m);
	mnt_free_state(&m);
	mnt_events_detach(&m);
	if (m.trace_fd >= 0)
		close(m.trace_fd);
	pthread_mutex_destroy(&m.lock);
	ft_live_session_detach(&m.s);
	return r;
}
