// SPDX-License-Identifier: GPL-2.0
/*
 * Folded-stack aggregation with a memory budget (see folded.h).
 *
 * Layout: keys are appended to one arena (NUL-terminated, so foreach can
 * hand them out as C strings); the table is an ft_htab (core/hashtab.h)
 * keyed by the key's hash, each entry holding the key's arena offset and
 * length and the summed weight.  Nothing is ever removed except by
 * emptying the whole map (flush to the sink, or write).
 */
#include "analysis/folded.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/export_progress.h"
#include "core/hash.h"
#include "core/util.h"
#include "core/hashtab.h"

struct slot {
	struct ft_hentry h; /* key: the key's hash; aux: its length, without the NUL */
	uint64_t weight;
	uint64_t off; /* key offset in the arena */
};

struct ft_folded {
	size_t budget;
	struct ft_htab tab;
	char *arena;
	size_t alen, acap;
	uint64_t total;
	FILE *sink;
	uint64_t flushes;
	uint64_t dropped_stacks, dropped_weight;
	char *scratch; /* for ft_folded_add_frames() */
	size_t scap;
};

/* The key being looked up, for slot_eq(). */
struct key {
	const char *s;
	size_t n;
	const char *arena;
};

static int slot_eq(const void *entry, const void *k)
{
	const struct slot *s = entry;
	const struct key *key = k;

	return s->h.aux == key->n && !memcmp(key->arena + s->off, key->s, key->n);
}

static size_t mem_used(const struct ft_folded *f)
{
	return f->tab.cap * f->tab.esize + f->acap;
}

struct ft_folded *ft_folded_new(size_t max_bytes)
{
	struct ft_folded *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->budget = max_bytes ? max_bytes : FT_FOLDED_DEFAULT_BUDGET;
	if (ft_htab_init(&f->tab, sizeof(struct slot))) {
		free(f);
		return NULL;
	}
	return f;
}

void ft_folded_free(struct ft_folded *f)
{
	if (!f)
		return;
	ft_htab_free(&f->tab);
	free(f->arena);
	free(f->scratch);
	free(f);
}

void ft_folded_set_sink(struct ft_folded *f, FILE *out)
{
	f->sink = out;
}

static void clear(struct ft_folded *f)
{
	ft_htab_clear(&f->tab);
	f->alen = 0;
	f->total = 0;
}

/* Make room for need more arena bytes.  Returns 0 or -1 (budget, ENOMEM). */
static int grow_arena(struct ft_folded *f, size_t need)
{
	size_t ncap = f->acap ? f->acap : 65536;
	char *na;

	if (f->alen + need <= f->acap)
		return 0;
	while (ncap < f->alen + need)
		ncap *= 2;
	if (mem_used(f) - f->acap + ncap > f->budget) {
		/* the last doubling may be too much: try exactly what fits */
		ncap = f->budget - (mem_used(f) - f->acap);
		if (ncap < f->alen + need)
			return -1;
	}
	na = realloc(f->arena, ncap);
	if (!na)
		return -1;
	f->arena = na;
	f->acap = ncap;
	return 0;
}

/* Is there room for one more key of n bytes (table and arena)?  Grows the arena. */
static int room_for(struct ft_folded *f, size_t n)
{
	/* a table that doubles must stay within the budget too */
	if (ft_htab_grows(&f->tab) && mem_used(f) + f->tab.cap * f->tab.esize > f->budget)
		return 0;
	return !grow_arena(f, n + 1);
}

/*
 * The entry of key s (n bytes, hash h), made when absent and create (then
 * room_for() must have said yes); *created says which.  NULL: absent and
 * not made (!create, or the table could not grow).
 */
static struct slot *get_slot(struct ft_folded *f, const char *s, size_t n, uint64_t h, uint64_t w,
			     int create, int *created)
{
	struct key k = { s, n, f->arena };
	struct slot *e = ft_htab_get_eq(&f->tab, h, slot_eq, &k, create, created);

	if (!e || !*created)
		return e;
	memcpy(f->arena + f->alen, s, n);
	f->arena[f->alen + n] = '\0';
	e->h.aux = (uint32_t)n;
	e->weight = w;
	e->off = f->alen;
	f->alen += n + 1;
	f->total += w;
	return e;
}

