// SPDX-License-Identifier: GPL-2.0
#include "analysis/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "core/hash.h"
#include "core/hashtab.h"
#include "third_party/pprof/profile.pb-c.h"

/* Samples packed per Profile message; bounds the memory of a batch. */
#define BATCH 1024

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__ValueType ValueType;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;

/* protobuf-c's output buffer, deflating into the file as gzip. */
struct gzbuf {
	ProtobufCBuffer base;
	z_stream z;
	FILE *out;
	int err; /* errno of the first failure */
	unsigned char obuf[1 << 16];
};

struct str_ent {
	struct ft_hentry h;
	char *s;
	int64_t idx;
};

struct fn_ent {
	struct ft_hentry h;
	int64_t name, file, line;
	uint64_t id;
};

struct loc_ent {
	struct ft_hentry h;
	uint64_t mapping, address, function;
	int64_t line;
	uint64_t id;
};

struct psample {
	uint64_t *loc;
	size_t nloc;
	int64_t *values;
	struct {
		int64_t key, str, num, unit;
	} * labels;
	size_t nlabels;
};

struct ft_pprof {
	struct gzbuf gz;
	int failed; /* errno of the first failure (sticky) */
	int header_written;

	struct ft_htab strs, fns, locs;
	int64_t nr_strs;
	/* added since the last flush */
	char **new_strs;
	size_t n_new_strs, c_new_strs;
	Mapping *maps;
	size_t n_maps, c_maps;
	Function *funcs;
	size_t n_funcs, c_funcs;
	struct locrec {
		Location loc;
		Line line;
		Line *linep; /* loc.line points here */
	} * locv;
	size_t n_locs, c_locs;
	struct psample samples[BATCH];
	size_t n_samples;

	uint64_t next_map, next_fn, next_loc;
	uint64_t total_samples;

	/* header fields */
	int64_t types[16][2];
	size_t n_types;
	int64_t default_type;
	int64_t time_ns, duration_ns;
	int64_t comments[16];
	size_t n_comments;
};

static void gz_write_out(struct gzbuf *g)
{
	size_t n = sizeof(g->obuf) - g->z.avail_out;

	if (n && !g->err && fwrite(g->obuf, 1, n, g->out) != n)
		g->err = errno ? errno : EIO;
	g->z.next_out = g->obuf;
	g->z.avail_out = sizeof(g->obuf);
}

static void gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct gzbuf *g = (struct gzbuf *)b;

	g->z.next_in = (unsigned char *)data;
	while (len) {
		/* zlib's avail_in is 32-bit: feed big appends in pieces */
		unsigned int piece = len > (1u << 30) ? 1u << 30 : (unsigned int)len;

		g->z.avail_in = piece;
		while (g->z.avail_in) {
			if (deflate(&g->z, Z_NO_FLUSH) == Z_STREAM_ERROR) {
				g->err = EIO;
				return;
			}
			if (!g->z.avail_out)
				gz_write_out(g);
		}
		len -= piece;
	}
}

static int gz_finish(struct gzbuf *g)
{
	int r;

	g->z.avail_in = 0;
	do {
		r = deflate(&g->z, Z_FINISH);
		gz_write_out(g);
	} while (r == Z_OK);
	if (r != Z_STREAM_END && !g->err)
		g->err = EIO;
	return g->err ? -1 : 0;
}

static void fail(struct ft_pprof *p, int e)
{
	if (!p->failed)
		p->failed = e;
}

/* Grow *v (of *cap elements of size es) to hold n; 0 or -1 (sticky ENOMEM). */
static int grow(struct ft_pprof *p, void **v, size_t *cap, size_t n, size_t es)
{
	size_t c = *cap ? *cap : 16;
	void *q;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	q = realloc(*v, c * es);
	if (!q) {
		fail(p, ENOMEM);
		return -1;
	}
	*v = q;
	*cap = c;
	return 0;
}

static int str_eq(const void *entry, const void *key)
{
	return !strcmp(((const struct str_ent *)entry)->s, key);
}

