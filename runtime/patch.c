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
 * Safety while other threads run (how a site changes between the two
 * 5-byte sequences):
 *  - A single 5-byte nop (0f 1f 44 00 00) whose 8-byte aligned word holds
 *    all 5 bytes: one atomic 8-byte compare-and-swap of that word (the 3
 *    other bytes are rewritten with their own value).  No thread can be in
 *    the middle of a single instruction, and an aligned 8-byte store is
 *    atomic, so an executing thread fetches either the old nop or the new
 *    call, never a mix.
 *  - Otherwise (the nop straddles an 8-byte boundary, or the site is a run
 *    of five 1-byte nops): the kernel's text_poke_bp protocol.  Write int3
 *    on the first byte, serialise every core (membarrier SYNC_CORE), write
 *    bytes 1..4, serialise, write the first byte, serialise.  A thread that
 *    hits the int3 meanwhile gets SIGTRAP; our handler moves it past the
 *    5-byte site (the call is simply not taken that once, so entry and exit
 *    stay paired).  A run of 1-byte nops is not re-patched while threads
 *    run: a thread preempted between two of those nops would resume inside
 *    the new call.  rt_patch_normalize turns each run into one 5-byte nop
 *    when the module's sites are read (constructor, or right after dlopen,
 *    before the program runs the library's code).
 *  Text pages are made writable with PROT_READ|PROT_WRITE|PROT_EXEC (never
 *  without EXEC, so other threads keep running in them) for the time of the
 *  write, then put back to PROT_READ|PROT_EXEC.
 */
#include <errno.h>
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
static volatile uint64_t poking_site; /* site in an int3 transition, 0 = none */
static volatile uint64_t batch_lo, batch_hi; /* rt_patch_normalize's range, 0 = none */
static struct sigaction old_trap;
static int trap_installed;

static void sync_cores(void)
{
	if (membarrier_ok)
		syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
	rt_fence(__ATOMIC_SEQ_CST);
}

/* SIGTRAP: a thread hit the int3 of a site in transition: skip the site. */
static void on_trap(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uint64_t ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t site = __atomic_load_n(&poking_site, __ATOMIC_ACQUIRE);

	if (site && ip - 1 == site) {
		uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(site + 5);
		return;
	}
	/* a site of rt_patch_normalize's batch: int3 then 4 more nop bytes
	 * (the old 90 90 90 90 or the new 1f 44 00 00) */
	if (ip - 1 >= __atomic_load_n(&batch_lo, __ATOMIC_ACQUIRE) && ip - 1 < batch_hi) {
		const uint8_t *b = (const uint8_t *)ip;

		if (!memcmp(b, "\x90\x90\x90\x90", 4) || !memcmp(b, "\x1f\x44\x00\x00", 4)) {
			uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(ip - 1 + 5);
			return;
		}
	}
	/* not ours: hand it on as if we were not there */
	if (old_trap.sa_flags & SA_SIGINFO) {
		if (old_trap.sa_sigaction) {
			old_trap.sa_sigaction(sig, si, uc_);
			return;
		}
	} else if (old_trap.sa_handler != SIG_DFL && old_trap.sa_handler != SIG_IGN) {
		old_trap.sa_handler(sig);
		return;
	}
	signal(SIGTRAP, SIG_DFL);
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
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (!sigaction(SIGTRAP, &sa, &old_trap))
			trap_installed = 1;
	}
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

			base = dir == 0 ? (m->start & ~0xfffull) - step * (1ull << 20) :
					  ((m->end + 0xfff) & ~0xfffull) + step * (1ull << 20);
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
			stubs[idx] = base;
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
	stubs[mod_idx] = 0;
}

/*
 * gcc's -fpatchable-function-entry=5 sites are five 1-byte nops (site_kind
 * 2): a thread preempted between two of them would resume inside a call
 * written there meanwhile, so such a site can never be re-patched safely
 * while threads run.  Turn every one of m into a single 5-byte nop
 * (site_kind 1, which is patched atomically) as soon as its sites are
 * known: from the constructor, before the program runs, or right after
 * dlopen(), before the library's code has been handed to the program.  In
 * case some thread does run there meanwhile, the change itself follows
 * the int3 protocol above, for all sites at once (three core
 * serialisations per module); the residual window is the one of the
 * comment at the top, once per module instead of at every filter change.
 * Sites whose bytes are not the nops are dropped (site_kind 0).  Caller
 * holds rt.lock, inside the module memory guard.
 */
