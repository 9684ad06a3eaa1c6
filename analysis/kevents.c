// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel events read back from a trace file: see kevents.h for the
 * contract and core/kdata.h for the encoding.
 *
 * Open loads KFORMATS into a private tep_handle (formats, header_page,
 * saved cmdlines, kallsyms), KDATA of every CPU into memory (decompressed),
 * and the kernel STACKMAP into an id-indexed table.  Iteration keeps one
 * decoded "head" record per CPU and hands out the oldest (k-way merge).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-seq.h>

#include "core/clock.h"
#include "core/hash.h"
#include "core/hashtab.h"
#include "core/kdata.h"
#include "analysis/graphret.h"
#include "analysis/ftrace_fmt.h"
#include "analysis/kevents.h"
#include "core/options.h"
#include "core/stackmap.h"
#include "analysis/trace.h"
#include "core/tracefile.h"
#include "core/symbols.h"
#include "core/util.h"

#define MAX_CPUS 8192
#define MAX_STACK_IDS (1u << 20)
#define MAX_FULL_STACK 4096

struct ksym {
	uint64_t addr;
	uint64_t size;
	const char *name;
};

struct kstack {
	const uint64_t *ips; /* into stack_ips */
	uint32_t id;
	uint32_t nr;
	uint32_t seq; /* order in the blob: of two entries of one id, the later wins */
};

struct head {
	int valid;
	int kind;
	uint64_t ticks;
	const unsigned char *raw;
	size_t raw_len;
	uint8_t flags;
	int kid, uid;
	const uint64_t *kips, *uips;
	uint32_t knr, unr;
	uint64_t missed;
};

struct kcpu_stream {
	unsigned char *buf;
	size_t len, pos;
	uint64_t ticks;
	struct head h;
	/* scratch for stacks stored in full, MAX_FULL_STACK each, allocated on
	 * first use: a file may name up to MAX_CPUS CPUs that have none */
	uint64_t *kfull, *ufull;
	int done;
};

struct ft_kevents {
	struct ft_reader *r;
	struct tep_handle *tep;
	/* what tep was parsed from (KFORMATS, KALLSYMS), to hand it to the
	 * next open of the same formats (see tep_cache_take()) */
	unsigned char *tep_key;
	size_t tep_key_len;
	int formats_nr_cpus; /* "nr_cpus" of the formats */
	int tep_ready;	     /* tep holds every format and kallsyms: cacheable */
	struct ft_clock clk;
	int have_clk;
	int nr_cpus;
	struct kcpu_stream *cpus;
	uint64_t since_ns; /* a snapshot's window: earlier events are skipped (0: none) */
	/* kallsyms */
	char *ktext;
	struct ksym *syms;
	size_t nr_syms;
	/* kernel stack map: sorted by id, one entry per id (see load_stackmap()) */
	struct kstack *stacks;
	uint32_t nr_stacks, cap_stacks;
	uint64_t *stack_ips;
	size_t nr_stack_ips, cap_stack_ips;
	int used_stackmap;
	/* the current event */
	struct tep_record rec;
	uint64_t *recbuf; /* 8-aligned copy of the raw bytes */
	size_t recbuf_cap;
	uint64_t *cur_ips; /* 2 x MAX_FULL_STACK, on first use: kernel, then user */
	/* ftrace/kernel_stack and ftrace/user_stack, or NULL: records that
	 * joined no event are read as the kernel prints them */
	struct tep_event *kstack_ev, *ustack_ev;
	struct ft_graphret *graphret; /* user stacks' trampoline addresses, or NULL */
	uint64_t seq;		      /* records handed out since open or rewind */
	/* text buffers of the printers (see kseq()), set up on first use */
	struct trace_seq tseq[2];
	int tseq_ready[2];
	char errbuf[256];
	int failed;
};

/* ------------------------------------------------------------ kallsyms */

static int sym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The text symbols of k->ktext (ft_kallsyms_line()); names are NUL-terminated in place. */
static void load_kallsyms(struct ft_kevents *k, size_t len)
{
	char *p = k->ktext, *end = k->ktext + len;
	size_t cap = 0;

	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		struct ft_kallsyms_ent e;
		char *name;

		if (!nl)
			nl = end;
		if (!ft_kallsyms_line(p, (size_t)(nl - p), &e)) {
			p = nl + 1;
			continue;
		}
		p = nl + 1;
		name = (char *)e.name;
		name[e.name_len] = 0; /* on the newline or the [module] column */
		if (FT_GROW(k->syms, cap, k->nr_syms + 1, 1024))
			return;
		k->syms[k->nr_syms++] = (struct ksym){ e.addr, 0, name };
	}
	if (!k->nr_syms)
		return;
	qsort(k->syms, k->nr_syms, sizeof(*k->syms), sym_cmp);
	for (size_t i = 0; i + 1 < k->nr_syms; i++)
		k->syms[i].size = k->syms[i + 1].addr - k->syms[i].addr;
	k->syms[k->nr_syms - 1].size = 0;
}

static const struct ksym *find_sym(const struct ft_kevents *k, uint64_t addr)
{
	size_t lo = 0, hi = k->nr_syms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct ksym *s = &k->syms[lo - 1];

	/* the last symbol has no known size: accept up to 1 MiB past it */
	if (s->size ? addr - s->addr >= s->size : addr - s->addr >= (1u << 20))
		return NULL;
	return s;
}

const char *ft_kevents_sym_name(struct ft_kevents *k, uint64_t addr, uint64_t *off)
{
	const struct ksym *s = find_sym(k, addr);

	if (!s)
		return NULL;
	if (off)
		*off = addr - s->addr;
	return s->name;
}

int ft_kevents_sym(struct ft_kevents *k, uint64_t addr, int with_offset, char *buf, size_t len)
{
	const struct ksym *s = find_sym(k, addr);

	if (!s) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return -1;
	}
	if (with_offset)
		snprintf(buf, len, "%s+0x%llx/0x%llx", s->name,
			 (unsigned long long)(addr - s->addr), (unsigned long long)s->size);
	else
		snprintf(buf, len, "%s", s->name);
	return 0;
}

int ft_kevents_sym_fn(uint64_t ip, char *buf, size_t len, void *arg)
{
	return ft_kevents_sym(arg, ip, 1, buf, len);
}

/* ------------------------------------------------------------ stackmap */

static int stack_cb(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	struct ft_kevents *k = arg;

	(void)ref;
	if (id >= MAX_STACK_IDS || nr > MAX_FULL_STACK)
		return 0; /* hostile: ignore the entry */
	if (k->nr_stacks == k->cap_stacks) {
		uint32_t n = k->cap_stacks ? k->cap_stacks * 2 : 1024;
		struct kstack *ns = realloc(k->stacks, n * sizeof(*ns));

		if (!ns)
			return 1;
		k->stacks = ns;
		k->cap_stacks = n;
	}
	if (k->nr_stack_ips + nr > k->cap_stack_ips) {
		size_t nc = k->cap_stack_ips ? k->cap_stack_ips : 1024;

		while (nc < k->nr_stack_ips + nr)
			nc *= 2;
		uint64_t *ni = realloc(k->stack_ips, nc * sizeof(*ni));

		if (!ni)
			return 1;
		k->stack_ips = ni;
		k->cap_stack_ips = nc;
	}
	if (nr) /* an empty stack may come before any array exists: no NULL + 0 */
		memcpy(k->stack_ips + k->nr_stack_ips, ips, nr * sizeof(*ips));
	/* store the offset now; turned into pointers once the array is final */
	k->stacks[k->nr_stacks] = (struct kstack){ (const uint64_t *)(uintptr_t)k->nr_stack_ips, id,
						   nr, k->nr_stacks };
	k->nr_stacks++;
	k->nr_stack_ips += nr;
	return 0;
}

