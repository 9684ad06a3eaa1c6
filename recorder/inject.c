// SPDX-License-Identifier: GPL-2.0
/*
 * Function calls inside a running process through ptrace (inject.h).
 *
 * PTRACE_SEIZE rather than PTRACE_ATTACH: no SIGSTOP is sent, so the
 * process's job-control state and its parent's view (waitpid WUNTRACED)
 * never change; PTRACE_INTERRUPT stops each thread where it is.  A signal
 * that reaches a thread while we hold it (a signal-delivery-stop) is kept
 * and handed back by PTRACE_DETACH, so the program sees it as if we had
 * never been there.  Registers are read and written as a whole with
 * GETREGS and the extended state (x87/SSE/AVX) with NT_X86_XSTATE: the
 * called function may use any of them.
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "recorder/inject.h"
#include "recorder/urec_int.h"

#define XSTATE_MAX (32u << 10) /* larger than any XSAVE area (AMX: ~11 KiB) */
#define LET_OTHERS_RUN_MS 500  /* a call not back by then may wait for a stopped thread */

struct thr {
	pid_t tid;
	int stopped; /* in a ptrace stop we caused */
	int gone;    /* exited meanwhile */
	int sig;     /* a signal that arrived while stopped: handed back at detach */
};

struct ft_inject {
	pid_t pid;
	struct thr *t;
	size_t n, cap;
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The value of "Key:" in /proc/pid/status (first field), or -1. */
static long status_field(pid_t pid, const char *key)
{
	char path[64], line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ':') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/* The State: letter of /proc/pid/status ('R', 'S', 'Z'...), or 0. */
static char status_state(pid_t pid)
{
	char path[64], line[256], st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "State:", 6)) {
			sscanf(line + 6, " %c", &st);
			break;
		}
	fclose(f);
	return st;
}

static void comm_of(pid_t pid, char *out, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(out, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(out, (int)len, f))
		out[strcspn(out, "\n")] = 0;
	fclose(f);
}

static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	int v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

int ft_inject_check(pid_t pid, char *err, size_t errlen)
{
	char path[64], comm[64];
	long tracer, uid, tgid;

	if (pid == getpid()) {
		ft_seterr(err, errlen, "cannot attach to ftrail itself (pid %d)", (int)pid);
		return -1;
	}
	if (kill(pid, 0) && errno == ESRCH) {
		ft_seterr(err, errlen, "no such process: %d", (int)pid);
		return -1;
	}
	tgid = status_field(pid, "Tgid");
	if (tgid > 0 && tgid != pid) {
		ft_seterr(err, errlen, "%d is a thread of process %ld: give the process id",
			  (int)pid, tgid);
		return -1;
	}
	if (status_state(pid) == 'Z') {
		ft_seterr(err, errlen, "process %d has exited (a zombie its parent has not reaped)",
			  (int)pid);
		return -1;
	}
	uid = status_field(pid, "Uid");
	if (uid >= 0 && geteuid() != 0 && (uid_t)uid != geteuid()) {
		struct passwd *pw = getpwuid((uid_t)uid);

		ft_seterr(err, errlen,
			  "process %d belongs to user %s (uid %ld): run ftrail as that user or as "
			  "root",
			  (int)pid, pw ? pw->pw_name : "?", uid);
		return -1;
	}
	tracer = status_field(pid, "TracerPid");
	if (tracer > 0) {
		comm_of((pid_t)tracer, comm, sizeof(comm));
		ft_seterr(err, errlen,
			  "process %d is already traced by process %ld (%s): a process has one "
			  "tracer at a time, detach it first",
			  (int)pid, tracer, comm);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (urec_elf_static(path) == 1) {
		ft_seterr(err, errlen,
			  "process %d is statically linked: it has no dynamic loader to load the "
			  "runtime with; its kernel events can still be recorded (ftrail record -P "
			  "%d -p nop -e SYS:EVENT), or start it under ftrail record -- PROG built "
			  "dynamically",
			  (int)pid, (int)pid);
		return -1;
	}
	return 0;
}

/* The reason PTRACE_SEIZE failed with e. */
static void seize_error(pid_t pid, int e, char *err, size_t errlen)
{
	int scope = yama_scope();

	if (e == ESRCH) {
		ft_seterr(err, errlen, "process %d exited while ftrail attached", (int)pid);
	} else if (e == EPERM && status_field(pid, "TracerPid") > 0) {
		ft_seterr(err, errlen, "process %d is already traced (by another tracer or ftrail)",
			  (int)pid);
	} else if (e == EPERM && scope >= 3) {
		ft_seterr(err, errlen,
			  "ptrace_scope=3 forbids attaching to any process (Yama): it can only be "
			  "lowered by rebooting; start the program under ftrail record -- PROG");
	} else if (e == EPERM && scope == 2) {
		ft_seterr(err, errlen,
			  "ptrace_scope=2 lets only root (CAP_SYS_PTRACE) attach: run ftrail as "
			  "root, or lower it with sysctl kernel.yama.ptrace_scope=1");
	} else if (e == EPERM && scope == 1) {
		ft_seterr(err, errlen,
			  "ptrace_scope=1 lets a process attach to its descendants only (Yama): "
			  "run ftrail as root, or allow it with sysctl kernel.yama.ptrace_scope=0");
	} else if (e == EPERM) {
		ft_seterr(err, errlen,
			  "cannot attach to process %d: %s (setuid or not dumpable? run ftrail as "
			  "root)",
			  (int)pid, strerror(e));
	} else {
		ft_seterr(err, errlen, "cannot attach to process %d: %s", (int)pid, strerror(e));
	}
}

static struct thr *thr_find(struct ft_inject *in, pid_t tid)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->t[i].tid == tid)
			return &in->t[i];
	return NULL;
}

