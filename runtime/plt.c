// SPDX-License-Identifier: GPL-2.0
/*
 * Library calls: calls from a traced object into another shared object
 * through its PLT (malloc, printf, qsort, pthread_mutex_lock...), hooked by
 * rewriting the object's GOT slots (JUMP_SLOT relocations of .rela.plt),
 * as uftrace's plthook does, on by default (option libcall).
 *
 * Traced objects: those that import a compiler hook (module.c hooks them
 * as it reads their patch sites), and those with functions patched by
 * dynpatch.c (record --patch, or -l / -g on a program without
 * instrumentation), which hooks them once its functions are in place, at
 * start or at the attach.  Every import of such an object is hooked,
 * whichever function makes the call (a patched one or not: as uftrace
 * -P hooks the whole PLT); the filters decide what records.  An object
 * that is merely loaded keeps its GOT.
 *
 * Each hooked import gets a 16-byte stub and an rt_func:
 *
 *     stub:  call *hook(%rip)     ; hook = ft_rt_patched
 *            jmp  *next(%rip)     ; next = the GOT's value before the hook
 *
 * The GOT slot then points to the stub.  At ft_rt_patched, (%rsp) is the
 * address after the stub's call (the hash key of the import's rt_func,
 * inserted here) and 8(%rsp) the caller's return-address slot: exactly a
 * patched function's entry, so the tracers, filters, the return hijack,
 * the shadow stack (longjmp, exceptions, pthread_exit, signals) and both
 * fast paths apply unchanged, and a callback from the library into traced
 * code (qsort -> cmp) nests under the library call.
 *
 * Lazy binding: a lazily bound slot holds an address in the object's own
 * PLT until the first call, when the loader's resolver writes the target
 * over whatever the slot holds -- the hook included.  Rather than hooking
 * the slot again after each first call (which races with other threads
 * resolving the same slot, and misses the calls in between), the recorder starts
 * the program with LD_BIND_NOW=1 (recorder/urecord.c), so the loader binds
 * every slot at load time, dlopen()ed objects included; a slot found still
 * pointing into its own object here (a program started without it, or a
 * call within the object) is left alone.  A slot is hooked after the
 * loader relocated the object: at start for the objects loaded with the
 * program, in the dlopen wrapper for the others, before dlopen returns.
 *
 * Calls into libftrail.so's own wrappers (fork, signal, sigaction, dlopen,
 * the exec family, posix_spawn, prctl, _exit...) are hooked as any other:
 * the stub's target is the wrapper, which does its work and calls the
 * libc function, so the program's `fork()` or `dlopen()` shows as it wrote
 * it.  fork returns through the hijacked address in both processes (the
 * child keeps a copy of the shadow stack), a dlopen's new objects are
 * hooked by the wrapper before it returns, an exec or _exit leaves its
 * call open as exit() does (the old image ends there; a failed exec
 * returns and closes it).  Filters' :mod: names libftrail for them: the
 * module the call lands in.
 *
 * Not hooked: imports that return twice or read their own return address
 * (setjmp family, vfork, getcontext and the other context switches), the
 * unwinder's entry points and __cxa_begin_catch (the wrappers of both
 * rewrite the shadow stack by stack address, a hooked frame of their own
 * included), the compiler's hooks (mcount, __fentry__,
 * __cyg_profile_func_*: hooks, not calls), and function pointers the
 * program got from dlsym() or through a GOT entry that is not a
 * JUMP_SLOT (-fno-plt): those calls do not go through the PLT.
 *
 * Limits: the kernel's user stacks (-O userstacktrace) walk frame
 * pointers; a hooked library function without them (most of libc) leaves
 * no frame there while its hijacked return address is on the shadow stack,
 * so putting function_graph's return addresses back (analysis/graphret.h)
 * may be one frame off in such stacks: record them with --no-libcall.
 * The import table is read from the object's file (section headers, as
 * module.c reads its symbols), not from its in-memory dynamic section.
 *
 * Names: an import's rt_func has the address of its GOT slot, so its fid
 * resolves in the importing object's symbol table, where the tool adds
 * one symbol per JUMP_SLOT named after the import (core/symbols.c): the
 * trace says "malloc", as the program wrote it.
 */
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/options.h"
#include "runtime/rt.h"

#define STUB_SIZE 16

/* Imports never hooked (see the top). */
static int denied(const char *name)
{
	static const char *const deny[] = {
		"setjmp",
		"_setjmp",
		"__sigsetjmp",
		"sigsetjmp",
		"savectx",
		"vfork",
		"getcontext",
		"swapcontext",
		"setcontext",
		"makecontext",
		"__tls_get_addr",
		"__libc_start_main",
		/* the compiler's hooks: bound to libc when attached (attach.c hooks them) */
		"mcount",
		"_mcount",
		"__fentry__",
		"__cyg_profile_func_enter",
		"__cyg_profile_func_exit",
		/* its wrapper closes the frames below its caller: its own hooked one too */
		"__cxa_begin_catch",
	};

	if (!strncmp(name, "_Unwind_", 8))
		return 1;
	for (size_t i = 0; i < sizeof(deny) / sizeof(deny[0]); i++)
		if (!strcmp(name, deny[i]))
			return 1;
	return 0;
}

