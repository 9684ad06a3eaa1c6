// SPDX-License-Identifier: GPL-2.0
/*
 * Folded stacks, the text report and the direct-sample list of an off-CPU
 * engine (see offcpu_output.h), built on the engine's public results:
 * ft_offcpu_foreach_row(), ft_offcpu_rows(), ft_offcpu_sample() and the
 * interned stacks.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/folded.h"
#include "analysis/offcpu.h"
#include "analysis/offcpu_output.h"

static void frame_name(ft_offcpu_sym_fn sym, void *arg, uint64_t ip, int kernel, int with_off,
		       char *buf, size_t len)
{
	if (!sym || sym(ip, kernel, with_off, buf, len, arg))
		snprintf(buf, len, "0x%" PRIx64, ip);
}

/* Folded key of one interval kind into a growing buffer.  -1 ENOMEM. */
struct sbuf {
	char *p;
	size_t len, cap;
};

static int sb_add(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n + 2 > b->cap) {
		size_t ncap = (b->len + n + 2) * 2;
		char *p = realloc(b->p, ncap);

		if (!p) {
			errno = ENOMEM;
			return -1;
		}
		b->p = p;
		b->cap = ncap;
	}
	if (b->len)
		b->p[b->len++] = ';';
	for (size_t i = 0; i < n; i++)
		b->p[b->len++] = s[i] == ';' ? ':' : s[i] == '\n' ? ' ' : s[i];
	b->p[b->len] = 0;
	return 0;
}

static int fold_one(const struct ft_offcpu *oc, struct ft_folded *out, ft_offcpu_sym_fn sym,
		    void *arg, struct sbuf *b, uint32_t tid, uint32_t kstack, uint32_t ustack,
		    uint8_t cut, uint64_t weight)
{
	const uint64_t *ips;
	uint32_t nr;
	char name[512];
	const char *comm = ft_offcpu_comm(oc, tid);
	int rc;

	if (!weight)
		return 0;
	b->len = 0;
	if (comm)
		rc = sb_add(b, comm);
	else {
		snprintf(name, sizeof(name), "[tid %u]", tid);
		rc = sb_add(b, name);
	}
	if (!rc && ustack && !ft_offcpu_stack(oc, ustack, &ips, &nr)) {
		for (uint32_t i = nr; i-- > 0 && !rc;) {
			frame_name(sym, arg, ips[i], 0, 0, name, sizeof(name));
			rc = sb_add(b, name);
		}
	} else if (!rc && kstack && cut != FT_OFFCPU_CUT_START) {
		rc = sb_add(b, "[missing user stack]");
	}
	if (!rc && ustack && kstack)
		rc = sb_add(b, "-");
	if (!rc && kstack && !ft_offcpu_stack(oc, kstack, &ips, &nr)) {
		for (uint32_t i = nr; i-- > 0 && !rc;) {
			frame_name(sym, arg, ips[i], 1, 0, name, sizeof(name));
			rc = sb_add(b, name);
		}
	} else if (!rc && ustack) {
		rc = sb_add(b, "-");
		if (!rc)
			rc = sb_add(b, "[missing kernel stack]");
	}
	if (!rc && cut)
		rc = sb_add(b, cut == FT_OFFCPU_CUT_START ? "[cut at start]" : "[cut at end]");
	if (rc)
		return -1;
	return ft_folded_add(out, b->p, b->len, weight);
}

struct fold_ctx {
	const struct ft_offcpu *oc;
	struct ft_folded *out;
	ft_offcpu_sym_fn sym;
	void *arg;
	uint64_t unit_ns;
	struct sbuf b;
};

/* One line per key: aggregate and direct samples of a key have the same stack. */
static int fold_row(const struct ft_offcpu_row *r, void *arg)
{
	struct fold_ctx *c = arg;

	return fold_one(c->oc, c->out, c->sym, c->arg, &c->b, r->key.tid, r->key.kstack,
			r->key.ustack, r->key.cut, r->key.total / c->unit_ns);
}