/* Write the map's entries to the sink, unsorted, and empty it. */
static int flush_to_sink(struct ft_folded *f)
{
	for (size_t i = 0; i < f->tab.cap; i++) {
		const struct slot *s = ft_htab_slot(&f->tab, i);

		if (!s)
			continue;
		if (fprintf(f->sink, "%s %llu\n", f->arena + s->off,
			    (unsigned long long)s->weight) < 0)
			return -1;
	}
	clear(f);
	f->flushes++;
	return 0;
}

int ft_folded_add(struct ft_folded *f, const char *stack, size_t len, uint64_t weight)
{
	struct slot *s;
	int created;
	uint64_t h;

	if (!len || len > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	h = ft_hash_fnv1a(stack, len);
	/* one probe finds the stack or, when a new one fits, makes it */
	s = get_slot(f, stack, len, h, weight, room_for(f, len), &created);
	if (s) {
		if (!created) {
			s->weight += weight;
			f->total += weight;
		}
		return 0;
	}
	if (f->sink) {
		if (flush_to_sink(f))
			return -1;
		if (room_for(f, len) && get_slot(f, stack, len, h, weight, 1, &created))
			return 0;
	}
	/* does not fit even in an empty map, or no sink: refuse and count */
	f->dropped_stacks++;
	f->dropped_weight += weight;
	return 1;
}

static void put_frame(char *dst, const char *name, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		dst[i] = c == ';' ? ':' : (c == '\n' || c == '\r') ? ' ' : c;
	}
}

int ft_folded_add_frames(struct ft_folded *f, const char *const *frames, size_t n, int leaf_first,
			 uint64_t weight)
{
	size_t need = 0, pos = 0;

	if (!n) {
		errno = EINVAL;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		need += strlen(frames[i] ? frames[i] : "?") + 1;
	if (need > f->scap) {
		char *ns = realloc(f->scratch, need);

		if (!ns) {
			errno = ENOMEM;
			return -1;
		}
		f->scratch = ns;
		f->scap = need;
	}
	for (size_t i = 0; i < n; i++) {
		const char *nm = frames[leaf_first ? n - 1 - i : i];
		size_t l;

		nm = nm ? nm : "?";
		l = strlen(nm);
		if (i)
			f->scratch[pos++] = ';';
		put_frame(f->scratch + pos, nm, l);
		pos += l;
	}
	return ft_folded_add(f, f->scratch, pos, weight);
}

int ft_folded_split_line(char *line, const char **stack, size_t *len, uint64_t *weight)
{
	size_t n = strlen(line);
	char *sp, *end;
	unsigned long long w;

	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = '\0';
	if (!n || line[0] == '#')
		return 0;
	sp = strrchr(line, ' ');
	if (!sp || sp == line || sp[1] < '0' || sp[1] > '9')
		return -1;
	errno = 0;
	w = strtoull(sp + 1, &end, 10);
	/* flamegraph.pl accepts fractional counts: keep the integer part */
	if (*end == '.') {
		end++;
		while (*end >= '0' && *end <= '9')
			end++;
	}
	if (errno || *end)
		return -1;
	while (sp > line && sp[-1] == ' ')
		sp--;
	if (sp == line)
		return -1;
	*sp = '\0';
	*stack = line;
	*len = (size_t)(sp - line);
	*weight = w;
	return 1;
}

int ft_folded_add_line(struct ft_folded *f, const char *line)
{
	char *copy = strdup(line);
	const char *stack;
	size_t len;
	uint64_t w;
	int r;

	if (!copy)
		return -1;
	r = ft_folded_split_line(copy, &stack, &len, &w);
	if (r == 1)
		r = ft_folded_add(f, stack, len, w);
	else if (r < 0)
		errno = EINVAL;
	free(copy);
	return r;
}

int ft_folded_file_open(struct ft_folded_file *ff, const char *path, char *err, size_t errlen)
{
	struct stat st;

	memset(ff, 0, sizeof(*ff));
	ff->name = path;
	ff->in = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!ff->in) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (!fstat(fileno(ff->in), &st) && S_ISREG(st.st_mode))
		ff->size = (uint64_t)st.st_size;
	return 0;
}

