// SPDX-License-Identifier: GPL-2.0
/*
 * The sections of the user-space recorder that name its records: FUNCS,
 * MODULES with their SYMTABs, and the STACKMAP, written as they grow and
 * before the chunks that use them (urec_sync_tables), then TASKS and META at
 * the end (see urecord.c for the whole recorder).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "core/options.h"
#include "core/ringbuf.h"
#include "core/session.h"
#include "core/smapfull.h"
#include "core/stackmap.h"
#include "core/symbols.h"
#include "core/tracefile.h"
#include "recorder/urec_int.h"

static void put_u32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4); /* the trace file is little endian, as is x86-64 */
}

/*
 * FUNCS from u->funcs_done on: the entries published so far (VALID), or,
 * when final, all of them (one a crash interrupted is written empty).
 */
static int sync_funcs(struct ft_urecord *u, struct ft_writer *w, int final)
{
	struct ft_session_func *f = ft_session_funcs(u->h);
	uint32_t n = ft_session_nr_funcs(u->h), end = u->funcs_done;
	unsigned char *b;
	size_t len;
	int r;

	/* acquire: pairs with the runtime's release of VALID (session.h) */
	while (end < n &&
	       (final || (__atomic_load_n(&f[end].flags, __ATOMIC_ACQUIRE) & FT_SFUNC_VALID)))
		end++;
	if (end == u->funcs_done)
		return 0;
	len = 4 + (size_t)(end - u->funcs_done) * 16;
	b = malloc(len);
	if (!b)
		return -1;
	put_u32(b, end - u->funcs_done);
	for (uint32_t i = u->funcs_done; i < end; i++) {
		uint32_t fl = __atomic_load_n(&f[i].flags, __ATOMIC_ACQUIRE);
		unsigned char *e = b + 4 + (size_t)(i - u->funcs_done) * 16;
		uint64_t addr = 0;
		uint32_t mod = 0;

		if (fl & FT_SFUNC_VALID) {
			addr = f[i].addr;
			mod = f[i].module;
		} else {
			fl = 0;
		}
		memcpy(e, &addr, 8);
		memcpy(e + 8, &mod, 4);
		memcpy(e + 12, &fl, 4);
	}
	r = ft_writer_add(w, FT_SEC_FUNCS, u->funcs_done, b, len, 1);
	free(b);
	if (!r)
		u->funcs_done = end;
	return r;
}

/* The SYMTAB blob of an ELF file, read once per path (NULL: no symbols). */
static const void *symtab_of(struct ft_urecord *u, const char *path, size_t *len)
{
	struct symcache *n;
	char e[256], bid[128];
	struct ft_symtab *st;

	for (size_t k = 0; k < u->nr_symc; k++)
		if (!strcmp(u->symc[k].path, path)) {
			*len = u->symc[k].len;
			return u->symc[k].blob;
		}
	n = realloc(u->symc, (u->nr_symc + 1) * sizeof(*n));
	if (!n)
		return NULL;
	u->symc = n;
	n = &u->symc[u->nr_symc];
	n->path = strdup(path);
	if (!n->path)
		return NULL;
	n->blob = NULL;
	n->len = 0;
	st = ft_symtab_from_elf(path, bid, sizeof(bid), e, sizeof(e));
	if (st) {
		n->blob = ft_symtab_encode(st, &n->len);
		ft_symtab_free(st);
	} else {
		urec_warn(u, "no symbols for %s: %s", path, e);
	}
	u->nr_symc++;
	*len = n->len;
	return n->blob;
}

/*
 * MODULES lines (index = line) from u->mods_done on, each module's SYMTAB
 * before them: the published ones, or when final all (an unpublished slot
 * as "[unknown]").
 */