int ft_offcpu_fold(const struct ft_offcpu *oc, struct ft_folded *out, ft_offcpu_sym_fn sym,
		   void *arg, uint64_t unit_ns)
{
	struct fold_ctx c = { oc, out, sym, arg, unit_ns ? unit_ns : 1, { 0 } };
	int rc = ft_offcpu_foreach_row(oc, fold_row, &c);

	free(c.b.p);
	return rc < 0 ? -1 : rc;
}

static void fmt_ms(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, ns / 1000000, ns / 1000 % 1000);
}

static void fmt_s(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%" PRIu64 ".%06" PRIu64 " s", ns / 1000000000, ns / 1000 % 1000000);
}

static void write_chain(const struct ft_offcpu *oc, FILE *out, uint32_t kstack, uint32_t ustack,
			int with_off, ft_offcpu_sym_fn sym, void *arg, const char *indent)
{
	const uint64_t *ips;
	uint32_t nr;
	char name[512];

	if (kstack && !ft_offcpu_stack(oc, kstack, &ips, &nr))
		for (uint32_t i = 0; i < nr; i++) {
			frame_name(sym, arg, ips[i], 1, with_off, name, sizeof(name));
			fprintf(out, "%s=> %s\n", indent, name);
		}
	if (kstack && ustack)
		fprintf(out, "%s=> -- user --\n", indent);
	if (ustack && !ft_offcpu_stack(oc, ustack, &ips, &nr))
		for (uint32_t i = 0; i < nr; i++) {
			frame_name(sym, arg, ips[i], 0, with_off, name, sizeof(name));
			fprintf(out, "%s=> %s\n", indent, name);
		}
	if (!kstack && !ustack)
		fprintf(out, "%s=> (no stack)\n", indent);
}

static void task_name(const struct ft_offcpu *oc, uint32_t tid, uint32_t tgid, char *buf,
		      size_t len)
{
	const char *comm = ft_offcpu_comm(oc, tid);

	if (tgid)
		snprintf(buf, len, "%s %u/%u", comm ? comm : "<...>", tgid, tid);
	else
		snprintf(buf, len, "%s %u", comm ? comm : "<...>", tid);
}

