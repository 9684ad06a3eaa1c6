// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic tracing as ftrace does it: functions compiled with a nop at their
 * entry (-pg -mfentry -mnop-mcount -mrecord-mcount, or
 * -fpatchable-function-entry=N[,M] with N-M >= 5) run that nop until they
 * are selected; then the nop becomes "call <stub>", and the stub jumps to
 * ft_rt_patched (arch/x86_64/tramp.S), which behaves exactly like
 * __fentry__.  Unselected functions cost the nop.
 *
 * The stub: a call's rel32 reaches +-2 GiB, and libftrail.so is usually
 * mapped much further from the program, so each module gets one page near
 * it holding "jmp *0(%rip); .quad ft_rt_patched" (an absolute jump does not
 * touch the stack, so the trampoline sees the same frame as a direct call).
 *
 * Safety while other threads run: cross-modifying code.  The SDM (Vol. 3A,
 * "Handling Self- and Cross-Modifying Code") makes only one promise for
 * code that one processor writes while others may execute it: the
 * executing processors see the new bytes once they have executed a
 * serializing instruction after the write; until then what they fetch is
 * implementation-specific (the AMD APM, Vol. 2 "Cross-Modifying Code",
 * says the same).  An atomic 8-byte store is no exception: the fetch unit
 * does not honour data atomicity.  So every change of a site, in either
 * direction, follows the kernel's text_poke_bp(), for a whole batch of
 * sites at once (rt_patch_site queues, rt_patch_flush writes):
 *
 *   0. publish the batch (site -> new 5 bytes) for the SIGTRAP handler
 *   1. write int3 (0xcc) on the first byte of every site;   serialize
 *   2. write bytes 1..4 of every site;                      serialize
 *   3. write the new first byte of every site;              serialize
 *   4. withdraw the batch
 *
 * "serialize" is membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE)
 * (registered in rt_patch_init): when it returns, every other thread of
 * the process has executed a core-serializing instruction (or will before
 * it next returns to user mode), so none can still execute bytes it
 * fetched before the preceding writes.  Why each state is safe:
 *  - until the first serialize, a thread fetches either the old first byte
 *    with the old tail (the tail is not written yet) or the int3, a
 *    one-byte instruction whose single byte is written by one store;
 *  - during 2, every fetch of byte 0 yields the int3, and no control
 *    transfer targets bytes 1..4 (the site is a function's first
 *    instruction; the call's return lands after it), so the mixed tail is
 *    never executed;
 *  - during 3, the tail is the new one everywhere (second serialize), so a
 *    fetch yields either the int3 or the whole new instruction.
 * A thread that executes the int3 gets SIGTRAP; on_trap() moves it to
 * where the new instruction would have taken it (a call to the stub is
 * emulated: return address pushed, rip at the stub; a nop: rip past the
 * site), or, when the batch is over by the time the handler runs (signal
 * delivery is not bounded by the serialize), back to the site's first byte
 * to execute the final instruction (sigreturn is serializing).  Entry and
 * exit stay paired either way.  The handler never blocks and reads the
 * batch through a sequence counter (poke_seq).
 *
 * One residual window, that no protocol closes without stopping the
 * threads: gcc's -fpatchable-function-entry=5 sites are five 1-byte nops,
 * and a thread preempted between two of them would resume inside the new
 * tail.  rt_patch_normalize turns each such run into one 5-byte nop, with
 * the protocol above, as soon as the sites are known (constructor, or
 * right after dlopen(), before the library's code is handed to the
 * program); afterwards sites are only ever changed between two single
 * instructions.
 *
 * Text pages are made writable with PROT_READ|PROT_WRITE|PROT_EXEC (never
 * without EXEC, so other threads keep running in them) for the time of a
 * batch, then put back to PROT_READ|PROT_EXEC.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/membarrier.h>

#include "runtime/rt.h"

static uint64_t stubs[RT_MAX_MODS]; /* per module: address of its stub, 0 = none */
static int membarrier_ok;
/*
 * The program's own SIGTRAP action, kept aside while on_trap is installed
 * (sigaction() below).  Read by on_trap in any thread, written by
 * sigaction() under trap_lock: a sequence count, odd while the copy is
 * rewritten; the reader retries until it read one whole version.
 */
static struct sigaction old_trap;
static uint32_t old_trap_seq;
static pthread_mutex_t trap_lock = PTHREAD_MUTEX_INITIALIZER;

static void prog_trap_get(struct sigaction *out)
{
	for (;;) {
		uint32_t s = __atomic_load_n(&old_trap_seq, __ATOMIC_ACQUIRE);

		if (s & 1)
			continue; /* a writer is between its two stores */
		memcpy(out, &old_trap, sizeof(*out));
		/* acquire fence: the copy is read before the re-check */
		ft_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&old_trap_seq, __ATOMIC_RELAXED) == s)
			return;
	}
}

