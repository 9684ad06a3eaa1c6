// SPDX-License-Identifier: GPL-2.0
/*
 * Attach and detach on demand: `ftrail record -P PID` loads libftrail.so
 * into a running process (recorder/inject.c: dlopen through ptrace, every
 * other thread stopped) and calls ftrail_attach(); at the end it stops the
 * threads again and calls ftrail_detach().  Both run in one thread of the
 * program while the others are stopped (or, when a lock held by a stopped
 * thread made the call wait, running: every step below is also safe
 * then, as it is under LD_PRELOAD).
 *
 * A program that was not started with the runtime preloaded calls
 * mcount, __fentry__ and __cyg_profile_func_* through its GOT, bound to
 * libc's (which does nothing, or gprof's counting for -pg); attaching
 * points those GOT slots to ours and detaching puts the saved values back,
 * beside the patchable sites (patch.c) and the library-call stubs (plt.c),
 * which go back to what they were as well.  The same goes for the libc
 * functions whose wrappers follow the process's life (dlopen, dlclose,
 * fork, vfork, the exec family, posix_spawn, _exit: init.c, dl.c, proc.c), which
 * LD_PRELOAD binds to ours by interposition: while attached, an
 * instrumented object's calls to them reach the wrappers, so a library
 * it dlopen()s is traced (and its own slots pointed to ours, before the
 * program gets the handle), a fork, exec or _exit is recorded.
 *
 * What stays in the process after a detach, and why: the library itself
 * (mapped, never dlclose()d: a thread may still return through
 * ft_rt_return from a frame hijacked while tracing, or be inside a
 * trampoline), its static TLS block in every thread, one shadow stack per
 * thread that traced, the library-call stub pages, and the session's
 * control block mapping (the recorder releases its ring pages; a hook
 * racing the detach may still read it).  Its pthread key, atfork handlers
 * and on_exit handler stay registered, doing nothing while detached.
 * Attaching again reuses all of it.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/uevent.h"
#include "runtime/rt.h"

/* A compiler hook's or wrapped function's GOT slot we redirected, and what it held. */
struct got_hook {
	uint64_t *slot;
	uint64_t old;
	int relro;
	int mod; /* index in rt.mods: a module dlclose()d meanwhile is never written */
};

#define MAX_GOT_HOOKS 1024
static struct got_hook got_hooks[MAX_GOT_HOOKS];
static int nr_got_hooks;

/*
 * The compiler hooks (NR_COMPILER_HOOKS), then the wrapped functions, and
 * our definitions of them (resolved in our own object).  The unwinder's
 * entry points and __cxa_begin_catch put hijacked return addresses back
 * before an exception walks the stack (init.c): without them a C++
 * exception thrown through a traced frame terminates the program; vfork's
 * keeps the child, which runs in the caller's memory, from recording as
 * it.  Not wrapped here: the functions whose wrappers must see every call
 * from the program's start (sigaction, signal and the signal masks, whose
 * handlers run behind signal.c's shim; the context switches, whose
 * contexts context.c must have seen made).
 */
static const char *const hook_names[] = {
	"mcount",
	"_mcount",
	"__fentry__",
	"__cyg_profile_func_enter",
	"__cyg_profile_func_exit",
	"_Unwind_RaiseException",
	"_Unwind_Resume_or_Rethrow",
	"_Unwind_ForcedUnwind",
	"__cxa_begin_catch",
	"dlopen",
	"dlclose",
	"fork",
	"execve",
	"execv",
	"execvp",
	"execvpe",
	"execl",
	"execlp",
	"execle",
	"posix_spawn",
	"posix_spawnp",
	"_exit",
	"_Exit",
	"vfork",
	"sigaltstack",
	"prctl",
	"pthread_setname_np",
};
#define NR_HOOKS (sizeof(hook_names) / sizeof(hook_names[0]))
#define NR_COMPILER_HOOKS 5
static uint64_t hook_addr[NR_HOOKS];

/* Write v into the GOT word at slot, made writable for the store when it is RELRO. */
static void got_write(uint64_t *slot, uint64_t v, int relro)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	void *p = (void *)((uint64_t)slot & ~(pg - 1));

	if (relro && mprotect(p, pg, PROT_READ | PROT_WRITE))
		return;
	/* an aligned word: a thread calling through it sees the old or the new target */
	__atomic_store_n(slot, v, __ATOMIC_RELEASE);
	if (relro)
		mprotect(p, pg, PROT_READ); /* as the loader left it */
}

