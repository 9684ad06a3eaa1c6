// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel capture through a private tracefs instance (see kcapture.h).
 *
 *   start:  instance "ftrail-<pid>" <- trace_clock, options, events, filters
 *           a watchdog process (removes the instance if we die, even SIGKILL)
 *           KFORMATS (the enabled events' formats), kallsyms read
 *           one reader thread per CPU on per_cpu/cpuN/trace_pipe_raw
 *   reader: page -> kernel/kencode.c -> events; a kernel_stack /
 *           user_stack record that follows an event on the same CPU is
 *           attached to it as a stack_id from the shared stack map; events
 *           are re-encoded compactly (core/kdata.h) into a chunk; a chunk
 *           goes out when full or a second old: first ksync() writes the
 *           KALLSYMS lines and the kernel STACKMAP entries it names that
 *           are not in the file yet, then the chunk, zstd-compressed, as a
 *           KDATA section
 *   stop:   tracing_on 0, readers drain what is left and exit, then the
 *           end's KFORMATS (saved_cmdlines, per-CPU stats), the last
 *           symbols and stacks (final reference counts) are written and the
 *           instance is removed
 *
 * So a file cut anywhere (recorder killed) holds the formats, symbols and
 * stacks of every complete KDATA section in it (core/tracefile.h).
 *
 * The instance runs in overwrite mode (the kernel's default, trace-cmd's
 * too): when the readers fall behind, the kernel marks the next page with
 * the number of events it overwrote, which becomes a KREC_MISSED record at
 * that point of the CPU's stream.  KALLSYMS keeps only the /proc/kallsyms
 * lines that cover a kernel address the trace holds (stack frames, and
 * pointer/long fields such as cpuhp_enter's fun), which is what makes the
 * file small; the whole text-symbol table is stored when that set cannot be
 * computed (other architectures, more than 2^20 addresses).
 *
 * The global instance and the user's own settings are never written: every
 * file written is under instances/ftrail-<pid>/ (saved_cmdlines, a global
 * file, is only read).
 *
 * Threads: the readers share only the writer (thread-safe), the stack map
 * (lock-free, built for concurrent inserts), kc->stopping, and what ksync()
 * keeps (the kallsyms lines written, the stacks exported), which
 * kc->sync_lock serialises: the lock's release/acquire also orders the
 * lines a reader marked before the chunk it then writes.  Memory
 * ordering of kc->stopping: stop() stores it with release after tracing_on
 * is 0; a reader that loads it with acquire and sees 1 drains the buffer
 * once more and exits, so no event written before tracing_on went to 0 is
 * missed (the drain reads until the kernel says the buffer is empty).
 * Per-reader counters are plain fields read by stop() after pthread_join(),
 * which orders them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "core/clock.h"
#include "kernel/kcapture.h"
#include "kernel/kencode.h"
#include "core/hashtab.h"
#include "core/kdata.h"
#include "core/options.h"
#include "core/smapfull.h"
#include "core/stackmap.h"
#include "core/symbols.h"
#include "core/tracefile.h"
#include "core/util.h"

#define TRACEFS_DIR "/sys/kernel/tracing"
/* a chunk goes out at least this often: a killed recorder loses no more */
#define FLUSH_NS 1000000000ull
#define STREAM_FLUSH_NS 200000000ull /* a streamed recording's chunks: this often */

/*
 * A set of kernel text addresses the trace refers to (stack frames stored
 * in full, pointer fields such as cpuhp_enter's fun): only the kallsyms
 * lines that cover them go into the file.  Past ADDRSET_MAX addresses (or
 * out of memory) the set gives up (overflow) and the whole table is stored.
 */
struct addrset {
	struct ft_htab tab; /* struct ft_hentry, key the address; allocated at first use */
	int overflow;
};

struct kline {
	uint64_t addr;
	size_t off, len;
	int keep; /* written to the trace (or to be, in this chunk) */
};

#define ADDRSET_MAX (1u << 20)

struct kcpu {
	struct ft_kcapture *kc;
	struct addrset addrs;
	/* addresses added to addrs since the last ksync: their kallsyms lines are due */
	uint64_t *fresh;
	size_t nr_fresh, cap_fresh;
	int cpu;
	int fd;
	struct tracefs_cpu *tcpu;
	struct ft_kenc *enc; /* its pages -> KDATA chunks */
	pthread_t thr;
	int started;
	void *page;
	int page_size;
	int stats_fd;	    /* per_cpu/cpuN/stats: the kernel's loss counters, or -1 */
	uint64_t lost_base; /* their sum when we started (a fresh instance: 0) */
	double cpu_seconds; /* read by stop() after join */
	uint64_t wm;	    /* ft_kcapture_watermark: its reader stores (release), any loads */
	/* where its chunks go: KDATA, or a flight recorder dump's KSNAP (its reader's) */
	uint32_t sec_type;
	uint64_t sec_id;
	unsigned int dump_done; /* flight: the last dump it wrote (kc->dump_lock) */
};

struct ft_kcapture {
	struct tracefs_instance *inst;
	char name[64];
	char dir[512];
	char path_on[600]; /* instance tracing_on, for abort() */
	struct ft_writer *w;
	struct ft_stackmap *map;
	uint64_t options;
	int nr_cpus;
	struct kcpu *cpus;
	atomic_int stopping;
	int kstack_id, ustack_id; /* event ids of ftrace/kernel_stack, user_stack */
	char **fmts;		  /* "sys/event" of the enabled events */
	size_t nr_fmts;
	pid_t watchdog;
	int watch_fd;
	struct ft_kenc_ptrs ptrs; /* pointer-sized fields per event id */
	/*
	 * opts->follow, or ft_kcapture_follow() later: flush often, publish
	 * watermarks.  Relaxed atomic: readers pick it up at their next
	 * flush; nothing is published through it (wm is, see reader_main).
	 */
	int stream;
	int subset_syms; /* store only the kallsyms lines the trace needs */
	/*
	 * Flight recorder (opts->flight): the readers read nothing until a
	 * dump (ft_kcapture_dump), so the instance's per-CPU rings, in
	 * overwrite mode, hold the recent past.  A dump request is dump_gen
	 * and dump_snap, set under dump_lock with dump_cond broadcast; each
	 * reader answers with its dump_done under the same lock.
	 */
	int flight;
	pthread_mutex_t dump_lock;
	pthread_cond_t dump_cond;
	unsigned int dump_gen, dump_snap;
	/*
	 * What readers need to name the KDATA chunks, written before each
	 * chunk by ksync() under sync_lock (reader threads flush concurrently):
	 * the kallsyms lines of new addresses (subset_syms) and the new stacks
	 * of the shared map.
	 */
	pthread_mutex_t sync_lock;
	char *ks;	      /* /proc/kallsyms, text symbols only */
	struct kline *klines; /* its lines sorted by address */
	size_t nr_klines;
	int ks_all;	   /* every line is written (no subset, or it overflowed) */
	uint32_t *sm_seen; /* the kernel map's export_delta array */
	uint64_t sm_exported;
};

/* Add v; 1 when it is new, 0 when known (or 0, or the set overflowed). */
static int addrset_add(struct addrset *a, uint64_t v);

/*
 * A kernel address the trace names (a %ps field, a full stack): remember it,
 * and queue it for the next ksync when its line is not written yet.  Reader
 * thread of c only.
 */
static void note_addr(void *arg, uint64_t v)
{
	struct kcpu *c = arg;

	if (addrset_add(&c->addrs, v) <= 0)
		return;
	if (c->nr_fresh == c->cap_fresh) {
		size_t nc = c->cap_fresh ? c->cap_fresh * 2 : 256;
		uint64_t *n = realloc(c->fresh, nc * sizeof(*n));

		if (!n) {
			c->addrs.overflow = 1; /* ksync then writes the whole table */
			return;
		}
		c->fresh = n;
		c->cap_fresh = nc;
	}
	c->fresh[c->nr_fresh++] = v;
}

static int addrset_add(struct addrset *a, uint64_t v)
{
	if (a->overflow || !v)
		return 0;
	if (!a->tab.tab && ft_htab_init(&a->tab, sizeof(struct ft_hentry))) {
		a->overflow = 1;
		return 0;
	}
	if (ft_htab_find(&a->tab, v))
		return 0;
	if (a->tab.used + 1 > ADDRSET_MAX || !ft_htab_get(&a->tab, v, 1)) {
		a->overflow = 1;
		return 0;
	}
	return 1;
}

static int tracefs_mounted(void)
{
	return access(TRACEFS_DIR "/trace", F_OK) == 0;
}

/*
 * Root (or CAP_SYS_ADMIN-like access to tracefs) and a mounted tracefs;
 * when root and it is not mounted, mount it.  0, or -1 with one line.
 */
int ft_kcapture_available(char *err, size_t errlen)
{
	if (!tracefs_mounted() && geteuid() == 0)
		mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL);
	if (geteuid() != 0) {
		ft_seterr(err, errlen,
			  "kernel events need root: run 'sudo ftrail record ...' (tracefs at %s)",
			  TRACEFS_DIR);
		return -1;
	}
	if (!tracefs_mounted()) {
		ft_seterr(err, errlen,
			  "tracefs is not mounted at %s and mounting it failed: "
			  "mount -t tracefs nodev %s (kernel needs CONFIG_FTRACE)",
			  TRACEFS_DIR, TRACEFS_DIR);
		return -1;
	}
	if (access(TRACEFS_DIR "/instances", W_OK)) {
		ft_seterr(err, errlen, "cannot create tracefs instances in %s/instances: %s",
			  TRACEFS_DIR, strerror(errno));
		return -1;
	}
	return 0;
}

/* User events are "u:sys:event"; every other -e name is the kernel's. */
int ft_kcapture_is_kernel_event(const char *name)
{
	return name && strncmp(name, "u:", 2) != 0;
}

/* ---------------------------------------------------------------- events */

static int is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int dir_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void add_fmt(struct ft_kcapture *kc, const char *sys, const char *ev)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", sys, ev);
	for (size_t i = 0; i < kc->nr_fmts; i++)
		if (!strcmp(kc->fmts[i], buf))
			return;
	char **n = realloc(kc->fmts, (kc->nr_fmts + 1) * sizeof(*n));

	if (!n)
		return;
	kc->fmts = n;
	kc->fmts[kc->nr_fmts] = strdup(buf);
	if (kc->fmts[kc->nr_fmts])
		kc->nr_fmts++;
}