static void prog_trap_set(const struct sigaction *act, struct sigaction *old)
{
	pthread_mutex_lock(&trap_lock);
	if (old)
		*old = old_trap;
	if (act) {
		__atomic_store_n(&old_trap_seq, old_trap_seq + 1, __ATOMIC_RELAXED);
		/* release: the odd count before the copy changes */
		ft_fence(__ATOMIC_RELEASE);
		memcpy(&old_trap, act, sizeof(old_trap));
		__atomic_store_n(&old_trap_seq, old_trap_seq + 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&trap_lock);
}
static int trap_installed;

/*
 * The batch of sites in transition (see the top of the file), as the
 * SIGTRAP handler sees it: written by the rt.lock holder only, read by
 * on_trap() in any thread, lock-free, seqlock-style.  Writer: poke_seq odd
 * (relaxed), release fence, entries and poke_pub (relaxed), poke_seq even
 * (release).  Reader (poke_find): poke_seq (acquire), entries, acquire
 * fence, poke_seq again: equal and even, the read is one batch's.  The
 * int3 of a site is written only while the batch naming it is published,
 * and every int3 of a batch is gone before the batch is withdrawn.
 */
#define POKE_MAX 256
struct poke {
	uint64_t site;
	uint64_t insn; /* the 5 new bytes, little-endian in the low bytes */
};
static struct poke pokes[POKE_MAX];
static uint32_t poke_pub, poke_seq;
/* the writer's private queue: the next batch */
static struct poke poke_q[POKE_MAX];
static struct rt_func *poke_func[POKE_MAX];
/* what a queued poke does to its function's site */
enum poke_kind {
	POKE_UNPATCH = 0,     /* back to the nop */
	POKE_PATCH = 1,	      /* the call to the trampoline */
	POKE_NORMALIZE = 2,   /* RT_SITE_NOPS -> RT_SITE_NOP5 */
	POKE_DENORMALIZE = 3, /* back to RT_SITE_NOPS (a detach, attach.c) */
};
static uint8_t poke_kind[POKE_MAX]; /* enum poke_kind */
static uint32_t poke_nr;

/* Replace the published batch by the first n entries of the queue. */
static void poke_publish(uint32_t n)
{
	__atomic_store_n(&poke_seq, poke_seq + 1, __ATOMIC_RELAXED);
	/* release: the odd count before any entry changes (pairs with the
	 * reader's acquire fence) */
	ft_fence(__ATOMIC_RELEASE);
	for (uint32_t i = 0; i < n; i++) {
		__atomic_store_n(&pokes[i].site, poke_q[i].site, __ATOMIC_RELAXED);
		__atomic_store_n(&pokes[i].insn, poke_q[i].insn, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&poke_pub, n, __ATOMIC_RELAXED);
	/* release: the entries before the even count */
	__atomic_store_n(&poke_seq, poke_seq + 1, __ATOMIC_RELEASE);
}

static void sync_cores(void)
{
	if (membarrier_ok)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
	ft_fence(__ATOMIC_SEQ_CST);
}

/*
 * Read the published batch for addr: 1 when it names addr (*insn set), 0
 * when not, -1 when the table was being rewritten (retry).  *b0 is addr's
 * first byte, read inside the same window: an int3 of ours seen there
 * belongs to the batch read (release fence after publishing in
 * rt_patch_flush, acquire fence here before the re-check).
 */
static int poke_find(uint64_t addr, uint64_t *insn, uint8_t *b0)
{
	uint32_t s1 = __atomic_load_n(&poke_seq, __ATOMIC_ACQUIRE), n;
	int found = 0;

	if (s1 & 1)
		return -1;
	*b0 = __atomic_load_n((const uint8_t *)addr, __ATOMIC_RELAXED);
	n = __atomic_load_n(&poke_pub, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < n && i < POKE_MAX; i++) {
		if (__atomic_load_n(&pokes[i].site, __ATOMIC_RELAXED) == addr) {
			*insn = __atomic_load_n(&pokes[i].insn, __ATOMIC_RELAXED);
			found = 1;
			break;
		}
	}
	/* acquire fence: the reads above happen before the re-check */
	ft_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&poke_seq, __ATOMIC_RELAXED) == s1 ? found : -1;
}

/* addr holds one of the two instructions a site of ours is ever left with. */
static int site_is_ours(uint64_t addr)
{
	const volatile uint8_t *b = (const volatile uint8_t *)addr;
	int32_t rel;
	uint64_t to;

	if (b[0] == 0x0f && b[1] == 0x1f && b[2] == 0x44 && b[3] == 0x00)
		return 1; /* the 5-byte nop */
	if (b[0] != 0xe8)
		return 0;
	rel = (int32_t)((uint32_t)b[1] | (uint32_t)b[2] << 8 | (uint32_t)b[3] << 16 |
			(uint32_t)b[4] << 24);
	to = addr + 5 + (int64_t)rel;
	for (int i = 0; i < RT_MAX_MODS; i++)
		if (__atomic_load_n(&stubs[i], __ATOMIC_RELAXED) == to)
			return 1; /* a call to one of our stubs */
	return 0;
}

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

static int call_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real_sigaction)
		real_sigaction = RT_REAL(sigaction);
	return real_sigaction ? real_sigaction(sig, act, old) : -1;
}