/*
 * rt_elf_section() - m's section header named name (NULL: any name) of
 * type (SHT_NULL: any type), read from its file mapping; NULL when none.
 */
const ElfW(Shdr) * rt_elf_section(const struct rt_module *m, uint32_t type, const char *name)
{
	const ElfW(Ehdr) *eh = m->map;
	const ElfW(Shdr) *sh = (const ElfW(Shdr) *)((const char *)m->map + eh->e_shoff);
	const char *shstr = (const char *)m->map + sh[eh->e_shstrndx].sh_offset;
	size_t shstr_len = sh[eh->e_shstrndx].sh_size;

	for (int i = 0; i < eh->e_shnum; i++)
		if ((type == SHT_NULL || sh[i].sh_type == type) && sh[i].sh_name < shstr_len &&
		    (!name || !strcmp(shstr + sh[i].sh_name, name)))
			return &sh[i];
	return NULL;
}

/*
 * rt_relro_pages() - [lo, hi): m's pages the loader made read-only after
 * relocation (PT_GNU_RELRO); lo == hi when it has none.
 */
void rt_relro_pages(const struct rt_module *m, uint64_t *lo, uint64_t *hi)
{
	const ElfW(Ehdr) *eh = m->map;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

	*lo = *hi = 0;
	if (eh->e_phentsize != sizeof(ElfW(Phdr)) ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(ElfW(Phdr)) > m->map_len)
		return;
	for (int i = 0; i < eh->e_phnum; i++) {
		const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)m->map + eh->e_phoff) + i;

		if (ph->p_type != PT_GNU_RELRO)
			continue;
		/* as the loader rounds it (glibc _dl_protect_relro) */
		*lo = (m->bias + ph->p_vaddr) & ~(pg - 1);
		*hi = (m->bias + ph->p_vaddr + ph->p_memsz) & ~(pg - 1);
	}
}

/*
 * rt_plt_nr_imports() - how many stubs rt_plt_hook() may still add for m
 * (its .rela.plt entries; 0 once tried, or m not loaded): init.c sizes
 * the lookup hash with it before dynpatch.c hooks a patched object's
 * imports.  Caller holds rt.lock.
 */
uint32_t rt_plt_nr_imports(const struct rt_module *m)
{
	const ElfW(Shdr) * rel;

	if (m->plt_state != RT_PLT_UNHOOKED || m->is_self || m->gone || m->loaded != RT_MOD_LOADED)
		return 0;
	rel = rt_elf_section(m, SHT_RELA, ".rela.plt");
	if (!rel || rel->sh_offset > m->map_len || rel->sh_size > m->map_len - rel->sh_offset)
		return 0;
	return (uint32_t)(rel->sh_size / sizeof(ElfW(Rela)));
}

/*
 * Hook m's library calls (see the top), once per mapping of m, when m
 * imports a compiler hook or dynpatch.c patched functions of it.  Inside
 * the module memory guard, m loaded (its file mapped), caller holds
 * rt.lock.  Writes m's GOT: the slots are aligned 8-byte words, and a
 * thread calling through one meanwhile jumps either to the target or to
 * the stub, which is complete before the slot is written (below).
 */
