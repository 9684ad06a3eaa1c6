// SPDX-License-Identifier: GPL-2.0
/* C++ names for the demangling case (t0440): a namespace, a template
 * member function and an overload pair. */
#include <cstdio>
namespace geo {
template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T area(T k) const { return v * k; }
};
__attribute__((noinline)) int scale(int x) { return x * 3; }
__attribute__((noinline)) double scale(double x) { return x * 2; }
}
int main()
{
	geo::Box<int> b{2};
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += b.area(i) + geo::scale(i) + (int)geo::scale(1.5);
	printf("%d\n", s);
	return 0;
}