int ft_folded_file_next(struct ft_folded_file *ff, const char **stack, size_t *len,
			uint64_t *weight, char *err, size_t errlen)
{
	ssize_t n;

	while ((n = getline(&ff->line, &ff->cap, ff->in)) >= 0) {
		int r;

		ff->lineno++;
		ff->done += (uint64_t)n;
		r = ft_folded_split_line(ff->line, stack, len, weight);
		if (r > 0)
			return 1;
		if (r < 0) {
			snprintf(err, errlen,
				 "%s:%lu: not a folded-stack line (want 'a;b;c COUNT')", ff->name,
				 ff->lineno);
			return -1;
		}
	}
	if (ferror(ff->in)) {
		snprintf(err, errlen, "%s: read error: %s", ff->name, strerror(errno));
		return -1;
	}
	return 0;
}

void ft_folded_file_close(struct ft_folded_file *ff)
{
	if (ff->in && ff->in != stdin)
		fclose(ff->in);
	free(ff->line);
	memset(ff, 0, sizeof(*ff));
}

int ft_folded_read(struct ft_folded *f, const char *path, struct ft_progress *pr, char *err,
		   size_t errlen)
{
	struct ft_folded_file ff;
	const char *stack;
	size_t len;
	uint64_t w;
	int r;

	if (ft_folded_file_open(&ff, path, err, errlen))
		return -1;
	while ((r = ft_folded_file_next(&ff, &stack, &len, &w, err, errlen)) == 1) {
		if (pr)
			ft_progress_update(pr, ff.done, ff.size, ff.lineno);
		if (ft_folded_add(f, stack, len, w) < 0) {
			snprintf(err, errlen, "%s:%lu: %s", path, ff.lineno, strerror(errno));
			r = -1;
			break;
		}
	}
	ft_folded_file_close(&ff);
	return r < 0 ? -1 : 0;
}

static const char *sort_arena; /* qsort has no context argument */

/* Frame order: byte order with ';' below every other byte and the end of a
 * key below ';', so "a;b" < "a;b;c" < "a;b!" and the stacks that share a
 * frame are adjacent. */
static int cmp_slot(const void *a, const void *b)
{
	const struct slot *x = *(const struct slot *const *)a, *y = *(const struct slot *const *)b;
	const unsigned char *p = (const unsigned char *)sort_arena + x->off;
	const unsigned char *q = (const unsigned char *)sort_arena + y->off;

	for (;; p++, q++) {
		int c = *p == ';' ? 1 : *p ? *p + 1 : 0;
		int d = *q == ';' ? 1 : *q ? *q + 1 : 0;

		if (c != d || !c)
			return c - d;
	}
}

int ft_folded_foreach(struct ft_folded *f,
		      int (*fn)(const char *stack, size_t len, uint64_t weight, void *arg),
		      void *arg)
{
	struct slot **order;
	size_t n = 0;
	int r = 0;

	order = malloc((f->tab.used ? f->tab.used : 1) * sizeof(*order));
	if (!order) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < f->tab.cap; i++)
		if (ft_htab_slot(&f->tab, i))
			order[n++] = ft_htab_slot(&f->tab, i);
	sort_arena = f->arena;
	qsort(order, n, sizeof(*order), cmp_slot);
	for (size_t i = 0; i < n && !r; i++)
		r = fn(f->arena + order[i]->off, order[i]->h.aux, order[i]->weight, arg);
	free(order);
	return r;
}

static int write_one(const char *stack, size_t len, uint64_t weight, void *arg)
{
	return fprintf(arg, "%s %llu\n", stack, (unsigned long long)weight) < 0 ? -1 : 0;
}

int ft_folded_write(struct ft_folded *f, FILE *out)
{
	int r = ft_folded_foreach(f, write_one, out);

	clear(f);
	return r ? -1 : 0;
}

size_t ft_folded_count(const struct ft_folded *f)
{
	return f->tab.used;
}

uint64_t ft_folded_total(const struct ft_folded *f)
{
	return f->total;
}

uint64_t ft_folded_flushes(const struct ft_folded *f)
{
	return f->flushes;
}