/*
 * Reap the exits of the threads we hold other than t, leaving their stops
 * pending (WNOWAIT looks first).  A thread group leader's exit is reported
 * only once the other threads of its process are reaped, and the ones we
 * hold are ours to reap: waiting for the leader of a process killed while
 * we hold it, without reaping them, waits for ever (the leader a zombie,
 * its threads zombies no one else may reap).
 */
static void reap_others(struct ft_inject *in, const struct thr *t)
{
	for (size_t i = 0; i < in->n; i++) {
		struct thr *o = &in->t[i];
		siginfo_t si;
		int st;

		if (o == t || o->gone)
			continue;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)o->tid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL)) {
			if (errno == ECHILD)
				o->gone = 1;
			continue;
		}
		if (si.si_pid &&
		    (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED ||
		     si.si_code == CLD_DUMPED) &&
		    waitpid(o->tid, &st, __WALL | WNOHANG) == o->tid)
			o->gone = 1;
	}
}

/*
 * Wait for t's next stop and note it.  Returns 1 stopped, 0 gone (the
 * thread or the process exited), -1 on a wait error.  Polls, reaping the
 * other threads' exits in between (a blocking wait for a leader could
 * wait for ever: reap_others), every millisecond once the stop did not
 * come at once; a thread that never stops (uninterruptible sleep) is
 * waited for as long as a blocking wait would.
 */
static int wait_stop(struct ft_inject *in, struct thr *t)
{
	for (unsigned int polls = 0;; polls++) {
		int st;
		pid_t r = waitpid(t->tid, &st, __WALL | WNOHANG);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			t->gone = 1;
			return errno == ECHILD ? 0 : -1;
		}
		if (r == 0) {
			struct timespec ts = { 0, polls < 20 ? 50000 : 1000000 };

			reap_others(in, t);
			nanosleep(&ts, NULL);
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			t->gone = 1;
			return 0;
		}
		if (!WIFSTOPPED(st))
			continue;
		t->stopped = 1;
		if ((st >> 16) == PTRACE_EVENT_STOP ||
		    (st >> 8) == (SIGTRAP | (PTRACE_EVENT_STOP << 8)))
			return 1;
		/* a signal-delivery-stop: keep the signal for the detach */
		if (!t->sig)
			t->sig = WSTOPSIG(st);
		return 1;
	}
}

/* Stop a running thread we hold; 1 stopped, 0 gone. */
static int stop_thread(struct ft_inject *in, struct thr *t)
{
	if (t->gone || t->stopped)
		return !t->gone;
	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0)) {
		t->gone = 1;
		return 0;
	}
	return wait_stop(in, t) == 1;
}

static int thr_add(struct ft_inject *in, pid_t tid)
{
	if (FT_GROW(in->t, in->cap, in->n + 1, 16))
		return -1;
	memset(&in->t[in->n], 0, sizeof(in->t[0]));
	in->t[in->n++].tid = tid;
	return 0;
}

