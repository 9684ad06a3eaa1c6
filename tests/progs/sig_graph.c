// SPDX-License-Identifier: GPL-2.0
/*
 * Signal handlers in the graph (t0434): ./sig_graph MODE
 *   n  nest(): SIGUSR1's handler raises SIGUSR2 (level 2), then a
 *      SA_NODEFER handler raises its own signal once more (level 2 too)
 *   i  info(): a SA_SIGINFO handler gets sigqueue()'s value and a context
 *   a  the program's view of its actions: oldact gives back the handler
 *      and flags it set (SA_SIGINFO or not), signal() the previous
 *      handler, SA_RESETHAND resets to SIG_DFL; SIG_IGN and SIG_DFL reach
 *      the kernel untouched (read back with the raw system call)
 *   j  jump(): the handler leaves through siglongjmp
 *   t  two threads, each raising SIGUSR1 at itself from tfunc()
 * Prints "ok" when every check of the mode held, exits 1 otherwise.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static volatile int sink, bad;
static sigjmp_buf env;

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "check failed, line %d: %s\n", __LINE__, #c);              \
			bad = 1;                                                                   \
		}                                                                                  \
	} while (0)

NOINLINE void inner(int s)
{
	sink += s;
}

NOINLINE void on_usr2(int s)
{
	inner(s);
}

NOINLINE void on_usr1(int s)
{
	inner(s);
	raise(SIGUSR2);
}

static volatile int again;

NOINLINE void on_self(int s)
{
	inner(s);
	if (!again++)
		raise(s);
}

NOINLINE void nest(void)
{
	raise(SIGUSR1);
}

NOINLINE void self_nest(void)
{
	raise(SIGHUP);
}

static volatile int got_value;

NOINLINE void on_info(int s, siginfo_t *si, void *uc)
{
	inner(s);
	got_value = si && si->si_signo == s && uc ? si->si_value.sival_int : -1;
}

NOINLINE void info(void)
{
	union sigval v = { .sival_int = 42 };

	sigqueue(getpid(), SIGUSR1, v);
}

NOINLINE void on_jump(int s)
{
	inner(s);
	siglongjmp(env, 1);
}

NOINLINE void jump(void)
{
	if (!sigsetjmp(env, 1))
		raise(SIGUSR1);
	sink++;
}

NOINLINE void *tfunc(void *arg)
{
	(void)arg;
	pthread_kill(pthread_self(), SIGUSR1);
	return NULL;
}

/* The kernel's own action for sig (past any wrapper). */
static void kernel_action(int sig, void **handler)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} k;

	memset(&k, 0, sizeof(k));
	syscall(SYS_rt_sigaction, sig, NULL, &k, 8);
	*handler = k.handler;
}

static void actions(void)
{
	struct sigaction sa, old;
	void *kh;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_RESTART;
	sigaddset(&sa.sa_mask, SIGINT);
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	CHECK(sigaction(SIGUSR2, NULL, &old) == 0);
	CHECK(old.sa_handler == on_usr2);
	CHECK(!(old.sa_flags & SA_SIGINFO));
	CHECK(old.sa_flags & SA_RESTART);
	CHECK(sigismember(&old.sa_mask, SIGINT) == 1);
	/* a SA_SIGINFO handler comes back as one, then signal() returns it */
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_info;
	sa.sa_flags = SA_SIGINFO;
	CHECK(sigaction(SIGUSR2, &sa, &old) == 0);
	CHECK(old.sa_handler == on_usr2);
	CHECK(sigaction(SIGUSR2, NULL, &old) == 0);
	CHECK(old.sa_sigaction == on_info && (old.sa_flags & SA_SIGINFO));
	CHECK((void *)signal(SIGUSR2, on_usr1) == (void *)on_info);
	CHECK(signal(SIGUSR2, SIG_DFL) == on_usr1);
	/* SIG_IGN and SIG_DFL reach the kernel as they are */
	CHECK(signal(SIGUSR2, SIG_IGN) == SIG_DFL);
	kernel_action(SIGUSR2, &kh);
	CHECK(kh == (void *)SIG_IGN);
	raise(SIGUSR2); /* ignored */
	CHECK(signal(SIGUSR2, SIG_IGN) == SIG_IGN);
	/* SA_RESETHAND: SIG_DFL again after one delivery */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_RESETHAND;
	CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
	raise(SIGUSR2);
	CHECK(sigaction(SIGUSR2, NULL, &old) == 0);
	CHECK(old.sa_handler == SIG_DFL);
	kernel_action(SIGUSR2, &kh);
	CHECK(kh == (void *)SIG_DFL);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t th[2];

	if (argc < 2)
		return 2;
	memset(&sa, 0, sizeof(sa));
	switch (argv[1][0]) {
	case 'n':
		signal(SIGUSR1, on_usr1);
		signal(SIGUSR2, on_usr2);
		nest();
		sa.sa_handler = on_self;
		sa.sa_flags = SA_NODEFER;
		sigaction(SIGHUP, &sa, NULL);
		self_nest();
		CHECK(sink == SIGUSR1 + SIGUSR2 + 2 * SIGHUP);
		break;
	case 'i':
		sa.sa_sigaction = on_info;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGUSR1, &sa, NULL);
		info();
		CHECK(got_value == 42);
		break;
	case 'a':
		actions();
		break;
	case 'j':
		signal(SIGUSR1, on_jump);
		jump();
		jump();
		CHECK(sink == 2 * SIGUSR1 + 2);
		break;
	case 't':
		signal(SIGUSR1, on_usr2);
		for (int i = 0; i < 2; i++)
			pthread_create(&th[i], NULL, tfunc, NULL);
		for (int i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		CHECK(sink == 2 * SIGUSR1);
		break;
	default:
		return 2;
	}
	puts(bad ? "bad" : "ok");
	return bad;
}
