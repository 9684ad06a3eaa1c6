// SPDX-License-Identifier: GPL-2.0
/*
 * Before running a program: find it, check that it can be executed, and tell
 * whether it was compiled with any instrumentation ftrail can hook.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/symbols.h"
#include "recorder/urec_int.h"

/*
 * Is `path` an executable regular file that execve() can start (an ELF
 * file or a #! script)?  0, or an errno (ENOEXEC for anything else).
 */
static int check_exec(const char *path)
{
	struct stat st;
	char head[4];
	int fd;

	if (stat(path, &st))
		return errno;
	if (S_ISDIR(st.st_mode))
		return EISDIR;
	if (!S_ISREG(st.st_mode))
		return EACCES;
	if (access(path, X_OK))
		return errno;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* execute-only: let execve decide */
	if (pread(fd, head, 4, 0) != 4 || (memcmp(head, ELFMAG, 4) && memcmp(head, "#!", 2))) {
		close(fd);
		return ENOEXEC;
	}
	close(fd);
	return 0;
}

int urec_find_program(const char *name, char *out, size_t outlen, char *err, size_t errlen)
{
	const char *path, *p;
	int e;

	if (!name || !*name) {
		snprintf(err, errlen, "no program to run");
		return -1;
	}
	if (strchr(name, '/')) {
		e = check_exec(name);
		if (e == ENOENT || e == ENOTDIR)
			snprintf(err, errlen, "no such program: %s", name);
		else if (e == EISDIR)
			snprintf(err, errlen, "%s is a directory, not a program", name);
		else if (e == ENOEXEC)
			snprintf(err, errlen, "%s is not a program (neither ELF nor a #! script)",
				 name);
		else if (e)
			snprintf(err, errlen, "%s is not executable: %s", name, strerror(e));
		if (e)
			return -1;
		snprintf(out, outlen, "%s", name);
		return 0;
	}
	path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	e = ENOENT;
	for (p = path;; p++) {
		const char *c = strchr(p, ':');
		size_t l = c ? (size_t)(c - p) : strlen(p);
		char cand[4096];
		int r;

		snprintf(cand, sizeof(cand), "%.*s%s%s", (int)l, p, l ? "/" : "", name);
		r = check_exec(cand);
		if (!r) {
			snprintf(out, outlen, "%s", cand);
			return 0;
		}
		if (r != ENOENT && r != ENOTDIR)
			e = r; /* found but not runnable: say so if nothing better turns up */
		if (!c)
			break;
		p = c;
	}
	if (e == ENOENT)
		snprintf(err, errlen, "no such program: %s (not found in PATH)", name);
	else if (e == ENOEXEC)
		snprintf(err, errlen, "%s is not a program (neither ELF nor a #! script)", name);
	else
		snprintf(err, errlen, "%s is not executable: %s", name, strerror(e));
	return -1;
}

static int hook_symbol(const char *s)
{
	return !strcmp(s, "mcount") || !strcmp(s, "_mcount") || !strcmp(s, "__fentry__") ||
	       !strcmp(s, "__cyg_profile_func_enter") || !strcmp(s, "__cyg_profile_func_exit");
}

int urec_elf_instrumented(const char *path)
{
	int fd, ret = -1;
	Elf *e = ft_elf_open(path, &fd, NULL, 0);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!e)
		return -1; /* a script or something else: cannot tell */
	if (elf_getshdrstrndx(e, &shstrndx))
		goto out;
	ret = 0;
	while ((scn = elf_nextscn(e, scn)) != NULL && !ret) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && (!strcmp(name, "__patchable_function_entries") ||
			     !strcmp(name, "__mcount_loc")))
			ret = 1;
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize && !ret; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(d, (int)i, &sym))
				break;
			s = elf_strptr(e, sh.sh_link, sym.st_name);
			if (s && hook_symbol(s))
				ret = 1;
		}
	}
out:
	elf_end(e);
	close(fd);
	return ret;
}

int urec_elf_static(const char *path)
{
	int fd, ret = -1;
	size_t n;
	Elf *e = ft_elf_open(path, &fd, NULL, 0);

	if (!e)
		return -1;
	if (!elf_getphdrnum(e, &n)) {
		ret = 1;
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
				ret = 0;
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}
