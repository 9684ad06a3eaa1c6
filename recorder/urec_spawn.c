// SPDX-License-Identifier: GPL-2.0
/*
 * Starting the traced program (urecord.h): fork a child that waits on the
 * "go" pipe, then execs the program with the runtime preloaded and the
 * session's memfd inherited (see urecord.c for the whole recorder).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "core/lifeline.h"
#include "core/options.h"
#include "core/session.h"
#include "recorder/urec_int.h"
#include "recorder/urecord.h"

extern char **environ;

/*
 * The child's environment: ours, with LD_PRELOAD and FTRAIL_SHM_FD set,
 * and LD_BIND_NOW=1 when library calls are traced (option libcall): the
 * runtime hooks a library call by rewriting its GOT slot (runtime/plt.c),
 * and a lazily bound slot would be written over by the loader's resolver
 * at the first call; bound at load, every slot holds its target when the
 * runtime hooks it, dlopen()ed objects included (LD_BIND_NOW overrides
 * RTLD_LAZY).  Resolution is the loader's own, only earlier.
 */
static char **child_env(struct ft_urecord *u)
{
	size_t n = 0, k = 0;
	char **env;
	const char *old = getenv("LD_PRELOAD");
	char *pre, *fdv;

	while (environ[n])
		n++;
	env = calloc(n + 5, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if ((u->inject && !strncmp(environ[i], "LD_PRELOAD=", 11)) ||
		    !strncmp(environ[i], FT_SESSION_ENV_FD "=", strlen(FT_SESSION_ENV_FD) + 1) ||
		    !strncmp(environ[i], FT_LIFELINE_ENV_FD "=", strlen(FT_LIFELINE_ENV_FD) + 1))
			continue;
		env[k++] = environ[i];
	}
	if (u->inject) {
		if (asprintf(&pre, "LD_PRELOAD=%s%s%s", u->lib, old && *old ? ":" : "",
			     old && *old ? old : "") < 0 ||
		    asprintf(&fdv, "%s=%d", FT_SESSION_ENV_FD, u->memfd) < 0) {
			free(env);
			return NULL;
		}
		env[k++] = pre;
		env[k++] = fdv;
		if (u->life.fd >= 0) {
			if (asprintf(&env[k], "%s=%d", FT_LIFELINE_ENV_FD, u->life.fd) < 0) {
				free(pre);
				free(fdv);
				free(env);
				return NULL;
			}
			k++;
		}
		if ((u->o->options & FT_OPT(LIBCALL)) && !getenv("LD_BIND_NOW"))
			env[k++] = "LD_BIND_NOW=1";
	}
	env[k] = NULL;
	return env;
}

static void free_child_env(struct ft_urecord *u, char **env)
{
	if (!env)
		return;
	if (u->inject) {
		for (size_t i = 0; env[i]; i++)
			if (!strncmp(env[i], "LD_PRELOAD=", 11) ||
			    !strncmp(env[i], FT_SESSION_ENV_FD "=",
				     strlen(FT_SESSION_ENV_FD) + 1) ||
			    !strncmp(env[i], FT_LIFELINE_ENV_FD "=",
				     strlen(FT_LIFELINE_ENV_FD) + 1))
				free(env[i]);
	}
	free(env);
}

/* Does one line of l select functions (not a '!' removal)? */
static int strv_selects(const struct ft_strv *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i][strspn(l->v[i], " \t")] != '!')
			return 1;
	return 0;
}

int urec_noinstr_say(struct ft_urecord *u, const char *name)
{
	const struct ft_record_opts *o = u->o;
	int l = strv_selects(&o->filter), g = strv_selects(&o->graph);

	if (!strcmp(o->tracer, "nop") || ft_tracer_is_kernel(o->tracer) || o->patch.n ||
	    !(l || g) || urec_elf_instrumented(u->prog) != 0)
		return 0;
	/* the runtime gives the count and the refusals (runtime/dynpatch.c, by_filter) */
	u->said_noinstr = 1;
	urec_warn(u, "%s has no instrumentation: patching the functions %s%s%s selects (--patch)",
		  name, l ? "-l" : "", l && g ? " and " : "", g ? "-g" : "");
	return 1;
}