static int sync_modules(struct ft_urecord *u, struct ft_writer *w, int final)
{
	struct ft_session_module *m = ft_session_modules(u->h);
	uint32_t n = ft_session_nr_modules(u->h), end = u->mods_done;
	size_t cap = 4096, len = 0;
	char *text;
	int r = 0;

	while (end < n &&
	       (final || (__atomic_load_n(&m[end].flags, __ATOMIC_ACQUIRE) & FT_SMOD_VALID)))
		end++;
	if (end == u->mods_done)
		return 0;
	text = malloc(cap);
	if (!text)
		return -1;
	for (uint32_t i = u->mods_done; i < end; i++) {
		uint32_t fl = __atomic_load_n(&m[i].flags, __ATOMIC_ACQUIRE);
		char bid[2 * sizeof(m[i].build_id) + 1] = "-", line[FT_SESSION_PATH_MAX + 128];
		char path[FT_SESSION_PATH_MAX];
		int l;

		if (!(fl & FT_SMOD_VALID)) {
			l = snprintf(line, sizeof(line), "0 0 0 0 - [unknown]\n");
			path[0] = 0;
		} else {
			uint32_t bl = m[i].build_id_len;

			if (bl > sizeof(m[i].build_id))
				bl = sizeof(m[i].build_id);
			for (uint32_t k = 0; k < bl; k++)
				snprintf(bid + 2 * k, 3, "%02x", m[i].build_id[k]);
			memcpy(path, m[i].path, sizeof(path));
			path[sizeof(path) - 1] = 0;
			for (char *c = path; *c; c++)
				if (*c == '\n')
					*c = '?';
			l = snprintf(line, sizeof(line), "%u %llx %llx %llx %s %s\n", m[i].pid,
				     (unsigned long long)m[i].start, (unsigned long long)m[i].end,
				     (unsigned long long)m[i].offset, bid,
				     path[0] ? path : "[unknown]");
		}
		if (len + (size_t)l + 1 > cap) {
			char *nt;

			cap = (cap + (size_t)l) * 2;
			nt = realloc(text, cap);
			if (!nt) {
				free(text);
				return -1;
			}
			text = nt;
		}
		memcpy(text + len, line, (size_t)l);
		len += (size_t)l;
		if (path[0] == '/') {
			size_t blen = 0;
			const void *blob = symtab_of(u, path, &blen);

			if (blob)
				r |= ft_writer_add(w, FT_SEC_SYMTAB, i, blob, blen, 1);
		}
	}
	r |= ft_writer_add(w, FT_SEC_MODULES, u->mods_done, text, len, 1);
	free(text);
	if (!r)
		u->mods_done = end;
	return r;
}

/*
 * The stacks inserted since the last chunk; when final, also every stack
 * whose reference count moved (the file ends with the final counts), and
 * the map's counters in META.
 */
static int sync_stackmap(struct ft_urecord *u, struct ft_writer *w, int final)
{
	size_t len, blen = 0;
	void *blob;
	int r = 0;

	if (!u->sm_state) {
		void *mem = ft_session_stackmap_mem(u->h, &len);

		u->sm_state = -1;
		if (mem && !ft_stackmap_attach(&u->sm, mem, len)) {
			u->sm_seen = calloc(ft_stackmap_table_size(&u->sm), sizeof(*u->sm_seen));
			if (!u->sm_seen)
				return -1;
			u->sm_state = 1;
		}
	}
	if (u->sm_state < 0)
		return 0;
	/* nothing new can be there when every pool element taken was written */
	if (!final && ft_stackmap_nr_entries(&u->sm) <= u->sm_exported)
		return 0;
	blob = ft_stackmap_export_delta(&u->sm, u->sm_seen, final, &blen);
	if (blob) {
		struct ft_fsmb_header h;

		memcpy(&h, blob, sizeof(h));
		if (!final)
			u->sm_exported += h.nr_stacks;
		r = ft_writer_add(w, FT_SEC_STACKMAP, 0, blob, blen, 1);
		free(blob);
	} else if (errno && errno != EBUSY) {
		return -1;
	}
	if (final) {
		char meta[512];
		/* capacity, successes, drops for `ftrail stackmap stat` */
		int n = ft_stackmap_meta_lines(&u->sm, "user", meta, sizeof(meta));

		if (n > 0 && (size_t)n < sizeof(meta))
			r |= ft_writer_add(w, FT_SEC_META, 0, meta, (size_t)n, 0);
		/* the map filled: say so, and what to do */
		{
			struct ft_stackmap_stat st;
			char line[320];

			ft_stackmap_get_stat(&u->sm, &st);
			if (ft_smap_full_line(line, sizeof(line), "user",
					      (unsigned int)__builtin_ctz(st.max_entries | 1u << 31),
					      st.entries, st.successes, st.drops))
				urec_warn(u, "%s", line);
		}
	}
	return r;
}

/*
 * Write what readers need to name the records drained so far: modules
 * (and their symbols), functions, stacks -- before the chunk that uses
 * them (tracefile.h: a cut file reads with names).  final: everything
 * left, at the end.  Called by the writer thread before each queued chunk
 * and by the drain loop before what it writes itself; u->sync_lock makes
 * them take turns (the cursors and the symbol cache are its).  Returns 0,
 * or -1 with errno.
 */
int urec_sync_tables(struct ft_urecord *u, struct ft_writer *w, int final)
{
	int r = 0;

	if (!u->h)
		return 0;
	pthread_mutex_lock(&u->sync_lock);
	r |= sync_modules(u, w, final);
	r |= sync_funcs(u, w, final);
	r |= sync_stackmap(u, w, final);
	pthread_mutex_unlock(&u->sync_lock);
	return r;
}

int urec_write_tasks(struct ft_urecord *u, struct ft_writer *w)
{
	const char *base = strrchr(u->prog, '/');
	size_t cap = 64 + u->nr_tasks * 64, len = 0;
	char *text = malloc(cap);
	int r = 0;

	if (!text)
		return -1;
	base = base ? base + 1 : u->prog;
	for (size_t i = 0; i < u->nr_tasks; i++) {
		struct task *t = &u->tasks[i];
		const char *c = t->comm;

		if (!c[0]) {
			/* died before we looked: its process's name, else the program's */
			struct task *pt = urec_task_find(u, t->pid, t->pid);

			c = pt && pt->comm[0] ? pt->comm : base;
		}
		len += (size_t)snprintf(text + len, cap - len, "%u %u %.31s\n", t->pid, t->tid, c);
	}
	if (len)
		r = ft_writer_add(w, FT_SEC_TASKS, 0, text, len, 0);
	free(text);
	return r;
}

