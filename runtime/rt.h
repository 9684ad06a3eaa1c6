/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libftrail.so internals: the runtime injected into traced programs.
 *
 *   attach.c   ftrail_attach / ftrail_detach: start and stop on demand in a
 *              running process (record -P), the compiler hooks' GOT slots
 *   init.c     attach to the session (env FTRAIL_SHM_FD), fork / exec /
 *              exit / pthread_exit, C++ exception hooks, sigaltstack
 *   thread.c   rt and rt_self, a thread's set-up and exit, its shadow
 *              stack's unwinding, out-of-band records, the mmap helpers
 *   control.c  control changes (seqlock copy), the detach, the live-control
 *              thread of live sessions
 *   dl.c       dlopen / dlclose: module work, filters, user events in turn
 *   proc.c     vfork (arch/x86_64/vfork.S), thread names (FT_EXT_COMM)
 *   lookup.c   address -> module -> function -> fid, the address hash
 *   module.c   loaded objects: MODULES entries, ELF symbols and patch sites
 *              read from the files (no libelf: <elf.h> structs over mmap),
 *              a closed object's module retired, the module memory guard
 *   filter.c   the control block's lists -> per-function flags
 *   args.c     capture specs -> per-function lines; arguments and return
 *              values from the registers the trampolines saved
 *   signal.c   sigaction / signal: the program's handlers entered through
 *              a shim that records FT_EXT_SIGNAL / FT_EXT_SIGRET
 *   patch.c    run-time patching of nop sites (dynamic ftrace)
 *   dynpatch.c --patch: functions without instrumentation patched at their
 *              entry, their first instructions moved (capstone) into a
 *              trampoline slot that calls ft_rt_patched
 *   context.c  makecontext / swapcontext / setcontext: a shadow stack per
 *              user context
 *   plt.c      library calls: the GOT slots of the PLT imports of an
 *              instrumented object, or of one with functions dynpatch.c
 *              patched, point to stubs that enter the tracers
 *   hooks.c    the tracers: entry/exit logic behind every hook
 *   stacktracer.c  -p stack: each thread's deepest stack (hooks.c calls it)
 *   locklat.c  -p lockheld / -p sigsoff: mutex-held and signals-blocked
 *              sections from the library-call hooks (hooks.c calls it)
 *   unwind.c   user stacks (option stacktrace, stacktrace triggers)
 *   arch/x86_64/tramp.S   mcount, __fentry__, the patched-site trampoline,
 *              the return trampoline (function_graph's hijack)
 *
 * Hot-path data is read-mostly and private to the process; what the
 * recorder must see lives in the session block (session.h).
 *
 * Layers (doc/architecture.md): a file calls only files below it --
 *   attach > init > dynpatch > module;
 *   attach > init, dl > hooks > events > control > filter > module >
 *   plt > unwind > lookup > thread;  signal > patch;  patch, context,
 *   proc > thread only;  hooks, init > stacktracer, locklat > unwind,
 *   lookup, thread (thread.c reaches them only through
 *   rt.thread_exit_more).
 * Every cross-file function is declared here, nowhere else.
 */
#ifndef FTRAIL_RT_H
#define FTRAIL_RT_H

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/argspec.h"
#include "core/barrier.h"
#include "core/demangle.h"
#include "core/lifeline.h"
#include "core/ringbuf.h"
#include "core/session.h"
#include "core/stackmap.h"

#define RT_HIDDEN __attribute__((visibility("hidden")))
#define RT_TLS __attribute__((tls_model("initial-exec")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define RT_NOFID 0xffffffffu

/*
 * The libc function a wrapper of ours stands in front of (the next
 * definition of name after libftrail.so), with name's own type.  A dlsym:
 * wrappers call it once and keep the pointer, never on the hook path.
 */
#define RT_REAL(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

/* rt_func.flags: what the filters decided (recomputed when the epoch moves) */
#define RF_TRACE 0x0001		/* set_ftrace_filter/notrace select it */
#define RF_GRAPH_ROOT 0x0002	/* set_graph_function */
#define RF_GRAPH_NOTRACE 0x0004 /* set_graph_notrace */
#define RF_CMD 0x0008		/* has a function command */
#define RF_HOOK (RF_TRACE | RF_GRAPH_ROOT | RF_GRAPH_NOTRACE | RF_CMD) /* must be hooked */
#define RF_ARGS 0x0010	     /* a spec captures its arguments (args.c) */
#define RF_RETVAL 0x0020     /* a spec captures its return value (args.c) */
#define RF_LOAD_LOCAL 0x8000 /* rt_module_load's own, cleared before use: a local symbol */

/* rt_func.epoch of a function whose flags were never computed (rt.epoch never gets there) */
#define RT_EPOCH_NONE UINT32_MAX

/*
 * rt.gen from load time until the first control sync: odd, so never the
 * stable (even) ctl gen a hook compares it with -- the first hook syncs --
 * and gen + 1 is 0, the closed fast-path gate (hooks.c: rt_hot_update).
 */
#define RT_GEN_NONE UINT32_MAX

enum rt_cmd {
	RT_CMD_NONE = -1, /* filter.c: a plain glob line, no command */
	RT_CMD_TRACEON = 0,
	RT_CMD_TRACEOFF,
	RT_CMD_STACKTRACE,
	RT_CMD_SNAPSHOT,
	RT_CMD_NR
};

/* rt_func.site_kind: the patchable nop at a function's entry (module.c, patch.c) */
enum rt_site_kind {
	RT_SITE_NONE = 0, /* none, or not the bytes expected: never patched */
	RT_SITE_NOP5 = 1, /* one 5-byte nop: patched and unpatched live */
	RT_SITE_NOPS = 2, /* five 1-byte nops (gcc): made one NOP5 before it may run */
};

#define RT_CMD_UNLIMITED (-1) /* a command without a :count */

/* One function of a loaded object. */
struct rt_func {
	uint64_t addr;	  /* absolute entry address */
	uint64_t site;	  /* patchable nop site (absolute), 0 when none */
	const char *name; /* in the module's mapped string table */
	uint32_t size;
	uint32_t fid;		      /* RT_NOFID until first needed (atomic CAS) */
	uint32_t epoch;		      /* filter epoch flags were computed at */
	uint16_t flags;		      /* RF_* */
	uint16_t mod;		      /* index into rt.mods */
	uint8_t site_len;	      /* nop bytes at site (5 for a 5-byte nop) */
	uint8_t site_kind;	      /* enum rt_site_kind */
	uint8_t patched;	      /* site currently calls the trampoline */
	uint8_t cmd_mask;	      /* 1 << rt_cmd */
	uint8_t site_b4;	      /* original 5th byte of a 5-byte nop (clang: 0x08) */
	uint8_t site_nops;	      /* RT_SITE_NOP5 made from RT_SITE_NOPS (patch.c) */
	uint16_t lib;		      /* a PLT import (plt.c): 1 + the index of the module
			       * defining it (:mod: matches that one), else 0 */
	int32_t cmd_count[RT_CMD_NR]; /* RT_CMD_UNLIMITED, or how many more times */
	/*
	 * args.c: the spec lines of its arguments and of its return value,
	 * and its --filter (NULL: none).  Written with the flags, before the
	 * epoch's release (rt_func_eval); the exit hook reads cap_ret
	 * without that acquire, so both sides use relaxed atomics on it: it
	 * may see the line of another control generation, never a torn or
	 * freed one (args.c never frees a line).
	 */
	const struct rt_cap *cap_args;
	const struct rt_cap *cap_ret;
	const struct ft_filter *cap_filter;
	/*
	 * The same lines as plans for the hooks' C fast path (NULL: the
	 * general path captures them): written and read as cap_args and
	 * cap_ret are.
	 */
	const struct rt_argplan *plan_args;
	const struct rt_argplan *plan_ret;
};

/* rt_module.loaded: its symbols (rt_module_load) */
enum rt_mod_load {
	RT_MOD_LOAD_FAILED = -1, /* unreadable, or not ELF64: never traced */
	RT_MOD_UNLOADED = 0,	 /* not read yet */
	RT_MOD_LOADED = 1,	 /* funcs and nr_funcs valid (release-stored) */
};

/* rt_module.plt_state: its library calls (plt.c) */
enum rt_plt_state {
	RT_PLT_NONE = -1,    /* nothing to hook, or hooking failed */
	RT_PLT_UNHOOKED = 0, /* not tried yet for this mapping */
	RT_PLT_HOOKED = 1,   /* plt, nr_plt, plt_mem valid */
	RT_PLT_DETACHED = 2, /* hooked, then the slots put back (detach): stubs kept */
};

struct rt_module {
	char path[FT_SESSION_PATH_MAX];
	char name[128]; /* :mod: name: basename without .so* (ft_mod_name) */
	uint64_t start, end, bias;
	int shm_idx; /* index in the session's module table, -1 */
	int loaded;  /* enum rt_mod_load */
	int is_self; /* libftrail.so itself: never traced */
	void *map;   /* the file, mapped read-only */
	size_t map_len;
	size_t funcs_len;      /* bytes mapped at funcs */
	struct rt_func *funcs; /* sorted by addr */
	uint32_t nr_funcs;
	uint32_t nr_sites;
	uint64_t dl_key;     /* hash of the loader's name for it: identity with start, bias */
	int gone;	     /* dlclose()d: never matched, filtered or patched again */
	int sites_pending;   /* symbols read, patch sites not yet (module memory was busy) */
	int seen;	     /* scan generation it was last found in */
	int pinned;	     /* loaded with the program: never unmapped */
	int held;	     /* referenced by the runtime itself for now (module.c) */
	int wants;	     /* imports a compiler hook: its own calls are traced */
	uint32_t nr_dyn;     /* functions dynpatch.c has patched now (jmp in place) */
	int plt_state;	     /* enum rt_plt_state */
	struct rt_func *plt; /* hooked PLT imports (addr: the GOT slot), plt.c */
	uint32_t nr_plt;
	void *plt_mem; /* the imports' stubs, then their data (plt.c) */
	size_t plt_mem_len;
};

#define RT_MAX_MODS 512

/* rt_frame.flags */
#define FR_RECORDED 0x1	 /* an ENTRY was written: write the EXIT */
#define FR_ROOT 0x2	 /* opened a set_graph_function region */
#define FR_NOTRACE 0x4	 /* opened a set_graph_notrace region */
#define FR_CYG 0x8	 /* -finstrument-functions frame (no hijack) */
#define FR_RESTORED 0x10 /* real return address put back (exception in flight) */
#define FR_THRESH 0x20	 /* tracing_thresh: entry deferred to the exit */
#define FR_RETVAL 0x40	 /* recorded with a return-value spec: the exit carries it */
#define FR_ULAT 0x80	 /* a lock or signal-mask call locklat.c wants the return of */

/* A shadow-stack frame. */
struct rt_frame {
	struct rt_func *func;
	uint64_t ret;  /* real return address */
	uint64_t slot; /* address of the return-address slot (cyg: a stack address in the frame) */
	uint64_t ts;   /* entry time (tracing_thresh) */
	uint32_t fid;
	uint16_t flags; /* FR_* */
	uint16_t pad;
	/*
	 * -T: the id + 1 of the stack recorded with this frame's ENTRY (0:
	 * none), valid for stack epoch sepoch (unwind.c, rt_entry_stack;
	 * read only with a sid1).  Every push writes sid1 (tramp.S: one
	 * 8-byte store of flags, pad and sid1 = 0, at an offset the frame's
	 * 48-byte stride keeps inside one cache line).
	 */
	uint32_t sid1;
	uint32_t sepoch;
};

#define RT_MAX_FRAMES 16384
#define RT_SIG_LEVELS 4		      /* nested signal handlers tracked per thread (signal.c) */
#define RT_SIG_UNRECORDED 0x80000000u /* rt_thread.sig_signo: its FT_EXT_SIGNAL was not written */
/* a shadow stack: RT_MAX_FRAMES frames after a sentinel (thread.c: rt_frames_alloc) */
#define RT_FRAMES_BYTES ((RT_MAX_FRAMES + 1) * sizeof(struct rt_frame))

/* rt_thread.state (tramp.S tests READY: offsets.h FT_C_T_READY) */
enum rt_thread_state {
	RT_THREAD_FRESH = 0,	/* not set up yet: rt_thread_get() does it */
	RT_THREAD_READY = 1,	/* traced: shadow stack and ring slot in place */
	RT_THREAD_FILTERED = 2, /* left out by the pid filter (set_ftrace_pid) */
	RT_THREAD_DEAD = 3,	/* exited, or no memory for its shadow stack */
};

/*
 * A thread's runtime state (TLS, initial-exec).  The fast paths of
 * arch/x86_64/tramp.S read and write fields of it, of rb, of rt_state and
 * of the structures below at fixed offsets: arch/x86_64/offsets.h lists
 * them and hooks.c checks every one at compile time.  The fields they use
 * come first here, so that changes elsewhere leave them in place.
 */
struct rt_thread {
	int state;		 /* enum rt_thread_state */
	int busy;		 /* recursion guard: rt_guard_recursion() nesting, 0 when
				  * no runtime code of this thread is active */
	uint32_t hot;		 /* ctl gen + 1 when the hooks' fast path may run for this
				  * thread (hooks.c: rt_hot_update), 0 otherwise */
	uint32_t depth;		 /* shadow frames in use */
	uint32_t notrace;	 /* open set_graph_notrace frames */
	uint32_t rec_depth;	 /* open recorded frames (max_graph_depth) */
	struct rt_frame *frames; /* RT_MAX_FRAMES, mmap'ed on first use; frames[-1] is a
				  * sentinel (slot UINT64_MAX, flags 0: rt_frames_alloc) */
	struct ft_rb_thread rb;	 /* ring writer handle (ringbuf.h) */
	uint32_t tid;
	uint32_t gen;		 /* control generation the pid filter was evaluated at */
	uint32_t roots;		 /* open set_graph_function frames */
	uint64_t alt_lo, alt_hi; /* sigaltstack range (frames there are never "dead") */
	void *ucache;		 /* unwind.c's rule cache, RT_UCACHE_BYTES, mapped by thread.c */
	uint32_t sess_seq;	 /* rt.sess_seq its ring handle and frames belong to */
	/*
	 * Signal handlers of the program running on this thread (signal.c):
	 * how many are nested now, and each one's shim stack pointer, by which
	 * a handler left through siglongjmp is found dead.  Written by the
	 * thread and its own handlers only (compiler barriers order them).
	 */
	uint32_t sig_level;
	uint32_t sig_signo[RT_SIG_LEVELS];
	uint64_t sig_sp[RT_SIG_LEVELS];
	/*
	 * ctl gen + 1 when hooks.c's -T fast path may run for this thread
	 * (rt.fast_stack, else 0): t->hot's twin, which tramp.S never reads
	 * (its fast paths record no stacks).  hooks.c: rt_hot_update.
	 */
	uint32_t hot_stack;
	/*
	 * rt.sess_seq + 1 once this thread's name is the first record of its
	 * ring in that session (FT_EXT_TNAME: thread.c, rt_thread_name_start),
	 * 0 before.  Written by the thread only.
	 */
	uint32_t named_seq;
};

/*
 * a thread's unwind rule cache (unwind.c: 4096 entries of 16 bytes), then
 * its -T stack memo (unwind.c: 65536 entries of 32 bytes); touched only
 * as used, so a thread that takes no stack pays address space only
 */
#define RT_UCACHE_BYTES (65536 + 65536 * 32)

/*
 * A slot of the hooks' address -> function hash (lookup.c): the key, and
 * the function right after it, so one base and one index reach both
 * (tramp.S).
 */
struct rt_hslot {
	uint64_t key; /* an address, RT_HASH_EMPTY or RT_HASH_TOMB */
	struct rt_func *f;
};

/* Process-wide runtime state. */
struct rt_state {
	struct ft_session_hdr *sess; /* NULL: not recording, every hook returns */
	struct ft_session_ctl *ctl;
	/* address -> function hash (see hooks.c); with ctl and epoch, read by tramp.S */
	struct rt_hslot *htab;
	uint32_t hmask; /* slots - 1, 0 without a table */
	uint32_t hused;
	uint32_t epoch;	 /* bumps on every filter change */
	uint32_t hmask2; /* hmask << 1: tramp.S indexes htab in 8-byte units */
	struct ft_session_func *ftab;
	struct ft_rb_area *area;
	struct ft_stackmap smap;
	int smap_ok;
	size_t sess_len;
	pid_t pid;
	uint32_t space;

	/* cached control (re-read when ctl->gen moves) */
	uint32_t gen;
	uint32_t tracer;
	uint64_t options;
	uint64_t thresh;
	int32_t max_depth;
	uint32_t stack_depth;
	int have_graph_roots;
	int fast; /* function_graph with nothing but filters: hooks.c's fast path */
	/* the same with option stacktrace and the stack map: hooks.c's -T fast path */
	int fast_stack;

	struct rt_module mods[RT_MAX_MODS];
	int nr_mods;
	pthread_mutex_t lock; /* control path: modules, filters, patching */

	/*
	 * The recorder's lifeline (core/lifeline.h): its futex word while the
	 * recorder may still be there, NULL once this process has detached
	 * (or when there is none).  Relaxed loads: see rt_orphaned().
	 */
	const uint32_t *life;
	/*
	 * The recorder is gone: nothing is hooked or recorded any more.  Set
	 * once, under lock, after tracing_on was switched off; read relaxed
	 * by the hooks and user events: one that reads it stale acts as a
	 * hook that ran just before the detach -- at worst a record more into
	 * rings nobody reads.
	 */
	int detached;
	/*
	 * Sessions started so far (attach.c: a detached process attached
	 * again gets a new one); a thread whose sess_seq differs drops its
	 * old ring handle and its frames' records (rt_thread_get).
	 */
	uint32_t sess_seq;
	/*
	 * What a detach does besides (rt_detach, under rt.lock): set by
	 * attach.c for a runtime it started, which puts the program's GOT
	 * slots and text back too; NULL under LD_PRELOAD.
	 */
	void (*detach_more)(void);
	/*
	 * What loading a module does besides, before its library calls are
	 * hooked (module.c, under rt.lock, inside the module memory guard),
	 * and, called with NULL, what a dlopen does besides for the objects
	 * it brought that are not instrumented (dl.c, under rt.lock): set by
	 * attach.c, which points their GOT slots of the compiler hooks and
	 * the wrapped functions to ours; NULL under LD_PRELOAD, where the
	 * loader binds them to ours.
	 */
	void (*got_more)(struct rt_module *m);
	/*
	 * 1 while the live-control thread runs (control.c, rt_live_start):
	 * set by its starter, cleared by the thread as it leaves.
	 */
	int live_thread;
	/*
	 * What a thread's exit does besides (thread.c's key destructor, with
	 * the thread's ring still attached and its guard taken): the latency
	 * tracers' per-thread state (init.c's ulat_thread_exit); set once
	 * at load time by init.c.
	 */
	void (*thread_exit_more)(struct rt_thread *t);
};

extern struct rt_state rt RT_HIDDEN;
extern __thread struct rt_thread rt_self RT_HIDDEN RT_TLS;

/* init.c: the start, at load time (LD_PRELOAD) or on demand (attach.c) */
RT_HIDDEN int rt_start(struct ft_session_hdr *h, size_t len, const uint32_t *life, int attached);

/* thread.c: rt, rt_self, threads, their shadow stacks and out-of-band records */
RT_HIDDEN void *rt_mmap_anon(size_t len);
RT_HIDDEN struct rt_frame *rt_frames_alloc(void);
RT_HIDDEN void rt_frames_free(struct rt_frame *frames);
RT_HIDDEN uint32_t rt_gettid(void);
RT_HIDDEN void rt_threads_init(void);
RT_HIDDEN struct rt_thread *rt_thread_get(void);
RT_HIDDEN void rt_thread_name_start(struct rt_thread *t);
RT_HIDDEN void rt_restore_frames(struct rt_thread *t);
RT_HIDDEN void rt_unwind_to(struct rt_thread *t, uint64_t sp, int inclusive);
RT_HIDDEN void rt_unwind_to_depth(struct rt_thread *t, uint32_t target);
RT_HIDDEN void rt_sig_unwind_to(struct rt_thread *t, uint64_t sp);
RT_HIDDEN void rt_emit_ext(struct rt_thread *t, uint32_t type, const void *p, uint32_t len);

/* lookup.c: address -> module, function, fid; the hooks' address hash */

/* rt.htab[].key values that are no address (tramp.S too takes 0 for the end of a chain) */
#define RT_HASH_EMPTY 0 /* never used: ends a probe chain */
#define RT_HASH_TOMB 1	/* was used (rt_hash_forget): the chain goes on */

/* A key's home slot, before masking (tramp.S computes the same) */
#define RT_HASH_MUL 0x5bd1e995ull /* odd, < 2^31: an imul immediate in tramp.S */
static inline uint32_t rt_hash_key(uint64_t k)
{
	/*
	 * One multiply by an odd 31-bit constant, bits 32 and up (tramp.S:
	 * imul with an immediate, shr; offsets.h FT_C_HASH_MUL): key bit i
	 * lands on hash bits up to i - 2, and keys k apart land about k *
	 * mul / 2^32 buckets apart (a Weyl sequence: functions of one module,
	 * 16 or more bytes apart, spread over the table).
	 */
	return (uint32_t)((k * RT_HASH_MUL) >> 32);
}

RT_HIDDEN void rt_hash_init(uint32_t nr);
RT_HIDDEN void rt_hash_forget(uint64_t lo, uint64_t hi);
RT_HIDDEN void rt_hash_add(uint64_t key, struct rt_func *f);
RT_HIDDEN struct rt_module *rt_module_of(uint64_t addr);
RT_HIDDEN struct rt_func *rt_func_in(struct rt_module *m, uint64_t addr);
RT_HIDDEN uint32_t rt_func_fid(struct rt_func *f);
RT_HIDDEN uint32_t rt_addr_fid(uint64_t addr);

/* control.c: control changes and the detach */
RT_HIDDEN void rt_sync_locked(void);
RT_HIDDEN void rt_sync_ctl(void);
RT_HIDDEN void rt_detach(void);
RT_HIDDEN void rt_live_start(void);

/*
 * The recursion guard (uftrace: mcount_guard_recursion).  While t->busy is
 * nonzero, a hook of this thread -- the runtime calling an instrumented
 * function, or a signal handler interrupting runtime code -- does nothing
 * but count its event as lost; code that must wait for rt.lock or another
 * runtime lock takes the guard first, so no hook of the same thread can
 * then wait for it.  Guards nest (fork's handlers, vfork, a return
 * through ft_rt_return while a hook is active): busy counts them.
 *
 * Ordering: busy is read only by its own thread -- the code it guards and
 * a signal handler that interrupts that code -- so a compiler barrier
 * (ft_barrier, a signal fence) is all that is needed: busy is set before
 * any guarded access, and dropped after the last.  No CPU fence: a thread
 * sees its own stores in program order.  tramp.S's fast paths take and
 * drop the same guard in assembly (from 0 to 1 and back).
 */
static inline void rt_guard_recursion(struct rt_thread *t)
{
	t->busy++;
	ft_barrier();
}

static inline void rt_unguard_recursion(struct rt_thread *t)
{
	ft_barrier();
	t->busy--;
}

/*
 * Has the recorder gone while this process still traces?  Two relaxed
 * loads, no system call: cheap enough for the hooks' general path and the
 * user events' write hook, which call rt_detach() when it says so.  A stale
 * NULL or a late view of the word only delays the detach to a later hook.
 */
static inline int rt_orphaned(void)
{
	const uint32_t *w = __atomic_load_n(&rt.life, __ATOMIC_RELAXED);

	return unlikely(w != NULL) && unlikely(ft_lifeline_gone(w));
}

/* module.c */
RT_HIDDEN void rt_modules_scan(int is_dlopen);
RT_HIDDEN void rt_modules_load_new(void);
/* what the module memory guard lets its holder touch (module.c) */
enum rt_modmem {
	RT_MODMEM_PINNED = 1, /* a dlclose is in flight: only pinned or held modules */
	RT_MODMEM_ALL = 2,    /* every module that is not gone */
};
RT_HIDDEN enum rt_modmem rt_modmem_enter(void);
RT_HIDDEN int rt_modmem_may(const struct rt_module *m, enum rt_modmem mem);
RT_HIDDEN void rt_modmem_exit(void);
RT_HIDDEN int rt_modmem_take_deferred(void);
RT_HIDDEN void rt_modules_dlclose_begin(void);
RT_HIDDEN void rt_modules_dlclose_unmapped(void);
RT_HIDDEN void rt_modules_atfork_child(void);
RT_HIDDEN void rt_modules_republish(void);
RT_HIDDEN int rt_module_load(struct rt_module *m);
RT_HIDDEN int rt_module_wants_load(struct rt_module *m);
RT_HIDDEN struct rt_func *rt_func_of(uint64_t addr);

/* plt.c */
RT_HIDDEN const ElfW(Shdr) *
	rt_elf_section(const struct rt_module *m, uint32_t type, const char *name);
RT_HIDDEN void rt_relro_pages(const struct rt_module *m, uint64_t *lo, uint64_t *hi);
RT_HIDDEN uint32_t rt_plt_nr_imports(const struct rt_module *m);
RT_HIDDEN void rt_plt_hook(struct rt_module *m);
RT_HIDDEN void rt_plt_forget(struct rt_module *m);
RT_HIDDEN void rt_plt_hash_all(void);
RT_HIDDEN void rt_plt_unhook_all(void);
RT_HIDDEN void rt_plt_rehook_all(void);

/* filter.c */
/*
 * A function's simple demangled name, made at most once per evaluation:
 * an evaluation (rt_func_eval, a patch decision...) keeps one on its stack
 * for its function and hands it to each of its glob matches, so a `::`
 * rule costs a glob match, not a demangling and a sigaltstack call, and
 * many rules cost what one does.  rt_name_memo_init() before the first.
 */
struct rt_name_memo {
	const struct rt_func *f; /* the function it holds the name of */
	int state;		 /* 0: not made yet; 1: name; -1: none (not C++,
				  * no simple form, or on an alternate signal stack) */
	char name[FT_DEMANGLE_MAX];
};

static inline void rt_name_memo_init(struct rt_name_memo *m, const struct rt_func *f)
{
	m->f = f;
	m->state = 0;
}

/*
 * Does f's name match glob (len bytes)?  As stored, or, for a glob with
 * "::", a C++ function by the simple demangled name the tool prints
 * ("ns::Cls::f", core/demangle.h), taken from memo (made there on first
 * use; NULL: made for this call alone).  Safe in a hook: the demangler
 * does not allocate (on an alternate signal stack, whose size is unknown,
 * only the stored name is matched: its scratch lives on the stack).
 */
RT_HIDDEN int rt_func_glob_match(const char *glob, size_t len, const struct rt_func *f,
				 struct rt_name_memo *memo);
RT_HIDDEN void rt_filters_parse(void);
RT_HIDDEN void rt_func_eval(struct rt_func *f);
RT_HIDDEN void rt_filters_apply_all(int warn_now);
/*
 * -l / -g standing in for --patch (filter.c, for dynpatch.c): parse the
 * lists (1: a line selects something), does a line name m's functions,
 * does the selection take f (in m).  prog: the program's own module.
 */
RT_HIDDEN int rt_filter_patch_parse(void);
RT_HIDDEN int rt_filter_patch_mod(const struct rt_module *m, const struct rt_module *prog);
RT_HIDDEN int rt_filter_patch_func(const struct rt_func *f, const struct rt_module *m,
				   const struct rt_module *prog);

/* args.c: argument and return-value capture */
struct ft_filter;
struct rt_cap;

/*
 * A spec line made ready for the hooks' fast path (hooks.c, which calls
 * nothing): integer registers only, no string, float or filter.  The
 * record is written as rt_args_capture() / rt_retval_capture() write it
 * (core/argspec.h), every word but the values computed when the line is
 * parsed: ext, the FT_EXT_ARGS / FT_EXT_RETVAL word; per item its head
 * word, then the register's low 4 bytes, or its 8 (wide).
 */
struct rt_argplan {
	uint32_t ext; /* ft_rec_ext(type, nw, 0) */
	uint32_t nw;  /* payload words (head and value words of every item) */
	uint32_t n;   /* items */
	uint32_t head[FT_ARG_MAX];
	uint8_t reg[FT_ARG_MAX]; /* rdi..r9 = 0..5 (arguments); 0 = rax (the return value) */
	uint8_t wide[FT_ARG_MAX];
};
/* The plan of a line's arguments (ret 0) or return value (ret 1), or NULL. */
RT_HIDDEN const struct rt_argplan *rt_args_plan(const struct rt_cap *c, int ret);
RT_HIDDEN void rt_args_parse(void);
RT_HIDDEN uint16_t rt_args_eval(const struct rt_func *f, const struct rt_cap **args,
				const struct rt_cap **ret, const struct ft_filter **flt,
				struct rt_name_memo *memo);
RT_HIDDEN void rt_args_unmark(void);
RT_HIDDEN void rt_args_warn_unmatched(void);
RT_HIDDEN uint32_t rt_args_capture(const struct rt_cap *c, const uint64_t *gpr,
				   const unsigned char *xmm, void *buf, uint32_t cap);
RT_HIDDEN uint32_t rt_retval_capture(const struct rt_cap *c, uint64_t rax,
				     const unsigned char *xmm0, void *buf, uint32_t cap);
RT_HIDDEN int rt_args_match(const struct ft_filter *flt, const struct rt_cap *c,
			    const void *payload, uint32_t len);
#define RT_ARGS_BUF 1024 /* bytes of captured values per entry or exit (stack) */

/* patch.c */
struct sigaction;
RT_HIDDEN int rt_patch_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
RT_HIDDEN int rt_patch_site(struct rt_func *f, int on);
RT_HIDDEN void rt_patch_flush(void);
RT_HIDDEN void rt_patch_init(void);
RT_HIDDEN void rt_patch_forget(int mod_idx);
RT_HIDDEN void rt_patch_normalize(struct rt_module *m);
RT_HIDDEN void rt_patch_denormalize(struct rt_func *f);
RT_HIDDEN void rt_patch_fini(void);

/* dynpatch.c: rt.lock held; see the top of dynpatch.c for when they may run */
RT_HIDDEN void rt_dynpatch_hold_pc(uint64_t pc);
RT_HIDDEN void rt_dynpatch_load(void);
RT_HIDDEN void rt_dynpatch_apply(void);
RT_HIDDEN void rt_dynpatch_undo(void);

/*
 * unwind.c: where the program was when a hook or event fired -- a return
 * address into it, its rsp after that return, and its rbp.
 */
struct rt_ustate {
	uint64_t ip, sp, fp;
};
RT_HIDDEN uint32_t rt_ustack(struct rt_thread *t, const struct rt_ustate *st, uint64_t *ips,
			     uint32_t max);
RT_HIDDEN uint32_t rt_ustack_slots(struct rt_thread *t, const struct rt_ustate *st, uint64_t *ips,
				   uint64_t *slots, uint32_t max);
RT_HIDDEN uint64_t rt_ustack_top(struct rt_thread *t, uint64_t sp);
RT_HIDDEN void rt_emit_stack(struct rt_thread *t, uint64_t first, const struct rt_ustate *st,
			     int standalone);
RT_HIDDEN uint32_t rt_entry_stack(struct rt_thread *t, uint32_t fid, uint64_t now, uint64_t first,
				  const struct rt_ustate *st, uint32_t *sepoch);
RT_HIDDEN uint32_t rt_stack_memo(struct rt_thread *t, uint64_t first, const struct rt_ustate *st,
				 uint32_t *sepoch);
RT_HIDDEN void rt_unwind_forget(void);
RT_HIDDEN uint64_t rt_shadow_ret(struct rt_thread *t, uint64_t slot);

/*
 * signal.c's shim, the one runtime frame a user stack may hold between a
 * program's handler and its signal frame, is alone in section rt_sigshim
 * (RT_SIGSHIM), so the unwinder steps through it without calling up into
 * signal.c; the linker defines the section's bounds.
 */
#define RT_SIGSHIM __attribute__((section("rt_sigshim"), noinline))
extern const char __start_rt_sigshim[] RT_HIDDEN;
extern const char __stop_rt_sigshim[] RT_HIDDEN;

static inline int rt_in_sigshim(uint64_t ip)
{
	return ip >= (uint64_t)(uintptr_t)__start_rt_sigshim &&
	       ip < (uint64_t)(uintptr_t)__stop_rt_sigshim;
}

/*
 * The user-space latency tracers (doc/latency-user.md), called by hooks.c's
 * general path only (their tracers close the fast path), with t->busy held.
 *   stacktracer.c  -p stack: the stack pointer at every entry against the
 *                  thread's max; a new max's stack, with each frame's depth
 *   locklat.c      -p lockheld / -p sigsoff: sections between library calls
 *                  (pthread_mutex_* / sigprocmask, pthread_sigmask), their
 *                  max or every one over tracing_thresh
 * rt_ulat_entry returns 1 when f's return must be seen: hooks.c then pushes
 * a frame flagged FR_ULAT, and its exit calls rt_ulat_exit with the return
 * registers (rv: rax at 0) -- NULL when the frame died without returning.
 */
RT_HIDDEN void rt_stk_entry(struct rt_thread *t, struct rt_func *f, uint64_t *slot, int cyg,
			    const struct rt_ustate *us);
RT_HIDDEN void rt_stk_flush(struct rt_thread *t);
RT_HIDDEN void rt_stk_thread_exit(struct rt_thread *t);
RT_HIDDEN int rt_ulat_entry(struct rt_thread *t, struct rt_func *f, uint16_t fl, uint64_t *slot,
			    uint64_t ret, int cyg, const struct rt_ustate *us,
			    const uint64_t *regs);
RT_HIDDEN void rt_ulat_exit(struct rt_thread *t, const struct rt_frame *fr, const uint64_t *rv);
RT_HIDDEN void rt_ll_thread_exit(struct rt_thread *t);
RT_HIDDEN int rt_ll_in_section(const struct rt_thread *t);

/* events.c: the program's user events and trace_marker; the snapshot swap */
RT_HIDDEN void rt_events_rescan(void);
struct ft_uev_area;
RT_HIDDEN void rt_events_attach(struct ft_uev_area *a);
RT_HIDDEN void rt_events_detach(void);
/* Apply a tool's switches of user events (core/uevent.h en[]); rt.lock held. */
RT_HIDDEN void rt_events_sync(void);
/* A tool's live edit of a filter or trigger (uevent.h); the live thread only. */
RT_HIDDEN void rt_events_edit(void);
RT_HIDDEN void rt_snapshot(struct rt_thread *t);
RT_HIDDEN int rt_snapshot_ready(void);

/* arch: ft_rt_entry's kind, the hook that called it (tramp.S: FT_C_HOOK_*) */
enum rt_hook_kind {
	RT_HOOK_MCOUNT = 0,  /* mcount (-pg): rbp is the function's own frame */
	RT_HOOK_FENTRY = 1,  /* __fentry__ (-pg -mfentry) */
	RT_HOOK_PATCHED = 2, /* a patched nop site or a PLT stub (ft_rt_patched) */
};

/* arch: the trampolines (tramp.S) */
void ft_rt_return(void);  /* the return trampoline */
void ft_rt_patched(void); /* what a patched site calls */
void ft_rt_fentry(void);  /* == __fentry__ */

/* arch: a function patched without instrumentation (patch_tramp.S, dynpatch.c) */
void ft_rt_dyn_entry(void);  /* what its trampoline slot calls */
void ft_rt_dyn_return(void); /* its hijacked return: ft_rt_return keeping every register */

/* Is a return address one of the hijack's trampolines (ft_rt_return, ft_rt_dyn_return)? */
static inline int rt_is_ret_tramp(uint64_t a)
{
	return a == (uint64_t)(uintptr_t)ft_rt_return || a == (uint64_t)(uintptr_t)ft_rt_dyn_return;
}

/* hooks.c: the C side of the trampolines, called by tramp.S only */
/* regs: the saved rdi rsi rdx rcx r8 r9 (at 0), general-purpose only */
int ft_rt_entry_fast(uint64_t key, uint64_t *slot, const uint64_t *regs);
/* regs: the saved rdi rsi rdx rcx r8 r9 (at 0), xmm0-7 (at 64 bytes), for args.c */
void ft_rt_entry(uint64_t key, uint64_t *slot, uint32_t kind, const uint64_t *regs);
/* rv: the saved rax (at 0) */
uint64_t ft_rt_exit_fast(uint64_t sp, const uint64_t *rv);
/* rv: the saved rax (at 0), rdx (8), xmm0 (16 bytes), for args.c */
uint64_t ft_rt_exit(uint64_t sp, const uint64_t *rv);
void ft_rt_cyg_enter(void *fn, void *call_site);
void ft_rt_cyg_exit(void *fn, void *call_site);

/* proc.c: vfork's C side, called by arch/x86_64/vfork.S only */
RT_HIDDEN void ft_rt_vfork_enter(void);
RT_HIDDEN long ft_rt_vfork_leave(long r);

#endif
