// SPDX-License-Identifier: GPL-2.0
/*
 * The recording session shared by `ftrail record` and `ftrail offcpu
 * --record` (see record_session.h for the order and why it matters).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "kernel/kcapture.h"
#include "core/options.h"
#include "recorder/inject.h"
#include "recorder/record_session.h"
#include "core/session.h"
#include "core/tracefile.h"
#include "recorder/uevent_setup.h"
#include "recorder/urecord.h"
#include "core/util.h"
#include "core/version.h"

/*
 * Stop signals (record_session.h): SIGINT, SIGTERM and SIGHUP.
 *
 * With a program: each one is forwarded to it, unless the terminal sent it
 * (si_code SI_KERNEL: Ctrl-C and a terminal hangup go to the whole foreground
 * process group, the program included) or the program itself did (kill(0,
 * ...)), so the program sees the signal exactly once.  Recording goes on
 * while the program winds down; at a second signal, or STOP_GRACE_S seconds
 * after the first (SIGALRM), the drain loop is told to stop.  Without one,
 * the first signal stops the recording.
 *
 * Handlers may run on any of our threads; they only store these flags,
 * call kill() and alarm() (async-signal-safe) and keep errno.
 */
#define STOP_GRACE_S 2

static volatile sig_atomic_t stop_now;	  /* read by the drain loop and the wait below */
static volatile sig_atomic_t stop_signo;  /* the first stop signal received, 0: none */
static volatile sig_atomic_t forward_pid; /* the program (spawned by us), 0: none yet */

static void on_stop_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	pid_t pid = forward_pid;

	(void)uc;
	if (pid > 0 && si->si_code != SI_KERNEL && si->si_pid != pid)
		kill(pid, sig);
	if (!stop_signo && pid > 0) {
		stop_signo = sig;
		alarm(STOP_GRACE_S);
	} else {
		if (!stop_signo)
			stop_signo = sig;
		stop_now = 1;
	}
	errno = saved;
}

static void on_grace_over(int sig)
{
	(void)sig;
	stop_now = 1;
}

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_STOP_SIGNALS (sizeof(stop_signals) / sizeof(stop_signals[0]))

/*
 * Catch the stop signals (and SIGALRM for the grace period), saving what
 * was there into old[] to put back.  SIGINT and SIGTERM are caught even
 * when we were started with them ignored (a background job of a
 * non-interactive shell ignores SIGINT, yet `kill -INT` is how scripts
 * stop a recording, as with perf and trace-cmd); SIGHUP ignored (nohup)
 * stays ignored.  *ign gets the ones we were started with ignored: the
 * program starts with them ignored too, as it would without us.
 */
static void catch_stop_signals(struct sigaction old[NR_STOP_SIGNALS + 1], sigset_t *ign)
{
	struct sigaction sa;

	stop_now = stop_signo = forward_pid = 0;
	sigemptyset(ign);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NR_STOP_SIGNALS; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sa.sa_sigaction = on_stop_signal;
	for (size_t i = 0; i < NR_STOP_SIGNALS; i++) {
		sigaction(stop_signals[i], NULL, &old[i]);
		if (old[i].sa_handler == SIG_IGN)
			sigaddset(ign, stop_signals[i]);
		if (old[i].sa_handler != SIG_IGN || stop_signals[i] != SIGHUP)
			sigaction(stop_signals[i], &sa, NULL);
	}
	sa.sa_flags = SA_RESTART;
	sa.sa_handler = on_grace_over;
	sigaction(SIGALRM, &sa, &old[NR_STOP_SIGNALS]);
}

static void restore_stop_signals(const struct sigaction old[NR_STOP_SIGNALS + 1])
{
	alarm(0);
	for (size_t i = 0; i < NR_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &old[i], NULL);
	sigaction(SIGALRM, &old[NR_STOP_SIGNALS], NULL);
	forward_pid = 0;
}

/*
 * Append to buf[size] at *n, snprintf-style, never past size - 1: a
 * truncated append leaves *n at size - 1 so later appends are no-ops
 * instead of writing beyond the buffer.
 */