void rt_patch_normalize(struct rt_module *m)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	uint64_t lo = UINT64_MAX, hi = 0, a;
	uint32_t n = 0;

	for (uint32_t i = 0; i < m->nr_funcs; i++) {
		struct rt_func *f = &m->funcs[i];

		if (f->site_kind != 2)
			continue;
		if (f->patched || memcmp((const void *)f->site, "\x90\x90\x90\x90\x90", 5)) {
			if (!f->patched)
				f->site_kind = 0;
			continue;
		}
		if (f->site < lo)
			lo = f->site;
		if (f->site + 5 > hi)
			hi = f->site + 5;
		n++;
	}
	if (!n)
		return;
	a = lo & ~0xfffull;
	if (mprotect((void *)a, ((hi + 0xfff) & ~0xfffull) - a,
		     PROT_READ | PROT_WRITE | PROT_EXEC))
		return; /* they stay 1-byte nops: patched with the int3 protocol */
	__atomic_store_n(&batch_hi, hi, __ATOMIC_RELAXED);
	/* release: batch_hi before the handler can see batch_lo */
	__atomic_store_n(&batch_lo, lo, __ATOMIC_RELEASE);
	for (int phase = 0; phase < 3; phase++) {
		for (uint32_t i = 0; i < m->nr_funcs; i++) {
			struct rt_func *f = &m->funcs[i];
			volatile uint8_t *b = (volatile uint8_t *)f->site;

			if (f->site_kind != 2 || f->patched)
				continue;
			if (phase == 0) {
				b[0] = 0xcc;
			} else if (phase == 1) {
				for (int k = 1; k < 5; k++)
					b[k] = nop5[k];
			} else {
				b[0] = nop5[0];
				f->site_kind = 1;
				f->site_b4 = nop5[4];
			}
		}
		sync_cores();
	}
	__atomic_store_n(&batch_lo, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&batch_hi, 0, __ATOMIC_RELAXED);
	mprotect((void *)a, ((hi + 0xfff) & ~0xfffull) - a, PROT_READ | PROT_EXEC);
}

static int make_writable(uint64_t addr, int on)
{
	uint64_t a = addr & ~0xfffull;
	size_t len = ((addr + 8 + 0xfff) & ~0xfffull) - a;

	return mprotect((void *)a, len,
			on ? PROT_READ | PROT_WRITE | PROT_EXEC : PROT_READ | PROT_EXEC);
}

/* The 5 bytes of f's site as compiled. */
static void site_nop(const struct rt_func *f, uint8_t b[5])
{
	if (f->site_kind == 1) {
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
 * Turn f's site into "call stub" (on) or back into its nop (off).  Returns
 * 0, or -1 (no stub reachable, mprotect refused, the module is gone, or the
 * site holds neither the nop nor our call: then it is left alone for good
 * -- whatever is there now is not ours to overwrite).  Caller holds
 * rt.lock and is inside the module memory guard (rt_modmem_enter).
 */
int rt_patch_site(struct rt_func *f, int on)
{
	struct rt_module *m = &rt.mods[f->mod];
	int idx = (int)(m - rt.mods);
	uint8_t want[5], from[5], cur[5];
	uint64_t p = f->site;

	if (!f->site_kind || m->gone || p < m->start || p + 5 > m->end)
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
		f->site_kind = 0; /* not the code we classified: never again */
		f->patched = 0;
		return -1;
	}
	if (make_writable(p, 1))
		return -1;
	if (f->site_kind == 1 && (p & 7) <= 3) {
		/* the whole nop/call is inside one aligned word: one atomic CAS */
		uint64_t *w = (uint64_t *)(p & ~7ull), old = __atomic_load_n(w, __ATOMIC_RELAXED), nw;
		unsigned int sh = (unsigned int)(p & 7);

		do {
			nw = old;
			memcpy((uint8_t *)&nw + sh, want, 5);
		} while (!__atomic_compare_exchange_n(w, &old, nw, 0, __ATOMIC_SEQ_CST,
						      __ATOMIC_RELAXED));
	} else {
		volatile uint8_t *b = (volatile uint8_t *)p;

		__atomic_store_n(&poking_site, p, __ATOMIC_RELEASE);
		b[0] = 0xcc;
		sync_cores();
		for (int i = 1; i < 5; i++)
			b[i] = want[i];
		sync_cores();
		b[0] = want[0];
		sync_cores();
		__atomic_store_n(&poking_site, 0, __ATOMIC_RELEASE);
	}
	make_writable(p, 0);
	f->patched = (uint8_t)on;
	return 0;
}
