// SPDX-License-Identifier: GPL-2.0
/*
 * Event triggers and function commands with ftrace's syntax (trigger.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/trigger.h"

static const char *const cmd_names[] = {
	[FT_TRIG_TRACEON] = "traceon",		 [FT_TRIG_TRACEOFF] = "traceoff",
	[FT_TRIG_STACKTRACE] = "stacktrace",	 [FT_TRIG_SNAPSHOT] = "snapshot",
	[FT_TRIG_ENABLE_EVENT] = "enable_event", [FT_TRIG_DISABLE_EVENT] = "disable_event",
};

#define CMD_LIST                                                                                   \
	"traceon, traceoff, stacktrace, snapshot, enable_event:SYS:EVENT, disable_event:SYS:EVENT"

const char *ft_trigger_cmd_name(int cmd)
{
	if (cmd < FT_TRIG_TRACEON || cmd > FT_TRIG_DISABLE_EVENT)
		return NULL;
	return cmd_names[cmd];
}

static int terr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Fill err; always returns -1. */
static int terr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/*
 * Parse "cmd[:sys:event][:count][ if filter]" starting at s + i; base is
 * added to positions in messages (a function command's glob prefix).
 * allow_if: event triggers only.
 */
static int parse_cmd(const char *s, int i, int base, int allow_if, struct ft_trigger *t, char *err,
		     size_t errlen)
{
	int start, n;

	while (s[i] == ' ' || s[i] == '\t')
		i++;
	start = i;
	while (s[i] && s[i] != ':' && s[i] != ' ' && s[i] != '\t')
		i++;
	n = i - start;
	for (int c = FT_TRIG_TRACEON; c <= FT_TRIG_DISABLE_EVENT; c++)
		if ((int)strlen(cmd_names[c]) == n && !memcmp(s + start, cmd_names[c], n))
			t->cmd = c;
	if (!t->cmd) {
		if (!n)
			return terr(err, errlen,
				    "missing trigger command at position %d (expected " CMD_LIST
				    ")",
				    base + start);
		return terr(err, errlen,
			    "unknown trigger command '%.*s' at position %d (expected " CMD_LIST ")",
			    n > 40 ? 40 : n, s + start, base + start);
	}
	if (t->cmd == FT_TRIG_ENABLE_EVENT || t->cmd == FT_TRIG_DISABLE_EVENT) {
		char *dst[2] = { t->sys, t->event };

		for (int k = 0; k < 2; k++) {
			if (s[i] != ':')
				return terr(err, errlen, "%s needs :SYS:EVENT, at position %d",
					    cmd_names[t->cmd], base + i);
			start = ++i;
			while (is_name_char(s[i]))
				i++;
			n = i - start;
			if (!n)
				return terr(err, errlen, "%s: missing %s name at position %d",
					    cmd_names[t->cmd], k ? "event" : "system",
					    base + start);
			if (n >= FT_TRIG_NAME_MAX)
				return terr(err, errlen, "%s: name too long at position %d",
					    cmd_names[t->cmd], base + start);
			memcpy(dst[k], s + start, n);
			dst[k][n] = 0;
		}
	}
	if (s[i] == ':') {
		char *end;
		unsigned long long v;

		start = ++i;
		if (s[i] < '0' || s[i] > '9')
			return terr(err, errlen, "expected a count after ':' at position %d",
				    base + start);
		errno = 0;
		v = strtoull(s + i, &end, 10);
		if (errno || v > INT64_MAX / 2)
			return terr(err, errlen, "count out of range at position %d", base + start);
		if (v == 0)
			return terr(
				err, errlen,
				"count 0 at position %d: the trigger would never act (omit the count for no limit)",
				base + start);
		t->count = (int64_t)v;
		i = (int)(end - s);
	}
	while (s[i] == ' ' || s[i] == '\t')
		i++;
	if (!s[i])
		return 0;
	if (allow_if && !strncmp(s + i, "if", 2) &&
	    (s[i + 2] == ' ' || s[i + 2] == '\t' || s[i + 2] == '(' || !s[i + 2])) {
		int fpos = i + 2;

		while (s[fpos] == ' ' || s[fpos] == '\t')
			fpos++;
		if (!s[fpos])
			return terr(err, errlen, "missing filter after 'if' at position %d",
				    base + fpos);
		t->filter_text = strdup(s + fpos);
		if (!t->filter_text)
			return terr(err, errlen, "out of memory");
		return 0;
	}
	return terr(err, errlen, "unexpected '%.20s' at position %d (expected %s)", s + i, base + i,
		    allow_if ? "':COUNT' or 'if FILTER'" : "':COUNT'");
}

int ft_trigger_parse(const char *text, struct ft_trigger *t, char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->count = FT_TRIG_UNLIMITED;
	if (parse_cmd(text, 0, 0, 1, t, err, errlen)) {
		ft_trigger_free(t);
		return -1;
	}
	return 0;
}