static int kstack_cmp(const void *a, const void *b)
{
	const struct kstack *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The stack stored under id, or NULL. */
static const struct kstack *find_stack(const struct ft_kevents *k, uint64_t id)
{
	uint32_t lo = 0, hi = k->nr_stacks;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (k->stacks[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->nr_stacks && k->stacks[lo].id == id ? &k->stacks[lo] : NULL;
}

static int load_stackmap(struct ft_kevents *k, char *err, size_t errlen)
{
	size_t len;
	char e[256] = "";
	void *bin = ft_reader_load_fsmb(k->r, FT_KSTACKMAP_ID, &len, e, sizeof(e));
	uint32_t n = 0;

	if (!bin) {
		if (e[0]) {
			ft_seterr(err, errlen, "kernel stack map: %s", e);
			return -1;
		}
		return 0;
	}
	if (ft_fsmb_parse(bin, len, stack_cb, k, e, sizeof(e))) {
		free(bin);
		ft_seterr(err, errlen, "kernel stack map: %s", e);
		return -1;
	}
	free(bin);
	/*
	 * Sorted by id, only the last entry of an id kept (a hostile blob may
	 * repeat one): a table as long as the stacks stored, not as the
	 * largest id, which a 1 KB file can push near MAX_STACK_IDS.
	 */
	if (k->nr_stacks)
		qsort(k->stacks, k->nr_stacks, sizeof(*k->stacks), kstack_cmp);
	for (uint32_t i = 0; i < k->nr_stacks; i++) {
		struct kstack *st = &k->stacks[i];

		if (i + 1 < k->nr_stacks && k->stacks[i + 1].id == st->id)
			continue;
		st->ips = st->nr ? k->stack_ips + (uintptr_t)st->ips : NULL;
		k->stacks[n++] = *st;
	}
	k->nr_stacks = n;
	return 0;
}

/* --------------------------------------------------------------- open */

static const char *meta_get(void *arg, const char *key)
{
	return ft_reader_meta(arg, key);
}

/*
 * The next KFORMATS blob at *q: its name (cut to 299 bytes) into name, a
 * malloc'ed NUL-terminated copy of its data into *data (dl bytes).  Returns 1,
 * 0 at the end, -1 (reason in err) when corrupt or out of memory.
 */
static int next_blob(unsigned char **q, unsigned char *end, char name[300], char **data,
		     uint32_t *dl, char *err, size_t errlen)
{
	uint32_t nl;

	if (*q >= end)
		return 0;
	if (end - *q < 4 || (nl = ft_le32_get(*q)) > (size_t)(end - *q) - 4 ||
	    (size_t)(end - *q) - 4 - nl < 4) {
		ft_seterr(err, errlen, "corrupt kernel formats section");
		return -1;
	}
	*dl = ft_le32_get(*q + 4 + nl);
	if (*dl > (size_t)(end - *q) - 8 - nl) {
		ft_seterr(err, errlen, "corrupt kernel formats section");
		return -1;
	}
	snprintf(name, 300, "%.*s", (int)(nl < 299 ? nl : 299), (const char *)*q + 4);
	*data = malloc((size_t)*dl + 1);
	if (!*data) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	memcpy(*data, *q + 8 + nl, *dl);
	(*data)[*dl] = 0;
	*q += 8 + nl + *dl;
	return 1;
}

/* Hand one blob (header_page, an event format, saved_cmdlines) to libtraceevent. */
static void tep_take(struct tep_handle *tep, char *name, char *data, uint32_t dl, int long_size)
{
	if (!strcmp(name, "header_page")) {
		tep_parse_header_page(tep, data, dl, long_size);
	} else if (!strncmp(name, "event:", 6)) {
		char *slash = strchr(name + 6, '/');

		if (slash) {
			*slash = 0;
			/* an unparsable format leaves its events raw */
			tep_parse_event(tep, data, dl, name + 6);
		}
	} else if (!strcmp(name, "saved_cmdlines")) {
		tep_parse_saved_cmdlines(tep, data);
	}
}

static struct tep_handle *new_tep(void)
{
	struct tep_handle *tep = tep_alloc();

	if (tep) {
		tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
		tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
		tep_set_flag(tep, TEP_NSEC_OUTPUT);
	}
	return tep;
}

#define SANDBOX_SECONDS 10
#define SANDBOX_MAX_BAD 16

/* What the sandbox found out about one blob (see sandbox_formats()). */
enum fmt_verdict {
	FMT_UNKNOWN = 0, /* not checked yet: the child parses it */
	FMT_SAFE,	 /* parsed in a child without harm */
	FMT_CRASH,	 /* killed the child: left out, its events print raw */
	FMT_HANG,	 /* kept the parser busy SANDBOX_SECONDS: section refused */
};

/*
 * The sandbox's verdicts, kept for the life of the process and keyed by the
 * blob itself (its name, long_size and bytes), so that a blob is checked in a
 * child once: `show` of many traces from one machine, and the fuzz target,
 * which opens the same formats thousands of times a second, fork only for a
 * blob never seen.  The hash only picks a bucket; a hit compares the whole
 * key, so a hostile file cannot pass a crashing blob off as a checked one by
 * colliding hashes.  Bounded (FMT_CACHE_MAX entries, FMT_CACHE_BYTES of
 * keys): a verdict that does not fit empties the cache first, so the blobs
 * in use now are the ones remembered (a fuzzing campaign makes a new blob
 * of every mutant of a format: a cache that stopped taking new ones once
 * full forked for each of them on every later input).  A blob forgotten is
 * checked again when next seen, as without a cache.  A mutex serialises
 * lookups and inserts (never held across fork()).
 */
#define FMT_CACHE_MAX 2048
#define FMT_CACHE_BYTES (32u << 20)

struct fmt_entry {
	struct ft_hentry h; /* first (hashtab.h): key the blob's hash */
	unsigned char *key; /* name NUL long_size-byte data */
	size_t len;
	enum fmt_verdict verdict;
};

static struct {
	pthread_mutex_t lock;
	struct ft_htab tab; /* struct fmt_entry, allocated at the first put */
	size_t bytes;
} fmt_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A key looked up, for fmt_eq(). */
struct fmt_lookup {
	const unsigned char *key;
	size_t len;
};

static int fmt_eq(const void *entry, const void *k)
{
	const struct fmt_entry *e = entry;
	const struct fmt_lookup *l = k;

	return e->len == l->len && !memcmp(e->key, l->key, l->len);
}

/* The cache key of a blob, malloc'ed into *key; its length, 0 when out of memory. */
static size_t fmt_key(const char *name, const char *data, uint32_t dl, int long_size,
		      unsigned char **key)
{
	size_t nl = strlen(name) + 1, len = nl + 1 + dl;

	*key = malloc(len);
	if (!*key)
		return 0;
	memcpy(*key, name, nl);
	(*key)[nl] = (unsigned char)long_size;
	memcpy(*key + nl + 1, data, dl);
	return len;
}

/* The verdict on key (FMT_UNKNOWN when never checked). */
static enum fmt_verdict fmt_cache_get(const unsigned char *key, size_t len, uint64_t h)
{
	struct fmt_lookup l = { key, len };
	const struct fmt_entry *e;
	enum fmt_verdict v;

	pthread_mutex_lock(&fmt_cache.lock);
	e = ft_htab_get_eq(&fmt_cache.tab, h, fmt_eq, &l, 0, NULL);
	v = e ? e->verdict : FMT_UNKNOWN;
	pthread_mutex_unlock(&fmt_cache.lock);
	return v;
}

/* Remember a verdict; takes key (freed when the cache has no room). */
static void fmt_cache_put(unsigned char *key, size_t len, uint64_t h, enum fmt_verdict v)
{
	struct fmt_lookup l = { key, len };
	struct fmt_entry *e;
	int created;

	pthread_mutex_lock(&fmt_cache.lock);
	if (fmt_cache.tab.tab &&
	    (fmt_cache.tab.used >= FMT_CACHE_MAX || fmt_cache.bytes + len > FMT_CACHE_BYTES)) {
		for (size_t i = 0; i < fmt_cache.tab.cap; i++) {
			struct fmt_entry *old = ft_htab_slot(&fmt_cache.tab, i);

			if (old)
				free(old->key);
		}
		ft_htab_clear(&fmt_cache.tab);
		fmt_cache.bytes = 0;
	}
	if ((fmt_cache.tab.tab || !ft_htab_init(&fmt_cache.tab, sizeof(struct fmt_entry))) &&
	    len <= FMT_CACHE_BYTES) {
		/* another thread may have checked it too: then it is there already */
		e = ft_htab_get_eq(&fmt_cache.tab, h, fmt_eq, &l, 1, &created);
		if (e && created) {
			e->key = key;
			e->len = len;
			e->verdict = v;
			fmt_cache.bytes += len;
			key = NULL;
		}
	}
	pthread_mutex_unlock(&fmt_cache.lock);
	free(key);
}

/*
 * libtraceevent's parsers trust their input (1.7 dereferences NULL when a
 * print fmt names a field its format lacks), and a trace file is not to be
 * trusted.  So the blobs not checked before (state[i] == FMT_UNKNOWN) are
 * first handed to libtraceevent in a child process, in the same order as
 * the parent will, with a handle of their own.  Before each blob the child
 * writes its index (u32) to the parent; when the child dies (signal,
 * non-zero exit) the blob it was on is marked FMT_CRASH and a new child
 * starts over without it, so every blob that kills libtraceevent is found
 * (one child for a sane file).  The blobs left FMT_UNKNOWN parsed safely.
 * Bounded work for a hostile file: a blob that keeps the parser busy
 * SANDBOX_SECONDS is marked FMT_HANG and, like more than SANDBOX_MAX_BAD
 * crashing blobs, makes the whole section an error.
 *
 * Blobs known from the cache are skipped in the child: parsing one event
 * format in libtraceevent depends on that blob and long_size (both in the
 * key), not on the other events of the handle, so a verdict holds in any
 * company.  A file seen for the first time replays exactly the parent's
 * sequence, as without a cache.
 *
 * The child is the checker (see checker_run()): it receives the blobs of
 * one check over a socket, parses them into a new handle, reports, frees
 * the handle and, by default, exits, so that a reader process has a child
 * only while it checks (the recorder is a child subreaper that waits until
 * it has none; a child that outlived the check would also keep the
 * parent's pipes open).  ft_kevents_keep_checker() keeps one checker for
 * many checks, for a process that checks new formats all the time (the
 * fuzz target: a fork of a process that large was 10 ms, 7% of its time):
 * it is forked again when it died (the blob it was on is the one that
 * killed it, as above) and every CHECKER_MAX_CHECKS checks (what
 * libtraceevent leaks on malformed formats stays bounded).  A format that
 * corrupts the checker's heap without killing it could then fail a later
 * check in the same checker: that blob's events print raw, nothing is
 * trusted that was not parsed without harm.  A mutex serialises checks.
 * Returns 0, or -1 with a reason in err.
 */
#define CHECKER_MAX_CHECKS 1000

static struct {
	pthread_mutex_t lock;
	pid_t pid; /* 0: none */
	int fd;	   /* our end of its socket */
	int keep;  /* ft_kevents_keep_checker() */
	unsigned int checks;
} checker = { .lock = PTHREAD_MUTEX_INITIALIZER };

void ft_kevents_keep_checker(int keep)
{
	pthread_mutex_lock(&checker.lock);
	checker.keep = keep;
	pthread_mutex_unlock(&checker.lock);
}

/* All n bytes to fd (a socket: no SIGPIPE when the checker is gone); 0 or -1. */
static int send_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;

	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* All n bytes from fd: 1, or 0 at its end (or on an error). */
static int recv_all(int fd, void *buf, size_t n)
{
	char *p = buf;

	while (n) {
		ssize_t r = read(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 0;
		p += r;
		n -= (size_t)r;
	}
	return 1;
}

/*
 * The checker: each check is a u32 long_size, a u32 count, then count times
 * a u32 index, a u32 length and a KFORMATS record (see next_blob()).  It
 * answers each record's index before parsing it, then UINT32_MAX - 1.
 */
static __attribute__((__noreturn__)) void checker_run(int fd, int keep)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM };
	static const int quiet[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGPIPE, SIGTSTP };
	const uint32_t done = UINT32_MAX - 1;
	uint32_t hdr[2];

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	/* signals for the terminal's process group are the parent's to handle:
	 * the checker ends when the parent closes its socket */
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	while (recv_all(fd, hdr, sizeof(hdr))) {
		struct tep_handle *tep;
		unsigned char *buf = NULL;
		size_t len = 0, cap = 0;

		/* the whole check first: the parent sends it all before reading */
		for (uint32_t i = 0; i < hdr[1]; i++) {
			uint32_t rec[2];

			if (!recv_all(fd, rec, sizeof(rec)) ||
			    FT_GROW(buf, cap, len + sizeof(rec) + rec[1], 4096))
				_exit(2);
			memcpy(buf + len, rec, sizeof(rec));
			if (!recv_all(fd, buf + len + sizeof(rec), rec[1]))
				_exit(2);
			len += sizeof(rec) + rec[1];
		}
		alarm(SANDBOX_SECONDS);
		tep = new_tep();
		if (!tep)
			_exit(2);
		tep_set_long_size(tep, (int)hdr[0]);
		for (size_t off = 0; off < len;) {
			uint32_t rec[2];
			unsigned char *q;
			char name[300], *data;
			uint32_t dl;

			memcpy(rec, buf + off, sizeof(rec));
			q = buf + off + sizeof(rec);
			off += sizeof(rec) + rec[1];
			if (send_all(fd, &rec[0], sizeof(rec[0])))
				_exit(2);
			if (next_blob(&q, buf + off, name, &data, &dl, NULL, 0) == 1) {
				tep_take(tep, name, data, dl, (int)hdr[0]);
				free(data);
			}
		}
		tep_free(tep);
		free(buf);
		alarm(0);
		if (send_all(fd, &done, sizeof(done)))
			_exit(2);
		if (!keep)
			break;
	}
	_exit(0);
}

/* Start the checker; 0, or -1 with a reason in err. */
static int checker_start(char *err, size_t errlen)
{
	int fds[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds)) {
		ft_seterr(err, errlen, "checking the kernel formats: socketpair: %s",
			  strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ft_seterr(err, errlen, "checking the kernel formats: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		int null;

		/* none of the parent's files but stderr (sanitizer reports) */
		if (dup2(fds[1], 3) < 0)
			_exit(2);
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		close_range(4, ~0u, 0);
		checker_run(3, checker.keep);
	}
	close(fds[1]);
	checker.pid = pid;
	checker.fd = fds[0];
	checker.checks = 0;
	return 0;
}

/* End the checker (it exits at the end of its socket); its wait status. */
static int checker_stop(void)
{
	int status = 0;

	close(checker.fd);
	while (waitpid(checker.pid, &status, 0) < 0 && errno == EINTR)
		;
	checker.pid = 0;
	checker.fd = -1;
	return status;
}

/* One check of the blobs still FMT_UNKNOWN; -1 when the checker could not be sent it. */
static int checker_send(unsigned char *p, unsigned char *end, int long_size, const char *state,
			uint32_t n)
{
	uint32_t hdr[2] = { (uint32_t)long_size, 0 };
	unsigned char *q = p;
	char name[300], *data;
	uint32_t dl;

	for (uint32_t idx = 0; idx < n && next_blob(&q, end, name, &data, &dl, NULL, 0) == 1;
	     idx++) {
		free(data);
		hdr[1] += state[idx] == FMT_UNKNOWN;
	}
	if (send_all(checker.fd, hdr, sizeof(hdr)))
		return -1;
	q = p;
	for (uint32_t idx = 0; idx < n; idx++) {
		unsigned char *start = q;
		uint32_t rec[2];

		if (next_blob(&q, end, name, &data, &dl, NULL, 0) != 1)
			break;
		free(data);
		if (state[idx] != FMT_UNKNOWN)
			continue;
		rec[0] = idx;
		rec[1] = (uint32_t)(q - start);
		if (send_all(checker.fd, rec, sizeof(rec)) ||
		    send_all(checker.fd, start, (size_t)(q - start)))
			return -1;
	}
	return 0;
}

static int sandbox_formats(unsigned char *p, unsigned char *end, int long_size, char *state,
			   uint32_t n, char *err, size_t errlen)
{
	int ret = -1;

	pthread_mutex_lock(&checker.lock);
	for (uint32_t round = 0; round <= n; round++) {
		uint32_t last = UINT32_MAX, idx;
		const uint32_t done = UINT32_MAX - 1;
		int status, fresh = 0;

		if (checker.pid && checker.checks >= CHECKER_MAX_CHECKS)
			(void)checker_stop();
		if (!checker.pid) {
			if (checker_start(err, errlen))
				goto out;
			fresh = 1;
		}
		checker.checks++;
		if (!checker_send(p, end, long_size, state, n)) {
			while (recv_all(checker.fd, &idx, sizeof(idx))) {
				last = idx;
				if (idx == done)
					break;
			}
		}
		if (last == done) {
			if (!checker.keep)
				(void)checker_stop();
			ret = 0;
			goto out;
		}
		status = checker_stop();
		if (last >= n) {
			/* a kept checker that died between checks: once more, anew */
			if (!fresh) {
				round--;
				continue;
			}
			ft_seterr(err, errlen, "checking the kernel formats: the checker failed");
			goto out;
		}
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
			state[last] = FMT_HANG;
			ft_seterr(err, errlen,
				  "kernel format %u: libtraceevent does not finish parsing it",
				  last);
			goto out;
		}
		state[last] = FMT_CRASH;
		if (round >= SANDBOX_MAX_BAD) {
			ft_seterr(err, errlen,
				  "kernel formats: more than %d of them crash libtraceevent",
				  SANDBOX_MAX_BAD);
			goto out;
		}
	}
	ft_seterr(err, errlen, "checking the kernel formats: the checker failed");
out:
	pthread_mutex_unlock(&checker.lock);
	return ret;
}

/*
 * The verdict on every blob: from the cache, else from the sandbox (whose
 * findings are cached).  state[] has n entries.  Returns 0, or -1 with a
 * reason in err (a blob that hangs the parser, too many crashing blobs).
 */
static int check_formats(unsigned char *p, unsigned char *end, int long_size, char *state,
			 uint32_t n, char *err, size_t errlen)
{
	struct {
		unsigned char *key;
		size_t len;
		uint64_t h;
		int cached;
	} *keys = calloc(n + 1, sizeof(*keys));
	unsigned char *q = p;
	char name[300], *data;
	uint32_t dl, idx = 0, todo = 0;
	int ret = 0;

	if (!keys) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	for (; idx < n && next_blob(&q, end, name, &data, &dl, NULL, 0) == 1; idx++) {
		keys[idx].len = fmt_key(name, data, dl, long_size, &keys[idx].key);
		free(data);
		if (!keys[idx].len) {
			state[idx] = FMT_UNKNOWN;
			todo++;
			continue;
		}
		/* the hash only picks a bucket: equality is decided by memcmp */
		keys[idx].h = ft_hash_fnv1a((const char *)keys[idx].key, keys[idx].len);
		state[idx] = (char)fmt_cache_get(keys[idx].key, keys[idx].len, keys[idx].h);
		if (state[idx] == FMT_HANG) {
			ft_seterr(err, errlen,
				  "kernel format %u: libtraceevent does not finish parsing it",
				  idx);
			ret = -1;
			goto out;
		}
		keys[idx].cached = state[idx] != FMT_UNKNOWN;
		todo += !keys[idx].cached;
	}
	if (todo) {
		/* hand the sandbox's findings to the cache, errors included */
		ret = sandbox_formats(p, end, long_size, state, n, err, errlen);
		for (idx = 0; idx < n; idx++) {
			if (keys[idx].cached)
				continue;
			if (state[idx] == FMT_UNKNOWN && ret == 0)
				state[idx] = FMT_SAFE;
			if (keys[idx].key && state[idx] != FMT_UNKNOWN) {
				fmt_cache_put(keys[idx].key, keys[idx].len, keys[idx].h,
					      (enum fmt_verdict)state[idx]);
				keys[idx].key = NULL;
			}
		}
	}
out:
	for (idx = 0; idx < n; idx++)
		free(keys[idx].key);
	free(keys);
	return ret;
}

/* Parse the KFORMATS blobs into the tep handle (see check_formats()). */
static int load_formats(struct ft_kevents *k, unsigned char *p, size_t len, char *err,
			size_t errlen)
{
	unsigned char *end = p + len;
	int long_size = (int)sizeof(long);
	uint32_t n = 0, idx = 0;
	char *state = NULL;

	k->tep = new_tep();
	if (!k->tep) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	/* two passes: sizes first (long_size before header_page) */
	for (int pass = 0; pass < 2; pass++) {
		unsigned char *q = p;
		char name[300], *data;
		uint32_t dl;
		int ret;

		if (pass == 1) {
			tep_set_long_size(k->tep, long_size);
			state = calloc(n + 1, 1);
			if (!state) {
				ft_seterr(err, errlen, "out of memory");
				return -1;
			}
			if (check_formats(p, end, long_size, state, n, err, errlen)) {
				free(state);
				return -1;
			}
		}
		while ((ret = next_blob(&q, end, name, &data, &dl, err, errlen)) == 1) {
			if (pass == 0) {
				if (!strcmp(name, "long_size"))
					long_size = atoi(data) == 4 ? 4 : 8;
				else if (!strcmp(name, "nr_cpus"))
					k->formats_nr_cpus = atoi(data);
				n++;
			} else if (state[idx++] == FMT_SAFE) {
				tep_take(k->tep, name, data, dl, long_size);
			}
			free(data);
		}
		if (ret < 0) {
			free(state);
			return -1;
		}
	}
	free(state);
	return 0;
}

/*
 * Parsed handles of recently closed iterators, kept for the next open of the
 * same formats and kallsyms: parsing them is most of what an open costs, and
 * readers open the same kernel sections again and again (offcpu: the report,
 * then the folded stacks; `show`, `latency` and `stacks` of several files
 * recorded on one machine, or of one file in turn; the fuzz target, whose
 * corpus holds a few dozen distinct format sets that its inputs alternate
 * between).  Up to TEP_CACHE_MAX handles, least recently used evicted
 * first, with at most TEP_CACHE_BYTES of keys (a larger key is still kept
 * when it is the only one).  Each entry also keeps the kallsyms text and its
 * sorted table (load_kallsyms()), which depend on the same bytes.
 * Exclusive: an open takes an entry out and its close puts it back, so no
 * two live iterators ever share one and ft_kevents keeps its
 * one-iterator-per-thread contract.  The key is the bytes themselves
 * (compared whole, after their length); a handle's later state (sorted
 * cmdlines and function maps, libtraceevent's last-event cache) only
 * memoises lookups, so a reused handle answers as a fresh one.  A mutex
 * guards the table (never held while parsing or freeing a handle).
 */
#define TEP_CACHE_MAX 64
#define TEP_CACHE_BYTES (16u << 20)

struct tep_entry {
	struct tep_handle *tep; /* NULL: a free slot */
	unsigned char *key;
	size_t len;
	int nr_cpus;
	char *ktext; /* kallsyms, names NUL-terminated in place (syms point into it) */
	struct ksym *syms;
	size_t nr_syms;
	uint64_t used; /* tep_cache.clock at the last put: the lowest is evicted */
};

static struct {
	pthread_mutex_t lock;
	struct tep_entry e[TEP_CACHE_MAX];
	size_t bytes; /* keys' lengths, added up */
	uint64_t clock;
} tep_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void tep_entry_free(struct tep_entry *e)
{
	if (e->tep)
		tep_free(e->tep);
	free(e->key);
	free(e->ktext);
	free(e->syms);
}

/* The key of (formats, kallsyms): lengths first, so no two pairs collide. */
static unsigned char *tep_key(const unsigned char *fm, size_t flen, const char *ks, size_t klen,
			      size_t *len)
{
	unsigned char *key;

	*len = 2 * sizeof(size_t) + flen + klen;
	key = malloc(*len);
	if (!key)
		return NULL;
	memcpy(key, &flen, sizeof(size_t));
	memcpy(key + sizeof(size_t), &klen, sizeof(size_t));
	memcpy(key + 2 * sizeof(size_t), fm, flen);
	if (klen)
		memcpy(key + 2 * sizeof(size_t) + flen, ks, klen);
	return key;
}

/*
 * k's handle, kallsyms and symbol table from the cache entry of k's key,
 * taken out of the cache (k's own kallsyms text is freed).  0 on a hit, -1
 * on a miss.
 */
static int tep_cache_take(struct ft_kevents *k)
{
	struct tep_entry got = { 0 };

	pthread_mutex_lock(&tep_cache.lock);
	for (int i = 0; i < TEP_CACHE_MAX; i++) {
		struct tep_entry *e = &tep_cache.e[i];

		if (e->tep && e->len == k->tep_key_len && !memcmp(e->key, k->tep_key, e->len)) {
			got = *e;
			tep_cache.bytes -= e->len;
			*e = (struct tep_entry){ 0 };
			break;
		}
	}
	pthread_mutex_unlock(&tep_cache.lock);
	if (!got.tep)
		return -1;
	k->tep = got.tep;
	k->formats_nr_cpus = got.nr_cpus;
	free(k->ktext);
	k->ktext = got.ktext;
	k->syms = got.syms;
	k->nr_syms = got.nr_syms;
	free(got.key);
	return 0;
}

/*
 * Put k's handle, key, kallsyms and symbol table into the cache (taking
 * them from k), evicting the least recently used entries to make room.
 */
static void tep_cache_put(struct ft_kevents *k)
{
	struct tep_entry in = { k->tep,	  k->tep_key, k->tep_key_len, k->formats_nr_cpus,
				k->ktext, k->syms,    k->nr_syms,     0 };
	struct tep_entry out[TEP_CACHE_MAX];
	int nr_out = 0, slot = -1;

	k->tep = NULL;
	k->tep_key = NULL;
	k->ktext = NULL;
	k->syms = NULL;
	k->nr_syms = 0;
	pthread_mutex_lock(&tep_cache.lock);
	in.used = ++tep_cache.clock;
	for (;;) {
		int lru = -1, used = 0;

		for (int i = 0; i < TEP_CACHE_MAX; i++) {
			struct tep_entry *e = &tep_cache.e[i];

			if (!e->tep) {
				slot = slot < 0 ? i : slot;
				continue;
			}
			used++;
			if (lru < 0 || e->used < tep_cache.e[lru].used)
				lru = i;
		}
		if (!used || (slot >= 0 && tep_cache.bytes + in.len <= TEP_CACHE_BYTES))
			break;
		out[nr_out++] = tep_cache.e[lru];
		tep_cache.bytes -= tep_cache.e[lru].len;
		tep_cache.e[lru] = (struct tep_entry){ 0 };
		slot = lru;
	}
	tep_cache.e[slot] = in;
	tep_cache.bytes += in.len;
	pthread_mutex_unlock(&tep_cache.lock);
	for (int i = 0; i < nr_out; i++)
		tep_entry_free(&out[i]);
}

/* Free the cached handles at exit, so leak checkers see a clean heap. */
static void __attribute__((destructor)) tep_cache_drop(void)
{
	pthread_mutex_lock(&tep_cache.lock);
	for (int i = 0; i < TEP_CACHE_MAX; i++) {
		tep_entry_free(&tep_cache.e[i]);
		tep_cache.e[i] = (struct tep_entry){ 0 };
	}
	tep_cache.bytes = 0;
	pthread_mutex_unlock(&tep_cache.lock);
}

/* The kernel side from the sections type, ids base + cpu (KDATA, or a dump's KSNAP). */
static struct ft_kevents *kevents_open(struct ft_reader *r, uint32_t type, uint64_t base, char *err,
				       size_t errlen)
{
	struct ft_kevents *k;
	char e[256] = "";
	size_t len, klen;
	unsigned char *fm;
	int max_id = -1;

	if (err && errlen)
		err[0] = 0;
	fm = ft_reader_load_all(r, FT_SEC_KFORMATS, 0, &len, e, sizeof(e));
	if (!fm) {
		if (e[0])
			ft_seterr(err, errlen, "kernel formats: %s", e);
		return NULL;
	}
	k = calloc(1, sizeof(*k));
	if (!k) {
		free(fm);
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	k->r = r;
	e[0] = 0;
	klen = 0;
	k->ktext = ft_reader_load_all(r, FT_SEC_KALLSYMS, UINT64_MAX, &klen, e, sizeof(e));
	if (k->ktext) {
		char *t = realloc(k->ktext, klen + 1);

		if (!t) {
			free(fm);
			ft_seterr(err, errlen, "out of memory");
			ft_kevents_close(k);
			return NULL;
		}
		k->ktext = t;
		t[klen] = 0;
	}
	k->tep_key = tep_key(fm, len, k->ktext, klen, &k->tep_key_len);
	if (!k->tep_key || tep_cache_take(k)) {
		if (load_formats(k, fm, len, err, errlen)) {
			free(fm);
			ft_kevents_close(k);
			return NULL;
		}
		/* tep resolves %ps from its own copy of kallsyms; ours keeps sizes */
		if (k->ktext) {
			tep_parse_kallsyms(k->tep, k->ktext);
			load_kallsyms(k, klen);
		}
	}
	free(fm);
	k->tep_ready = 1;
	k->kstack_ev = tep_find_event_by_name(k->tep, "ftrace", "kernel_stack");
	k->ustack_ev = tep_find_event_by_name(k->tep, "ftrace", "user_stack");
	k->nr_cpus = k->formats_nr_cpus;
	k->have_clk = ft_clock_from_meta(&k->clk, meta_get, r) == 0;

	/* CPUs: the highest KDATA id seen, bounded */
	for (size_t i = 0; i < ft_reader_nr_sections(r); i++) {
		const struct ft_section *s = ft_reader_section(r, i);

		if (s->type == type && s->id >= base && s->id - base < MAX_CPUS &&
		    (int)(s->id - base) > max_id)
			max_id = (int)(s->id - base);
	}
	if (k->nr_cpus <= 0 || k->nr_cpus > MAX_CPUS)
		k->nr_cpus = 0;
	if (max_id + 1 > k->nr_cpus)
		k->nr_cpus = max_id + 1;
	k->cpus = calloc((size_t)(k->nr_cpus ? k->nr_cpus : 1), sizeof(*k->cpus));
	if (!k->cpus) {
		ft_seterr(err, errlen, "out of memory");
		ft_kevents_close(k);
		return NULL;
	}
	for (int c = 0; c < k->nr_cpus; c++) {
		e[0] = 0;
		k->cpus[c].buf = ft_reader_load_all(r, type, base + (uint64_t)c, &k->cpus[c].len, e,
						    sizeof(e));
		if (!k->cpus[c].buf && e[0]) {
			ft_seterr(err, errlen, "kernel events of CPU %d: %s", c, e);
			ft_kevents_close(k);
			return NULL;
		}
	}
	if (load_stackmap(k, err, errlen)) {
		ft_kevents_close(k);
		return NULL;
	}
	{
		const char *opts = ft_reader_meta(r, "options");

		k->used_stackmap = opts ? !!(ft_options_parse(opts) & FT_OPT(STACKMAP)) : 1;
	}
	return k;
}

void ft_kevents_fix_user_stacks(struct ft_kevents *k, const char *path)
{
	char err[256];

	ft_graphret_free(k->graphret);
	k->graphret = ft_graphret_open(path, err, sizeof(err));
}

void ft_kevents_close(struct ft_kevents *k)
{
	if (!k)
		return;
	if (k->cpus)
		for (int c = 0; c < k->nr_cpus; c++) {
			free(k->cpus[c].buf);
			free(k->cpus[c].kfull);
			free(k->cpus[c].ufull);
		}
	free(k->cpus);
	if (k->tep && k->tep_key && k->tep_ready)
		tep_cache_put(k);
	if (k->tep)
		tep_free(k->tep);
	free(k->tep_key);
	free(k->ktext);
	free(k->syms);
	free(k->stacks);
	free(k->stack_ips);
	free(k->recbuf);
	ft_graphret_free(k->graphret);
	free(k->cur_ips);
	for (int i = 0; i < 2; i++)
		if (k->tseq_ready[i])
			trace_seq_destroy(&k->tseq[i]);
	free(k);
}

const char *ft_kevents_error(const struct ft_kevents *k)
{
	return k->errbuf;
}

struct tep_handle *ft_kevents_tep(struct ft_kevents *k)
{
	return k->tep;
}

int ft_kevents_nr_cpus(const struct ft_kevents *k)
{
	return k->nr_cpus;
}

void ft_kevents_rewind(struct ft_kevents *k)
{
	for (int c = 0; c < k->nr_cpus; c++) {
		k->cpus[c].pos = 0;
		k->cpus[c].ticks = 0;
		k->cpus[c].h.valid = 0;
		k->cpus[c].done = 0;
	}
	k->seq = 0;
	k->failed = 0;
	k->errbuf[0] = 0;
}

/* ------------------------------------------------------------- decode */

static int corrupt(struct ft_kevents *k, int cpu, size_t pos, const char *what)
{
	snprintf(k->errbuf, sizeof(k->errbuf), "corrupt kernel events of CPU %d at byte %zu: %s",
		 cpu, pos, what);
	k->failed = 1;
	return -1;
}

static int read_stack(struct ft_kevents *k, struct kcpu_stream *s, const unsigned char *end,
		      int full, int *id, const uint64_t **ips, uint32_t *nr, uint64_t **storep)
{
	const unsigned char *p = s->buf + s->pos;
	uint64_t v;

	if (ft_uv_get(&p, end, &v))
		return -1;
	if (!full) {
		const struct kstack *st = find_stack(k, v);

		if (!st) {
			/* an id the map does not hold: keep the id, no frames */
			*id = v < INT32_MAX ? (int)v : -1;
			*ips = NULL;
			*nr = 0;
		} else {
			*id = (int)v;
			*ips = st->ips;
			*nr = st->nr;
		}
	} else {
		uint64_t *store;

		if (v > MAX_FULL_STACK || (size_t)(end - p) < v * 8)
			return -1;
		if (!*storep && !(*storep = malloc(MAX_FULL_STACK * sizeof(uint64_t))))
			return -1;
		store = *storep;
		for (uint64_t i = 0; i < v; i++)
			store[i] = ft_le64_get(p + 8 * i);
		p += v * 8;
		*id = -1;
		*ips = store;
		*nr = (uint32_t)v;
	}
	s->pos = (size_t)(p - s->buf);
	return 0;
}

/* Decode the next record of CPU c into its head; 0 ok (or done), -1 corrupt. */
static int fill_head(struct ft_kevents *k, int c)
{
	struct kcpu_stream *s = &k->cpus[c];
	/* a CPU without data has no buffer: no pointer arithmetic on NULL */
	const unsigned char *end = s->buf ? s->buf + s->len : NULL;

	while (!s->h.valid && !s->done) {
		const unsigned char *p;
		uint64_t d, v;
		uint8_t tag;

		if (!s->buf || s->pos >= s->len) {
			s->done = 1;
			break;
		}
		p = s->buf + s->pos;
		tag = *p++;
		switch (tag & KREC_KIND_MASK) {
		case KREC_TIME:
			if (end - p < 8)
				return corrupt(k, c, s->pos, "short time record");
			s->ticks = ft_le64_get(p);
			s->pos = (size_t)(p + 8 - s->buf);
			break;
		case KREC_MISSED:
			if (ft_uv_get(&p, end, &d) || ft_uv_get(&p, end, &v))
				return corrupt(k, c, s->pos, "short missed-events record");
			s->ticks += d;
			s->pos = (size_t)(p - s->buf);
			memset(&s->h, 0, sizeof(s->h));
			s->h.valid = 1;
			s->h.kind = FT_KEV_MISSED;
			s->h.ticks = s->ticks;
			s->h.missed = v;
			break;
		case KREC_EVENT:
			if (ft_uv_get(&p, end, &d) || ft_uv_get(&p, end, &v) ||
			    (uint64_t)(end - p) < v || v < 8)
				return corrupt(k, c, s->pos, "bad event record");
			s->ticks += d;
			memset(&s->h, 0, sizeof(s->h));
			s->h.kind = FT_KEV_EVENT;
			s->h.ticks = s->ticks;
			s->h.raw = p;
			s->h.raw_len = (size_t)v;
			s->h.flags = tag & 0xf0;
			s->h.kid = s->h.uid = -1;
			s->pos = (size_t)(p + v - s->buf);
			if ((tag & KF_KSTACK_ID) && (tag & KF_KSTACK_FULL))
				return corrupt(k, c, s->pos, "bad stack flags");
			if ((tag & (KF_KSTACK_ID | KF_KSTACK_FULL)) &&
			    read_stack(k, s, end, !!(tag & KF_KSTACK_FULL), &s->h.kid, &s->h.kips,
				       &s->h.knr, &s->kfull))
				return corrupt(k, c, s->pos, "bad kernel stack");
			if ((tag & (KF_USTACK_ID | KF_USTACK_FULL)) &&
			    read_stack(k, s, end, !!(tag & KF_USTACK_FULL), &s->h.uid, &s->h.uips,
				       &s->h.unr, &s->ufull))
				return corrupt(k, c, s->pos, "bad user stack");
			s->h.valid = 1;
			break;
		default:
			return corrupt(k, c, s->pos, "unknown record type");
		}
	}
	return 0;
}

/* The CPU whose head is the oldest, or -1 at the end (or on corruption). */
static int pick(struct ft_kevents *k)
{
	int best = -1;

	if (k->failed)
		return -1;
	for (int c = 0; c < k->nr_cpus; c++) {
		if (fill_head(k, c))
			return -1;
		if (k->cpus[c].h.valid && (best < 0 || k->cpus[c].h.ticks < k->cpus[best].h.ticks))
			best = c;
	}
	return best;
}

static uint64_t to_ns(const struct ft_kevents *k, uint64_t ticks)
{
	return k->have_clk ? ft_clock_ns(&k->clk, ticks) : ticks;
}

int ft_kevents_peek_ts(struct ft_kevents *k, uint64_t *ts)
{
	int c = pick(k);

	if (c < 0)
		return 0;
	*ts = to_ns(k, k->cpus[c].h.ticks);
	return 1;
}

/*
 * Do the fields of ev's format (common ones included) lie within a record of
 * size bytes?  A dynamic field needs only its 4-byte location word in the
 * fixed part; libtraceevent bounds the data it points to.
 */
static int fields_fit(const struct tep_event *ev, int size)
{
	const struct tep_format_field *lists[2] = { ev->format.common_fields, ev->format.fields };

	for (int l = 0; l < 2; l++)
		for (const struct tep_format_field *f = lists[l]; f; f = f->next)
			if (f->offset < 0 || f->size < 0 ||
			    (long long)f->offset + (f->flags & TEP_FIELD_IS_DYNAMIC ? 4 : f->size) >
				    size)
				return 0;
	return 1;
}

struct ft_kevents *ft_kevents_open(struct ft_reader *r, char *err, size_t errlen)
{
	return kevents_open(r, FT_SEC_KDATA, 0, err, errlen);
}

struct ft_kevents *ft_kevents_open_snapshot(struct ft_reader *r, unsigned int snap,
					    uint64_t since_ns, char *err, size_t errlen)
{
	struct ft_kevents *k = kevents_open(r, FT_SEC_KSNAP, (uint64_t)snap << 16, err, errlen);

	if (k)
		k->since_ns = since_ns;
	return k;
}

static int kevents_next_one(struct ft_kevents *k, struct ft_kevent *ev);

int ft_kevents_next(struct ft_kevents *k, struct ft_kevent *ev)
{
	int r;

	/* a dump's window (--last): events older than it are left out */
	while ((r = kevents_next_one(k, ev)) == 1 && ev->kind == FT_KEV_EVENT &&
	       ev->ts < k->since_ns)
		;
	return r;
}

static int kevents_next_one(struct ft_kevents *k, struct ft_kevent *ev)
{
	struct head *h;
	int c = pick(k);

	if (c < 0)
		return k->failed ? -1 : 0;
	h = &k->cpus[c].h;
	memset(ev, 0, sizeof(*ev));
	ev->kind = h->kind;
	ev->ticks = h->ticks;
	ev->ts = to_ns(k, h->ticks);
	ev->cpu = c;
	ev->seq = k->seq++;
	ev->kstack_id = ev->ustack_id = -1;
	ev->missed = h->missed;
	if (h->kind == FT_KEV_EVENT) {
		/*
		 * At least one zero byte after the record: a string field of a
		 * hostile record that lacks its NUL then ends at the record's
		 * end instead of running past the buffer (libtraceevent prints
		 * fixed strings with %s).
		 */
		size_t words = (h->raw_len + 1 + 7) / 8;
		uint16_t type;

		if (words > k->recbuf_cap) {
			uint64_t *n = realloc(k->recbuf, words * 8);

			if (!n) {
				snprintf(k->errbuf, sizeof(k->errbuf), "out of memory");
				k->failed = 1;
				return -1;
			}
			k->recbuf = n;
			k->recbuf_cap = words;
		}
		memcpy(k->recbuf, h->raw, h->raw_len);
		memset((char *)k->recbuf + h->raw_len, 0, words * 8 - h->raw_len);
		memset(&k->rec, 0, sizeof(k->rec));
		k->rec.ts = ev->ts;
		k->rec.cpu = c;
		k->rec.size = (int)h->raw_len;
		k->rec.data = k->recbuf;
		memcpy(&type, h->raw, 2);
		ev->event = tep_find_event(k->tep, type);
		/*
		 * A stack record that joined no event is as long as its frames
		 * (the format's caller[8] is only what the kernel declares):
		 * it is read by its length, never through its print format.
		 */
		if (ev->event && (ev->event == k->kstack_ev || ev->event == k->ustack_ev))
			ev->stack_rec = ev->event == k->kstack_ev ? 1 : 2;
		/*
		 * A record shorter than its format's fields (a corrupt or hostile
		 * file) is shown as an unknown event: libtraceevent's printers
		 * read fields at their format offsets without checking the size.
		 */
		else if (ev->event && !fields_fit(ev->event, (int)h->raw_len))
			ev->event = NULL;
		ev->record = &k->rec;
		{
			int32_t pid;

			memcpy(&pid, h->raw + 4, 4);
			ev->pid = pid;
		}
		/* stacks: copy full ones out of the stream's scratch (next fill reuses it) */
		ev->kstack_id = h->kid;
		ev->ustack_id = h->uid;
		if ((h->knr || h->unr) && !k->cur_ips) {
			k->cur_ips = malloc(2 * MAX_FULL_STACK * sizeof(uint64_t));
			if (!k->cur_ips) {
				snprintf(k->errbuf, sizeof(k->errbuf), "out of memory");
				k->failed = 1;
				return -1;
			}
		}
		if (h->knr) {
			memcpy(k->cur_ips, h->kips, h->knr * sizeof(uint64_t));
			ev->kstack = k->cur_ips;
			ev->kstack_nr = h->knr;
		}
		if (h->unr) {
			memcpy(k->cur_ips + MAX_FULL_STACK, h->uips, h->unr * sizeof(uint64_t));
			/* function_graph's hijacked return addresses, put back */
			ft_graphret_fix(k->graphret, (uint32_t)ev->pid, ev->ts,
					k->cur_ips + MAX_FULL_STACK, h->unr);
			ev->ustack = k->cur_ips + MAX_FULL_STACK;
			ev->ustack_nr = h->unr;
		}
	}
	ev->comm = ev->kind == FT_KEV_EVENT ? tep_data_comm_from_pid(k->tep, ev->pid) : "";
	h->valid = 0;
	return 1;
}

/* ------------------------------------------------------------- fields */

struct tep_event *ft_kevents_find_event(struct ft_kevents *k, const char *sys_colon_name)
{
	char buf[256], *colon;

	snprintf(buf, sizeof(buf), "%s", sys_colon_name);
	colon = strchr(buf, ':');
	if (!colon)
		return NULL;
	*colon = 0;
	return tep_find_event_by_name(k->tep, buf, colon + 1);
}

int ft_kevents_field_num(struct ft_kevents *k, const struct ft_kevent *ev, const char *name,
			 unsigned long long *val)
{
	struct tep_format_field *f;

	if (!strcmp(name, "cpu") && (!ev->event || !tep_find_any_field(ev->event, "cpu"))) {
		*val = (unsigned long long)ev->cpu;
		return 0;
	}
	if (!strcmp(name, "pid") && (!ev->event || !tep_find_any_field(ev->event, "pid"))) {
		*val = (unsigned long long)(unsigned int)ev->pid;
		return 0;
	}
	if (!ev->event || !ev->record)
		return -1;
	f = tep_find_any_field(ev->event, name);
	if (!f || (f->flags & (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)) ||
	    (int)(f->offset + f->size) > ev->record->size)
		return -1;
	return tep_read_number_field(f, ev->record->data, val) ? -1 : 0;
}

/*
 * The printers' text buffer i (0: what is printed, 1: a piece of it), empty.
 * Kept in the iterator instead of a trace_seq_init()/trace_seq_destroy()
 * per event and per field printed as text: each init is a 4 KB allocation
 * and its free (under the sanitizers, a 4 KB poisoning each way).  One
 * iterator is used by one thread at a time, and no printer calls another
 * that uses the same buffer.
 */
static struct trace_seq *kseq(struct ft_kevents *k, int i)
{
	struct trace_seq *s = &k->tseq[i];

	if (k->tseq_ready[i] && s->state == TRACE_SEQ__GOOD) {
		trace_seq_reset(s);
		return s;
	}
	if (k->tseq_ready[i])
		trace_seq_destroy(s); /* out of memory before: start again */
	trace_seq_init(s);
	k->tseq_ready[i] = 1;
	return s;
}

int ft_kevents_field_str(struct ft_kevents *k, const struct ft_kevent *ev, const char *name,
			 char *buf, size_t len)
{
	struct tep_format_field *f;
	unsigned long long v;

	if (!ev->event || !ev->record) {
		if (ft_kevents_field_num(k, ev, name, &v))
			return -1;
		snprintf(buf, len, "%llu", v);
		return 0;
	}
	f = tep_find_any_field(ev->event, name);
	if (!f) {
		if (ft_kevents_field_num(k, ev, name, &v))
			return -1;
		snprintf(buf, len, "%llu", v);
		return 0;
	}
	if (f->flags & TEP_FIELD_IS_STRING) {
		struct trace_seq *s = kseq(k, 0);

		tep_print_field_content(s, ev->record->data, ev->record->size, f);
		trace_seq_terminate(s);
		snprintf(buf, len, "%s", s->buffer ? s->buffer : "");
		return 0;
	}
	if (ft_kevents_field_num(k, ev, name, &v))
		return -1;
	if ((f->flags & TEP_FIELD_IS_POINTER) || (f->flags & TEP_FIELD_IS_LONG) ||
	    (f->size == 8 && v >= 0xffff000000000000ull)) {
		if (ft_kevents_sym(k, v, 0, buf, len) == 0)
			return 0;
	}
	snprintf(buf, len, "%llu", v);
	return 0;
}

int ft_kevents_for_each_stack(struct ft_kevents *k,
			      int (*fn)(uint32_t id, const uint64_t *ips, uint32_t nr, void *arg),
			      void *arg)
{
	for (uint32_t i = 0; i < k->nr_stacks; i++)
		if (fn(k->stacks[i].id, k->stacks[i].ips, k->stacks[i].nr, arg))
			break;
	return 0;
}

/* ------------------------------------------------------------- print */

static void print_prefix(struct ft_kevents *k, const struct ft_kevent *ev, struct trace_seq *s)
{
	tep_print_event(k->tep, s, ev->record, "%16s-%-7d [%03d] %s %6.1000d: ", TEP_PRINT_COMM,
			TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_LATENCY, TEP_PRINT_TIME);
}

static void print_stack(struct ft_kevents *k, const struct ft_kevent *ev, struct trace_seq *s,
			int user, uint64_t options)
{
	int id = user ? ev->ustack_id : ev->kstack_id;
	const uint64_t *ips = user ? ev->ustack : ev->kstack;
	uint32_t nr = user ? ev->ustack_nr : ev->kstack_nr;
	char sym[512];

	if (id < 0 && !nr)
		return;
	print_prefix(k, ev, s);
	if (id >= 0 && k->used_stackmap && !(options & FT_OPT(EXPAND_STACKS))) {
		trace_seq_printf(s, "<%sstack_id %d>\n", user ? "user_" : "", id);
		return;
	}
	trace_seq_printf(s, "<%sstack trace>\n", user ? "user " : "");
	for (uint32_t i = 0; i < nr; i++) {
		if (user) {
			/* the kernel's seq_print_user_ip() without sym-userobj: " <addr>" */
			trace_seq_printf(s, " =>  <%016llx>\n", (unsigned long long)ips[i]);
			continue;
		}
		ft_kevents_sym(k, ips[i], !!(options & FT_OPT(SYM_OFFSET)), sym, sizeof(sym));
		if (options & FT_OPT(SYM_ADDR))
			trace_seq_printf(s, " => %s <%016llx>\n", sym, (unsigned long long)ips[i]);
		else
			trace_seq_printf(s, " => %s\n", sym);
	}
}

/*
 * A kernel_stack or user_stack record that joined no event, as the kernel
 * prints it where it lies (trace_stack_print, trace_user_stack_print):
 * "<stack trace>" then a " => " line per frame, as many as the record
 * holds (a kernel stack ends at its size or ULONG_MAX, a user one at 0).
 * The lines end with a newline each but the last.
 */
static void print_stack_rec(struct ft_kevents *k, const struct ft_kevent *ev, struct trace_seq *s,
			    uint64_t options)
{
	const unsigned char *d = ev->record->data;
	int size = ev->record->size, user = ev->stack_rec == 2;
	uint32_t max = size >= 16 ? (uint32_t)(size - 16) / 8 : 0;
	char sym[512];
	int32_t n;

	if (!user && size >= 12) {
		memcpy(&n, d + 8, 4);
		if (n >= 0 && (uint32_t)n < max)
			max = (uint32_t)n;
	}
	trace_seq_printf(s, "<%sstack trace>", user ? "user " : "");
	for (uint32_t i = 0; i < max; i++) {
		uint64_t ip;

		memcpy(&ip, d + 16 + 8 * i, 8);
		if (user ? !ip : ip == ~0ull)
			break;
		if (user) {
			trace_seq_printf(s, "\n =>  <%016llx>", (unsigned long long)ip);
			continue;
		}
		ft_kevents_sym(k, ip, !!(options & FT_OPT(SYM_OFFSET)), sym, sizeof(sym));
		if (options & FT_OPT(SYM_ADDR))
			trace_seq_printf(s, "\n => %s <%016llx>", sym, (unsigned long long)ip);
		else
			trace_seq_printf(s, "\n => %s", sym);
	}
}

/*
 * libtraceevent evaluates the '/' and '%' of a print format's arguments
 * without checking the divisor (1.7: SIGFPE on "REC->a / REC->b" when b is
 * 0, or on a divisor that is not a number or names no field, both read as
 * 0); formats are not to be trusted, nor the records.  1 when printing ev
 * through its print format may divide by zero: a divisor that is a field
 * of this record equal to 0, an atom that reads as 0, or anything this
 * check cannot evaluate (an expression, a cast...).  Such an event prints
 * its fields raw instead (what the raw option prints).  depth bounds the
 * walk of a hostile argument tree.
 */
static int arg_may_divide_by_zero(const struct tep_print_arg *a, const struct ft_kevent *ev,
				  int depth)
{
	for (; a; a = a->next) {
		const struct tep_print_arg *r;

		if (depth > 32)
			return 1;
		switch (a->type) {
		case TEP_PRINT_OP:
			r = a->op.right;
			if (a->op.op && (!strcmp(a->op.op, "/") || !strcmp(a->op.op, "%"))) {
				unsigned long long v = 0;
				struct tep_format_field *f;

				if (!r)
					return 1;
				if (r->type == TEP_PRINT_ATOM) {
					if (!r->atom.atom || !strtoull(r->atom.atom, NULL, 0))
						return 1;
				} else if (r->type == TEP_PRINT_FIELD) {
					f = r->field.name
						    ? tep_find_any_field(ev->event, r->field.name)
						    : NULL;
					if (!f || (int)(f->offset + f->size) > ev->record->size ||
					    tep_read_number_field(f, ev->record->data, &v) || !v)
						return 1;
				} else {
					return 1;
				}
			}
			if (arg_may_divide_by_zero(a->op.left, ev, depth + 1) ||
			    arg_may_divide_by_zero(r, ev, depth + 1))
				return 1;
			break;
		case TEP_PRINT_TYPE:
			if (arg_may_divide_by_zero(a->typecast.item, ev, depth + 1))
				return 1;
			break;
		case TEP_PRINT_FLAGS:
			if (arg_may_divide_by_zero(a->flags.field, ev, depth + 1))
				return 1;
			break;
		case TEP_PRINT_SYMBOL:
			if (arg_may_divide_by_zero(a->symbol.field, ev, depth + 1))
				return 1;
			break;
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
			if (arg_may_divide_by_zero(a->hex.field, ev, depth + 1) ||
			    arg_may_divide_by_zero(a->hex.size, ev, depth + 1))
				return 1;
			break;
		case TEP_PRINT_INT_ARRAY:
			if (arg_may_divide_by_zero(a->int_array.field, ev, depth + 1) ||
			    arg_may_divide_by_zero(a->int_array.count, ev, depth + 1) ||
			    arg_may_divide_by_zero(a->int_array.el_size, ev, depth + 1))
				return 1;
			break;
		case TEP_PRINT_DYNAMIC_ARRAY:
			if (arg_may_divide_by_zero(a->dynarray.index, ev, depth + 1))
				return 1;
			break;
		case TEP_PRINT_FUNC:
			if (arg_may_divide_by_zero(a->func.args, ev, depth + 1))
				return 1;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Can ev go through its print format (TEP_PRINT_INFO) without a fault? */
static int print_fmt_safe(const struct ft_kevent *ev)
{
	return !arg_may_divide_by_zero(ev->event->print_fmt.args, ev, 0);
}

int ft_kevents_print(struct ft_kevents *k, const struct ft_kevent *ev, uint64_t options, FILE *out)
{
	struct trace_seq *s = kseq(k, 0);
	if (ev->kind == FT_KEV_MISSED) {
		if (ev->missed)
			trace_seq_printf(s, "CPU:%d [LOST %llu EVENTS]\n", ev->cpu,
					 (unsigned long long)ev->missed);
		else
			trace_seq_printf(s, "CPU:%d [LOST EVENTS]\n", ev->cpu);
	} else if (!ev->event) {
		print_prefix(k, ev, s);
		trace_seq_printf(s, "[UNKNOWN EVENT %d, %d bytes]\n",
				 ev->record ? *(const uint16_t *)ev->record->data : -1,
				 ev->record ? ev->record->size : 0);
	} else if (ev->stack_rec) {
		print_prefix(k, ev, s);
		print_stack_rec(k, ev, s, options);
		trace_seq_putc(s, '\n');
	} else {
		if ((options & FT_OPT(RAW)) || !print_fmt_safe(ev))
			tep_print_event(k->tep, s, ev->record,
					"%16s-%-7d [%03d] %s %6.1000d: %s: %s\n", TEP_PRINT_COMM,
					TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_LATENCY,
					TEP_PRINT_TIME, TEP_PRINT_NAME, TEP_PRINT_INFO_RAW);
		else
			tep_print_event(k->tep, s, ev->record,
					"%16s-%-7d [%03d] %s %6.1000d: %s: %s\n", TEP_PRINT_COMM,
					TEP_PRINT_PID, TEP_PRINT_CPU, TEP_PRINT_LATENCY,
					TEP_PRINT_TIME, TEP_PRINT_NAME, TEP_PRINT_INFO);
		print_stack(k, ev, s, 0, options);
		print_stack(k, ev, s, 1, options);
	}
	trace_seq_terminate(s);
	return fputs(s->buffer ? s->buffer : "", out) < 0 ? -1 : 0;
}

int ft_kevents_used_stackmap(const struct ft_kevents *k)
{
	return k->used_stackmap;
}

const char *ft_kevents_comm(struct ft_kevents *k, int pid)
{
	const char *c = tep_data_comm_from_pid(k->tep, pid);

	return c ? c : "<...>";
}

void ft_kevents_lat_flags(struct ft_kevents *k, const struct ft_kevent *ev, char *buf, size_t len)
{
	struct trace_seq *s;

	if (!len)
		return;
	/* no format (unknown id, or left out as hostile): the flags are unknown too */
	if (ev->kind != FT_KEV_EVENT || !ev->record || !ev->event) {
		snprintf(buf, len, ".....");
		return;
	}
	s = kseq(k, 0);
	tep_print_event(k->tep, s, ev->record, "%s", TEP_PRINT_LATENCY);
	trace_seq_terminate(s);
	snprintf(buf, len, "%s", s->buffer ? s->buffer : ".....");
}

/*
 * "name=value" for each field of the event (common_* fields left out),
 * numbers in hexadecimal zero-padded to the field's size as the kernel's
 * hex option prints them (trace_seq_putmem_hex), strings as they are.
 * Fields that do not fit in the record print as "name=?".
 */
static void print_hex_fields(const struct ft_kevent *ev, struct trace_seq *s)
{
	struct tep_format_field **fields = tep_event_fields(ev->event);
	const struct tep_record *r = ev->record;

	for (int i = 0; fields && fields[i]; i++) {
		struct tep_format_field *f = fields[i];
		unsigned long long v;

		trace_seq_printf(s, "%s%s=", i ? " " : "", f->name);
		if (f->offset < 0 || f->size < 0 || f->offset + f->size > r->size) {
			trace_seq_puts(s, "?");
		} else if (f->flags &
			   (TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_ARRAY)) {
			tep_print_field_content(s, r->data, r->size, f);
		} else if (f->size <= 8 && !tep_read_number_field(f, r->data, &v)) {
			trace_seq_printf(s, "%0*llx", f->size * 2, v);
		} else {
			trace_seq_puts(s, "?");
		}
	}
	free(fields);
}

int ft_kevents_print_info(struct ft_kevents *k, const struct ft_kevent *ev, uint64_t options,
			  FILE *out)
{
	struct trace_seq *s = kseq(k, 0);
	const char *p;
	size_t n;
	if (ev->kind != FT_KEV_EVENT || !ev->record) {
		trace_seq_puts(s, "[LOST EVENTS]");
	} else if (!ev->event) {
		trace_seq_printf(s, "[UNKNOWN EVENT %d, %d bytes]",
				 ev->record->size >= 2 ? *(const uint16_t *)ev->record->data : -1,
				 ev->record->size);
	} else if (ev->stack_rec) {
		print_stack_rec(k, ev, s, options);
	} else if (options & FT_OPT(HEX)) {
		trace_seq_printf(s, "%s: ", ev->event->name);
		print_hex_fields(ev, s);
	} else if ((options & FT_OPT(RAW)) || !print_fmt_safe(ev)) {
		struct trace_seq *f = kseq(k, 1);

		/* tep's raw field list starts with a space: drop it */
		tep_print_event(k->tep, f, ev->record, "%s", TEP_PRINT_INFO_RAW);
		trace_seq_terminate(f);
		p = f->buffer ? f->buffer : "";
		trace_seq_printf(s, "%s: %s", ev->event->name, p + strspn(p, " "));
	} else {
		tep_print_event(k->tep, s, ev->record, "%s: %s", TEP_PRINT_NAME, TEP_PRINT_INFO);
	}
	trace_seq_terminate(s);
	p = s->buffer ? s->buffer : "";
	n = strlen(p);
	while (n && p[n - 1] == '\n')
		n--; /* the kernel strips the print format's newline */
	return fwrite(p, 1, n, out) == n ? 0 : -1;
}

int ft_ksource_next(void *arg, struct ft_event *ev, char *err, size_t errlen)
{
	struct ft_ksource *ks = arg;
	int ret = ft_kevents_next(ks->k, &ks->cur);

	if (ret < 0) {
		snprintf(err, errlen, "kernel events: %s", ft_kevents_error(ks->k));
		return -1;
	}
	if (ret == 0)
		return 0;
	ev->ts = ks->cur.ts;
	ev->cpu = ks->cur.cpu;
	ev->pid = ev->tid = (uint32_t)ks->cur.pid;
	ev->comm = ks->cur.comm;
	ev->count = ks->cur.kind == FT_KEV_MISSED ? ks->cur.missed : 0;
	ev->priv = &ks->cur;
	return 1;
}

void ft_ksource_print(void *arg, const struct ft_event *ev, FILE *f)
{
	struct ft_ksource *ks = arg;

	ft_kevents_print(ks->k, ev->priv, ks->options, f);
}

const struct ft_fmt_kops ft_kevents_fmt_ops = {
	.print_info = ft_kevents_print_info,
	.lat_flags = ft_kevents_lat_flags,
	.used_stackmap = ft_kevents_used_stackmap,
	.sym = ft_kevents_sym,
	.comm = ft_kevents_comm,
};