/* One pass over /proc/pid/task: seize what is new.  Returns new threads, or -1. */
static int seize_new(struct ft_inject *in, char *err, size_t errlen)
{
	char path[64];
	struct dirent *de;
	int added = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)in->pid);
	d = opendir(path);
	if (!d) {
		ft_seterr(err, errlen, "process %d exited while ftrail attached", (int)in->pid);
		return -1;
	}
	while ((de = readdir(d))) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || thr_find(in, tid))
			continue;
		if (ptrace(PTRACE_SEIZE, tid, 0, 0)) {
			int e = errno;

			if (e == ESRCH && tid != in->pid)
				continue; /* the thread ended meanwhile */
			closedir(d);
			seize_error(in->pid, e, err, errlen);
			return -1;
		}
		if (thr_add(in, tid)) {
			ptrace(PTRACE_DETACH, tid, 0, 0);
			closedir(d);
			ft_seterr(err, errlen, "out of memory");
			return -1;
		}
		if (ptrace(PTRACE_INTERRUPT, tid, 0, 0))
			in->t[in->n - 1].gone = 1;
		added++;
	}
	closedir(d);
	return added;
}

struct ft_inject *ft_inject_stop(pid_t pid, char *err, size_t errlen)
{
	struct ft_inject *in;
	int r, live = 0;

	if (ft_inject_check(pid, err, errlen))
		return NULL;
	in = calloc(1, sizeof(*in));
	if (!in) {
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	in->pid = pid;
	/* a thread may create another until it is stopped: until a pass finds none */
	do {
		r = seize_new(in, err, errlen);
		if (r < 0) {
			ft_inject_resume(in);
			return NULL;
		}
		for (size_t i = 0; i < in->n; i++)
			if (!in->t[i].stopped && !in->t[i].gone)
				wait_stop(in, &in->t[i]);
	} while (r > 0);
	for (size_t i = 0; i < in->n; i++)
		live += !in->t[i].gone;
	if (!live) {
		ft_seterr(err, errlen, "process %d exited while ftrail attached", (int)pid);
		ft_inject_resume(in);
		return NULL;
	}
	return in;
}

unsigned int ft_inject_nr_threads(const struct ft_inject *in)
{
	unsigned int n = 0;

	for (size_t i = 0; in && i < in->n; i++)
		n += !in->t[i].gone;
	return n;
}

void ft_inject_resume(struct ft_inject *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->n; i++) {
		struct thr *t = &in->t[i];

		/* PTRACE_DETACH wants a stopped tracee */
		if (!t->gone && stop_thread(in, t))
			ptrace(PTRACE_DETACH, t->tid, 0, (void *)(long)t->sig);
	}
	free(in->t);
	free(in);
}

/* ---- symbols ---- */

/*
 * Value of the defined function sym in the ELF file at path (0: none), and
 * where its first PT_LOAD is (*load_vaddr, *load_off).
 */
static uint64_t elf_sym(const char *path, const char *sym, uint64_t *load_vaddr, uint64_t *load_off)
{
	uint64_t v = 0;
	size_t nph;
	Elf_Scn *scn = NULL;
	Elf *e;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		close(fd);
		return 0;
	}
	*load_vaddr = *load_off = 0;
	if (!elf_getphdrnum(e, &nph))
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
				*load_vaddr = ph.p_vaddr;
				*load_off = ph.p_offset;
				break;
			}
		}
	for (int pass = 0; pass < 2 && !v; pass++) {
		scn = NULL;
		while (!v && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_SYMTAB : SHT_DYNSYM) || !sh.sh_entsize)
				continue;
			d = elf_getdata(scn, NULL);
			for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
				GElf_Sym s;
				const char *n;

				if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
				    GELF_ST_TYPE(s.st_info) != STT_FUNC || !s.st_value)
					continue;
				n = elf_strptr(e, sh.sh_link, s.st_name);
				if (n && !strcmp(n, sym)) {
					v = s.st_value;
					break;
				}
			}
		}
	}
	elf_end(e);
	close(fd);
	return v;
}