static void __attribute__((format(printf, 4, 5)))
meta_add(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (*n + 1 >= size)
		return;
	va_start(ap, fmt);
	r = vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	*n += (size_t)r < size - *n ? (size_t)r : size - *n - 1;
}

/*
 * META: what a reader needs to know about how this trace was made.  The
 * command line is cut so that at least 512 bytes stay for the clock lines,
 * which the reader needs to convert timestamps.  Returns 0, or -1 (errno).
 */
static int write_meta(struct ft_writer *w, const struct ft_record_opts *o, const char *extra,
		      int argc, char **argv, const struct ft_clock *clk)
{
	char buf[8192], host[256] = "";
	struct utsname u;
	size_t n = 0;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	meta_add(buf, sizeof(buf), &n, "ftrail_version=%s\n", FTRAIL_VERSION);
	meta_add(buf, sizeof(buf), &n, "tracer=%s\n", o->tracer);
	meta_add(buf, sizeof(buf), &n, "options=%s\n", ft_options_format(o->options));
	meta_add(buf, sizeof(buf), &n, "hostname=%s\nkernel=%s\narch=%s\n", host, u.release,
		 u.machine);
	meta_add(buf, sizeof(buf), &n, "nr_cpus=%ld\n", sysconf(_SC_NPROCESSORS_CONF));
	meta_add(buf, sizeof(buf), &n, "start_time=%lld\n", (long long)time(NULL));
	if (extra)
		meta_add(buf, sizeof(buf) - 512, &n, "%s", extra);
	meta_add(buf, sizeof(buf) - 512, &n, "cmdline=ftrail");
	for (int i = 0; i < argc; i++)
		meta_add(buf, sizeof(buf) - 512, &n, " %s", argv[i]);
	meta_add(buf, sizeof(buf), &n, "\n");
	n += (size_t)ft_clock_meta(clk, buf + n, (int)(sizeof(buf) - n));
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	return ft_writer_add(w, FT_SEC_META, 0, buf, n, 0);
}

/* The capture specs, for readers to name and type captured values. */
static int write_argspec(struct ft_writer *w, const struct ft_record_opts *o)
{
	size_t n = 0, pos = 0;
	char *buf;
	int r;

	if (!o->argspec.n)
		return 0;
	for (size_t i = 0; i < o->argspec.n; i++)
		n += strlen(o->argspec.v[i]) + 1;
	buf = malloc(n);
	if (!buf)
		return -1;
	for (size_t i = 0; i < o->argspec.n; i++) {
		size_t l = strlen(o->argspec.v[i]);

		memcpy(buf + pos, o->argspec.v[i], l);
		pos += l;
		buf[pos++] = '\n';
	}
	r = ft_writer_add(w, FT_SEC_ARGSPEC, 0, buf, n, 1);
	free(buf);
	return r;
}

/* What a streamed recording's watermark needs: user event formats, the kernel's. */
struct stream_sync {
	struct ft_uev_area *uev;
	struct ft_kcapture *kc;
};

static int sync_stream(struct ft_writer *w, void *arg, uint64_t *wm)
{
	struct stream_sync *ss = arg;
	int r = 0;

	if (ss->kc) {
		uint64_t k;

		/* a session made live later streams from now on (ft_kcapture_follow) */
		ft_kcapture_follow(ss->kc);
		k = ft_kcapture_watermark(ss->kc);

		if (k < *wm)
			*wm = k;
		r |= ft_kcapture_sync_names(ss->kc);
	}
	return r | (ss->uev ? ft_uev_sync(ss->uev, w) : 0);
}

/* A flight recorder's trigger: the kernel's side of snapshot snap. */
static int flight_kdump(void *arg, unsigned int snap, char *err, size_t errlen)
{
	return ft_kcapture_dump(arg, snap, err, errlen);
}

static void print_urecord_warnings(struct ft_urecord *u)
{
	const char *m;

	while ((m = ft_urecord_next_warning(u)))
		ft_warn("%s", m);
}