static int inst_write(struct ft_kcapture *kc, const char *file, const char *val)
{
	return tracefs_instance_file_write(kc->inst, file, val) < 0 ? -1 : 0;
}

/*
 * set_event_pid takes task ids, and event-fork adds only the children of
 * the tasks listed: a process that runs already (record -P) has every
 * thread added.  Twice: a thread started by one not listed yet, between
 * reading the list and writing it, is listed by the second pass (its
 * creator is listed by then, so event-fork covers what comes after).
 */
static void add_threads(struct ft_kcapture *kc, pid_t pid)
{
	char path[64], tid[32];

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	for (int pass = 0; pass < 2; pass++) {
		struct dirent *de;
		DIR *d = opendir(path);

		if (!d)
			return;
		while ((de = readdir(d))) {
			int t = atoi(de->d_name);

			if (t <= 0 || t == (int)pid)
				continue;
			snprintf(tid, sizeof(tid), "%d", t);
			/* appending a listed id again changes nothing */
			tracefs_instance_file_append(kc->inst, "set_event_pid", tid);
		}
		closedir(d);
	}
}

/*
 * Enable one event of the instance with an optional filter.  0, or -1
 * with the reason in err.
 */
static int enable_one(struct ft_kcapture *kc, const char *sys, const char *ev, const char *filter,
		      char *err, size_t errlen)
{
	char file[600];

	if (filter) {
		snprintf(file, sizeof(file), "events/%s/%s/filter", sys, ev);
		if (inst_write(kc, file, filter)) {
			ft_seterr(err, errlen, "invalid filter '%s' for %s:%s", filter, sys, ev);
			return -1;
		}
	}
	snprintf(file, sizeof(file), "events/%s/%s/enable", sys, ev);
	if (inst_write(kc, file, "1")) {
		ft_seterr(err, errlen, "cannot enable kernel event %s:%s: %s", sys, ev,
			  strerror(errno));
		return -1;
	}
	add_fmt(kc, sys, ev);
	return 0;
}

/*
 * Enable the events selected by "sys:event", "sys" or "all" (globs allowed
 * in both parts).  Unknown names fail with a one-line reason.
 */