int urec_write_meta(struct ft_urecord *u, struct ft_writer *w, const struct ft_rb_totals *t,
		    int stopped)
{
	char buf[2048];
	int n = 0;

	n += snprintf(buf + n, sizeof(buf) - n,
		      "user_events=%llu\nuser_bytes=%llu\nuser_pages=%llu\n",
		      (unsigned long long)u->events, (unsigned long long)u->bytes,
		      (unsigned long long)u->pages);
	n += snprintf(buf + n, sizeof(buf) - n,
		      "user_lost=%llu\nuser_lost_dropped=%llu\nuser_lost_overwritten=%llu\n"
		      "user_pages_overwritten=%llu\nuser_lost_noslot=%llu\nuser_lost_nested=%llu\n",
		      (unsigned long long)t->lost, (unsigned long long)t->lost_new,
		      (unsigned long long)t->lost_old, (unsigned long long)t->pages_old,
		      (unsigned long long)t->lost_noslot, (unsigned long long)t->lost_nest);
	n += snprintf(buf + n, sizeof(buf) - n,
		      "user_threads=%llu\nbuffer_kb=%u\nbuffer_page_size=%u\nbuffer_slots=%u\n"
		      "buffer_mode=%s\n",
		      (unsigned long long)t->claims,
		      u->o->buffer_kb ? u->o->buffer_kb : FT_RB_DEFAULT_KB, u->area->page_size,
		      u->area->nr_slots,
		      (u->area->flags & FT_RB_F_OVERWRITE) ? "overwrite"
		      : (u->area->flags & FT_RB_F_BLOCK)   ? "block"
							   : "producer-consumer");
	n += snprintf(buf + n, sizeof(buf) - n,
		      "buffer_block_waits=%llu\nbuffer_block_timeouts=%llu\n"
		      "buffer_block_wait_ns=%llu\nbuffer_peak_kb=%llu\n",
		      (unsigned long long)t->block_waits, (unsigned long long)t->block_timeouts,
		      (unsigned long long)t->block_wait_ns,
		      (unsigned long long)(u->peak_bytes >> 10));
	if (u->main_done && WIFSIGNALED(u->main_status))
		n += snprintf(buf + n, sizeof(buf) - n, "program_signal=%d\nprogram_core=%d\n",
			      WTERMSIG(u->main_status), WCOREDUMP(u->main_status) ? 1 : 0);
	else if (u->main_done && WIFEXITED(u->main_status))
		n += snprintf(buf + n, sizeof(buf) - n, "program_exit=%d\n",
			      WEXITSTATUS(u->main_status));
	if (stopped)
		n += snprintf(buf + n, sizeof(buf) - n, "program_stopped=1\n");
	/* -P: calls entered before the attach have no entry here (analysis shows why) */
	if (u->attached)
		n += snprintf(buf + n, sizeof(buf) - n,
			      "attached_pid=%d\nattached_threads=%u\nattach_ns=%llu\n"
			      "detach_ns=%llu\nattached_exited=%d\n",
			      (int)u->pid, u->threads_at_attach, (unsigned long long)u->attach_ns,
			      (unsigned long long)u->detach_ns, u->target_exited);
	n += snprintf(buf + n, sizeof(buf) - n,
		      "snapshot_state=%s\nsnapshot_swaps=%llu\nsnapshot_saved=%u\n"
		      "snapshot_pages=%llu\nsnapshot_events=%llu\n"
		      "snapshot_missed=%llu\nsnapshot_skipped=%llu\n",
		      ft_rb_snapshot_state(u->area) == FT_RB_SNAP_FREE ? "freed" : "allocated",
		      (unsigned long long)__atomic_load_n(&u->area->snap_swaps, __ATOMIC_RELAXED),
		      u->snaps_taken, (unsigned long long)u->snap_pages,
		      (unsigned long long)u->snap_events,
		      (unsigned long long)__atomic_load_n(&u->area->snap_missed, __ATOMIC_RELAXED),
		      (unsigned long long)__atomic_load_n(&u->area->snap_skipped,
							  __ATOMIC_RELAXED));
	if (u->o->flight && n < (int)sizeof(buf))
		n += snprintf(buf + n, sizeof(buf) - n,
			      "flight_recorder=1\nflight_last_ms=%llu\nflight_evicted_pages=%llu\n",
			      (unsigned long long)u->o->flight_last_ms,
			      (unsigned long long)u->fl_evicted);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	return ft_writer_add(w, FT_SEC_META, 0, buf, (size_t)n, 0);
}