/* The program's SIGTRAP is its default action again (a foreign trap). */
static void trap_default(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	call_sigaction(SIGTRAP, &sa, NULL);
}

/*
 * SIGTRAP: a thread hit the int3 of a site in transition.  Send it where
 * the site's new instruction would: a call pushes the return address and
 * goes to the stub (as the kernel's int3_emulate_call), a nop goes past.
 * When the site holds no int3 any more (the handler ran after the batch
 * was over: signal delivery is not bounded by the serialize), rip goes
 * back to the site's first byte and the final instruction runs
 * (sigreturn is serializing).  Any other SIGTRAP is not ours: handed on
 * as if we were not there.  Async-signal-safe: no lock, bounded.
 */
static void on_trap(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uint64_t site = (uint64_t)uc->uc_mcontext.gregs[REG_RIP] - 1, insn = 0;
	struct sigaction prog;
	uint8_t b0 = 0;
	int r = -1;

	/* an int3 (SI_KERNEL), not a kill(), raise() or single step */
	for (int tries = 0; si->si_code == SI_KERNEL && tries < 100000 && r < 0; tries++) {
		r = poke_find(site, &insn, &b0);
		if (r < 0)
			sched_yield(); /* the writer is between two stores of the table */
	}
	if (r > 0 && b0 == 0xcc) {
		uint8_t b[8];

		memcpy(b, &insn, 8);
		if (b[0] == 0xe8) {
			int32_t rel;
			uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP] - 8;

			memcpy(&rel, b + 1, 4);
			/* as the call would: the return address below the caller's sp */
			*(uint64_t *)sp = site + 5;
			uc->uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(site + 5 + (int64_t)rel);
		} else {
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(site + 5);
		}
		return;
	}
	if (r >= 0 && b0 != 0xcc && (r > 0 || site_is_ours(site))) {
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)site;
		return;
	}
	/* not ours: hand it on as if we were not there */
	prog_trap_get(&prog);
	if (prog.sa_flags & SA_SIGINFO) {
		if (prog.sa_sigaction) {
			prog.sa_sigaction(sig, si, uc_);
			return;
		}
	} else if (prog.sa_handler != SIG_DFL && prog.sa_handler != SIG_IGN) {
		prog.sa_handler(sig);
		return;
	}
	trap_default();
	raise(SIGTRAP);
}