int ft_trigger_parse_func(const char *text, struct ft_trigger *t, char *err, size_t errlen)
{
	const char *colon = strchr(text, ':');
	size_t n;

	memset(t, 0, sizeof(*t));
	t->count = FT_TRIG_UNLIMITED;
	if (!colon)
		return terr(err, errlen, "expected FUNCTION:COMMAND[:COUNT], no ':' in '%.40s'",
			    text);
	n = (size_t)(colon - text);
	if (!n)
		return terr(err, errlen, "missing function name at position 0");
	if (n >= sizeof(t->glob))
		return terr(err, errlen, "function glob too long at position 0");
	memcpy(t->glob, text, n);
	t->glob[n] = 0;
	if (parse_cmd(text, (int)n + 1, 0, 0, t, err, errlen)) {
		ft_trigger_free(t);
		return -1;
	}
	return 0;
}

int ft_trigger_bind(struct ft_trigger *t, const struct ftrail_field *fields, size_t nr, char *err,
		    size_t errlen)
{
	struct ft_filter_err fe;
	char msg[384];

	if (!t->filter_text)
		return 0;
	ft_filter_free(t->filter);
	t->filter = ft_filter_compile(t->filter_text, fields, nr, &fe);
	if (!t->filter)
		return terr(err, errlen, "trigger filter '%s': %s", t->filter_text,
			    ft_filter_strerror(t->filter_text, &fe, 0, msg, sizeof(msg)));
	return 0;
}

void ft_trigger_free(struct ft_trigger *t)
{
	ft_filter_free(t->filter);
	t->filter = NULL;
	free(t->filter_text);
	t->filter_text = NULL;
}

char *ft_trigger_format(const struct ft_trigger *t, char *buf, size_t len)
{
	int n = 0;

	if (t->glob[0])
		n += snprintf(buf + n, len - n, "%s:", t->glob);
	if (n < (int)len)
		n += snprintf(buf + n, len - n, "%s", ft_trigger_cmd_name(t->cmd) ?: "?");
	if (n < (int)len && (t->cmd == FT_TRIG_ENABLE_EVENT || t->cmd == FT_TRIG_DISABLE_EVENT))
		n += snprintf(buf + n, len - n, ":%s:%s", t->sys, t->event);
	if (n < (int)len) {
		int64_t c = __atomic_load_n(&t->count, __ATOMIC_RELAXED);

		if (c == FT_TRIG_UNLIMITED)
			n += snprintf(buf + n, len - n, ":unlimited");
		else
			n += snprintf(buf + n, len - n, ":count=%lld", (long long)c);
	}
	if (n < (int)len && t->filter_text)
		snprintf(buf + n, len - n, " if %s", t->filter_text);
	return buf;
}

/*
 * Take one use of the count.  The count is only ever decremented here, with
 * a relaxed CAS: it publishes nothing, it only bounds how many hits act.
 */
static int take_count(struct ft_trigger *t)
{
	int64_t c = __atomic_load_n(&t->count, __ATOMIC_RELAXED);

	if (c == FT_TRIG_UNLIMITED)
		return 1;
	do {
		if (c <= 0)
			return 0;
	} while (!__atomic_compare_exchange_n(&t->count, &c, c - 1, 0, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 1;
}

int ft_trigger_fire(struct ft_trigger *t, const void *rec, size_t len,
		    const struct ft_trigger_ops *ops, void *ctx)
{
	if (__atomic_load_n(&t->count, __ATOMIC_RELAXED) == 0)
		return 0;
	if (t->filter && (!rec || !ft_filter_match(t->filter, rec, len)))
		return 0;
	/* would the command change anything?  If not, it keeps its count. */
	switch (t->cmd) {
	case FT_TRIG_TRACEON:
		if (ops->tracing_is_on(ctx))
			return 0;
		break;
	case FT_TRIG_TRACEOFF:
		if (!ops->tracing_is_on(ctx))
			return 0;
		break;
	case FT_TRIG_ENABLE_EVENT:
		if (ops->event_enabled(ctx, t))
			return 0;
		break;
	case FT_TRIG_DISABLE_EVENT:
		if (!ops->event_enabled(ctx, t))
			return 0;
		break;
	case FT_TRIG_SNAPSHOT:
		if (ops->snapshot_ready && !ops->snapshot_ready(ctx))
			return 0;
		break;
	default:
		break;
	}
	if (!take_count(t))
		return 0;
	switch (t->cmd) {
	case FT_TRIG_TRACEON:
		ops->set_tracing(ctx, 1);
		break;
	case FT_TRIG_TRACEOFF:
		ops->set_tracing(ctx, 0);
		break;
	case FT_TRIG_STACKTRACE:
		ops->stacktrace(ctx);
		break;
	case FT_TRIG_SNAPSHOT:
		ops->snapshot(ctx);
		break;
	case FT_TRIG_ENABLE_EVENT:
		ops->set_event(ctx, t, 1);
		break;
	case FT_TRIG_DISABLE_EVENT:
		ops->set_event(ctx, t, 0);
		break;
	}
	return 1;
}