uint64_t ft_inject_sym(struct ft_inject *in, const char *want, const char *sym)
{
	char path[96], line[4096 + 128], file[4096 + 64];
	struct stat ws;
	int by_inode = strchr(want, '/') != NULL;
	uint64_t r = 0;
	FILE *f;

	if (by_inode && stat(want, &ws))
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)in->pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!r && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned int dmaj, dmin;
		char perms[8], obj[4096];
		const char *base;
		uint64_t vaddr, foff, val;
		int n = 0;

		obj[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &dmaj,
			   &dmin, &ino, &n) < 7 ||
		    !ino || off)
			continue;
		snprintf(obj, sizeof(obj), "%s", line + n);
		obj[strcspn(obj, "\n")] = 0;
		if (obj[0] != '/')
			continue;
		if (by_inode) {
			if (ws.st_ino != ino || (unsigned int)major(ws.st_dev) != dmaj ||
			    (unsigned int)minor(ws.st_dev) != dmin)
				continue;
		} else {
			base = strrchr(obj, '/') + 1;
			if (strncmp(base, want, strlen(want)))
				continue;
		}
		/* the file as the process sees it (its mount namespace) */
		snprintf(file, sizeof(file), "/proc/%d/root%s", (int)in->pid, obj);
		val = elf_sym(file, sym, &vaddr, &foff);
		if (val)
			r = lo - ((vaddr - foff) & ~0xfffull) + val;
	}
	fclose(f);
	return r;
}