void rt_patch_init(void)
{
	struct sigaction sa;

	if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) ==
	    0)
		membarrier_ok = 1;
	if (!trap_installed) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_trap;
		/*
		 * SA_NODEFER: an int3 hit while SIGTRAP is blocked makes the
		 * kernel reset the action and kill the process (force_sig), so
		 * SIGTRAP must stay open inside on_trap too: another handler
		 * interrupting it may call a function whose site is in
		 * transition.
		 */
		sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		if (!call_sigaction(SIGTRAP, &sa, &old_trap))
			trap_installed = 1;
	}
}

/*
 * Detach (attach.c): every site is back to its nop and the batch is over,
 * so no int3 of ours is left to hit: the program's own SIGTRAP action goes
 * back in place.  Caller holds rt.lock; the program's other threads are
 * stopped, so no trap of ours is pending in them.
 */
void rt_patch_fini(void)
{
	struct sigaction prog;

	if (!trap_installed)
		return;
	prog_trap_get(&prog);
	if (!call_sigaction(SIGTRAP, &prog, NULL))
		trap_installed = 0;
}

/* A page within rel32 reach of m holding the absolute jump to ft_rt_patched. */
static uint64_t get_stub(struct rt_module *m)
{
	int idx = (int)(m - rt.mods);
	uint64_t base;

	if (stubs[idx])
		return stubs[idx];
	/* below the module first, then above; 1 MiB steps within 1 GiB */
	for (int dir = 0; dir < 2; dir++) {
		for (uint64_t step = 1; step < 1024; step++) {
			void *p;

			base = dir == 0 ? (m->start & ~0xfffull) - step * (1ull << 20)
					: ((m->end + 0xfff) & ~0xfffull) + step * (1ull << 20);
			p = mmap((void *)base, 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if ((uint64_t)p != base) {
				munmap(p, 4096);
				continue;
			}
			uint8_t *c = p;
			uint64_t target = (uint64_t)ft_rt_patched;

			c[0] = 0xff; /* jmp *0(%rip) */
			c[1] = 0x25;
			memset(c + 2, 0, 4);
			memcpy(c + 6, &target, 8);
			if (mprotect(p, 4096, PROT_READ | PROT_EXEC)) {
				munmap(p, 4096);
				return 0;
			}
			/* on_trap reads stubs[] (site_is_ours): relaxed atomics */
			__atomic_store_n(&stubs[idx], base, __ATOMIC_RELAXED);
			return base;
		}
	}
	return 0;
}

/* Module mod_idx was dlclose()d: its stub page goes too. Caller holds rt.lock. */
void rt_patch_forget(int mod_idx)
{
	if (mod_idx < 0 || mod_idx >= RT_MAX_MODS || !stubs[mod_idx])
		return;
	munmap((void *)stubs[mod_idx], 4096);
	__atomic_store_n(&stubs[mod_idx], 0, __ATOMIC_RELAXED);
}

/*
 * Write the queued batch with the protocol at the top of the file, then
 * record each site's new state in its rt_func.  Sites whose page cannot be
 * made writable are left as they are.  Caller holds rt.lock, inside the
 * module memory guard.
 */
void rt_patch_flush(void)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	uint64_t wlo = 0, whi = 0; /* the pages last made writable */
	uint32_t n = 0;

	if (!poke_nr)
		return;
	/* pages first: a site whose page stays read-only leaves the batch */
	for (uint32_t i = 0; i < poke_nr; i++) {
		uint64_t site = poke_q[i].site;
		uint64_t lo = site & ~0xfffull, hi = (site + 5 + 0xfff) & ~0xfffull;

		if (lo < wlo || hi > whi) {
			if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC))
				continue;
			wlo = lo;
			whi = hi;
		}
		poke_q[n] = poke_q[i];
		poke_func[n] = poke_func[i];
		poke_kind[n] = poke_kind[i];
		n++;
	}
	/* 0: publish, then (release fence) the int3s: see poke_find */
	poke_publish(n);
	ft_fence(__ATOMIC_RELEASE);
	for (int phase = 1; phase <= 3; phase++) {
		for (uint32_t i = 0; i < n; i++) {
			uint8_t *b = (uint8_t *)poke_q[i].site, want[8];

			memcpy(want, &poke_q[i].insn, 8);
			if (phase == 1)
				__atomic_store_n(&b[0], 0xcc, __ATOMIC_RELAXED);
			else if (phase == 2)
				for (int k = 1; k < 5; k++)
					__atomic_store_n(&b[k], want[k], __ATOMIC_RELAXED);
			else
				__atomic_store_n(&b[0], want[0], __ATOMIC_RELAXED);
		}
		sync_cores();
	}
	/* 4: withdraw the batch, every final byte written (sync_cores' fence) */
	poke_publish(0);
	wlo = whi = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct rt_func *f = poke_func[i];
		uint64_t site = poke_q[i].site;
		uint64_t lo = site & ~0xfffull, hi = (site + 5 + 0xfff) & ~0xfffull;

		if (lo < wlo || hi > whi) {
			mprotect((void *)lo, hi - lo, PROT_READ | PROT_EXEC);
			wlo = lo;
			whi = hi;
		}
		if (poke_kind[i] == POKE_NORMALIZE) {
			f->site_kind = RT_SITE_NOP5;
			f->site_b4 = nop5[4];
			f->site_nops = 1;
		} else if (poke_kind[i] == POKE_DENORMALIZE) {
			f->site_kind = RT_SITE_NOPS;
			f->site_nops = 0;
		} else {
			f->patched = poke_kind[i] == POKE_PATCH;
		}
	}
	poke_nr = 0;
}