/* The string's index in the table, interned on first use; 0 ("") on failure. */
static int64_t str(struct ft_pprof *p, const char *s)
{
	struct str_ent *e;
	int created;

	if (!s || p->failed)
		return 0;
	e = ft_htab_get_eq(&p->strs, ft_hash_fnv1a(s, strlen(s)), str_eq, s, 1, &created);
	if (!e) {
		fail(p, ENOMEM);
		return 0;
	}
	if (!created)
		return e->idx;
	e->s = strdup(s);
	if (!e->s ||
	    grow(p, (void **)&p->new_strs, &p->c_new_strs, p->n_new_strs + 1, sizeof(char *))) {
		fail(p, ENOMEM);
		return 0;
	}
	e->idx = p->nr_strs++;
	p->new_strs[p->n_new_strs++] = e->s;
	return e->idx;
}

struct ft_pprof *ft_pprof_open(FILE *out)
{
	struct ft_pprof *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->gz.base.append = gz_append;
	p->gz.out = out;
	p->gz.z.next_out = p->gz.obuf;
	p->gz.z.avail_out = sizeof(p->gz.obuf);
	/* windowBits 15 + 16: a gzip wrapper, as profile.proto asks for */
	if (deflateInit2(&p->gz.z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(p);
		errno = ENOMEM;
		return NULL;
	}
	if (ft_htab_init(&p->strs, sizeof(struct str_ent)) ||
	    ft_htab_init(&p->fns, sizeof(struct fn_ent)) ||
	    ft_htab_init(&p->locs, sizeof(struct loc_ent))) {
		ft_pprof_abort(p);
		errno = ENOMEM;
		return NULL;
	}
	str(p, ""); /* string_table[0] must be "" */
	if (p->failed) {
		ft_pprof_abort(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void ft_pprof_sample_type(struct ft_pprof *p, const char *type, const char *unit)
{
	if (p->n_types == 16 || p->header_written) {
		fail(p, EINVAL);
		return;
	}
	p->types[p->n_types][0] = str(p, type);
	p->types[p->n_types][1] = str(p, unit);
	p->n_types++;
}

void ft_pprof_default_type(struct ft_pprof *p, const char *type)
{
	p->default_type = str(p, type);
}

void ft_pprof_times(struct ft_pprof *p, int64_t time_ns, int64_t duration_ns)
{
	p->time_ns = time_ns;
	p->duration_ns = duration_ns;
}

void ft_pprof_comment(struct ft_pprof *p, const char *text)
{
	if (p->n_comments < 16)
		p->comments[p->n_comments++] = str(p, text);
}

uint64_t ft_pprof_mapping(struct ft_pprof *p, uint64_t start, uint64_t limit, uint64_t offset,
			  const char *file, const char *build_id, int has_lines)
{
	Mapping *m;

	if (p->failed || grow(p, (void **)&p->maps, &p->c_maps, p->n_maps + 1, sizeof(*m)))
		return 0;
	m = &p->maps[p->n_maps];
	perftools__profiles__mapping__init(m);
	m->id = ++p->next_map;
	m->memory_start = start;
	m->memory_limit = limit;
	m->file_offset = offset;
	m->filename = str(p, file);
	m->build_id = str(p, build_id);
	/* symbolised here: pprof must not look for the binaries itself */
	m->has_functions = 1;
	m->has_filenames = has_lines;
	m->has_line_numbers = has_lines;
	if (p->failed)
		return 0;
	p->n_maps++;
	return m->id;
}

static int fn_eq(const void *entry, const void *key)
{
	const struct fn_ent *a = entry, *b = key;

	return a->name == b->name && a->file == b->file && a->line == b->line;
}

uint64_t ft_pprof_function(struct ft_pprof *p, const char *name, const char *file,
			   int64_t start_line)
{
	struct fn_ent k = { .name = str(p, name), .file = str(p, file), .line = start_line }, *e;
	Function *f;
	int created;

	if (p->failed)
		return 0;
	e = ft_htab_get_eq(&p->fns,
			   ft_hash_u64((uint64_t)k.name * 0x9e3779b97f4a7c15ull ^
				       (uint64_t)k.file << 20 ^ (uint64_t)k.line),
			   fn_eq, &k, 1, &created);
	if (!e) {
		fail(p, ENOMEM);
		return 0;
	}
	if (!created)
		return e->id;
	if (grow(p, (void **)&p->funcs, &p->c_funcs, p->n_funcs + 1, sizeof(*f)))
		return 0;
	e->name = k.name;
	e->file = k.file;
	e->line = k.line;
	e->id = ++p->next_fn;
	f = &p->funcs[p->n_funcs++];
	perftools__profiles__function__init(f);
	f->id = e->id;
	f->name = k.name;
	f->system_name = k.name;
	f->filename = k.file;
	f->start_line = start_line;
	return e->id;
}

static int loc_eq(const void *entry, const void *key)
{
	const struct loc_ent *a = entry, *b = key;

	return a->mapping == b->mapping && a->address == b->address && a->function == b->function &&
	       a->line == b->line;
}

uint64_t ft_pprof_location(struct ft_pprof *p, uint64_t mapping, uint64_t address,
			   uint64_t function, int64_t line)
{
	struct loc_ent k = { .mapping = mapping,
			     .address = address,
			     .function = function,
			     .line = line },
		       *e;
	int created;

	if (p->failed)
		return 0;
	e = ft_htab_get_eq(&p->locs,
			   ft_hash_u64(address ^ function * 0x9e3779b97f4a7c15ull ^ mapping << 48 ^
				       (uint64_t)line << 24),
			   loc_eq, &k, 1, &created);
	if (!e) {
		fail(p, ENOMEM);
		return 0;
	}
	if (!created)
		return e->id;
	if (grow(p, (void **)&p->locv, &p->c_locs, p->n_locs + 1, sizeof(*p->locv)))
		return 0;
	e->mapping = mapping;
	e->address = address;
	e->function = function;
	e->line = line;
	e->id = ++p->next_loc;
	{
		struct locrec *r = &p->locv[p->n_locs++];

		perftools__profiles__location__init(&r->loc);
		perftools__profiles__line__init(&r->line);
		r->loc.id = e->id;
		r->loc.mapping_id = mapping;
		r->loc.address = address;
		r->line.function_id = function;
		r->line.line = line;
	}
	return e->id;
}

static void free_sample(struct psample *s)
{
	free(s->loc);
	free(s->values);
	free(s->labels);
	memset(s, 0, sizeof(*s));
}

/* Pack everything added since the last flush as one Profile message. */
static void flush(struct ft_pprof *p)
{
	Profile m = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType vt[16], *vtp[16], period = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	Sample *sv = NULL, **svp = NULL;
	Label *lv = NULL, **lvp = NULL;
	Mapping **mp = NULL;
	Function **fp = NULL;
	Location **locp = NULL;
	size_t nl = 0;

	if (p->failed)
		return;
	if (!p->header_written) {
		for (size_t i = 0; i < p->n_types; i++) {
			perftools__profiles__value_type__init(&vt[i]);
			vt[i].type = p->types[i][0];
			vt[i].unit = p->types[i][1];
			vtp[i] = &vt[i];
		}
		m.n_sample_type = p->n_types;
		m.sample_type = vtp;
		m.default_sample_type = p->default_type;
		m.time_nanos = p->time_ns;
		m.duration_nanos = p->duration_ns;
		m.n_comment = p->n_comments;
		m.comment = p->comments;
		if (p->n_types) {
			period.type = p->types[p->n_types - 1][0];
			period.unit = p->types[p->n_types - 1][1];
			m.period_type = &period;
			m.period = 1;
		}
	}
	for (size_t i = 0; i < p->n_samples; i++)
		nl += p->samples[i].nlabels;
	sv = calloc(p->n_samples + 1, sizeof(*sv));
	svp = calloc(p->n_samples + 1, sizeof(*svp));
	lv = calloc(nl + 1, sizeof(*lv));
	lvp = calloc(nl + 1, sizeof(*lvp));
	mp = calloc(p->n_maps + 1, sizeof(*mp));
	fp = calloc(p->n_funcs + 1, sizeof(*fp));
	locp = calloc(p->n_locs + 1, sizeof(*locp));
	if (!sv || !svp || !lv || !lvp || !mp || !fp || !locp) {
		fail(p, ENOMEM);
		goto out;
	}
	nl = 0;
	for (size_t i = 0; i < p->n_samples; i++) {
		struct psample *s = &p->samples[i];

		perftools__profiles__sample__init(&sv[i]);
		sv[i].n_location_id = s->nloc;
		sv[i].location_id = s->loc;
		sv[i].n_value = p->n_types;
		sv[i].value = s->values;
		sv[i].n_label = s->nlabels;
		sv[i].label = &lvp[nl];
		for (size_t j = 0; j < s->nlabels; j++, nl++) {
			perftools__profiles__label__init(&lv[nl]);
			lv[nl].key = s->labels[j].key;
			lv[nl].str = s->labels[j].str;
			lv[nl].num = s->labels[j].num;
			lv[nl].num_unit = s->labels[j].unit;
			lvp[nl] = &lv[nl];
		}
		svp[i] = &sv[i];
	}
	for (size_t i = 0; i < p->n_maps; i++)
		mp[i] = &p->maps[i];
	for (size_t i = 0; i < p->n_funcs; i++)
		fp[i] = &p->funcs[i];
	for (size_t i = 0; i < p->n_locs; i++) {
		struct locrec *r = &p->locv[i];

		locp[i] = &r->loc;
		r->linep = &r->line;
		if (r->line.function_id) {
			r->loc.n_line = 1;
			r->loc.line = &r->linep;
		}
	}
	m.n_sample = p->n_samples;
	m.sample = svp;
	m.n_mapping = p->n_maps;
	m.mapping = mp;
	m.n_location = p->n_locs;
	m.location = locp;
	m.n_function = p->n_funcs;
	m.function = fp;
	m.n_string_table = p->n_new_strs;
	m.string_table = p->new_strs;
	protobuf_c_message_pack_to_buffer(&m.base, &p->gz.base);
	if (p->gz.err)
		fail(p, p->gz.err);
	p->header_written = 1;
	p->n_new_strs = p->n_maps = p->n_funcs = p->n_locs = 0;
out:
	for (size_t i = 0; i < p->n_samples; i++)
		free_sample(&p->samples[i]);
	p->n_samples = 0;
	free(sv);
	free(svp);
	free(lv);
	free(lvp);
	free(mp);
	free(fp);
	free(locp);
}

int ft_pprof_sample(struct ft_pprof *p, const uint64_t *loc, size_t nloc, const int64_t *values,
		    const struct ft_pprof_label *labels, size_t nlabels)
{
	struct psample *s;

	if (p->failed)
		return -1;
	s = &p->samples[p->n_samples];
	s->loc = malloc((nloc + 1) * sizeof(*loc));
	s->values = malloc((p->n_types + 1) * sizeof(*values));
	s->labels = malloc((nlabels + 1) * sizeof(*s->labels));
	if (!s->loc || !s->values || !s->labels) {
		free_sample(s);
		fail(p, ENOMEM);
		return -1;
	}
	if (nloc) /* a sample without frames may come with loc NULL */
		memcpy(s->loc, loc, nloc * sizeof(*loc));
	s->nloc = nloc;
	memcpy(s->values, values, p->n_types * sizeof(*values));
	for (size_t i = 0; i < nlabels; i++) {
		s->labels[i].key = str(p, labels[i].key);
		s->labels[i].str = str(p, labels[i].str);
		s->labels[i].num = labels[i].str ? 0 : labels[i].num;
		s->labels[i].unit = str(p, labels[i].unit);
	}
	s->nlabels = nlabels;
	p->n_samples++;
	p->total_samples++;
	if (p->n_samples == BATCH)
		flush(p);
	return p->failed ? -1 : 0;
}

uint64_t ft_pprof_nr_samples(const struct ft_pprof *p)
{
	return p->total_samples;
}

static void free_all(struct ft_pprof *p)
{
	for (size_t i = 0; i < p->strs.cap; i++) {
		struct str_ent *e = ft_htab_slot(&p->strs, i);

		if (e)
			free(e->s);
	}
	for (size_t i = 0; i < p->n_samples; i++)
		free_sample(&p->samples[i]);
	ft_htab_free(&p->strs);
	ft_htab_free(&p->fns);
	ft_htab_free(&p->locs);
	free(p->new_strs);
	free(p->maps);
	free(p->funcs);
	free(p->locv);
	deflateEnd(&p->gz.z);
	free(p);
}

int ft_pprof_finish(struct ft_pprof *p)
{
	int e;

	flush(p);
	if (!p->failed && gz_finish(&p->gz))
		fail(p, p->gz.err);
	e = p->failed;
	free_all(p);
	if (e) {
		errno = e;
		return -1;
	}
	return 0;
}

void ft_pprof_abort(struct ft_pprof *p)
{
	if (p)
		free_all(p);
}