void rt_plt_hook(struct rt_module *m)
{
	const ElfW(Ehdr) *eh = m->map;
	const ElfW(Shdr) * rel, *dsym, *dstr;
	const ElfW(Rela) * r;
	const ElfW(Sym) * syms;
	const char *strs;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), rlo, rhi, plo = UINT64_MAX, phi = 0;
	size_t nrel, n = 0, code_len, len;
	uint8_t *code;
	uint64_t *data;
	struct rt_func *funcs;

	if (m->plt_state != RT_PLT_UNHOOKED || m->is_self || !(m->wants || m->nr_dyn) ||
	    m->loaded != RT_MOD_LOADED || m->gone || !rt.ctl ||
	    !(__atomic_load_n(&rt.ctl->options, __ATOMIC_RELAXED) & FT_OPT(LIBCALL)))
		return;
	m->plt_state = RT_PLT_NONE;
	rel = rt_elf_section(m, SHT_NULL, ".rela.plt");
	if (!rel || rel->sh_type != SHT_RELA || rel->sh_link >= eh->e_shnum ||
	    rel->sh_offset + rel->sh_size > m->map_len)
		return;
	dsym = (const ElfW(Shdr) *)((const char *)m->map + eh->e_shoff) + rel->sh_link;
	if (dsym->sh_type != SHT_DYNSYM || dsym->sh_link >= eh->e_shnum ||
	    dsym->sh_offset + dsym->sh_size > m->map_len)
		return;
	dstr = (const ElfW(Shdr) *)((const char *)m->map + eh->e_shoff) + dsym->sh_link;
	if (dstr->sh_offset + dstr->sh_size > m->map_len)
		return;
	r = (const ElfW(Rela) *)((const char *)m->map + rel->sh_offset);
	nrel = rel->sh_size / sizeof(*r);
	syms = (const ElfW(Sym) *)((const char *)m->map + dsym->sh_offset);
	strs = (const char *)m->map + dstr->sh_offset;
	if (!nrel)
		return;

	/* one mapping: the stubs (made read + exec), then hook and next[] */
	code_len = (nrel * STUB_SIZE + pg - 1) & ~(pg - 1);
	len = code_len + ((8 + nrel * 8 + pg - 1) & ~(pg - 1));
	code = rt_mmap_anon(len);
	funcs = rt_mmap_anon(nrel * sizeof(*funcs));
	if (!code || !funcs) {
		if (code)
			munmap(code, len);
		if (funcs)
			munmap(funcs, nrel * sizeof(*funcs));
		return;
	}
	data = (uint64_t *)(code + code_len);
	data[0] = (uint64_t)ft_rt_patched;
	rt_relro_pages(m, &rlo, &rhi);

	for (size_t i = 0; i < nrel; i++) {
		uint64_t got = m->bias + r[i].r_offset, target, sym = ELF64_R_SYM(r[i].r_info);
		struct rt_module *lib;
		struct rt_func *f;
		uint8_t *s;
		int32_t d;

		if (ELF64_R_TYPE(r[i].r_info) != R_X86_64_JUMP_SLOT ||
		    sym >= dsym->sh_size / sizeof(*syms) || syms[sym].st_name >= dstr->sh_size ||
		    got < m->start || got + 8 > m->end || (got & 7))
			continue;
		target = __atomic_load_n((uint64_t *)got, __ATOMIC_RELAXED);
		lib = rt_module_of(target);
		/* not bound yet (lazy: into m's own PLT); our wrappers are hooked too */
		if (!lib || lib == m || denied(strs + syms[sym].st_name))
			continue;
		f = &funcs[n];
		f->addr = got;
		f->size = 8;
		f->name = strs + syms[sym].st_name;
		f->fid = RT_NOFID;
		f->mod = (uint16_t)(m - rt.mods);
		f->lib = (uint16_t)(lib - rt.mods + 1);
		f->epoch = RT_EPOCH_NONE;
		data[1 + n] = target;
		s = code + n * STUB_SIZE;
		/* call *hook(%rip): hook is data[0] */
		d = (int32_t)((int64_t)(uint64_t)&data[0] - (int64_t)(uint64_t)(s + 6));
		s[0] = 0xff;
		s[1] = 0x15;
		memcpy(s + 2, &d, 4);
		/* jmp *next(%rip): next is data[1 + n] */
		d = (int32_t)((int64_t)(uint64_t)&data[1 + n] - (int64_t)(uint64_t)(s + 12));
		s[6] = 0xff;
		s[7] = 0x25;
		memcpy(s + 8, &d, 4);
		memset(s + 12, 0xcc, 4); /* int3 */
		if (got >= rlo && got < rhi) {
			if (got < plo)
				plo = got & ~(pg - 1);
			if (got + 8 > phi)
				phi = (got + 8 + pg - 1) & ~(pg - 1);
		}
		n++;
	}
	/*
	 * The stubs become executable before any GOT slot points to them.
	 * mprotect() flushes this mm's TLB entries on every CPU it runs on,
	 * through an interrupt (serialising) on each: no CPU can have fetched
	 * the page's old (empty, non-executable) contents afterwards.  The
	 * stubs are never changed again.
	 */
	/* hook and next[] are never written again: read-only, like the GOT */
	if (!n || mprotect(code, code_len, PROT_READ | PROT_EXEC) ||
	    mprotect(data, len - code_len, PROT_READ)) {
		munmap(code, len);
		munmap(funcs, nrel * sizeof(*funcs));
		return;
	}
	if (phi && mprotect((void *)plo, phi - plo, PROT_READ | PROT_WRITE)) {
		munmap(code, len);
		munmap(funcs, nrel * sizeof(*funcs));
		return;
	}
	m->plt = funcs;
	m->nr_plt = (uint32_t)n;
	m->plt_mem = code;
	m->plt_mem_len = len;
	for (size_t i = 0; i < n; i++) {
		rt_hash_add((uint64_t)(code + i * STUB_SIZE + 6), &funcs[i]);
		/*
		 * release: the stub, its next[] and the rt_func are complete
		 * before a thread reading the slot may jump to the stub
		 * (x86: stores are seen in order anyway).
		 */
		__atomic_store_n((uint64_t *)funcs[i].addr, (uint64_t)(code + i * STUB_SIZE),
				 __ATOMIC_RELEASE);
	}
	if (phi)
		mprotect((void *)plo, phi - plo, PROT_READ); /* RELRO as the loader left it */
	m->plt_state = RT_PLT_HOOKED;
}