int ft_urecord_spawn(struct ft_urecord *u, const sigset_t *ignore, pid_t *pid, char *err,
		     size_t errlen)
{
	sigset_t all, mask;
	int go[2], ep[2];
	char **env;
	pid_t c;

	if (u->inject && urec_elf_static(u->prog) == 1) {
		u->said_static = 1;
		urec_warn(u,
			  "%s is statically linked: the runtime cannot be preloaded into it, "
			  "nothing of it will be traced (link it dynamically)",
			  u->o->argv[0]);
	} else if (u->inject && strcmp(u->o->tracer, "nop") && !ft_tracer_is_kernel(u->o->tracer)) {
		/* -l / -g stand for a --patch not given; else the runtime says */
		if (!urec_noinstr_say(u, u->o->argv[0]) && !u->o->patch.n &&
		    urec_elf_instrumented(u->prog) == 0) {
			u->said_noinstr = 1;
			urec_warn(
				u,
				"%s has no instrumentation ftrail can hook: compile it with -pg, "
				"-pg -mfentry, -mfentry -mnop-mcount, -fpatchable-function-entry=5 "
				"or -finstrument-functions, or patch its functions (-l GLOB)",
				u->o->argv[0]);
		}
	}
	env = child_env(u);
	if (!env) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (pipe2(go, O_CLOEXEC)) {
		free_child_env(u, env);
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(ep, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		free_child_env(u, env);
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	/*
	 * Every descendant (daemonised grandchildren too) is re-parented to
	 * us, so waitpid(-1) tells when the whole traced tree is gone.
	 */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* no handler of ours may run in the child: signals wait until it reset them */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &mask);
	c = fork();
	if (c != 0)
		pthread_sigmask(SIG_SETMASK, &mask, NULL);
	if (c < 0) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		close(go[0]);
		close(go[1]);
		close(ep[0]);
		close(ep[1]);
		free_child_env(u, env);
		return -1;
	}
	if (c == 0) {
		/* child: only async-signal-safe calls from here on */
		char b;
		int e;

		ssize_t n;

		/*
		 * The dispositions exec would leave (caught -> default, ignored
		 * stays ignored; ignore: back to ignored), now: a signal that
		 * reaches the child while it waits for go acts on it as it
		 * would on the program (record forwards stop signals to it
		 * from the start).
		 */
		for (int s = 1; s < NSIG; s++) {
			struct sigaction sa;

			if (sigaction(s, NULL, &sa) || sa.sa_handler == SIG_IGN ||
			    sa.sa_handler == SIG_DFL)
				continue;
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = ignore && sigismember(ignore, s) == 1 ? SIG_IGN : SIG_DFL;
			sigaction(s, &sa, NULL);
		}
		pthread_sigmask(SIG_SETMASK, &mask, NULL);
		close(go[1]);
		close(ep[0]);
		do
			n = read(go[0], &b, 1);
		while (n < 0 && errno == EINTR);
		/* EOF without the byte: the recorder gave up (destroy) */
		if (n != 1 || b != 'g')
			_exit(127);
		if (u->inject && fcntl(u->memfd, F_SETFD, 0))
			_exit(127);
		if (u->life.fd >= 0 && fcntl(u->life.fd, F_SETFD, 0))
			_exit(127);
		execve(u->prog, u->o->argv, env);
		e = errno;
		while (write(ep[1], &e, sizeof(e)) < 0 && errno == EINTR)
			;
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	free_child_env(u, env);
	u->go_fd = go[1];
	u->err_fd = ep[0];
	u->pid = c;
	*pid = c;
	return 0;
}

int ft_urecord_go(struct ft_urecord *u)
{
	struct timespec now = { 0, 0 };
	sigset_t pipe_sig, mask;
	char b = 'g';
	ssize_t n;

	if (u->go_fd < 0)
		return -1;
	/*
	 * The child may be dead already (a signal while it waited): EPIPE,
	 * and the SIGPIPE that comes with it is taken here, not by us.
	 */
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_sig, &mask);
	do
		n = write(u->go_fd, &b, 1);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EPIPE && !sigismember(&mask, SIGPIPE))
		sigtimedwait(&pipe_sig, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &mask, NULL);
	close(u->go_fd);
	u->go_fd = -1;
	u->went = 1;
	return n == 1 ? 0 : -1;
}