/* Is [p, p+8) inside a writable-or-RELRO mapping of m?  (Only m's own range.) */
static int in_mod(const struct rt_module *m, uint64_t p)
{
	return p >= m->start && p + 8 <= m->end && !(p & 7);
}

/* Is slot one hook_got_of() redirected already (in a module still mapped)? */
static int got_hooked(const uint64_t *slot)
{
	for (int i = 0; i < nr_got_hooks; i++)
		if (got_hooks[i].slot == slot && !rt.mods[got_hooks[i].mod].gone)
			return 1;
	return 0;
}

/* Record slot (of module m; RELRO or not) as redirected to v, and redirect it. */
static void got_redirect(struct rt_module *m, uint64_t *slot, uint64_t v, int relro)
{
	if (*slot == v || got_hooked(slot) || nr_got_hooks == MAX_GOT_HOOKS)
		return;
	got_hooks[nr_got_hooks].slot = slot;
	got_hooks[nr_got_hooks].old = *slot;
	got_hooks[nr_got_hooks].relro = relro;
	got_hooks[nr_got_hooks].mod = (int)(m - rt.mods);
	got_write(slot, v, relro);
	nr_got_hooks++;
}

/*
 * Point every GOT slot of m that holds a compiler hook or a wrapped
 * function (JUMP_SLOT or GLOB_DAT relocation against one of hook_names)
 * to ours.  Runs before plt.c hooks m's library calls (rt.got_more), so
 * a wrapped function's stub jumps to our wrapper, as under LD_PRELOAD.
 * Caller holds rt.lock.
 */
static void hook_got_of(struct rt_module *m)
{
	static const char *const rel_names[] = { ".rela.plt", ".rela.dyn" };
	const ElfW(Ehdr) *eh = m->map;
	uint64_t rlo, rhi;

	if (m->is_self || m->loaded <= 0 || m->gone || !m->map)
		return;
	rt_relro_pages(m, &rlo, &rhi);
	for (int k = 0; k < 2; k++) {
		const ElfW(Shdr) *rel = rt_elf_section(m, SHT_RELA, rel_names[k]), *dsym, *dstr;
		const ElfW(Rela) * r;
		const ElfW(Sym) * syms;
		const char *strs;

		if (!rel || rel->sh_link >= eh->e_shnum ||
		    rel->sh_offset + rel->sh_size > m->map_len)
			continue;
		dsym = (const ElfW(Shdr) *)((const char *)m->map + eh->e_shoff) + rel->sh_link;
		if (dsym->sh_type != SHT_DYNSYM || dsym->sh_link >= eh->e_shnum ||
		    dsym->sh_offset + dsym->sh_size > m->map_len)
			continue;
		dstr = (const ElfW(Shdr) *)((const char *)m->map + eh->e_shoff) + dsym->sh_link;
		if (dstr->sh_offset + dstr->sh_size > m->map_len)
			continue;
		r = (const ElfW(Rela) *)((const char *)m->map + rel->sh_offset);
		syms = (const ElfW(Sym) *)((const char *)m->map + dsym->sh_offset);
		strs = (const char *)m->map + dstr->sh_offset;
		for (size_t i = 0; i < rel->sh_size / sizeof(*r); i++) {
			uint64_t sym = ELF64_R_SYM(r[i].r_info), t = ELF64_R_TYPE(r[i].r_info);
			uint64_t *slot = (uint64_t *)(m->bias + r[i].r_offset);

			if ((t != R_X86_64_JUMP_SLOT && t != R_X86_64_GLOB_DAT) || !sym ||
			    sym >= dsym->sh_size / sizeof(*syms) ||
			    syms[sym].st_name >= dstr->sh_size || !in_mod(m, (uint64_t)slot))
				continue;
			for (size_t h = 0; h < NR_HOOKS; h++) {
				if (!hook_addr[h] ||
				    strcmp(strs + syms[sym].st_name, hook_names[h]))
					continue;
				got_redirect(m, slot, hook_addr[h],
					     (uint64_t)slot >= rlo && (uint64_t)slot < rhi);
				break;
			}
		}
	}
}

