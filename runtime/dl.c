// SPDX-License-Identifier: GPL-2.0
/*
 * dlopen and dlclose: the program's libraries come and go.
 *
 *   dlopen   new objects are registered, their symbols and sites read and
 *            the filters applied to them, all before the program gets the
 *            handle; then their user events (events.c)
 *   dlclose  the control path is kept out of module text while the loader
 *            unmaps it (module.c's module memory guard); then the objects
 *            that went away are retired and the work deferred meanwhile is
 *            redone, and their user events forgotten
 *
 * The module table's work is module.c's; this file sequences it with the
 * filters (filter.c) and the user events, above all three.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"

/*
 * dlclose wrapper, after the real dlclose: let the control path back in,
 * then (when the calling thread may take rt.lock) retire what went away
 * and redo the work skipped meanwhile.
 */
static void rt_modules_dlclose_end(void)
{
	struct rt_thread *t = &rt_self;

	rt_modules_dlclose_unmapped();
	if (!rt.sess || t->busy)
		return;
	rt_guard_recursion(t);
	pthread_mutex_lock(&rt.lock);
	rt_modules_scan(1); /* retire what went away, whatever else is in flight */
	if (rt_modmem_enter() == RT_MODMEM_ALL && rt_modmem_take_deferred()) {
		rt_modules_load_new();
		rt_filters_apply_all(0);
	}
	rt_modmem_exit();
	pthread_mutex_unlock(&rt.lock);
	rt_unguard_recursion(t);
}

/* Does m still need its symbols or sites read (module memory work)? */
static int needs_memory(const struct rt_module *m)
{
	return !m->gone && !m->pinned && !m->is_self &&
	       (m->loaded == RT_MOD_UNLOADED || m->sites_pending);
}

#define HOLD_MAX 32

/*
 * dlopen wrapper, after the real dlopen: register the new objects, read
 * their symbols and sites, apply the filters (patching) -- all before the
 * program gets the handle.  That order matters: gcc's patchable entries
 * are runs of 1-byte nops that are made patchable (rt_patch_normalize)
 * only while no thread can be inside them, i.e. before the library's code
 * is handed to the program; work left for later would tear a thread
 * preempted inside a run.  So when a dlclose is in flight in another
 * thread (the module memory guard says "pinned only"), the runtime takes
 * references of its own on the objects it still has to read
 * (dlopen(RTLD_NOLOAD)): held, they cannot be unmapped, and the guard lets
 * the work on them go ahead.  The references are taken and dropped without
 * rt.lock (the loader's lock may be held by a thread whose traced
 * destructor waits for rt.lock) and dropped through the dlclose wrapper.
 */
static void rt_modules_after_dlopen(void)
{
	static void *(*real_dlopen)(const char *, int);
	struct rt_thread *t = &rt_self;
	char(*paths)[FT_SESSION_PATH_MAX] = NULL;
	uint64_t bias[HOLD_MAX];
	void *hold[HOLD_MAX];
	int nh = 0;

	if (!rt.sess || t->busy)
		return;
	if (!real_dlopen)
		real_dlopen = RT_REAL(dlopen);
	/* rounds: objects found deferred in one are held for the next (3 at most) */
	for (int round = 0;; round++) {
		enum rt_modmem mem;
		int np = 0;

		rt_guard_recursion(t);
		pthread_mutex_lock(&rt.lock);
		if (!round)
			rt_modules_scan(1);
		for (int i = 0; i < nh; i++)
			for (int k = 0; k < rt.nr_mods; k++)
				if (!rt.mods[k].gone && rt.mods[k].bias == bias[i])
					rt.mods[k].held++;
		mem = rt_modmem_enter();
		rt_modules_load_new();
		rt_filters_apply_all(0);
		/* what is left was deferred: a dlclose is in flight */
		for (int i = 0;
		     mem == RT_MODMEM_PINNED && round < 3 && i < rt.nr_mods && np < HOLD_MAX; i++) {
			struct rt_module *m = &rt.mods[i];

			if (!needs_memory(m))
				continue;
			if (!paths && !(paths = malloc(HOLD_MAX * sizeof(*paths))))
				break;
			memcpy(paths[np], m->path, sizeof(paths[np]));
			bias[np++] = m->bias;
		}
		rt_modmem_exit();
		for (int i = 0; i < rt.nr_mods; i++)
			rt.mods[i].held = 0; /* only this function holds, under rt.lock */
		pthread_mutex_unlock(&rt.lock);
		rt_unguard_recursion(t);
		for (int i = 0; i < nh; i++)
			dlclose(hold[i]); /* the wrapper: this may be the last reference */
		nh = 0;
		for (int i = 0; i < np && real_dlopen; i++) {
			void *h = real_dlopen(paths[i], RTLD_LAZY | RTLD_NOLOAD);
			struct link_map *lm = NULL;

			if (!h)
				continue; /* closed meanwhile: nothing to read */
			if (dlinfo(h, RTLD_DI_LINKMAP, &lm) || !lm ||
			    (uint64_t)lm->l_addr != bias[i]) {
				dlclose(h); /* another object under that name */
				continue;
			}
			hold[nh] = h;
			bias[nh++] = bias[i];
		}
		if (!nh)
			break;
	}
	free(paths);
}

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);
	void *h;

	if (!real)
		real = RT_REAL(dlopen);
	h = real(file, mode);
	if (h)
		rt_modules_after_dlopen();
	if (h && rt.got_more && rt.sess && !rt_self.busy) {
		/* attached: the new objects' calls to the wrapped functions (attach.c) */
		rt_guard_recursion(&rt_self);
		pthread_mutex_lock(&rt.lock);
		if (rt.got_more) /* again: a detach clears it under rt.lock */
			rt.got_more(NULL);
		pthread_mutex_unlock(&rt.lock);
		rt_unguard_recursion(&rt_self);
	}
	if (h)
		rt_events_rescan(); /* the library's user events */
	return h;
}

/*
 * dlclose: the control path is kept out of module text while the loader
 * unmaps it; afterwards the objects that went away are retired (their
 * address range may be reused by the next dlopen, which then gets a new
 * module).  Their session entries stay: they describe the past.
 */
__attribute__((visibility("default"))) int dlclose(void *handle)
{
	static int (*real)(void *);
	int r;

	if (!real)
		real = RT_REAL(dlclose);
	rt_modules_dlclose_begin();
	r = real(handle);
	rt_modules_dlclose_end();
	if (!r)
		rt_events_rescan(); /* forget the user events of what went away */
	return r;
}