/*
 * Say how the program ended and return the command's exit status: the
 * program's, 128+N when signal N killed it (as time, strace and valgrind
 * report it), or 128+N for the stop signal N that ended the recording
 * while the program runs on.
 */
static int report_program(const struct ft_record_opts *o, const struct ft_urecord_result *r,
			  pid_t pid, int stop_sig, const char *output)
{
	if (r->signaled) {
		ft_warn("%s was killed by signal %d (%s)%s; events written before it are in %s",
			o->argv[0], r->signo, strsignal(r->signo),
			r->core_dumped ? ", core dumped" : "", output);
		return 128 + r->signo;
	}
	if (r->exited) {
		if (r->exit_status && !o->quiet)
			ft_warn("%s exited with status %d", o->argv[0], r->exit_status);
		return r->exit_status;
	}
	if (!stop_sig) {
		/* --duration ran out: the recording is complete, as asked */
		if (!o->quiet)
			ft_warn("recorded for --duration; %s (pid %d) runs on, untraced",
				o->argv[0], (int)pid);
		return 0;
	}
	ft_warn("stopped by signal %d (%s); %s (pid %d) runs on, untraced", stop_sig,
		strsignal(stop_sig), o->argv[0], (int)pid);
	return 128 + stop_sig;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Has the followed process gone? */
static int process_gone(pid_t pid)
{
	return kill(pid, 0) && errno == ESRCH;
}

int ft_record_session(const struct ft_record_opts *o, const struct ft_record_extra *extra, int argc,
		      char **argv, char *err, size_t errlen)
{
	static const struct ft_record_extra none;
	const struct ft_record_extra *x = extra ? extra : &none;
	struct ft_urecord_result ures = { 0 };
	struct stream_sync ss;
	struct ft_kcapture_stats kst = { 0 };
	struct ft_kcapture *kc = NULL;
	struct ft_uev_area *uev; /* user events and markers, NULL without the runtime */
	struct ft_urecord *u = NULL;
	struct ft_writer *w;
	struct ft_clock clk;
	struct sigaction old_sa[NR_STOP_SIGNALS + 1];
	sigset_t ignored;
	char msg[512] = "";
	int want_kernel = 0, want_user_events = 0, inject, status = 0, caught = 0;
	pid_t pid = o->argv ? 0 : o->attach_pid ? o->attach_pid : x->follow_pid;
	uint64_t t0 = 0;

	if ((o->argv != NULL) + (o->attach_pid > 0) + (x->follow_pid > 0) > 1) {
		ft_seterr(err, errlen, "give a program or a process to follow, not both");
		return -1;
	}
	if (o->attach_pid && kill(o->attach_pid, 0) && errno == ESRCH) {
		ft_seterr(err, errlen, "no such process: %d", (int)o->attach_pid);
		return -1;
	}
	for (size_t i = 0; i < o->nr_events; i++)
		if (ft_kcapture_is_kernel_event(o->events[i].name))
			want_kernel = 1;
		else
			want_user_events = 1;
	if (want_kernel && ft_kcapture_available(err, errlen))
		return -1;
	/*
	 * The runtime goes in for function tracers, for user events (u:...),
	 * and for the user stacks the kernel takes (userstacktrace): under nop
	 * it hooks nothing, but publishes the program's modules, without which
	 * those stacks could not be symbolised.  A live session (--mount)
	 * always has it: its tree changes the tracer and the events later.
	 */
	inject = (strcmp(o->tracer, "nop") && !ft_tracer_is_kernel(o->tracer)) ||
		 want_user_events || (want_kernel && (o->options & FT_OPT(USERSTACKTRACE))) ||
		 o->live;
	/* -P: what is known against the process, before anything is created */
	if (o->attach_pid && inject && ft_inject_check(o->attach_pid, err, errlen))
		return -1;
	uev = ft_uev_setup(o, ft_kcapture_is_kernel_event, inject, err, errlen);
	if (!uev && err[0])
		return -1;

	ft_clock_calibrate(&clk);
	w = ft_writer_open(o->output, 3, err, errlen);
	if (!w)
		goto fail_uev;
	if (ft_writer_replaced_stale(w))
		ft_warn("replaced %s, the partial trace of an earlier run that was killed",
			ft_writer_partial_path(w));
	if (write_meta(w, o, x->meta, argc, argv, &clk) || write_argspec(w, o)) {
		ft_seterr(err, errlen, "cannot write %s: %s", ft_writer_partial_path(w),
			  strerror(errno));
		goto fail_file;
	}
	if (x->opened && x->opened(ft_writer_partial_path(w), x->opened_arg, err, errlen))
		goto fail_file;

	catch_stop_signals(old_sa, &ignored);
	caught = 1;

	if (o->argv) {
		u = ft_urecord_create(o, inject, err, errlen);
		if (!u || ft_urecord_spawn(u, &ignored, &pid, err, errlen))
			goto fail_file;
		/*
		 * Its warnings wait for "go": a kernel setup that fails below
		 * ends the command with that one error line, not after them.
		 *
		 * From now on stop signals reach the program (paused until go:
		 * it has the default actions already, see ft_urecord_spawn).
		 * One that came during the setup is passed on now.
		 */
		forward_pid = pid;
		if (stop_signo)
			kill(pid, stop_signo);
	} else if (o->attach_pid && inject) {
		/* attached at "go" below, once kernel capture follows its threads */
		u = ft_urecord_create(o, inject, err, errlen);
		if (!u)
			goto fail_file;
		print_urecord_warnings(u);
	}
	if (want_kernel) {
		/* a followed process: system-wide (see record_session.h) */
		kc = ft_kcapture_start(o, w, o->all_cpus || (!u && !o->attach_pid) ? 0 : pid, err,
				       errlen);
		if (!kc)
			goto fail_file;
	}
	if (pid > 0 && x->attached &&
	    x->attached(w, o->output, pid, u != NULL, x->arg, err, errlen))
		goto fail_capture;

	if (u && o->attach_pid) {
		if (ft_urecord_attach(u, err, errlen)) {
			print_urecord_warnings(u);
			goto fail_capture; /* nothing recorded: the old file stays */
		}
		if (!o->quiet)
			fprintf(stderr, "ftrail: attached to %s, Ctrl-C to stop\n",
				ft_urecord_name(u));
	} else if (u) {
		print_urecord_warnings(u);
		ft_urecord_go(u);
	}
	ss.uev = uev;
	ss.kc = kc;
	if (u && kc && o->flight)
		ft_urecord_set_flight_kdump(u, flight_kdump, kc);
	/* also without --mount: `ftrail mount` may make the session live later */
	if (u && !o->flight)
		ft_urecord_set_stream_sync(u, sync_stream, &ss);
	if (u) {
		if (ft_urecord_run(u, w, &stop_now, &ures, msg, sizeof(msg))) {
			print_urecord_warnings(u);
			ft_seterr(err, errlen, "%s", msg);
			if (ures.not_run)
				goto fail_capture; /* nothing recorded: the old file stays */
			goto fail_kept;
		}
		print_urecord_warnings(u);
	} else {
		if (!o->quiet && !x->waiting && o->attach_pid)
			fprintf(stderr,
				"ftrail: recording kernel events of process %d, Ctrl-C to stop\n",
				(int)o->attach_pid);
		else if (!o->quiet)
			fprintf(stderr, "ftrail: recording %s, Ctrl-C to stop\n",
				x->waiting ? x->waiting : "kernel events");
		/*
		 * Polled rather than pause(): a signal between the test and
		 * pause() would be missed; a followed process ends it too.
		 */
		t0 = mono_ms();
		while (!stop_now && !(pid > 0 && process_gone(pid)) &&
		       !(o->duration_ms && mono_ms() - t0 >= o->duration_ms))
			usleep(o->duration_ms && o->duration_ms < 1000 ? 10 * 1000 : 100 * 1000);
	}

	if (kc && ft_kcapture_stop(kc, &kst, msg, sizeof(msg)))
		ft_warn("%s", msg);
	if (kc && kst.map_full[0])
		ft_warn("%s", kst.map_full);
	kc = NULL;
	msg[0] = 0;
	if (uev && ft_uev_finish(uev, w, NULL, msg, sizeof(msg)))
		ft_warn("cannot write the user event formats: %s", strerror(errno));
	for (char *l = uev ? strtok(msg, "\n") : NULL; l; l = strtok(NULL, "\n"))
		ft_warn("%s", l);
	uev = NULL;
	if (ft_writer_close(w, err, errlen)) {
		if (u)
			ft_urecord_destroy(u);
		restore_stop_signals(old_sa);
		return -1;
	}
	if (u && ures.attached) {
		if (ures.target_exited)
			ft_warn("%s exited while traced; what it recorded until then is in %s",
				ft_urecord_name(u), o->output);
		else if (!o->quiet)
			fprintf(stderr,
				"ftrail: detached from %s, which runs on untraced (attach %.1f ms, "
				"detach %.1f ms)\n",
				ft_urecord_name(u), ures.attach_ns / 1e6, ures.detach_ns / 1e6);
		ft_urecord_destroy(u);
	} else if (u) {
		status = report_program(o, &ures, pid, stop_signo,
					x->output_name ? x->output_name : o->output);
		ft_urecord_destroy(u); /* a program still running detaches now */
	}
	restore_stop_signals(old_sa);
	if (u && inject && o->flight && ures.snap_evicted)
		ft_warn("flight recorder: %llu pages of exited threads were dropped to bound "
			"its memory (the oldest threads' first)",
			(unsigned long long)ures.snap_evicted);
	if (!o->quiet) {
		if (u && inject && o->flight)
			fprintf(stderr,
				"ftrail: flight recorder: %u snapshot(s) written, %llu records in "
				"all (show --snapshot[=N] reads them)\n",
				ures.snapshots, (unsigned long long)ures.snap_events);
		else if (u && inject)
			fprintf(stderr, "ftrail: %llu user records (%llu lost) from %u thread%s\n",
				(unsigned long long)ures.events, (unsigned long long)ures.lost,
				ures.threads, ures.threads == 1 ? "" : "s");
		if (u && inject && ures.mode)
			fprintf(stderr,
				"ftrail: buffers: %s mode, %u KiB per thread, %.1f MiB shared memory "
				"at most (of %.0f MiB); threads waited for the recorder %llu time%s, "
				"%.3f s in all\n",
				ures.mode, ures.buffer_kb, ures.peak_bytes / 1048576.0,
				ures.size_bytes / 1048576.0, (unsigned long long)ures.block_waits,
				ures.block_waits == 1 ? "" : "s", ures.block_wait_ns / 1e9);
		if (want_kernel)
			fprintf(stderr, "ftrail: %llu kernel events (%llu lost), %llu stacks\n",
				(unsigned long long)kst.events, (unsigned long long)kst.lost,
				(unsigned long long)kst.stacks);
		fprintf(stderr, "ftrail: trace written to %s\n",
			x->output_name ? x->output_name : o->output);
	}
	return status;

fail_kept:
	/* something was recorded: kept under its partial name, the old file untouched */
	if (kc)
		ft_kcapture_stop(kc, &kst, msg, sizeof(msg));
	ft_warn("the partial trace is kept in %s; %s is unchanged", ft_writer_partial_path(w),
		o->output);
	ft_urecord_destroy(u);
	restore_stop_signals(old_sa);
	ft_writer_abort(w, 1);
	if (uev)
		ft_uev_finish(uev, NULL, NULL, NULL, 0);
	return -1;
fail_capture:
	if (kc)
		ft_kcapture_stop(kc, &kst, msg, sizeof(msg));
fail_file:
	if (u)
		ft_urecord_destroy(u); /* kills the paused child */
	if (caught)
		restore_stop_signals(old_sa);
	/* nothing was recorded yet: the previous file stays as it was */
	ft_writer_abort(w, 0);
fail_uev:
	if (uev)
		ft_uev_finish(uev, NULL, NULL, NULL, 0);
	return -1;
}
