// SPDX-License-Identifier: GPL-2.0
// C++ exceptions thrown through traced frames, caught two levels up, and a
// rethrow; tracing must go on normally afterwards.
#include <cstdio>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void thrower(int x)
{
	if (x > 0)
		throw std::runtime_error("boom");
	sink++;
}

NOINLINE void middle(int x)
{
	thrower(x);
	sink++;
}

NOINLINE void rethrower(int x)
{
	try {
		middle(x);
	} catch (...) {
		sink++;
		throw;
	}
}

NOINLINE int catcher(int x)
{
	try {
		rethrower(x);
	} catch (const std::exception &e) {
		return 1;
	}
	return 0;
}

NOINLINE void after(void)
{
	sink++;
}

int main()
{
	int r = catcher(1);

	after();
	r += catcher(0);
	after();
	std::printf("%d\n", r);
	return r == 1 ? 0 : 1;
}