uint64_t ft_folded_dropped_stacks(const struct ft_folded *f)
{
	return f->dropped_stacks;
}

uint64_t ft_folded_dropped_weight(const struct ft_folded *f)
{
	return f->dropped_weight;
}

/* --- function_graph folding -------------------------------------------- */

struct gcall {
	size_t path_len; /* length of the path before this call's frame */
	uint64_t start;
	uint64_t child; /* time spent in callees that returned */
};

struct gthread {
	struct ft_hentry h; /* first (hashtab.h): key tid */
	char *path;	    /* "root;a;b" of the open calls */
	size_t plen, pcap;
	size_t root_len; /* length of the root part (no call open) */
	struct gcall *calls;
	size_t depth, ccap;
};

struct ft_graphfold {
	struct ft_folded *out;
	struct ft_htab threads; /* struct gthread */
	uint64_t unmatched;
};

struct ft_graphfold *ft_graphfold_new(struct ft_folded *out)
{
	struct ft_graphfold *g = calloc(1, sizeof(*g));

	if (!g)
		return NULL;
	g->out = out;
	if (ft_htab_init(&g->threads, sizeof(struct gthread))) {
		free(g);
		errno = ENOMEM;
		return NULL;
	}
	return g;
}

void ft_graphfold_free(struct ft_graphfold *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->threads.cap; i++) {
		struct gthread *t = ft_htab_slot(&g->threads, i);

		if (t) {
			free(t->path);
			free(t->calls);
		}
	}
	ft_htab_free(&g->threads);
	free(g);
}

static struct gthread *get_thread(struct ft_graphfold *g, uint32_t tid, int create)
{
	return ft_htab_get(&g->threads, tid, create);
}

static int path_append(struct gthread *t, const char *name)
{
	size_t l = strlen(name);

	if (FT_GROW(t->path, t->pcap, t->plen + l + 2, 256))
		return -1;
	if (t->plen)
		t->path[t->plen++] = ';';
	put_frame(t->path + t->plen, name, l);
	t->plen += l;
	return 0;
}

int ft_graphfold_entry(struct ft_graphfold *g, uint32_t tid, const char *root, const char *func,
		       uint64_t ts)
{
	struct gthread *t = get_thread(g, tid, 1);
	struct gcall *c;

	if (!t)
		goto nomem;
	if (!t->path && root && *root) {
		if (path_append(t, root))
			goto nomem;
		t->root_len = t->plen;
	}
	if (FT_GROW(t->calls, t->ccap, t->depth + 1, 32))
		goto nomem;
	c = &t->calls[t->depth++];
	c->path_len = t->plen;
	c->start = ts;
	c->child = 0;
	if (path_append(t, func && *func ? func : "?")) {
		t->depth--;
		goto nomem;
	}
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

/* Pop tid's innermost call at ts and add its self time. */
static int pop_call(struct ft_graphfold *g, struct gthread *t, uint64_t ts)
{
	struct gcall *c = &t->calls[--t->depth];
	uint64_t total = ts > c->start ? ts - c->start : 0;
	uint64_t self = total > c->child ? total - c->child : 0;
	int r = 0;

	if (self)
		r = ft_folded_add(g->out, t->path, t->plen, self);
	t->plen = c->path_len;
	if (t->depth)
		t->calls[t->depth - 1].child += total;
	return r < 0 ? -1 : 0;
}

int ft_graphfold_exit(struct ft_graphfold *g, uint32_t tid, uint64_t ts)
{
	struct gthread *t = get_thread(g, tid, 0);

	if (!t || !t->depth) {
		g->unmatched++;
		return 0;
	}
	return pop_call(g, t, ts);
}

int ft_graphfold_finish(struct ft_graphfold *g, uint64_t end_ts)
{
	for (size_t i = 0; i < g->threads.cap; i++) {
		struct gthread *t = ft_htab_slot(&g->threads, i);

		if (!t)
			continue;
		while (t->depth)
			if (pop_call(g, t, end_ts))
				return -1;
	}
	return 0;
}

uint64_t ft_graphfold_unmatched(const struct ft_graphfold *g)
{
	return g->unmatched;
}
