// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of ft_demangle_simplify() (core/symbols.c): uftrace's simple
 * form of a demangled C++ name, as libiberty's demangler writes them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libiberty/demangle.h>

#include "core/symbols.h"

static void expect(const char *in, const char *want)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s", in);
	ft_demangle_simplify(buf);
	assert_string_equal(buf, want);
}

static void test_templates_dropped(void **state)
{
	(void)state;
	expect("f", "f");
	expect("ns::Box<int>::area", "ns::Box::area");
	expect("std::map<std::__cxx11::basic_string<char, std::char_traits<char>, "
	       "std::allocator<char> >, int, std::less<std::__cxx11::basic_string<char, "
	       "std::char_traits<char>, std::allocator<char> > > >::operator[]",
	       "std::map::operator[]");
	expect("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int const&>",
	       "void std::vector::_M_realloc_insert");
	expect("std::array<int, (2)+(3)>::size", "std::array::size");
	expect("ns::B<((2)>(3))>::f<(1)<(2)>", "ns::B::f");
}

static void test_operators_kept(void **state)
{
	(void)state;
	expect("operator<<", "operator<<");
	expect("std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
	       "<std::char_traits<char> >",
	       "std::basic_ostream& std::operator<<");
	expect("ns::Cmp<int>::operator()", "ns::Cmp::operator()");
	expect("ns::V<int>::operator<=>", "ns::V::operator<=>");
	expect("bool ns::operator< <int>", "bool ns::operator<");
	expect("ns::P<int>::operator->", "ns::P::operator->");
	expect("ns::A::operator>>=", "ns::A::operator>>=");
	expect("ns::A::operator new[]", "ns::A::operator new[]");
	expect("ns::A::operator std::vector<int, std::allocator<int> >",
	       "ns::A::operator std::vector");
	expect("my_operator<int>", "my_operator");
}

static void test_groups_kept(void **state)
{
	(void)state;
	expect("(anonymous namespace)::helper<long>", "(anonymous namespace)::helper");
	expect("main::{lambda(int)#1}::operator()", "main::{lambda(int)#1}::operator()");
	expect("ns::f<int> [clone .cold]", "ns::f [clone .cold]");
}

/* the names libiberty writes for real mangled names, simplified */
static void test_from_demangler(void **state)
{
	char *d;

	(void)state;
	d = cplus_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi", DMGL_AUTO);
	assert_non_null(d);
	ft_demangle_simplify(d);
	assert_string_equal(d, "std::vector::push_back");
	free(d);
	d = cplus_demangle("_ZNK3geo3BoxIiE4areaEv", DMGL_AUTO);
	assert_non_null(d);
	ft_demangle_simplify(d);
	assert_string_equal(d, "geo::Box::area");
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_templates_dropped),
		cmocka_unit_test(test_operators_kept),
		cmocka_unit_test(test_groups_kept),
		cmocka_unit_test(test_from_demangler),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
