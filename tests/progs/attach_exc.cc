/*
 * A running C++ program that throws through its own functions (t0352):
 * thrower() throws on odd numbers, through middle(), caught in outer().
 * Traced, their return addresses are hijacked; an exception must still
 * find its way (the unwinder's entry points put them back first).  Loops
 * until STOPFILE appears, then prints its counts; exit 1 on any wrong one.
 *
 *   attach_exc STOPFILE
 */
#include <cstdio>
#include <stdexcept>
#include <time.h>
#include <unistd.h>

static long caught, bad, rounds;

__attribute__((noinline)) void thrower(long i)
{
	if (i % 2)
		throw std::runtime_error("odd");
}

__attribute__((noinline)) long middle(long i)
{
	thrower(i);
	return i * 2; /* not reached for odd i */
}

__attribute__((noinline)) int outer(long i)
{
	try {
		if (middle(i) != i * 2)
			bad++;
	} catch (const std::exception &) {
		caught++;
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec ts = { 0, 1000 * 1000 };

	if (argc < 2)
		return 2;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (access(argv[1], F_OK)) {
		if (outer(rounds) != (int)(rounds % 2))
			bad++;
		rounds++;
		nanosleep(&ts, NULL);
	}
	printf("rounds=%ld caught=%ld bad=%ld\n", rounds, caught, bad);
	return bad || caught != rounds / 2 ? 1 : 0;
}
