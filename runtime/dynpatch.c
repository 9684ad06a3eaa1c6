// SPDX-License-Identifier: GPL-2.0
/*
 * Dynamic patching (record --patch GLOB, or -l / -g on a program with no
 * instrumentation and no --patch: by_filter()): functions built without any
 * instrumentation get a hook at their entry all the same.  Their first
 * instructions -- whole ones, at least 5 bytes -- are decoded with
 * capstone, copied into a trampoline slot near the object with their
 * relative operands fixed up, and replaced by a 5-byte "jmp slot":
 *
 *   func:  jmp slot                  slot+0:  call *hook(%rip)
 *          int3 ...  (rest of the          ->  ft_rt_dyn_entry
 *                    moved bytes)              (arch/x86_64/patch_tramp.S),
 *   func+len: ...                              key = slot+6
 *                                    slot+6:  the moved instructions,
 *                                             relocated
 *                                             jmp func+len
 *                                    slot+56: .quad ft_rt_dyn_entry
 *
 * At ft_rt_dyn_entry, (%rsp) is slot+6 (the hash key of the function's
 * rt_func, inserted here) and 8(%rsp) the caller's return-address slot:
 * what a patched nop site (patch.c) or a library-call stub (plt.c) gives
 * ft_rt_patched, so hooks.c's C hooks -- every tracer, filter, the return
 * hijack -- apply unchanged; nothing of hooks.c or tramp.S is edited.
 * patch_tramp.S says why it has trampolines of its own (a caller may rely
 * on registers the ABI lets a call clobber: gcc's -fipa-ra).
 *
 * Why capstone, and in the runtime: x86 instruction lengths and operand
 * layouts are what a hand-written decoder gets wrong; capstone (Debian's
 * libcapstone4, the decoder uftrace uses for the same job) gives each
 * instruction's length, operands and the offset of its displacement.  It
 * runs here, inside the traced process, because the relocation depends on
 * where the slot lands (the object's load address, the pages free near
 * it), which only the process knows; shipping a plan from the recorder
 * would need all of it anyway.  It is dlopen()ed on first use, so programs
 * recorded without --patch never load it.
 *
 * Relocation (relocate()): a rip-relative memory operand gets its disp32
 * moved by the distance the instruction moved; call rel32 / jmp rel8|32 /
 * jcc rel8|32 become their rel32 forms towards the same target; a call
 * (always the last instruction moved) pushes the original return address
 * by hand, so its callee returns into the function itself.  Refused, with a reason:
 * functions shorter than 5 bytes, entries whose first instructions run
 * past the function's end, jrcxz / loop / xbegin (no rel32 form), an
 * operand out of rel32 reach from the slot, bytes capstone cannot decode
 * anywhere in the function, any relative jump or call of the function
 * whose target lies inside the overwritten bytes (scan_targets(): a jump
 * there would land in the middle of the new jmp), and a direct tail call
 * into a function of the same object with a compiled-in hook (tail_call()).
 *
 * Library calls: once functions of an object are patched, its PLT imports
 * are hooked too (plt.c: rt_plt_hook), as an instrumented object's are, so
 * the calls a patched function makes into libc nest under it; tail calls
 * through the PLT are taken as tail_call() says.  Only objects with
 * patched functions: one merely loaded keeps its GOT.
 *
 * When the text is written, and why that is safe: the 5 bytes replace
 * several instructions, so no protocol of single atomic stores (patch.c's
 * int3 one included) can make it safe for a thread that is stopped or
 * preempted between two of them.  Patching therefore happens only while
 * no other thread can run:
 *   - record -- PROG: in the runtime's constructor, before main(); a
 *     program that started threads by then (another preloaded library's
 *     constructor) is checked as below, and its running threads make
 *     every function refused;
 *   - record -P PID: inside ftrail_attach, every other thread stopped by
 *     ptrace (recorder/inject.c).  Their user pc is read from
 *     /proc/self/task/TID/syscall (last field), the pc of the thread the
 *     call borrowed comes from the recorder (ftrail_attach's caller_pc):
 *     a function whose overwritten bytes hold one of them, past its first
 *     byte, is refused ("a thread is stopped inside its first bytes").
 *     Any other thread not in a ptrace stop (the call took long and the
 *     recorder let them run) refuses everything.
 * A later dlopen()ed object's functions are not patched (its code may be
 * running in another thread by the time we would see it); filters changed
 * while recording only decide which patched functions record, as for
 * every other hook.  Unpatching happens only at ftrail_detach (threads
 * stopped again): the original bytes go back exactly; a thread inside a
 * slot at that moment runs on through it and jumps back, since slots stay
 * mapped for the life of the process.  When the recorder dies, or after a
 * record -- PROG ends with the program running on, the jumps stay (threads
 * run): the hooks behind them do nothing once detached.
 *
 * Caller holds rt.lock for every entry point.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/membarrier.h>

#include <capstone/capstone.h>

#include "core/glob.h"
#include "runtime/rt.h"

#define DP_SLOT 64	       /* bytes per trampoline slot */
#define DP_HOOK_OFF 56	       /* the hook's address in the slot */
#define DP_CODE_OFF 6	       /* after call *hook(%rip): the key */
#define DP_CODE_MAX 40	       /* relocated bytes, then jmp rel32 back (5) */
#define DP_POOL (256u << 10)   /* slot pool per object: 4096 slots */
#define DP_MAX_SITES 16384     /* functions patched, all objects */
#define DP_MAX_MOVED 15	       /* bytes overwritten: whole instructions, >= 5 */
#define DP_MAX_PCS 1024	       /* stopped threads' pcs checked */
#define DP_REACH (1ull << 30)  /* pool within 1 GiB of the object */
#define DP_MAX_REFUSED_SAID 64 /* refusal lines sent to the recorder per start */

