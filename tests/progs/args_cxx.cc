// SPDX-License-Identifier: GPL-2.0
/*
 * C++ arguments (t0451): a method's this and a reference, an exception
 * thrown through libstdc++ two frames below its catch (the frames it
 * leaves show as unwound, the catching function's return value is
 * right), and a library function of our own called from C++.
 */
#include <stdexcept>

extern "C" int lib_sum(int a, int b);

#if defined(__clang__)
#define F __attribute__((noinline))
#else
#define F __attribute__((noinline, noclone)) /* a clone has another ABI, and name */
#endif

static volatile long sink;

struct Acc {
	long total = 0;
	F long add(int x, const long &scale)
	{
		total += x * scale;
		return total;
	}
};

F int risky(int n)
{
	if (n > 1)
		throw std::runtime_error("too big");
	return n;
}

F int middle(int n)
{
	sink++;
	return risky(n) + 1;
}

F int guarded(int n)
{
	try {
		return middle(n);
	} catch (const std::runtime_error &) {
		return -1;
	}
}

int main()
{
	Acc a;
	long s = 3;

	sink += a.add(2, s);
	sink += guarded(1);
	sink += guarded(5);
	sink += lib_sum(1, 1);
	return 0;
}