/* The lookup keys of every hooked import (at start, once the hash exists). */
void rt_plt_hash_all(void)
{
	for (int mi = 0; mi < rt.nr_mods; mi++) {
		struct rt_module *m = &rt.mods[mi];

		for (uint32_t i = 0; m->plt_state == RT_PLT_HOOKED && i < m->nr_plt; i++)
			rt_hash_add((uint64_t)m->plt_mem + i * STUB_SIZE + 6, &m->plt[i]);
	}
}

/*
 * m was dlclose()d: its stubs go (no code of m runs any more, so none is
 * entered), their keys leave the hash.  The rt_funcs stay: a shadow frame
 * may point to one (as module.c keeps funcs).  A later mapping of the same
 * file is hooked afresh.  Caller holds rt.lock.
 */
void rt_plt_forget(struct rt_module *m)
{
	if (m->plt_mem) {
		rt_unwind_forget(); /* the unwinder's rules for the stubs too */
		rt_hash_forget((uint64_t)m->plt_mem, (uint64_t)m->plt_mem + m->plt_mem_len);
		munmap(m->plt_mem, m->plt_mem_len);
	}
	m->plt_mem = NULL;
	m->plt_mem_len = 0;
	m->plt = NULL;
	m->nr_plt = 0;
	m->plt_state = RT_PLT_UNHOOKED;
}

/* Where stub i of m jumps: its next[] word (decoded from the stub's jmp *next(%rip)). */
static uint64_t *stub_next(const struct rt_module *m, uint32_t i)
{
	const uint8_t *s = (const uint8_t *)m->plt_mem + (size_t)i * STUB_SIZE;
	int32_t d;

	memcpy(&d, s + 8, 4);
	return (uint64_t *)(s + 12 + d);
}

/* Point every hooked GOT slot of m that holds from to its stub's to (RELRO opened). */
static void plt_swap(struct rt_module *m, int to_stub)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), rlo, rhi;
	int opened = 0;

	rt_relro_pages(m, &rlo, &rhi);
	if (rhi > rlo && !mprotect((void *)rlo, rhi - rlo, PROT_READ | PROT_WRITE))
		opened = 1;
	for (uint32_t i = 0; i < m->nr_plt; i++) {
		uint64_t *got = (uint64_t *)m->plt[i].addr,
			 stub = (uint64_t)m->plt_mem + i * STUB_SIZE;
		uint64_t target = *stub_next(m, i);
		uint64_t from = to_stub ? target : stub, to = to_stub ? stub : target;

		if ((uint64_t)got >= rlo && (uint64_t)got < rhi && !opened)
			continue;
		/* a slot the program rewrote since is its own: left alone */
		if (__atomic_load_n(got, __ATOMIC_RELAXED) == from)
			__atomic_store_n(got, to, __ATOMIC_RELEASE);
	}
	if (opened)
		mprotect((void *)rlo, rhi - rlo, PROT_READ);
	(void)pg;
}

/*
 * Detach (attach.c): every hooked import's GOT slot gets its target back;
 * the stubs stay mapped (a thread may be between a stub's call and its
 * jmp) and are used again by rt_plt_rehook_all().  Caller holds rt.lock.
 */
void rt_plt_unhook_all(void)
{
	for (int mi = 0; mi < rt.nr_mods; mi++) {
		struct rt_module *m = &rt.mods[mi];

		if (m->plt_state == RT_PLT_HOOKED && !m->gone && m->plt_mem) {
			plt_swap(m, 0);
			m->plt_state = RT_PLT_DETACHED;
		}
	}
}

/*
 * Attach again: the slots rt_plt_unhook_all() put back point to the stubs
 * again -- in an object without compiled-in hooks only while dynpatch.c
 * has functions of it patched (this attach's --patch may name others).
 */
void rt_plt_rehook_all(void)
{
	for (int mi = 0; mi < rt.nr_mods; mi++) {
		struct rt_module *m = &rt.mods[mi];

		if (m->plt_state == RT_PLT_DETACHED && !m->gone && m->plt_mem &&
		    (m->wants || m->nr_dyn)) {
			plt_swap(m, 1);
			m->plt_state = RT_PLT_HOOKED;
		}
	}
}