/* An address from a dynamic entry: glibc relocates most of them in place, not all. */
static uint64_t dyn_addr(uint64_t v, uint64_t bias)
{
	return v < bias ? v + bias : v;
}

/*
 * An object that is not instrumented (no file mapped: module.c never
 * loaded it) calls the wrapped functions too: libstdc++'s __cxa_throw
 * calls _Unwind_RaiseException.  Its JUMP_SLOT and GLOB_DAT relocations
 * are read from its dynamic section in memory, where the loader keeps
 * them.  Caller holds rt.lock and the module memory guard (arg: its
 * answer); dl_iterate_phdr's callback.
 */
static int hook_got_dyn(struct dl_phdr_info *info, size_t size, void *arg)
{
	const ElfW(Rela) * rel[2] = { NULL, NULL };
	uint64_t rel_len[2] = { 0, 0 }, bias = info->dlpi_addr, rlo = 0, rhi = 0, strsz = 0;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	const ElfW(Sym) *syms = NULL;
	const char *strs = NULL;
	const ElfW(Dyn) *dyn = NULL;
	const enum rt_modmem *mm = arg;
	struct rt_module *m = NULL;

	(void)size;
	if (!info->dlpi_name || !*info->dlpi_name || strstr(info->dlpi_name, "/ld-linux") ||
	    strstr(info->dlpi_name, "linux-vdso"))
		return 0; /* the main program is instrumented: hook_got_of's */
	for (int i = 0; i < rt.nr_mods && !m; i++)
		if (!rt.mods[i].gone && rt.mods[i].bias == bias && !rt.mods[i].is_self &&
		    rt.mods[i].loaded != RT_MOD_LOADED)
			m = &rt.mods[i];
	if (!m || !rt_modmem_may(m, *mm)) /* a dlclose in flight may unmap it */
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_DYNAMIC) {
			dyn = (const ElfW(Dyn) *)(bias + ph->p_vaddr);
		} else if (ph->p_type == PT_GNU_RELRO) {
			rlo = (bias + ph->p_vaddr) & ~(pg - 1);
			rhi = (bias + ph->p_vaddr + ph->p_memsz) & ~(pg - 1);
		}
	}
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_JMPREL:
			rel[0] = (const ElfW(Rela) *)dyn_addr(dyn->d_un.d_ptr, bias);
			break;
		case DT_PLTRELSZ:
			rel_len[0] = dyn->d_un.d_val;
			break;
		case DT_RELA:
			rel[1] = (const ElfW(Rela) *)dyn_addr(dyn->d_un.d_ptr, bias);
			break;
		case DT_RELASZ:
			rel_len[1] = dyn->d_un.d_val;
			break;
		case DT_SYMTAB:
			syms = (const ElfW(Sym) *)dyn_addr(dyn->d_un.d_ptr, bias);
			break;
		case DT_STRTAB:
			strs = (const char *)dyn_addr(dyn->d_un.d_ptr, bias);
			break;
		case DT_STRSZ:
			strsz = dyn->d_un.d_val;
			break;
		default:
			break;
		}
	}
	if (!syms || !strs)
		return 0;
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; rel[k] && i < rel_len[k] / sizeof(ElfW(Rela)); i++) {
			uint64_t sym = ELF64_R_SYM(rel[k][i].r_info),
				 t = ELF64_R_TYPE(rel[k][i].r_info);
			uint64_t *slot = (uint64_t *)(bias + rel[k][i].r_offset);

			if ((t != R_X86_64_JUMP_SLOT && t != R_X86_64_GLOB_DAT) || !sym ||
			    syms[sym].st_name >= strsz || !in_mod(m, (uint64_t)slot))
				continue;
			for (size_t h = NR_COMPILER_HOOKS; h < NR_HOOKS; h++)
				if (hook_addr[h] &&
				    !strcmp(strs + syms[sym].st_name, hook_names[h])) {
					got_redirect(m, slot, hook_addr[h],
						     (uint64_t)slot >= rlo && (uint64_t)slot < rhi);
					break;
				}
		}
	}
	return 0;
}