/* Add f's site to the batch: it is to hold insn.  kind: see poke_kind. */
static void poke_queue(struct rt_func *f, const uint8_t insn[5], enum poke_kind kind)
{
	uint64_t v = 0;

	if (poke_nr == POKE_MAX)
		rt_patch_flush();
	memcpy(&v, insn, 5);
	poke_q[poke_nr].site = f->site;
	poke_q[poke_nr].insn = v;
	poke_func[poke_nr] = f;
	poke_kind[poke_nr] = (uint8_t)kind;
	poke_nr++;
}

/*
 * gcc's -fpatchable-function-entry=5 sites are five 1-byte nops
 * (RT_SITE_NOPS), which can never be re-patched safely while threads run
 * (see the top of the file).  Turn every one of m into a single 5-byte nop
 * (RT_SITE_NOP5) as soon as its sites are known: from the constructor, before the
 * program runs, or right after dlopen(), before the library's code has
 * been handed to the program -- with the int3 protocol, in one batch, in
 * case some thread does run there meanwhile.  Sites whose bytes are not
 * the nops are dropped (RT_SITE_NONE).  Caller holds rt.lock, inside the
 * module memory guard.
 */
void rt_patch_normalize(struct rt_module *m)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	if (!membarrier_ok)
		return; /* see rt_patch_site */
	for (uint32_t i = 0; i < m->nr_funcs; i++) {
		struct rt_func *f = &m->funcs[i];

		if (f->site_kind != RT_SITE_NOPS || f->patched)
			continue;
		if (memcmp((const void *)f->site, "\x90\x90\x90\x90\x90", 5)) {
			f->site_kind = RT_SITE_NONE;
			continue;
		}
		poke_queue(f, nop5, POKE_NORMALIZE);
	}
	rt_patch_flush();
}

/*
 * Detach (attach.c): queue f's site, a normalised RT_SITE_NOPS, back to
 * the compiler's five 1-byte nops, so the program's text is as it was
 * (rt_patch_flush writes the batch, with the same protocol; the program's
 * other threads are stopped, so none is between two of those nops when it
 * runs again).  An attach normalises it again.  Caller holds rt.lock,
 * inside the module memory guard, the site unpatched.
 */
void rt_patch_denormalize(struct rt_func *f)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

	if (membarrier_ok && f->site_kind == RT_SITE_NOP5 && f->site_nops && !f->patched &&
	    !memcmp((const void *)f->site, nop5, 5))
		poke_queue(f, (const uint8_t *)"\x90\x90\x90\x90\x90", POKE_DENORMALIZE);
}

/* The 5 bytes of f's site as compiled. */
static void site_nop(const struct rt_func *f, uint8_t b[5])
{
	if (f->site_kind == RT_SITE_NOP5) {
		memcpy(b, "\x0f\x1f\x44\x00", 4);
		b[4] = f->site_b4; /* clang's variant differs in byte 4 */
	} else {
		memset(b, 0x90, 5);
	}
}