static int enable_sel(struct ft_kcapture *kc, const struct ft_event_sel *sel, char *err,
		      size_t errlen)
{
	char *name = strdup(sel->name), *sys, *ev, *colon;
	char path[1024];
	int matched = 0, rc = 0;
	DIR *ds;
	struct dirent *de;

	if (!name)
		return -1;
	colon = strchr(name, ':');
	if (!strcmp(name, "all")) {
		sys = "*";
		ev = "*";
	} else if (colon) {
		*colon = 0;
		sys = name;
		ev = colon + 1;
	} else {
		sys = name;
		ev = "*";
	}
	if (!*sys || !*ev) {
		ft_seterr(err, errlen, "bad event name '%s' (want SYS:EVENT, SYS or all)",
			  sel->name);
		free(name);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events", kc->dir);
	ds = opendir(path);
	if (!ds) {
		ft_seterr(err, errlen, "cannot read %s: %s", path, strerror(errno));
		free(name);
		return -1;
	}
	while (!rc && (de = readdir(ds))) {
		DIR *de2;
		struct dirent *e;

		if (de->d_name[0] == '.' || fnmatch(sys, de->d_name, 0))
			continue;
		/* "ftrace" holds the tracers' internal formats, not events */
		if (!strcmp(de->d_name, "ftrace") && strcmp(sys, "ftrace"))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", kc->dir, de->d_name);
		if (!dir_exists(path))
			continue;
		if (!is_glob(ev)) {
			snprintf(path, sizeof(path), "%s/events/%s/%s", kc->dir, de->d_name, ev);
			if (dir_exists(path)) {
				rc = enable_one(kc, de->d_name, ev, sel->filter, err, errlen);
				matched++;
			}
			continue;
		}
		de2 = opendir(path);
		if (!de2)
			continue;
		while (!rc && (e = readdir(de2))) {
			char p2[1400];

			if (e->d_name[0] == '.' || fnmatch(ev, e->d_name, 0))
				continue;
			snprintf(p2, sizeof(p2), "%s/%s", path, e->d_name);
			if (!dir_exists(p2))
				continue;
			rc = enable_one(kc, de->d_name, e->d_name, sel->filter, err, errlen);
			matched++;
		}
		closedir(de2);
	}
	closedir(ds);
	if (!rc && !matched) {
		ft_seterr(err, errlen, "no kernel event matches '%s' (see %s/available_events)",
			  sel->name, TRACEFS_DIR);
		rc = -1;
	}
	free(name);
	return rc;
}

/* ---------------------------------------------------------------- readers */

/*
 * The kernel's count of this CPU's lost entries (per_cpu/cpuN/stats): the
 * sum of "overrun" (overwritten unread, overwrite mode), "commit overrun"
 * (a writer wrapped onto its own uncommitted page) and "dropped events"
 * (buffer full, producer/consumer mode) -- every entry the ring buffer
 * failed to keep is in exactly one of them.  An entry is an event or a
 * stack record, the unit of show's entries-in-buffer/entries-written.
 * Returns 0 and the sum in *sum, or -1 when the file cannot be read.
 */
static int stats_lost(struct kcpu *c, uint64_t *sum)
{
	static const char *const keys[] = { "overrun:", "commit overrun:", "dropped events:" };
	char buf[1024];
	ssize_t n;

	if (c->stats_fd < 0)
		return -1;
	n = pread(c->stats_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*sum = 0;
	for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (!strncmp(l, keys[i], strlen(keys[i])))
				*sum += strtoull(l + strlen(keys[i]), NULL, 10);
	return 0;
}

/* The encoder's lost_total: the kernel's count since we started. */
static int kcpu_lost_total(void *arg, uint64_t *sum)
{
	struct kcpu *c = arg;

	if (stats_lost(c, sum))
		return -1;
	*sum = *sum > c->lost_base ? *sum - c->lost_base : 0;
	return 0;
}

static int ksync(struct ft_kcapture *kc, struct kcpu *c, int final);

/* The encoder's write: what names the chunk's addresses and stacks first (tracefile.h). */
static int kcpu_write(void *arg, const unsigned char *chunk, size_t len)
{
	struct kcpu *c = arg;
	int err = 0;

	if (ksync(c->kc, c, 0))
		err = errno ? errno : EIO;
	if (ft_writer_add(c->kc->w, c->sec_type, c->sec_id, chunk, len, 1) && !err)
		err = errno ? errno : EIO;
	errno = err;
	return err ? -1 : 0;
}

static const struct ft_kenc_ops kcpu_ops = {
	.write = kcpu_write,
	.note_addr = note_addr,
	.lost_total = kcpu_lost_total,
};

/* Read every page available now; returns the number read. */
static int drain(struct kcpu *c, int final)
{
	int n, pages = 0;

	for (;;) {
		n = final ? tracefs_cpu_flush(c->tcpu, c->page)
			  : tracefs_cpu_read(c->tcpu, c->page, true);
		if (n <= 0)
			break;
		ft_kenc_page(c->enc, c->page, (size_t)c->page_size);
		pages++;
	}
	return pages;
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A flight recorder's reader: idle until a dump, then everything the
 * CPU's ring holds (full pages, the page being written, the event held
 * back for a stack) as that dump's KSNAP chunks, with what the ring
 * overwrote since the last dump as a KREC_MISSED (ft_kenc_sync_lost).
 * At the end nothing more is read: what came after the last dump is no
 * trigger's.
 */
static void *flight_main(void *arg)
{
	struct kcpu *c = arg;
	struct ft_kcapture *kc = c->kc;
	struct rusage ru;

	pthread_mutex_lock(&kc->dump_lock);
	for (;;) {
		unsigned int gen = kc->dump_gen, snap = kc->dump_snap;

		if (gen != c->dump_done) {
			pthread_mutex_unlock(&kc->dump_lock);
			c->sec_type = FT_SEC_KSNAP;
			c->sec_id = (uint64_t)snap << 16 | (uint64_t)c->cpu;
			drain(c, 0);
			drain(c, 1);
			ft_kenc_sync_lost(c->enc);
			ft_kenc_finish(c->enc);
			c->sec_type = FT_SEC_KDATA;
			c->sec_id = (uint64_t)c->cpu;
			pthread_mutex_lock(&kc->dump_lock);
			c->dump_done = gen;
			pthread_cond_broadcast(&kc->dump_cond);
			continue;
		}
		/* acquire: pairs with the release store in ft_kcapture_stop() */
		if (atomic_load_explicit(&kc->stopping, memory_order_acquire))
			break;
		pthread_cond_wait(&kc->dump_cond, &kc->dump_lock);
	}
	pthread_mutex_unlock(&kc->dump_lock);
	if (!getrusage(RUSAGE_THREAD, &ru))
		c->cpu_seconds = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
				 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return NULL;
}

#define DUMP_WAIT_S 30 /* every reader has written its CPU's dump within this */

int ft_kcapture_dump(struct ft_kcapture *kc, unsigned int snap, char *err, size_t errlen)
{
	struct timespec until;
	unsigned int gen;
	int rc = 0;

	if (!kc->flight)
		return 0;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += DUMP_WAIT_S;
	pthread_mutex_lock(&kc->dump_lock);
	gen = ++kc->dump_gen;
	kc->dump_snap = snap;
	pthread_cond_broadcast(&kc->dump_cond);
	for (int i = 0; i < kc->nr_cpus && !rc; i++)
		while (kc->cpus[i].started && kc->cpus[i].dump_done != gen)
			if (pthread_cond_timedwait(&kc->dump_cond, &kc->dump_lock, &until) ==
			    ETIMEDOUT) {
				ft_seterr(err, errlen,
					  "the kernel events of CPU %d were not dumped within %d s",
					  i, DUMP_WAIT_S);
				rc = -1;
				break;
			}
	pthread_mutex_unlock(&kc->dump_lock);
	for (int i = 0; i < kc->nr_cpus && !rc; i++)
		if (kc->cpus[i].started && ft_kenc_error(kc->cpus[i].enc)) {
			ft_seterr(err, errlen, "kernel events of CPU %d could not be written: %s",
				  i, strerror(ft_kenc_error(kc->cpus[i].enc)));
			rc = -1;
		}
	return rc;
}

static void *reader_main(void *arg)
{
	struct kcpu *c = arg;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	struct rusage ru;
	uint64_t last_flush = mono_now();

	/* acquire: pairs with the release store in ft_kcapture_stop() */
	while (!atomic_load_explicit(&c->kc->stopping, memory_order_acquire)) {
		int stream = __atomic_load_n(&c->kc->stream, __ATOMIC_RELAXED);
		uint64_t every = stream ? STREAM_FLUSH_NS : FLUSH_NS;
		uint64_t ts;

		poll(&pfd, 1, 100);
		ts = ft_rdtsc(); /* the instance's clock is x86-tsc: the same ticks */
		drain(c, 0);
		/*
		 * Losses no page marks (producer/consumer drops, and overruns
		 * since the last page): they lie after what we have read.
		 */
		ft_kenc_sync_lost(c->enc);
		if (mono_now() - last_flush >= every) {
			/*
			 * A stream needs this CPU's events up to ts now, also
			 * those in a page the kernel still writes: read that
			 * too (trace_pipe_raw hands out a partial page).
			 */
			if (stream)
				drain(c, 1);
			ft_kenc_flush(c->enc);
			last_flush = mono_now();
			/*
			 * release: the chunk just written (everything committed
			 * before ts, read by the drain after it) happens-before
			 * a stream's watermark that loads this (acquire).  Only
			 * a streamed flush read the page still written: only
			 * it may promise that.
			 */
			if (stream)
				__atomic_store_n(&c->wm, ts, __ATOMIC_RELEASE);
		}
	}
	drain(c, 0);
	drain(c, 1);
	ft_kenc_finish(c->enc);
	if (!getrusage(RUSAGE_THREAD, &ru))
		c->cpu_seconds = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
				 ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	return NULL;
}

void ft_kcapture_follow(struct ft_kcapture *kc)
{
	__atomic_store_n(&kc->stream, 1, __ATOMIC_RELAXED);
}

uint64_t ft_kcapture_watermark(struct ft_kcapture *kc)
{
	uint64_t wm = UINT64_MAX;

	for (int i = 0; i < kc->nr_cpus; i++) {
		/* acquire: pairs with the reader's release after its chunk */
		uint64_t v = __atomic_load_n(&kc->cpus[i].wm, __ATOMIC_ACQUIRE);

		if (kc->cpus[i].started && v < wm)
			wm = v;
	}
	return wm == UINT64_MAX ? 0 : wm;
}

/* ------------------------------------------------------------- watchdog */

/*
 * A process that outlives us: it blocks on a pipe whose write end only we
 * hold; when we die (even by SIGKILL or a crash) the read returns 0 and it
 * disables and removes the instance if it is still there.  On a clean stop
 * we remove the instance first, so it finds nothing to do.
 *
 * It is created with CLONE_PARENT, as a sibling rather than a child: the
 * user-space recorder reaps (and waits for) every child of ftrail, and a
 * child that waits for ftrail's exit would deadlock it.  Our parent reaps
 * it like any child (shells do; otherwise it is reaped by init once the
 * parent exits).  The child only makes raw system calls on paths prepared
 * before the clone.
 */
static pid_t start_watchdog(const char *dir, int *wfd)
{
	char on[600];
	int p[2];
	pid_t pid;

	snprintf(on, sizeof(on), "%s/tracing_on", dir);
	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		struct sigaction sa;
		struct stat st;
		char b;
		int fd;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_IGN;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		sigaction(SIGQUIT, &sa, NULL);
		/* keep only the pipe, as fd 3: nothing of ours is held open */
		if (dup2(p[0], 3) < 0)
			_exit(0);
		syscall(SYS_close_range, 4u, ~0u, 0u);
		while (read(3, &b, 1) < 0 && errno == EINTR)
			;
		if (stat(dir, &st))
			_exit(0);
		fd = open(on, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (write(fd, "0", 1) < 0) {
				/* nothing more to do */
			}
			close(fd);
		}
		/* the dead tool's reader fds close as it goes away; retry a while */
		for (int i = 0; i < 50 && rmdir(dir) && errno == EBUSY; i++)
			usleep(100 * 1000);
		_exit(0);
	}
	close(p[0]);
	*wfd = p[1];
	return pid;
}

/* ---------------------------------------------------------------- start */

static void destroy(struct ft_kcapture *kc)
{
	if (kc->cpus) {
		for (int i = 0; i < kc->nr_cpus; i++) {
			struct kcpu *c = &kc->cpus[i];

			if (c->tcpu)
				tracefs_cpu_free_fd(c->tcpu);
			if (c->fd >= 0)
				close(c->fd);
			if (c->stats_fd >= 0)
				close(c->stats_fd);
			ft_kenc_free(c->enc);
			free(c->page);
			ft_htab_free(&c->addrs.tab);
			free(c->fresh);
		}
		free(kc->cpus);
	}
	free(kc->ks);
	free(kc->klines);
	free(kc->sm_seen);
	pthread_mutex_destroy(&kc->sync_lock);
	if (kc->inst) {
		tracefs_instance_destroy(kc->inst);
		tracefs_instance_free(kc->inst);
	}
	if (kc->watch_fd >= 0)
		close(kc->watch_fd); /* the watchdog wakes, finds no instance, exits */
	if (kc->map)
		ft_stackmap_destroy(kc->map);
	for (size_t i = 0; i < kc->nr_fmts; i++)
		free(kc->fmts[i]);
	free(kc->fmts);
	free(kc->ptrs.idx);
	free(kc->ptrs.f);
	free(kc);
}

/*
 * Which fields of the recorded events hold pointers or longs (cpuhp_enter's
 * fun, kmem's call_site...): their values that fall in kernel text select
 * the kallsyms lines stored with the trace.  x86_64 only (elsewhere the
 * whole table is stored).  Best effort: an unparsable format just has none.
 */
static void find_pointer_fields(struct ft_kcapture *kc)
{
#if defined(__x86_64__)
	struct tep_handle *tep = tep_alloc();
	struct tep_event **evs;

	if (!tep)
		return;
	tep_set_long_size(tep, 8);
	for (size_t i = 0; i < kc->nr_fmts; i++) {
		char file[600], sys[256], *text, *slash;
		int size = 0;

		snprintf(sys, sizeof(sys), "%s", kc->fmts[i]);
		slash = strchr(sys, '/');
		if (!slash)
			continue;
		*slash = 0;
		snprintf(file, sizeof(file), "events/%s/format", kc->fmts[i]);
		text = tracefs_instance_file_read(kc->inst, file, &size);
		if (text) {
			tep_parse_event(tep, text, (unsigned long)size, sys);
			free(text);
		}
	}
	kc->ptrs.idx = calloc(65536, sizeof(*kc->ptrs.idx));
	evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	for (int i = 0; kc->ptrs.idx && evs && evs[i]; i++) {
		struct tep_event *e = evs[i];
		struct ft_kenc_ptrf pf = { 0 };

		if (e->id == kc->kstack_id || e->id == kc->ustack_id || e->id < 0 || e->id > 65535)
			continue;
		for (struct tep_format_field *f = e->format.fields; f && pf.n < 8; f = f->next)
			if (f->size == 8 && f->offset + 8 <= 65535 &&
			    (f->flags & (TEP_FIELD_IS_POINTER | TEP_FIELD_IS_LONG)) &&
			    !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
				pf.off[pf.n++] = (uint16_t)f->offset;
		if (!pf.n)
			continue;
		struct ft_kenc_ptrf *n = realloc(kc->ptrs.f, (kc->ptrs.nr + 1) * sizeof(*n));

		if (!n)
			break;
		kc->ptrs.f = n;
		kc->ptrs.f[kc->ptrs.nr++] = pf;
		kc->ptrs.idx[e->id] = (uint16_t)kc->ptrs.nr;
	}
	tep_free(tep);
	kc->subset_syms = kc->ptrs.idx != NULL;
#else
	(void)kc;
#endif
}

static int event_id(struct ft_kcapture *kc, const char *sys, const char *ev)
{
	char file[256], *s;
	int id = -1;

	/* ftrace's internal events have no "id" file: take "ID:" of the format */
	snprintf(file, sizeof(file), "events/%s/%s/format", sys, ev);
	s = tracefs_instance_file_read(kc->inst, file, NULL);
	if (s) {
		char *p = strstr(s, "\nID:");

		if (p)
			id = atoi(p + 4);
		free(s);
	}
	return id;
}

static int write_start_sections(struct ft_kcapture *kc, char *err, size_t errlen);

struct ft_kcapture *ft_kcapture_start(const struct ft_record_opts *opts, struct ft_writer *w,
				      pid_t pid, char *err, size_t errlen)
{
	struct ft_kcapture *kc;
	struct ft_kenc_conf conf;
	int subbuf_size = getpagesize();
	char buf[64];
	long ncpu;

	if (ft_kcapture_available(err, errlen))
		return NULL;
	kc = calloc(1, sizeof(*kc));
	if (!kc) {
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	kc->w = w;
	kc->options = opts->options;
	kc->flight = opts->flight;
	pthread_mutex_init(&kc->dump_lock, NULL);
	pthread_cond_init(&kc->dump_cond, NULL);
	kc->stream = opts->follow;
	kc->watch_fd = -1;
	pthread_mutex_init(&kc->sync_lock, NULL);
	snprintf(kc->name, sizeof(kc->name), "ftrail-%d", (int)getpid());
	snprintf(kc->dir, sizeof(kc->dir), "%s/instances/%s", TRACEFS_DIR, kc->name);
	snprintf(kc->path_on, sizeof(kc->path_on), "%s/tracing_on", kc->dir);
	if (dir_exists(kc->dir)) {
		ft_seterr(err, errlen, "tracefs instance %s already exists", kc->dir);
		free(kc);
		return NULL;
	}
	kc->inst = tracefs_instance_create(kc->name);
	if (!kc->inst || !dir_exists(kc->dir)) {
		ft_seterr(err, errlen, "cannot create tracefs instance %s: %s", kc->dir,
			  strerror(errno));
		if (kc->inst)
			tracefs_instance_free(kc->inst);
		free(kc);
		return NULL;
	}
	kc->watchdog = start_watchdog(kc->dir, &kc->watch_fd);

	/* configure while off: clock, buffer, options, pid, events */
	inst_write(kc, "tracing_on", "0");
#if defined(__x86_64__)
	if (inst_write(kc, "trace_clock", "x86-tsc"))
		goto fail_errno_clock;
#else
	if (inst_write(kc, "trace_clock", "mono"))
		goto fail_errno_clock;
#endif
	if (opts->buffer_kb) {
		snprintf(buf, sizeof(buf), "%u", opts->buffer_kb);
		if (inst_write(kc, "buffer_size_kb", buf)) {
			ft_seterr(err, errlen, "cannot set buffer_size_kb to %u: %s",
				  opts->buffer_kb, strerror(errno));
			goto fail;
		}
	}
	/*
	 * Overwrite (the oldest events go first: the kernel's and trace-cmd's
	 * default) unless -O nooverwrite asks for producer/consumer (the
	 * newest are dropped).  The kernel cannot wait for us, so neither mode
	 * is lossless; both are counted exactly (sync_lost).
	 */
	if (inst_write(kc, "options/overwrite",
		       (opts->options_set & FT_OPT(OVERWRITE)) &&
				       !(opts->options & FT_OPT(OVERWRITE))
			       ? "0"
			       : "1")) {
		ft_seterr(err, errlen, "cannot set option overwrite: %s", strerror(errno));
		goto fail;
	}
	inst_write(kc, "options/record-cmd", "1");
	if ((opts->options & FT_OPT(STACKTRACE)) && inst_write(kc, "options/stacktrace", "1")) {
		ft_seterr(err, errlen, "cannot enable option stacktrace: %s", strerror(errno));
		goto fail;
	}
	if ((opts->options & FT_OPT(USERSTACKTRACE)) &&
	    inst_write(kc, "options/userstacktrace", "1")) {
		ft_seterr(err, errlen, "cannot enable option userstacktrace: %s", strerror(errno));
		goto fail;
	}
	if (opts->pids.n) {
		/* --pid: these threads only, as set_ftrace_pid does for functions
		 * (set_event_pid takes task ids; no event-fork) */
		char list[1024];
		size_t len = 0;

		list[0] = '\0';
		for (size_t i = 0; i < opts->pids.n && len < sizeof(list); i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						i ? " " : "", opts->pids.v[i]);
		if (len >= sizeof(list) || inst_write(kc, "set_event_pid", list)) {
			ft_seterr(err, errlen, "cannot limit kernel events to --pid %s: %s",
				  opts->pids.v[0],
				  len >= sizeof(list) ? "too many threads" : strerror(errno));
			goto fail;
		}
	} else if (pid > 0) {
		snprintf(buf, sizeof(buf), "%d", (int)pid);
		inst_write(kc, "options/event-fork", "1");
		if (inst_write(kc, "set_event_pid", buf)) {
			ft_seterr(err, errlen, "cannot limit kernel events to pid %d: %s", (int)pid,
				  strerror(errno));
			goto fail;
		}
		/* a running process (record -P): its other threads too */
		add_threads(kc, pid);
	}
	for (size_t i = 0; i < opts->nr_events; i++) {
		if (!ft_kcapture_is_kernel_event(opts->events[i].name))
			continue;
		if (enable_sel(kc, &opts->events[i], err, errlen))
			goto fail;
	}
	kc->kstack_id = event_id(kc, "ftrace", "kernel_stack");
	kc->ustack_id = event_id(kc, "ftrace", "user_stack");
	add_fmt(kc, "ftrace", "kernel_stack");
	add_fmt(kc, "ftrace", "user_stack");
	find_pointer_fields(kc);

	if (opts->options & FT_OPT(STACKMAP))
		kc->map = ft_stackmap_create(opts->stackmap_bits);

	ncpu = sysconf(_SC_NPROCESSORS_CONF);
	kc->nr_cpus = ncpu > 0 ? (int)ncpu : 1;
	kc->cpus = calloc((size_t)kc->nr_cpus, sizeof(*kc->cpus));
	if (!kc->cpus) {
		ft_seterr(err, errlen, "out of memory");
		goto fail;
	}
	for (int i = 0; i < kc->nr_cpus; i++)
		kc->cpus[i].fd = kc->cpus[i].stats_fd = -1;
	/* formats and symbols before any event (tracefile.h: a cut file reads) */
	if (write_start_sections(kc, err, errlen))
		goto fail;
	/* the ring buffer's sub-buffer ("page") size, 1 page unless configured */
	{
		long long kb = 0;

		if (!tracefs_instance_file_read_number(kc->inst, "buffer_subbuf_size_kb", &kb) &&
		    kb > 0 && kb <= 1024)
			subbuf_size = (int)kb * 1024;
	}
	conf.kstack_id = kc->kstack_id;
	conf.ustack_id = kc->ustack_id;
	conf.map = kc->map;
	conf.ptrs = &kc->ptrs;
	for (int i = 0; i < kc->nr_cpus; i++) {
		struct kcpu *c = &kc->cpus[i];
		char path[700];

		c->kc = kc;
		c->cpu = i;
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/trace_pipe_raw", kc->dir, i);
		c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (c->fd < 0) {
			if (errno == ENOENT) /* a possible CPU the kernel has no buffer for */
				continue;
			ft_seterr(err, errlen, "cannot open %s: %s", path, strerror(errno));
			goto fail;
		}
		c->page_size = subbuf_size;
		snprintf(path, sizeof(path), "%s/per_cpu/cpu%d/stats", kc->dir, i);
		c->stats_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (stats_lost(c, &c->lost_base))
			c->lost_base = 0;
		c->tcpu = tracefs_cpu_alloc_fd(c->fd, c->page_size, true);
		c->sec_type = FT_SEC_KDATA;
		c->sec_id = (uint64_t)i;
		c->enc = ft_kenc_create(&conf, &kcpu_ops, c);
		c->page = malloc((size_t)c->page_size);
		if (!c->tcpu || !c->enc || !c->page) {
			ft_seterr(err, errlen, "cannot set up the reader of CPU %d", i);
			goto fail;
		}
	}
	for (int i = 0; i < kc->nr_cpus; i++) {
		struct kcpu *c = &kc->cpus[i];

		if (!c->tcpu)
			continue;
		if (pthread_create(&c->thr, NULL, kc->flight ? flight_main : reader_main, c)) {
			ft_seterr(err, errlen, "cannot start reader thread: %s", strerror(errno));
			atomic_store_explicit(&kc->stopping, 1, memory_order_release);
			for (int j = 0; j < i; j++)
				if (kc->cpus[j].started)
					pthread_join(kc->cpus[j].thr, NULL);
			goto fail;
		}
		c->started = 1;
	}
	if (inst_write(kc, "tracing_on", "1")) {
		ft_seterr(err, errlen, "cannot turn tracing on in %s: %s", kc->dir,
			  strerror(errno));
		atomic_store_explicit(&kc->stopping, 1, memory_order_release);
		for (int j = 0; j < kc->nr_cpus; j++)
			if (kc->cpus[j].started)
				pthread_join(kc->cpus[j].thr, NULL);
		goto fail;
	}
	return kc;

fail_errno_clock:
	ft_seterr(err, errlen, "cannot set trace_clock of %s: %s", kc->dir, strerror(errno));
fail:
	inst_write(kc, "tracing_on", "0");
	destroy(kc);
	return NULL;
}

/* ----------------------------------------------------------------- stop */

struct blob {
	unsigned char *p;
	size_t len, cap;
	int oom;
};

static void blob_add(struct blob *b, const char *name, const void *data, size_t len)
{
	size_t nl = strlen(name), need = 8 + nl + len;

	if (b->oom)
		return;
	if (b->len + need > b->cap) {
		size_t nc = b->cap ? b->cap : 65536;

		while (nc < b->len + need)
			nc *= 2;
		unsigned char *n = realloc(b->p, nc);

		if (!n) {
			b->oom = 1;
			return;
		}
		b->p = n;
		b->cap = nc;
	}
	ft_le32_put(b->p + b->len, (uint32_t)nl);
	memcpy(b->p + b->len + 4, name, nl);
	ft_le32_put(b->p + b->len + 4 + nl, (uint32_t)len);
	memcpy(b->p + b->len + 8 + nl, data, len);
	b->len += need;
}

static void blob_add_file(struct blob *b, struct tracefs_instance *inst, const char *name,
			  const char *file)
{
	int size = 0;
	char *s = tracefs_instance_file_read(inst, file, &size);

	if (s) {
		blob_add(b, name, s, (size_t)size);
		free(s);
	}
}

/* Read a whole file into a malloc'ed buffer; NULL on error. */
static char *slurp(const char *path, size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (r < 0) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/*
 * /proc/kallsyms, text symbols only (ft_kallsyms_line(): types t T w W at
 * a non-zero address), which is what stacks and %ps need; in place.
 * Returns the new length.
 */
static size_t kallsyms_text_only(char *s, size_t len)
{
	size_t in = 0, out = 0;

	while (in < len) {
		char *nl = memchr(s + in, '\n', len - in);
		size_t l = nl ? (size_t)(nl - (s + in)) + 1 : len - in;
		struct ft_kallsyms_ent e;

		if (ft_kallsyms_line(s + in, l, &e)) {
			memmove(s + out, s + in, l);
			out += l;
		}
		in += l;
	}
	return out;
}

static int kline_cmp(const void *a, const void *b)
{
	const struct kline *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Index the kallsyms text (kc->ks) by address; -1 when out of memory. */
static int klines_index(struct ft_kcapture *kc, size_t len)
{
	struct ft_kallsyms_ent e;
	size_t cap = 0;

	for (size_t in = 0; in < len;) {
		char *nl = memchr(kc->ks + in, '\n', len - in);
		size_t l = nl ? (size_t)(nl - (kc->ks + in)) + 1 : len - in;

		if (FT_GROW(kc->klines, cap, kc->nr_klines + 1, 65536))
			return -1;
		/* every line passed kallsyms_text_only(): it parses */
		if (ft_kallsyms_line(kc->ks + in, l, &e))
			kc->klines[kc->nr_klines++] = (struct kline){ e.addr, in, l, 0 };
		in += l;
	}
	qsort(kc->klines, kc->nr_klines, sizeof(*kc->klines), kline_cmp);
	return 0;
}

struct ktext {
	char *p;
	size_t len, cap;
	int oom;
};

static void ktext_line(struct ft_kcapture *kc, struct ktext *t, struct kline *k)
{
	if (k->keep)
		return;
	if (FT_GROW(t->p, t->cap, t->len + k->len, 65536)) {
		t->oom = 1;
		return;
	}
	memcpy(t->p + t->len, kc->ks + k->off, k->len);
	t->len += k->len;
	k->keep = 1;
}

/*
 * Queue in t the kallsyms lines that name address a not written yet: every
 * alias of the symbol covering a, and the next address's line so a reader
 * can tell the symbol's size.
 */
static void ktext_addr(struct ft_kcapture *kc, struct ktext *t, uint64_t a)
{
	struct kline *lines = kc->klines;
	size_t lo = 0, hi = kc->nr_klines;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lines[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return;
	for (size_t k = lo; k-- > 0 && lines[k].addr == lines[lo - 1].addr;)
		ktext_line(kc, t, &lines[k]);
	if (lo < kc->nr_klines)
		ktext_line(kc, t, &lines[lo]);
}

static int ktext_stack(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	void **a = arg;

	(void)id;
	(void)ref;
	for (uint32_t i = 0; i < nr; i++)
		if (ips[i] >= FT_KTEXT_MIN)
			ktext_addr(a[0], a[1], ips[i]);
	return 0;
}

/*
 * Write what readers need for the next KDATA chunk of c (NULL: of every
 * CPU, at the end): the stacks added to the kernel map since the last
 * call (final: also those whose count moved), and the kallsyms lines of
 * the addresses c named since its last call and of those stacks.  Called
 * by c's reader thread before it writes a chunk, and once at the end after
 * the readers are joined; sync_lock makes each line and stack go out once
 * and before any chunk that names it.  Returns 0, or -1 with errno.
 */
static int ksync(struct ft_kcapture *kc, struct kcpu *c, int final)
{
	struct ktext t = { 0 };
	void *bin = NULL;
	size_t blen = 0;
	int r = 0;

	pthread_mutex_lock(&kc->sync_lock);
	if (kc->map && kc->sm_seen &&
	    (final || ft_stackmap_nr_entries(kc->map) > kc->sm_exported)) {
		bin = ft_stackmap_export_delta(kc->map, kc->sm_seen, final, &blen);
		if (!bin && errno && errno != EBUSY)
			r = -1;
		if (bin && !final) {
			struct ft_fsmb_header h;

			memcpy(&h, bin, sizeof(h));
			kc->sm_exported += h.nr_stacks;
		}
	}
	if (kc->ks && !kc->ks_all) {
		void *arg[2] = { kc, &t };
		int overflow = 0;

		for (int i = 0; i < kc->nr_cpus; i++) {
			struct kcpu *x = &kc->cpus[i];

			if (c && x != c)
				continue;
			overflow |= x->addrs.overflow;
			for (size_t j = 0; j < x->nr_fresh; j++)
				ktext_addr(kc, &t, x->fresh[j]);
			x->nr_fresh = 0;
		}
		if (bin)
			ft_fsmb_parse(bin, blen, ktext_stack, arg, NULL, 0);
		if (overflow || t.oom) {
			/* too many to track: the rest of the table, once */
			t.oom = 0;
			for (size_t k = 0; k < kc->nr_klines && !t.oom; k++)
				ktext_line(kc, &t, &kc->klines[k]);
			kc->ks_all = !t.oom;
		}
		if (t.oom) {
			errno = ENOMEM;
			r = -1;
		} else if (t.len && ft_writer_add(kc->w, FT_SEC_KALLSYMS, 0, t.p, t.len, 1)) {
			r = -1;
		}
	}
	if (bin && ft_writer_add(kc->w, FT_SEC_STACKMAP, FT_KSTACKMAP_ID, bin, blen, 1))
		r = -1;
	pthread_mutex_unlock(&kc->sync_lock);
	free(bin);
	free(t.p);
	return r;
}

/*
 * At start, before any KDATA: the formats of the enabled events (and the
 * ring's header formats), then /proc/kallsyms -- whole, or (subset_syms)
 * only indexed here and written line by line as the trace names addresses
 * (ksync).  Returns 0, or -1 with a reason in err.
 */
static int write_start_sections(struct ft_kcapture *kc, char *err, size_t errlen)
{
	struct blob b = { 0 };
	char name[600], file[600];
	size_t len = 0;
	int rc = 0;

	blob_add_file(&b, kc->inst, "header_page", "events/header_page");
	blob_add_file(&b, kc->inst, "header_event", "events/header_event");
	for (size_t i = 0; i < kc->nr_fmts; i++) {
		snprintf(name, sizeof(name), "event:%s", kc->fmts[i]);
		snprintf(file, sizeof(file), "events/%s/format", kc->fmts[i]);
		blob_add_file(&b, kc->inst, name, file);
	}
	snprintf(file, sizeof(file), "%d", kc->nr_cpus);
	blob_add(&b, "nr_cpus", file, strlen(file));
	snprintf(file, sizeof(file), "%d", (int)sizeof(long));
	blob_add(&b, "long_size", file, strlen(file));
#if defined(__x86_64__)
	blob_add(&b, "trace_clock", "x86-tsc", 7);
#else
	blob_add(&b, "trace_clock", "mono", 4);
#endif
	if (b.oom) {
		ft_seterr(err, errlen, "out of memory writing kernel formats");
		rc = -1;
	} else if (ft_writer_add(kc->w, FT_SEC_KFORMATS, 0, b.p, b.len, 1)) {
		ft_seterr(err, errlen, "cannot write kernel formats: %s", strerror(errno));
		rc = -1;
	}
	free(b.p);
	if (rc)
		return rc;

	if (kc->map) {
		kc->sm_seen = calloc(ft_stackmap_table_size(kc->map), sizeof(*kc->sm_seen));
		if (!kc->sm_seen) {
			ft_seterr(err, errlen, "out of memory");
			return -1;
		}
	}
	kc->ks = slurp("/proc/kallsyms", &len);
	if (!kc->ks)
		return 0; /* no kernel symbols: names stay addresses */
	len = kallsyms_text_only(kc->ks, len);
	if (kc->subset_syms && !klines_index(kc, len))
		return 0;
	/* the whole table, now */
	kc->ks_all = 1;
	if (ft_writer_add(kc->w, FT_SEC_KALLSYMS, 0, kc->ks, len, 1)) {
		ft_seterr(err, errlen, "cannot write kallsyms: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int ft_kcapture_sync_names(struct ft_kcapture *kc)
{
	struct blob b = { 0 };
	int r = 0;

	blob_add_file(&b, NULL, "saved_cmdlines", "saved_cmdlines");
	if (b.oom) {
		errno = ENOMEM;
		r = -1;
	} else if (b.len) {
		r = ft_writer_add(kc->w, FT_SEC_KFORMATS, 0, b.p, b.len, 1);
	}
	free(b.p);
	return r;
}

/*
 * At the end: a second KFORMATS chunk with what only the end knows (the
 * kernel's saved comms, per-CPU stats), the last kallsyms lines and
 * stacks (with their final counts), and the map's counters in META.
 */
static int write_final_sections(struct ft_kcapture *kc, char *err, size_t errlen)
{
	struct blob b = { 0 };
	char name[600], file[600];
	char *ow;
	int rc = 0, mlen;
	uint64_t lost = 0;

	/* the mode the kernel ran in (read back), and its losses in entries */
	for (int i = 0; i < kc->nr_cpus; i++) {
		struct ft_kenc_stats cs;

		if (kc->cpus[i].enc) {
			ft_kenc_get_stats(kc->cpus[i].enc, &cs);
			lost += cs.lost;
		}
	}
	ow = tracefs_instance_file_read(kc->inst, "options/overwrite", NULL);
	mlen = snprintf(name, sizeof(name), "kernel_buffer_mode=%s\nkernel_lost=%llu\n",
			!ow	       ? "unknown"
			: ow[0] == '0' ? "producer-consumer"
				       : "overwrite",
			(unsigned long long)lost);
	free(ow);
	if (ft_writer_add(kc->w, FT_SEC_META, 0, name, (size_t)mlen, 0)) {
		ft_seterr(err, errlen, "cannot write the kernel counters: %s", strerror(errno));
		rc = -1;
	}

	blob_add_file(&b, NULL, "saved_cmdlines", "saved_cmdlines");
	for (int i = 0; i < kc->nr_cpus; i++) {
		snprintf(name, sizeof(name), "stats:%d", i);
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", i);
		blob_add_file(&b, kc->inst, name, file);
	}
	if (b.oom) {
		ft_seterr(err, errlen, "out of memory writing kernel formats");
		rc = -1;
	} else if (ft_writer_add(kc->w, FT_SEC_KFORMATS, 0, b.p, b.len, 1)) {
		ft_seterr(err, errlen, "cannot write kernel formats: %s", strerror(errno));
		rc = -1;
	}
	free(b.p);
	if (ksync(kc, NULL, 1) && !rc) {
		ft_seterr(err, errlen, "cannot write the kernel symbols and stacks: %s",
			  strerror(errno));
		rc = -1;
	}
	if (kc->map) {
		char meta[256];
		int n = ft_stackmap_meta_lines(kc->map, "kernel", meta, sizeof(meta));

		/* counters FSMB has no room for: read by `ftrail stackmap stat` */
		if (n > 0 && n < (int)sizeof(meta) &&
		    ft_writer_add(kc->w, FT_SEC_META, 0, meta, n, 0) && !rc) {
			ft_seterr(err, errlen, "cannot write the kernel stack map counters: %s",
				  strerror(errno));
			rc = -1;
		}
	}
	return rc;
}

int ft_kcapture_stop(struct ft_kcapture *kc, struct ft_kcapture_stats *st, char *err, size_t errlen)
{
	int rc = 0;

	if (st)
		memset(st, 0, sizeof(*st));
	inst_write(kc, "tracing_on", "0");
	/* release: the readers' acquire load sees it after tracing stopped */
	atomic_store_explicit(&kc->stopping, 1, memory_order_release);
	/* a flight recorder's readers wait for a dump: wake them to see it */
	pthread_mutex_lock(&kc->dump_lock);
	pthread_cond_broadcast(&kc->dump_cond);
	pthread_mutex_unlock(&kc->dump_lock);
	for (int i = 0; i < kc->nr_cpus; i++) {
		struct kcpu *c = &kc->cpus[i];
		struct ft_kenc_stats cs;

		if (!c->started)
			continue;
		pthread_join(c->thr, NULL);
		/* what was lost after the last page read: at the end (not a dump's) */
		if (!kc->flight && ft_kenc_sync_lost(c->enc))
			ft_kenc_flush(c->enc);
		if (ft_kenc_error(c->enc) && !rc) {
			ft_seterr(err, errlen, "kernel events of CPU %d could not be written: %s",
				  i, strerror(ft_kenc_error(c->enc)));
			rc = -1;
		}
		if (st) {
			ft_kenc_get_stats(c->enc, &cs);
			st->events += cs.events;
			st->lost += cs.lost;
			st->stacks += cs.stacks;
			st->stack_ids += cs.stack_ids;
			st->cpu_seconds += c->cpu_seconds;
		}
	}
	if (write_final_sections(kc, rc ? NULL : err, errlen))
		rc = -1;
	if (st && kc->map) {
		struct ft_stackmap_stat ms;

		ft_stackmap_get_stat(kc->map, &ms);
		ft_smap_full_line(st->map_full, sizeof(st->map_full), "kernel",
				  (unsigned int)__builtin_ctz(ms.max_entries | 1u << 31),
				  ms.entries, ms.successes, ms.drops);
	}
	/* the instance goes now; the watchdog then sees it gone and exits */
	for (int i = 0; i < kc->nr_cpus; i++) {
		struct kcpu *c = &kc->cpus[i];

		if (c->tcpu) {
			tracefs_cpu_free_fd(c->tcpu);
			c->tcpu = NULL;
		}
		if (c->fd >= 0) {
			close(c->fd);
			c->fd = -1;
		}
		if (c->stats_fd >= 0) {
			close(c->stats_fd);
			c->stats_fd = -1;
		}
	}
	if (tracefs_instance_destroy(kc->inst) && dir_exists(kc->dir) && !rc) {
		ft_seterr(err, errlen, "cannot remove tracefs instance %s: %s", kc->dir,
			  strerror(errno));
		rc = -1;
	}
	tracefs_instance_free(kc->inst);
	kc->inst = NULL;
	destroy(kc);
	return rc;
}

/*
 * Async-signal-safe: turn the instance off and try to remove it (only
 * open/write/close/rmdir on paths prepared at start).  The watchdog
 * finishes the job if readers still hold the buffers open.
 */
void ft_kcapture_abort(struct ft_kcapture *kc)
{
	int fd;

	if (!kc)
		return;
	fd = open(kc->path_on, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, "0", 1) < 0) {
			/* best effort */
		}
		close(fd);
	}
	rmdir(kc->dir);
}