/*
 * Every object's slots: the instrumented ones' from their files, the
 * others' from memory.  Caller holds rt.lock.
 */
static void hook_got_all(void)
{
	enum rt_modmem mm;

	for (int i = 0; i < rt.nr_mods; i++)
		hook_got_of(&rt.mods[i]);
	mm = rt_modmem_enter();
	dl_iterate_phdr(hook_got_dyn, &mm);
	rt_modmem_exit();
}

/*
 * rt.got_more: a module being loaded (m), before plt.c hooks its library
 * calls; or, NULL, after a dlopen: the objects it brought that are not
 * instrumented.  Caller holds rt.lock.
 */
static void got_more(struct rt_module *m)
{
	if (m)
		hook_got_of(m);
	else
		hook_got_all();
}

/*
 * Put back every GOT slot hook_got_of() changed, but those of modules
 * the program dlclose()d since (unmapped: nothing to put back) or is
 * closing now (going: left as they are).  Caller holds rt.lock.
 */
static void unhook_got(void)
{
	enum rt_modmem mm = rt_modmem_enter();

	for (int i = nr_got_hooks - 1; i >= 0; i--) {
		const struct rt_module *m = &rt.mods[got_hooks[i].mod];

		if (!m->gone && rt_modmem_may(m, mm))
			got_write(got_hooks[i].slot, got_hooks[i].old, got_hooks[i].relro);
	}
	rt_modmem_exit();
	nr_got_hooks = 0;
}

/*
 * After the nop switch of a detach (every site unpatched): the program
 * put back as it was -- the compiler hooks' GOT slots, gcc's 1-byte nop
 * runs, the library calls' GOT slots.  Caller holds rt.lock.  Also what
 * rt_detach does besides for a runtime started here (rt.detach_more),
 * when the recorder died.
 */
static void restore_locked(void)
{
	enum rt_modmem mm;

	rt.got_more = NULL; /* a module loaded from now on keeps its slots */
	mm = rt_modmem_enter();
	for (int mi = 0; mi < rt.nr_mods; mi++) {
		struct rt_module *m = &rt.mods[mi];

		if (m->gone || !rt_modmem_may(m, mm))
			continue;
		for (uint32_t i = 0; i < m->nr_funcs; i++)
			rt_patch_denormalize(&m->funcs[i]);
	}
	rt_patch_flush();
	rt_modmem_exit();
	/* the stubs' slots back to their targets (a wrapper of ours), then those to libc's */
	rt_plt_unhook_all();
	unhook_got();
}

/*
 * ftrail_detach, every other thread stopped: nop, everything restored
 * (restore_locked), and the program's SIGTRAP action back -- not when
 * rt_detach runs from a hook after the recorder died, since another
 * thread may then have hit one of the last batch's int3s without having
 * taken its SIGTRAP yet.  Caller holds rt.lock, tracing_on is off.
 */
static void stop_locked(void)
{
	__atomic_store_n(&rt.detached, 1, __ATOMIC_RELAXED);
	rt_sync_locked();   /* nop: every site unpatched */
	rt_dynpatch_undo(); /* threads stopped: whole instructions back */
	restore_locked();
	rt_patch_fini();
	__atomic_store_n(&rt.life, NULL, __ATOMIC_RELAXED);
}

/* Our own definitions of the hooks: looked up in this object, not the global scope. */
static void find_hooks(void)
{
	Dl_info self;
	void *h;

	if (hook_addr[0] || !dladdr((void *)ft_rt_return, &self))
		return;
	h = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		return;
	for (size_t i = 0; i < NR_HOOKS; i++)
		hook_addr[i] = (uint64_t)dlsym(h, hook_names[i]);
	dlclose(h); /* only the reference NOLOAD took: the library stays */
}

/* Open the recorder's fd n read-write (same user or root, as ptrace). */
static int open_peer_fd(int pid, int n)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, n);
	return open(path, O_RDWR | O_CLOEXEC);
}