/* The 5 bytes of f's site calling stub. 0, or -1 when the stub is out of reach. */
static int site_call(const struct rt_func *f, uint64_t stub, uint8_t b[5])
{
	int64_t rel = (int64_t)stub - (int64_t)(f->site + 5);
	int32_t r32 = (int32_t)rel;

	if (!stub || rel != r32)
		return -1;
	b[0] = 0xe8;
	memcpy(b + 1, &r32, 4);
	return 0;
}

/*
 * Queue the change of f's site into "call stub" (on) or back into its nop
 * (off); rt_patch_flush() writes the batch (f->patched follows then).
 * Returns 0, or -1 (no stub reachable, the module is gone, no way to
 * serialize the other cores, or the site holds neither the nop nor our
 * call: then it is left alone for good -- whatever is there now is not
 * ours to overwrite).  Caller holds rt.lock and is inside the module
 * memory guard (rt_modmem_enter) until the flush.
 */
int rt_patch_site(struct rt_func *f, int on)
{
	struct rt_module *m = &rt.mods[f->mod];
	int idx = (int)(m - rt.mods);
	uint8_t want[5], from[5], cur[5];
	uint64_t p = f->site;

	if (f->site_kind == RT_SITE_NONE || m->gone || p < m->start || p + 5 > m->end)
		return -1;
	/*
	 * Without SYNC_CORE (kernels before 4.16) nothing makes other cores
	 * drop what they fetched: no live patching at all.
	 */
	if (!membarrier_ok || f->site_kind != RT_SITE_NOP5)
		return -1;
	if (on) {
		if (site_call(f, get_stub(m), want))
			return -1;
		site_nop(f, from);
	} else {
		site_nop(f, want);
		if (site_call(f, stubs[idx], from))
			memcpy(from, want, 5); /* no stub: the site cannot be ours */
	}
	memcpy(cur, (void *)p, 5);
	if (!memcmp(cur, want, 5)) {
		f->patched = (uint8_t)on;
		return 0;
	}
	if (memcmp(cur, from, 5)) {
		f->site_kind = RT_SITE_NONE; /* not the code we classified: never again */
		f->patched = 0;
		return -1;
	}
	poke_queue(f, want, on ? POKE_PATCH : POKE_UNPATCH);
	return 0;
}

/*
 * The int3 protocol needs SIGTRAP delivered to on_trap in every thread at
 * every moment: an int3 hit while SIGTRAP is blocked or while another
 * handler owns it kills the process.  So, once on_trap is installed, the
 * program's SIGTRAP handler is kept aside (on_trap hands it every trap
 * that is not ours, and sigaction reports it as the current one), and
 * SIGTRAP is left out of the masks the program blocks.  Only the
 * program's sigaction/signal (signal.c, through rt_patch_sigaction) and
 * the mask functions below are interposed: signal sets made by glibc
 * internally (e.g. around clone) never run traced code.
 */
int rt_patch_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction copy;

	if (sig == SIGTRAP && trap_installed) {
		prog_trap_set(act, old);
		return 0;
	}
	if (act && trap_installed && sigismember(&act->sa_mask, SIGTRAP)) {
		copy = *act;
		sigdelset(&copy.sa_mask, SIGTRAP);
		act = &copy;
	}
	return call_sigaction(sig, act, old);
}

/* set, without SIGTRAP when the program would block it. */
static const sigset_t *keep_trap_open(int how, const sigset_t *set, sigset_t *copy)
{
	if (!set || !trap_installed || how == SIG_UNBLOCK || !sigismember(set, SIGTRAP))
		return set;
	*copy = *set;
	sigdelset(copy, SIGTRAP);
	return copy;
}

__attribute__((visibility("default"))) int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	static int (*real)(int, const sigset_t *, sigset_t *);
	sigset_t copy;

	if (!real)
		real = RT_REAL(sigprocmask);
	return real(how, keep_trap_open(how, set, &copy), old);
}

__attribute__((visibility("default"))) int pthread_sigmask(int how, const sigset_t *set,
							   sigset_t *old)
{
	static int (*real)(int, const sigset_t *, sigset_t *);
	sigset_t copy;

	if (!real)
		real = RT_REAL(pthread_sigmask);
	return real(how, keep_trap_open(how, set, &copy), old);
}