/* One patched (or once patched) function. */
struct dp_site {
	struct rt_func *f;
	uint64_t slot;		    /* its trampoline slot */
	uint8_t orig[DP_MAX_MOVED]; /* the bytes the jmp overwrote */
	uint8_t len;		    /* how many */
	uint8_t on;		    /* the jmp is in place */
};

/* A slot pool near one object. */
struct dp_pool {
	uint64_t base, used;
};

/* What capstone gives us, through dlsym (see the top). */
static struct {
	int tried, ok;
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_err (*option)(csh, cs_opt_type, size_t);
	cs_insn *(*malloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
	csh h;
	cs_insn *insn;
} cs;

static struct dp_site *sites; /* DP_MAX_SITES, mapped on first use */
static uint32_t nr_sites;
static struct dp_pool pools[RT_MAX_MODS];
static uint64_t held_pc; /* the borrowed thread's pc (attach), 0 when none */

/* Load capstone and open an x86-64 handle with details.  0, or -1. */
static int cs_load(void)
{
	void *lib;

	if (cs.tried)
		return cs.ok ? 0 : -1;
	cs.tried = 1;
	lib = dlopen("libcapstone.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return -1;
	cs.open = (__typeof__(cs.open))dlsym(lib, "cs_open");
	cs.option = (__typeof__(cs.option))dlsym(lib, "cs_option");
	cs.malloc = (__typeof__(cs.malloc))dlsym(lib, "cs_malloc");
	cs.disasm_iter = (__typeof__(cs.disasm_iter))dlsym(lib, "cs_disasm_iter");
	cs.free = (__typeof__(cs.free))dlsym(lib, "cs_free");
	cs.close = (__typeof__(cs.close))dlsym(lib, "cs_close");
	if (!cs.open || !cs.option || !cs.malloc || !cs.disasm_iter || !cs.free || !cs.close)
		return -1;
	if (cs.open(CS_ARCH_X86, CS_MODE_64, &cs.h) != CS_ERR_OK)
		return -1;
	if (cs.option(cs.h, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
		cs.close(&cs.h);
		return -1;
	}
	cs.insn = cs.malloc(cs.h);
	if (!cs.insn) {
		cs.close(&cs.h);
		return -1;
	}
	cs.ok = 1;
	return 0;
}

void rt_dynpatch_hold_pc(uint64_t pc)
{
	held_pc = pc;
}

/* ---- instruction classes ---- */

enum br_kind {
	BR_NONE = 0, /* no relative branch */
	BR_CALL,     /* call rel32 */
	BR_JMP,	     /* jmp rel8 / rel32 */
	BR_JCC,	     /* jcc rel8 / rel32 */
	BR_OTHER,    /* jrcxz, loop*, xbegin: relative, no rel32 form to move to */
};

/* Is the current instruction a relative branch, of which kind, to where? */
static enum br_kind branch_of(const cs_insn *in, uint64_t *target, int *cc)
{
	const cs_x86 *x = &in->detail->x86;
	const uint8_t *b = in->bytes;
	int n = in->size;

	if (x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
		return BR_NONE;
	*target = (uint64_t)x->operands[0].imm;
	switch (in->id) {
	case X86_INS_CALL:
		return BR_CALL;
	case X86_INS_JMP:
		return BR_JMP;
	case X86_INS_JCXZ:
	case X86_INS_JECXZ:
	case X86_INS_JRCXZ:
	case X86_INS_LOOP:
	case X86_INS_LOOPE:
	case X86_INS_LOOPNE:
	case X86_INS_XBEGIN:
		return BR_OTHER;
	default:
		break;
	}
	/* jcc: 7x rel8 or 0f 8x rel32 (after any prefix) */
	if (n >= 2 && (b[n - 2] & 0xf0) == 0x70) {
		*cc = b[n - 2] & 0x0f;
		return BR_JCC;
	}
	if (n >= 6 && b[n - 6] == 0x0f && (b[n - 5] & 0xf0) == 0x80) {
		*cc = b[n - 5] & 0x0f;
		return BR_JCC;
	}
	/* anything else with an immediate in a jump or call group: not movable */
	for (int i = 0; i < in->detail->groups_count; i++)
		if (in->detail->groups[i] == CS_GRP_JUMP || in->detail->groups[i] == CS_GRP_CALL)
			return BR_OTHER;
	return BR_NONE;
}

static int fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static void put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

/*
 * Relocate the first instructions of f (at least 5 bytes, whole ones) into
 * code[] as they will run at slot + DP_CODE_OFF.  *moved: bytes taken
 * from f, *code_len: bytes of code.  NULL, or the reason they cannot move.
 */
static const char *relocate(const struct rt_func *f, uint64_t slot, uint8_t *code,
			    uint32_t *code_len, uint32_t *moved)
{
	uint64_t at = slot + DP_CODE_OFF, pc = f->addr;
	const uint8_t *p = (const uint8_t *)f->addr;
	size_t left = f->size;
	uint32_t n = 0;

	while (pc - f->addr < 5) {
		const cs_insn *in = cs.insn;
		uint64_t ip = pc, target = 0;
		int cc = 0;

		if (!cs.disasm_iter(cs.h, &p, &left, &pc, cs.insn))
			return left ? "its first instructions cannot be decoded"
				    : "its first instructions run past its end";
		switch (branch_of(in, &target, &cc)) {
		case BR_CALL:
			/*
			 * A call rel32 is 5 bytes, so it is always the last
			 * instruction moved: its return address, pushed by
			 * hand, is the original one (func + moved), so the
			 * callee returns straight into the function -- its
			 * caller is the function for the tracers and the
			 * unwinders, not the slot.  lea and mov leave the
			 * flags alone: "lea -8(%rsp),%rsp; movl $lo,(%rsp);
			 * movl $hi,4(%rsp); jmp target".
			 */
			if (pc - f->addr >= 5) {
				uint64_t back = pc;
				int64_t rel = (int64_t)(target - (at + n + 25));
				static const uint8_t lea[5] = { 0x48, 0x8d, 0x64, 0x24, 0xf8 };

				if (n + 25 > DP_CODE_MAX || !fits32(rel))
					return "a call in its first bytes is out of reach";
				memcpy(code + n, lea, 5);
				code[n + 5] = 0xc7; /* movl $imm32, (%rsp) */
				code[n + 6] = 0x04;
				code[n + 7] = 0x24;
				put32(code + n + 8, (int32_t)(uint32_t)back);
				code[n + 12] = 0xc7; /* movl $imm32, 4(%rsp) */
				code[n + 13] = 0x44;
				code[n + 14] = 0x24;
				code[n + 15] = 0x04;
				put32(code + n + 16, (int32_t)(uint32_t)(back >> 32));
				code[n + 20] = 0xe9;
				put32(code + n + 21, (int32_t)rel);
				n += 25;
				continue;
			}
			/* fallthrough */
		case BR_JMP: {
			int64_t rel = (int64_t)(target - (at + n + 5));

			if (n + 5 > DP_CODE_MAX || !fits32(rel))
				return "a call or jump in its first bytes is out of reach";
			code[n] = in->id == X86_INS_CALL ? 0xe8 : 0xe9;
			put32(code + n + 1, (int32_t)rel);
			n += 5;
			continue;
		}
		case BR_JCC: {
			int64_t rel = (int64_t)(target - (at + n + 6));

			if (n + 6 > DP_CODE_MAX || !fits32(rel))
				return "a conditional jump in its first bytes is out of reach";
			code[n] = 0x0f;
			code[n + 1] = (uint8_t)(0x80 | cc);
			put32(code + n + 2, (int32_t)rel);
			n += 6;
			continue;
		}
		case BR_OTHER:
			return "a jrcxz, loop or xbegin in its first bytes (no rel32 form)";
		case BR_NONE:
			break;
		}
		if (n + in->size > DP_CODE_MAX)
			return "its first instructions are too long to move";
		memcpy(code + n, in->bytes, in->size);
		for (int i = 0; i < in->detail->x86.op_count; i++) {
			const cs_x86_op *op = &in->detail->x86.operands[i];
			uint8_t off = in->detail->x86.encoding.disp_offset;
			int64_t disp;

			if (op->type != X86_OP_MEM || op->mem.base != X86_REG_RIP)
				continue;
			if (!off || in->detail->x86.encoding.disp_size != 4)
				return "a rip-relative operand without a 32-bit displacement";
			/* same target from the new place: disp + old next ip - new next ip */
			disp = op->mem.disp + (int64_t)(ip + in->size) -
			       (int64_t)(at + n + in->size);
			if (!fits32(disp))
				return "a rip-relative operand is out of reach of the trampoline";
			put32(code + n + off, (int32_t)disp);
		}
		n += in->size;
	}
	*moved = (uint32_t)(pc - f->addr);
	if (*moved > DP_MAX_MOVED)
		return "its first instructions are too long to move";
	/* back after the moved bytes */
	{
		int64_t rel = (int64_t)(f->addr + *moved - (at + n + 5));

		if (!fits32(rel))
			return "the function is out of reach of the trampoline";
		code[n] = 0xe9;
		put32(code + n + 1, (int32_t)rel);
		n += 5;
	}
	*code_len = n;
	return NULL;
}

/*
 * A tail call (a jump out of f) whose callee's hook finds f's hijacked
 * return (ft_rt_dyn_return) in the slot: hooks.c takes either return
 * trampoline there for a tail call and keeps both frames; the callee
 * returns into its own trampoline, which pops its frame and goes on to
 * ft_rt_dyn_return, which pops f's.  When the callee's hook is tramp.S's
 * (a compiled-in hook, a library call through the hooked PLT, plt.c),
 * that return keeps only the return registers before ft_rt_dyn_return
 * saves the rest, so f's callers must not count on more: true of a jump
 * through the PLT, the GOT or a pointer (resolved at run time, or
 * interposable: no compiler knows which registers the callee keeps, so
 * f's callers assume the ABI's clobbers), not of a direct jump to a
 * function of f's object with a compiled-in hook (gcc's -fipa-ra may have
 * shrunk f's clobbers to that callee's body, a patchable entry's hook
 * unseen): refused.  A callee of f's object without one is fine (patched
 * or not, its hook is patch_tramp.S's, which keeps every register).
 * NULL, or the reason.
 */
static const char *tail_call(struct rt_module *m, const struct rt_func *f, uint64_t target,
			     char *why, size_t wl)
{
	const struct rt_func *g = rt_func_in(m, target);

	if (g && g->addr == target && g->site_kind != RT_SITE_NONE) {
		snprintf(why, wl, "it tail-calls %s, which has a compiled-in hook", g->name);
		return why;
	}
	return NULL;
}

/*
 * Decode the whole function: NULL when no relative jump or call of it
 * lands strictly inside [addr, addr + moved) and no tail call would break
 * the return hijack (tail_call()), else the reason.  Jump tables
 * (indirect jumps through a register) cannot be followed; a compiler
 * never points one into a function's first instructions, which set up its
 * frame.
 */
static const char *scan_targets(struct rt_module *m, const struct rt_func *f, uint32_t moved,
				char *why, size_t wl)
{
	const uint8_t *p = (const uint8_t *)f->addr;
	uint64_t pc = f->addr;
	size_t left = f->size;

	while (left) {
		uint64_t target = 0;
		enum br_kind k;
		const char *r;
		int cc = 0;

		if (!cs.disasm_iter(cs.h, &p, &left, &pc, cs.insn)) {
			snprintf(why, wl, "bytes at +%llu cannot be decoded",
				 (unsigned long long)(pc - f->addr));
			return why;
		}
		k = branch_of(cs.insn, &target, &cc);
		if (k != BR_NONE && target > f->addr && target < f->addr + moved) {
			snprintf(why, wl,
				 "the jump at +%llu lands at +%llu, inside the %u bytes a patch "
				 "overwrites",
				 (unsigned long long)(cs.insn->address - f->addr),
				 (unsigned long long)(target - f->addr), moved);
			return why;
		}
		if ((k == BR_JMP || k == BR_JCC) &&
		    (target < f->addr || target >= f->addr + f->size) &&
		    (r = tail_call(m, f, target, why, wl)))
			return r;
	}
	return NULL;
}

/* ---- slots ---- */

/* A free slot near m (within DP_REACH of it), or 0. */
static uint64_t slot_alloc(struct rt_module *m)
{
	struct dp_pool *pl = &pools[m - rt.mods];

	if (!pl->base) {
		for (int dir = 0; dir < 2 && !pl->base; dir++) {
			for (uint64_t step = 1; step * (1ull << 20) < DP_REACH; step++) {
				uint64_t base = dir == 0 ? (m->start & ~0xfffull) - DP_POOL -
								   step * (1ull << 20)
							 : ((m->end + 0xfff) & ~0xfffull) +
								   step * (1ull << 20);
				void *q = mmap((void *)base, DP_POOL, PROT_READ | PROT_EXEC,
					       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
					       -1, 0);

				if (q == MAP_FAILED)
					continue;
				if ((uint64_t)q != base) {
					munmap(q, DP_POOL);
					continue;
				}
				pl->base = base;
				break;
			}
		}
		if (!pl->base)
			return 0;
	}
	if (pl->used + DP_SLOT > DP_POOL)
		return 0;
	pl->used += DP_SLOT;
	return pl->base + pl->used - DP_SLOT;
}

/*
 * Write len bytes at addr in text (made writable for the time of it:
 * never without EXEC, so threads keep running in the other bytes of the
 * page).  0, or -1 when the page cannot be made writable.
 */
static int text_write(uint64_t addr, const void *src, size_t len, int prot_after)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t lo = addr & ~(pg - 1), hi = (addr + len + pg - 1) & ~(pg - 1);

	if (mprotect((void *)lo, hi - lo, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -1;
	memcpy((void *)addr, src, len);
	mprotect((void *)lo, hi - lo, prot_after);
	return 0;
}

/* Every thread fetches the new bytes before it next runs user code (patch.c). */
static void sync_cores(void)
{
	syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
	ft_fence(__ATOMIC_SEQ_CST);
}

/* ---- the other threads ---- */

/*
 * The user pcs of every other thread, each in a ptrace stop (attach).
 * Returns how many, or -1 when one of them is not stopped (it could be
 * anywhere in the code we would write).
 */
static int stopped_pcs(uint64_t *pcs, int max)
{
	uint32_t self = rt_gettid();
	struct dirent *de;
	int n = 0, bad = 0;
	DIR *d = opendir("/proc/self/task");

	if (!d)
		return -1;
	while ((de = readdir(d)) && !bad) {
		char path[96], buf[512], *sp;
		long tid = strtol(de->d_name, NULL, 10);
		ssize_t len;
		int fd;

		if (tid <= 0 || (uint32_t)tid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* exited meanwhile */
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		sp = strrchr(buf, ')');
		/* 't': a ptrace stop; 'Z' / 'X': exiting, runs no user code again */
		if (!sp || (sp[2] != 't' && sp[2] != 'Z' && sp[2] != 'X')) {
			bad = 1;
			break;
		}
		if (sp[2] != 't')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%ld/syscall", tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			bad = 1;
			break;
		}
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0) {
			bad = 1;
			break;
		}
		buf[len] = '\0';
		/* "NR ARGS... SP PC" or "-1 SP PC": the pc is the last field */
		while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
			buf[--len] = '\0';
		sp = strrchr(buf, ' ');
		if (!sp || strncmp(sp + 1, "0x", 2)) {
			bad = 1; /* "running" */
			break;
		}
		if (n < max)
			pcs[n++] = strtoull(sp + 1, NULL, 16);
	}
	closedir(d);
	return bad ? -1 : n;
}

/* ---- the sites ---- */

/* The site at f's address (an alias of f may have made it), or NULL. */
static struct dp_site *site_of(const struct rt_func *f)
{
	for (uint32_t i = 0; i < nr_sites; i++)
		if (sites[i].f->addr == f->addr)
			return &sites[i];
	return NULL;
}

/* Is s's object still mapped (a dlopen()ed one may have been closed since)? */
static int site_mapped(const struct dp_site *s)
{
	return !rt.mods[s->f->mod].gone;
}

/* Put the 5-byte jmp of s in place.  0, or the reason it was not. */
static const char *site_on(struct dp_site *s)
{
	uint8_t b[DP_MAX_MOVED];
	int32_t rel = (int32_t)(int64_t)(s->slot - (s->f->addr + 5));

	if (memcmp((const void *)s->f->addr, s->orig, s->len))
		return "its first bytes changed since it was patched";
	memset(b, 0xcc, sizeof(b)); /* never run: no jump lands there */
	b[0] = 0xe9;
	put32(b + 1, rel);
	if (text_write(s->f->addr, b, s->len, PROT_READ | PROT_EXEC))
		return "its text cannot be made writable";
	s->on = 1;
	return NULL;
}

/*
 * Plan and patch f: its slot written, its key hashed, its entry jumping
 * there.  NULL, or the reason it was refused (why[] may hold it).
 */
static const char *patch_func(struct rt_module *m, struct rt_func *f, const uint64_t *pcs, int npcs,
			      char *why, size_t wl)
{
	uint8_t slotb[DP_SLOT], code[DP_CODE_MAX];
	uint32_t code_len = 0, moved = 0;
	struct dp_site *s = site_of(f);
	const char *r;
	uint64_t slot, hook = (uint64_t)ft_rt_dyn_entry;

	if (s && s->on)
		return NULL; /* two lines or two names for it */
	if (!s && f->size < 5)
		return "shorter than the 5 bytes of a jump";
	if (s) { /* attached again: the same slot and bytes */
		for (int i = 0; i < npcs; i++)
			if (pcs[i] > f->addr && pcs[i] < f->addr + s->len)
				return "a thread is stopped inside its first bytes";
		return site_on(s);
	}
	if (nr_sites >= DP_MAX_SITES)
		return "too many functions patched";
	slot = slot_alloc(m);
	if (!slot)
		return "no memory for a trampoline within reach";
	r = relocate(f, slot, code, &code_len, &moved);
	if (!r)
		r = scan_targets(m, f, moved, why, wl);
	for (int i = 0; i < npcs && !r; i++)
		if (pcs[i] > f->addr && pcs[i] < f->addr + moved)
			r = "a thread is stopped inside its first bytes";
	if (r) {
		pools[m - rt.mods].used -= DP_SLOT; /* the last one: given back */
		return r;
	}
	memset(slotb, 0xcc, sizeof(slotb));
	slotb[0] = 0xff; /* call *hook(%rip) */
	slotb[1] = 0x15;
	put32(slotb + 2, DP_HOOK_OFF - DP_CODE_OFF);
	memcpy(slotb + DP_CODE_OFF, code, code_len);
	memcpy(slotb + DP_HOOK_OFF, &hook, 8);
	if (text_write(slot, slotb, sizeof(slotb), PROT_READ | PROT_EXEC))
		return "its trampoline cannot be written";
	s = &sites[nr_sites++];
	s->f = f;
	s->slot = slot;
	s->len = (uint8_t)moved;
	memcpy(s->orig, (const void *)f->addr, moved);
	rt_hash_add(slot + DP_CODE_OFF, f); /* before the jump can be taken */
	return site_on(s);
}

/* The program's own module (the main executable), or NULL. */
static struct rt_module *main_module(void)
{
	char exe[FT_SESSION_PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	for (int i = 0; i < rt.nr_mods; i++)
		if (!rt.mods[i].gone && !rt.mods[i].is_self && !strcmp(rt.mods[i].path, exe))
			return &rt.mods[i];
	return NULL;
}

/* Does line (GLOB or GLOB:mod:MODULE) name module m?  *glen: the glob's length. */
static int line_mod(const char *line, const struct rt_module *m, const struct rt_module *prog,
		    size_t *glen)
{
	const char *mod = strstr(line, ":mod:");
	char name[sizeof(m->name)];

	*glen = mod ? (size_t)(mod - line) : strlen(line);
	if (m->gone || m->is_self || !m->pinned)
		return 0;
	if (!mod)
		return m == prog;
	/* as -l's: "liblzma.so.5" and "liblzma" name the same module */
	ft_mod_name(name, sizeof(name), mod + 5, strlen(mod + 5));
	return ft_glob_match(name, m->name);
}

/* m, loaded, has no hook of its own: no hook imported, no patchable site. */
static int bare(const struct rt_module *m)
{
	return m->loaded == RT_MOD_LOADED && !m->wants && !m->nr_sites && !m->sites_pending;
}

/*
 * No --patch line, a program with no compiled-in hook at all, and -l / -g
 * lines that select functions: those lines stand for --patch (filter.c
 * parses them; a plain GLOB names the program's functions, GLOB:mod:MODULE
 * the module's, which must have no hook either).  An instrumented program
 * never gets patched because of -l: a function left without a hook on
 * purpose (no_instrument_function, notrace) stays so.  Reads the
 * program's symbols to tell.  1 when so.  Caller holds rt.lock.
 */
static int by_filter(int nl, struct rt_module *prog)
{
	if (nl || !prog || rt.ctl->tracer == FT_TRACER_NOP || !rt_filter_patch_parse())
		return 0;
	if (prog->loaded == RT_MOD_UNLOADED)
		rt_module_load(prog);
	return bare(prog);
}

/* Do the -l / -g lines name m (by_filter() said so)? */
static int filter_mod(const struct rt_module *m, const struct rt_module *prog)
{
	return !m->gone && !m->is_self && m->pinned && rt_filter_patch_mod(m, prog);
}

/* The --patch lines of the session, copied (the control block is shared). */
static int read_lines(char *buf, size_t len, char **lines, int max)
{
	char *save = NULL;
	int n = 0;

	memcpy(buf, rt.ctl->patch, len);
	buf[len - 1] = '\0';
	for (char *p = strtok_r(buf, "\n", &save); p && n < max; p = strtok_r(NULL, "\n", &save))
		lines[n++] = p;
	return n;
}

#define DP_MAX_LINES 64

/*
 * Read the symbols of every object a --patch line names (before the hash
 * is sized, so that their functions count).  Caller holds rt.lock.
 */
void rt_dynpatch_load(void)
{
	static char buf[FT_SESSION_PATCH_MAX];
	char *lines[DP_MAX_LINES];
	struct rt_module *prog = main_module();
	int nl = read_lines(buf, sizeof(buf), lines, DP_MAX_LINES);
	int byf = by_filter(nl, prog);

	for (int i = 0; i < rt.nr_mods; i++) {
		if (byf && filter_mod(&rt.mods[i], prog))
			rt_module_load(&rt.mods[i]);
		for (int l = 0; l < nl; l++) {
			size_t gl;

			if (line_mod(lines[l], &rt.mods[i], prog, &gl)) {
				rt_module_load(&rt.mods[i]);
				break;
			}
		}
	}
}

/* Each object's nr_dyn: how many of its functions have their jmp in place. */
static void count_on(void)
{
	for (int i = 0; i < rt.nr_mods; i++)
		rt.mods[i].nr_dyn = 0;
	for (uint32_t i = 0; i < nr_sites; i++)
		if (sites[i].on && site_mapped(&sites[i]))
			rt.mods[sites[i].f->mod].nr_dyn++;
}

/* One refusal line for the recorder. */
static void say(const char *name, const char *why)
{
	char line[FT_SESSION_MSG_LINE_MAX + 1];

	snprintf(line, sizeof(line), "--patch: %s not patched: %s", name, why);
	ft_session_msg(rt.sess, line);
}

/*
 * Patch the functions the session's --patch lines select, or -l / -g's
 * (by_filter()), see the top for when this may run, and tell the
 * recorder: a summary line, then one line per refused function (the
 * first DP_MAX_REFUSED_SAID).  Functions that
 * have a compiled-in hook or patchable site are left to it.  Caller holds
 * rt.lock.
 */
void rt_dynpatch_apply(void)
{
	static char buf[FT_SESSION_PATCH_MAX];
	static uint64_t pcs[DP_MAX_PCS];
	static struct {
		const char *name;
		char text[160];
	} refused[DP_MAX_REFUSED_SAID];
	char *lines[DP_MAX_LINES], line[FT_SESSION_MSG_LINE_MAX + 1];
	struct rt_module *prog;
	uint32_t patched = 0, nref = 0, matched = 0;
	int nl, byf, npcs = 0, running = 0;
	const char *gen = NULL;
	enum rt_modmem mm;

	nl = read_lines(buf, sizeof(buf), lines, DP_MAX_LINES);
	prog = main_module();
	byf = by_filter(nl, prog);
	if (!nl && !byf)
		return;
	npcs = stopped_pcs(pcs, DP_MAX_PCS - 1);
	if (npcs < 0) {
		running = 1;
		npcs = 0;
	}
	if (held_pc)
		pcs[npcs++] = held_pc;
	if (cs_load())
		gen = "capstone (libcapstone.so.4) cannot be loaded";
	else if (running)
		gen = "other threads were running (patching needs them stopped)";
	if (!sites && !gen) {
		sites = rt_mmap_anon(DP_MAX_SITES * sizeof(*sites));
		if (!sites)
			gen = "no memory";
	}
	mm = rt_modmem_enter();
	for (int i = 0; i < rt.nr_mods; i++) {
		struct rt_module *m = &rt.mods[i];

		if (!rt_modmem_may(m, mm) || (byf && !(filter_mod(m, prog) && bare(m))))
			continue;
		for (uint32_t j = 0; j < m->nr_funcs && m->loaded == RT_MOD_LOADED; j++) {
			struct rt_func *f = &m->funcs[j];
			struct rt_name_memo memo;
			const char *r = NULL;
			char why[160];
			int hit = 0;

			if (byf)
				hit = rt_filter_patch_func(f, m, prog);
			rt_name_memo_init(&memo, f);
			for (int l = 0; l < nl && !hit; l++) {
				size_t gl;

				hit = line_mod(lines[l], m, prog, &gl) &&
				      rt_func_glob_match(lines[l], gl, f, &memo);
			}
			if (!hit || f->site_kind != RT_SITE_NONE || f->lib)
				continue; /* a compiled-in site: patched through patch.c */
			matched++;
			r = gen ? gen : patch_func(m, f, pcs, npcs, why, sizeof(why));
			if (!r) {
				patched++;
				continue;
			}
			if (nref < DP_MAX_REFUSED_SAID) {
				refused[nref].name = f->name;
				snprintf(refused[nref].text, sizeof(refused[nref].text), "%s", r);
			}
			nref++;
		}
	}
	count_on();
	/* their library calls (plt.c), the patched functions' among them */
	for (int i = 0; i < rt.nr_mods; i++)
		if (rt.mods[i].nr_dyn && rt_modmem_may(&rt.mods[i], mm))
			rt_plt_hook(&rt.mods[i]);
	rt_modmem_exit();
	if (patched) {
		sync_cores();
		__atomic_fetch_or(&rt.ctl->rt_hooks, FT_HOOK_DYNPATCH, __ATOMIC_RELAXED);
	}
	snprintf(line, sizeof(line), "--patch: %u function(s) patched, %u refused%s", patched, nref,
		 matched ? "" : " (no function without instrumentation matched)");
	ft_session_msg(rt.sess, line);
	for (uint32_t i = 0; i < nref && i < DP_MAX_REFUSED_SAID; i++)
		say(refused[i].name, refused[i].text);
	held_pc = 0;
}

/*
 * Every patched function's first bytes back, exactly as they were (the
 * detach: every other thread stopped).  Slots stay mapped and hashed: a
 * thread may be inside one, and a later attach reuses them.  Caller holds
 * rt.lock.
 */
void rt_dynpatch_undo(void)
{
	int any = 0;

	for (uint32_t i = 0; i < nr_sites; i++) {
		struct dp_site *s = &sites[i];

		if (!s->on || !site_mapped(s))
			continue;
		if (!text_write(s->f->addr, s->orig, s->len, PROT_READ | PROT_EXEC)) {
			s->on = 0;
			any = 1;
		}
	}
	count_on();
	if (any)
		sync_cores();
}