int ft_inject_mapped(struct ft_inject *in, const char *prefix, char *out, size_t len)
{
	char path[64], line[4096 + 128];
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)in->pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		char *obj = strchr(line, '/'), *base;

		if (!obj)
			continue;
		obj[strcspn(obj, "\n")] = 0;
		base = strrchr(obj, '/') + 1;
		if (!strncmp(base, prefix, strlen(prefix))) {
			snprintf(out, len, "%s", obj);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

int ft_inject_read(struct ft_inject *in, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, rm = { (void *)addr, len };

	return process_vm_readv(in->pid, &l, 1, &rm, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* ---- the call ---- */

static int poke(pid_t tid, uint64_t addr, const void *buf, size_t len)
{
	struct iovec l = { (void *)buf, len }, rm = { (void *)addr, len };

	if (process_vm_writev(tid, &l, 1, &rm, 1, 0) == (ssize_t)len)
		return 0;
	/* word by word (a kernel without process_vm_writev, or a guard) */
	for (size_t i = 0; i < len; i += sizeof(long)) {
		long w = 0;
		size_t k = len - i < sizeof(long) ? len - i : sizeof(long);

		if (k < sizeof(long)) {
			errno = 0;
			w = ptrace(PTRACE_PEEKDATA, tid, (void *)(addr + i), 0);
			if (errno)
				return -1;
		}
		memcpy(&w, (const char *)buf + i, k);
		if (ptrace(PTRACE_POKEDATA, tid, (void *)(addr + i), (void *)w))
			return -1;
	}
	return 0;
}

/* The thread to run calls in: the main thread when it is there. */
static struct thr *caller(struct ft_inject *in)
{
	struct thr *t = thr_find(in, in->pid);

	if (t && !t->gone)
		return t;
	for (size_t i = 0; i < in->n; i++)
		if (!in->t[i].gone)
			return &in->t[i];
	return NULL;
}

uint64_t ft_inject_caller_pc(struct ft_inject *in)
{
	struct user_regs_struct r;
	struct thr *t = caller(in);

	if (!t || !stop_thread(in, t) || ptrace(PTRACE_GETREGS, t->tid, 0, &r))
		return 0;
	return r.rip;
}

int ft_inject_call(struct ft_inject *in, uint64_t fn, const uint64_t *args, int nargs,
		   const char *str, uint64_t *ret, int timeout_ms, char *err, size_t errlen)
{
	struct user_regs_struct saved, r;
	static unsigned char xs[XSTATE_MAX];
	struct iovec xv = { xs, sizeof(xs) };
	struct thr *t = caller(in);
	uint64_t sp, t0, zero = 0;
	int have_xs, others_run = 0, rc = -1;

	if (!t || !stop_thread(in, t)) {
		ft_seterr(err, errlen, "process %d exited while ftrail attached", (int)in->pid);
		return -1;
	}
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &saved)) {
		ft_seterr(err, errlen, "cannot read the registers of thread %d: %s", (int)t->tid,
			  strerror(errno));
		return -1;
	}
	have_xs = !ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_X86_XSTATE, &xv);
	r = saved;
	/* below the red zone (128 bytes) the thread's stack is free */
	sp = saved.rsp - 256;
	if (str) {
		size_t l = strlen(str) + 1;

		sp = (sp - l) & ~15ull;
		if (poke(t->tid, sp, str, l))
			goto poke_failed;
		r.rdi = sp;
	}
	sp &= ~15ull;
	sp -= 8; /* the return address: 0, whose fetch faults back to us */
	if (poke(t->tid, sp, &zero, 8))
		goto poke_failed;
	r.rsp = sp;
	r.rip = fn;
	if (nargs > 0 && !str)
		r.rdi = args[0];
	if (nargs > 1)
		r.rsi = args[1];
	if (nargs > 2)
		r.rdx = args[2];
	if (nargs > 3)
		r.rcx = args[3];
	if (nargs > 4)
		r.r8 = args[4];
	r.rax = 0;
	r.orig_rax = (unsigned long long)-1; /* no system call to restart on the way out */
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &r) || ptrace(PTRACE_CONT, t->tid, 0, 0)) {
		ft_seterr(err, errlen, "cannot start a call in thread %d: %s", (int)t->tid,
			  strerror(errno));
		goto restore;
	}
	t->stopped = 0;
	t0 = mono_ms();
	for (;;) {
		int st;
		pid_t w = waitpid(t->tid, &st, __WALL | WNOHANG);

		if (w < 0 && errno != EINTR) {
			t->gone = 1;
			ft_seterr(err, errlen, "process %d exited while ftrail attached",
				  (int)in->pid);
			return -1;
		}
		if (w <= 0) {
			uint64_t el = mono_ms() - t0;

			if (!others_run && el > LET_OTHERS_RUN_MS) {
				/* a lock held by a stopped thread? let them go */
				for (size_t i = 0; i < in->n; i++)
					if (&in->t[i] != t && !in->t[i].gone && in->t[i].stopped &&
					    !ptrace(PTRACE_CONT, in->t[i].tid, 0, 0))
						in->t[i].stopped = 0;
				others_run = 1;
			}
			if (el > (uint64_t)timeout_ms) {
				ft_seterr(err, errlen,
					  "process %d did not return from the injected call within "
					  "%d ms",
					  (int)in->pid, timeout_ms);
				stop_thread(in, t);
				goto restore;
			}
			reap_others(in, t); /* killed meanwhile: t's exit comes after theirs */
			usleep(500);
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			t->gone = 1;
			ft_seterr(err, errlen, "process %d exited while ftrail attached",
				  (int)in->pid);
			return -1;
		}
		if (!WIFSTOPPED(st))
			continue;
		if ((st >> 16) == PTRACE_EVENT_STOP) {
			ptrace(PTRACE_CONT, t->tid, 0, 0); /* our interrupt, or a group stop */
			continue;
		}
		if (WSTOPSIG(st) == SIGSEGV) {
			struct user_regs_struct now;

			t->stopped = 1;
			if (!ptrace(PTRACE_GETREGS, t->tid, 0, &now) && now.rip == 0) {
				*ret = now.rax;
				rc = 0;
			} else {
				ft_seterr(err, errlen,
					  "the injected call crashed in process %d (SIGSEGV at "
					  "%#llx)",
					  (int)in->pid, (unsigned long long)now.rip);
			}
			break;
		}
		/* the program's own signal: handed back at detach (one kept, others now) */
		if (!t->sig) {
			t->sig = WSTOPSIG(st);
			ptrace(PTRACE_CONT, t->tid, 0, 0);
		} else {
			ptrace(PTRACE_CONT, t->tid, 0, (void *)(long)WSTOPSIG(st));
		}
	}
restore:
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &saved) ||
	    (have_xs && ptrace(PTRACE_SETREGSET, t->tid, (void *)NT_X86_XSTATE, &xv))) {
		ft_seterr(err, errlen, "cannot restore the registers of thread %d: %s", (int)t->tid,
			  strerror(errno));
		return -1;
	}
	return rc;
poke_failed:
	ft_seterr(err, errlen, "cannot write to the stack of thread %d: %s", (int)t->tid,
		  strerror(errno));
	return -1;
}