/**
 * ftrail_attach() - start tracing into the recorder's session
 * @rec_pid: the recorder's process id
 * @sess_fd: its session memfd's number (opened through /proc/REC_PID/fd)
 * @life_fd: its lifeline's number, or -1
 * @caller_pc: where the thread running this call was stopped (dynpatch.c
 *	never overwrites the bytes holding it), 0 when unknown
 * @uev_fd: its user event area's number (the selection of -e u:...), or
 *	-1: user events and markers stay disabled
 *
 * Called once per attach by recorder/inject.c, in one thread of the
 * program, the others stopped.  Maps the session (the fds are closed once
 * mapped: nothing stays open), registers the loaded objects, redirects the
 * compiler hooks' GOT slots and applies the control block (patching the
 * selected sites), then enables the selected user events and the markers
 * (events.c; the area stays mapped, as the session does).  Threads trace
 * from their next hook on; frames entered before are never hijacked.
 *
 * Return: 0, -EBUSY when this process is traced already (by `ftrail record
 * -- PROG` or another attach), or -errno when the session cannot be
 * opened or mapped (-EPROTO: not a session of this ftrail's version).
 */
__attribute__((visibility("default"))) int ftrail_attach(int rec_pid, int sess_fd, int life_fd,
							 uint64_t caller_pc, int uev_fd);
int ftrail_attach(int rec_pid, int sess_fd, int life_fd, uint64_t caller_pc, int uev_fd)
{
	struct ft_uev_area *uev = NULL;
	const uint32_t *life = NULL;
	struct ft_session_hdr *h;
	struct stat st;
	char err[128];
	void *mem;
	int fd, e;

	if (rt.sess && !__atomic_load_n(&rt.detached, __ATOMIC_RELAXED) && !rt_orphaned())
		return -EBUSY;
	fd = open_peer_fd(rec_pid, sess_fd);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size <= 0) {
		e = errno ? errno : EINVAL;
		close(fd);
		return -e;
	}
	mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	e = errno;
	close(fd);
	if (mem == MAP_FAILED)
		return -e;
	h = ft_session_check(mem, (size_t)st.st_size, err, sizeof(err));
	if (!h) {
		munmap(mem, (size_t)st.st_size);
		return -EPROTO;
	}
	if (life_fd >= 0) {
		fd = open_peer_fd(rec_pid, life_fd);
		if (fd >= 0) {
			life = ft_lifeline_attach(fd); /* mapped: the fd is not needed */
			close(fd);
		}
	}
	find_hooks();
	pthread_mutex_lock(&rt.lock);
	rt_dynpatch_hold_pc(caller_pc);
	/*
	 * Objects known from an earlier attach: their slots before plt.c
	 * hooks them again; the others as rt_start loads them, and those
	 * the program dlopen()s while attached (module.c calls got_more).
	 */
	rt.got_more = got_more;
	hook_got_all();
	pthread_mutex_unlock(&rt.lock);
	if (rt_start(h, (size_t)st.st_size, life, 1))
		return -EBUSY;
	pthread_mutex_lock(&rt.lock);
	hook_got_all();
	rt.detach_more = restore_locked; /* a dead recorder: rt_detach restores too */
	pthread_mutex_unlock(&rt.lock);
	if (uev_fd >= 0) {
		fd = open_peer_fd(rec_pid, uev_fd);
		uev = ft_uev_map(fd);
		if (fd >= 0)
			close(fd); /* mapped: the fd is not needed */
		if (!uev)
			ft_session_msg(h, "cannot open the user event area: user events and "
					  "markers are not recorded");
	}
	rt_events_attach(uev);
	return 0;
}

/**
 * ftrail_detach() - stop tracing and put the program back as it was
 *
 * Called by recorder/inject.c in one thread, the others stopped: tracing
 * off, the nop tracer with every site unpatched (patch.c's protocol), the
 * compiler hooks' and library calls' GOT slots back to their old values,
 * user events and markers disabled, the program's own SIGTRAP action back.  Frames hijacked while tracing
 * still return through ft_rt_return, which only pops them.  Return: 0, or
 * -ENOENT when no session is attached.
 */
__attribute__((visibility("default"))) int ftrail_detach(void);
int ftrail_detach(void)
{
	if (!rt.sess)
		return -ENOENT;
	ft_session_set_tracing_on(rt.sess, 0);
	rt_events_detach();
	pthread_mutex_lock(&rt.lock);
	stop_locked();
	pthread_mutex_unlock(&rt.lock);
	return 0;
}