int ft_offcpu_write_report(const struct ft_offcpu *oc, FILE *out, size_t top, ft_offcpu_sym_fn sym,
			   void *arg)
{
	struct ft_offcpu_stats stats;
	const struct ft_offcpu_stats *st = &stats;
	uint64_t thresh = ft_offcpu_threshold(oc);
	uint64_t all;
	struct ft_offcpu_row *rows;
	size_t nr;
	char a[64], b[64], c[64];

	ft_offcpu_get_stats(oc, &stats);
	all = st->direct_ns + st->aggregated_ns;
	fmt_ms(a, sizeof(a), thresh);
	fprintf(out,
		"# ftrail offcpu: threshold %s ms (intervals at or above it are direct samples)\n",
		thresh == UINT64_MAX ? "inf" : a);
	fmt_s(a, sizeof(a), all);
	fmt_s(b, sizeof(b), st->direct_ns);
	fmt_s(c, sizeof(c), st->aggregated_ns);
	fprintf(out,
		"# off-CPU %s in %" PRIu64 " intervals of %u threads: %" PRIu64
		" direct samples (%s), %" PRIu64 " aggregated (%s)\n",
		a, st->intervals, st->threads, st->direct, b, st->aggregated, c);
	fmt_s(a, sizeof(a), st->cut_start_ns);
	fmt_s(b, sizeof(b), st->cut_end_ns);
	fprintf(out,
		"# cut by the recording (periods are lower bounds): %" PRIu64
		" at start (%s, stack unknown), %" PRIu64 " at end (%s)\n",
		st->cut_start, a, st->cut_end, b);
	fmt_s(a, sizeof(a), st->estimated_ns);
	fprintf(out,
		"# switch-ins lost (some kernels drop switches from idle): %" PRIu64
		" intervals ended at their wakeup or first own event (%s)\n",
		st->estimated, a);
	fprintf(out,
		"# not counted: %" PRIu64 " exits, %" PRIu64 " first waits of new threads, %" PRIu64
		" unpaired switches (lost events), %" PRIu64 " out of order\n",
		st->dead, st->new_task, st->unpaired, st->unordered);
	rows = ft_offcpu_rows(oc, &nr);
	if (!rows && errno)
		return -1;
	fprintf(out, "#\n# %12s %7s %6s %7s %7s %12s %12s  %s\n", "total(ms)", "share", "state",
		"count", "direct", "max(ms)", "blocked(ms)", "task");
	for (size_t i = 0; i < nr && (!top || i < top); i++) {
		const struct ft_offcpu_row *r = &rows[i];
		char st_s[32], task[96];

		fmt_ms(a, sizeof(a), r->key.total);
		fmt_ms(b, sizeof(b), r->max);
		if (r->key.blocked)
			fmt_ms(c, sizeof(c), r->key.blocked);
		else
			snprintf(c, sizeof(c), "-"); /* no wakeup seen */
		task_name(oc, r->key.tid, r->key.tgid, task, sizeof(task));
		fprintf(out, "  %12s %6.2f%% %6s %7" PRIu64 " %7" PRIu64 " %12s %12s  %s%s\n", a,
			all ? 100.0 * (double)r->key.total / (double)all : 0.0,
			ft_offcpu_state_str(r->key.state, st_s, sizeof(st_s)), r->key.count,
			r->direct, b, c, task,
			r->key.cut == FT_OFFCPU_CUT_START ? "  [cut at start]"
			: r->key.cut == FT_OFFCPU_CUT_END ? "  [cut at end]"
							  : "");
		write_chain(oc, out, r->key.kstack, r->key.ustack, 0, sym, arg, "                ");
		fputc('\n', out);
	}
	if (top && nr > top)
		fprintf(out, "# %zu more stacks (--top 0 shows all)\n", nr - top);
	free(rows);
	return ferror(out) ? -1 : 0;
}

int ft_offcpu_write_samples(const struct ft_offcpu *oc, FILE *out, ft_offcpu_sym_fn sym, void *arg)
{
	char a[64], st_s[32], task[96];
	size_t nr = ft_offcpu_nr_samples(oc);

	fmt_ms(a, sizeof(a), ft_offcpu_threshold(oc));
	fprintf(out, "# %zu direct samples (off-CPU for at least %s ms)\n\n", nr, a);
	for (size_t i = 0; i < nr; i++) {
		const struct ft_offcpu_sample *s = ft_offcpu_sample(oc, i);

		task_name(oc, s->tid, s->tgid, task, sizeof(task));
		fprintf(out,
			"%s %" PRIu64 ".%06" PRIu64 ": offcpu period=%" PRIu64 " ns state=%s\n",
			task, s->ts_out / 1000000000, s->ts_out / 1000 % 1000000, s->period,
			ft_offcpu_state_str(s->state, st_s, sizeof(st_s)));
		if (s->blocked)
			fprintf(out, "\tblocked %" PRIu64 " ns, runnable %" PRIu64 " ns\n",
				s->blocked, s->period - s->blocked);
		if (s->estimated)
			fprintf(out,
				"\t[switch-in lost: period ends at the wakeup or first own event]\n");
		if (s->cut)
			fprintf(out, "\t%s\n",
				s->cut == FT_OFFCPU_CUT_START
					? "[cut at start: off-CPU since before the recording]"
					: "[cut at end: still off-CPU when the recording ended]");
		write_chain(oc, out, s->kstack, s->ustack, 1, sym, arg, "\t");
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}
