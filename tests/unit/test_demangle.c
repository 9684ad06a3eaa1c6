// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of core/demangle.c (uftrace's simple form of C++ names, as
 * libiberty's demangler writes them) and of ft_glob_sep() (core/glob.c: the
 * ':' that ends a filter line's glob, "::" being part of it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include "core/demangle.h"
#include "core/glob.h"

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
	       "std::vector::_M_realloc_insert");
	expect("std::array<int, (2)+(3)>::size", "std::array::size");
	expect("ns::B<((2)>(3))>::f<(1)<(2)>", "ns::B::f");
}

static void test_operators_kept(void **state)
{
	(void)state;
	expect("operator<<", "operator<<");
	expect("std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
	       "<std::char_traits<char> >",
	       "std::operator<<");
	expect("ns::Cmp<int>::operator()", "ns::Cmp::operator()");
	expect("ns::V<int>::operator<=>", "ns::V::operator<=>");
	expect("bool ns::operator< <int>", "ns::operator<");
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
	expect("ns::f<int>(int) [clone .cold]", "ns::f");
	expect("std::__cxx11::to_string[abi:cxx11](int)", "std::__cxx11::to_string");
}

/* what __cxa_demangle and libiberty with parameters write */
static void test_parameters_dropped(void **state)
{
	(void)state;
	expect("geo::Box<int>::area(int) const", "geo::Box::area");
	expect("Foo::add(std::__cxx11::basic_string<char, std::char_traits<char>, "
	       "std::allocator<char> > const&)",
	       "Foo::add");
	expect("(anonymous namespace)::f(int (*)(int))", "(anonymous namespace)::f");
	expect("main::{lambda(int)#1}::operator()(int) const", "main::{lambda(int)#1}::operator()");
	expect("ns::A::operator new[](unsigned long)", "ns::A::operator new[]");
	expect("std::enable_if<true, int>::type ns::g<int>(int) &&", "ns::g");
	expect("unsigned long ns::h<long>(long)", "ns::h");
}

static void test_glob_sep(void **state)
{
	const char *s;

	(void)state;
	assert_null(ft_glob_sep("f"));
	s = "f:traceoff";
	assert_ptr_equal(ft_glob_sep(s), s + 1);
	s = "ns::Cls::f:traceoff:3";
	assert_ptr_equal(ft_glob_sep(s), s + 10);
	s = "ns::*:mod:libfoo";
	assert_ptr_equal(ft_glob_sep(s), s + 5);
	assert_null(ft_glob_sep("ns::Cls::f"));
	s = "f: x > 1";
	assert_ptr_equal(ft_glob_sep(s), s + 1);
}

/* the names libiberty writes for real mangled names, simplified */
static void test_from_demangler(void **state)
{
	char buf[256], tiny[8];

	(void)state;
	assert_int_equal(ft_demangle_simple("_ZNSt6vectorIiSaIiEE9push_backERKi", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "std::vector::push_back");
	assert_int_equal(ft_demangle_simple("_ZNK3geo3BoxIiE4areaEi", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "geo::Box::area");
	assert_int_equal(ft_demangle_simple("_ZNSt6vectorIiSaIiEE17_M_realloc_insertIJRKiEEEvN9__"
					    "gnu_cxx17__normal_iteratorIPiS1_EEDpOT_",
					    buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "std::vector::_M_realloc_insert");
	/* not C++, not a valid name, no room: -1 and "" */
	assert_int_equal(ft_demangle_simple("main", buf, sizeof(buf)), -1);
	assert_int_equal(ft_demangle_simple("_Zgarbage", buf, sizeof(buf)), -1);
	assert_string_equal(buf, "");
	assert_int_equal(ft_demangle_simple("_ZNK3geo3BoxIiE4areaEi", tiny, sizeof(tiny)), -1);
	assert_string_equal(tiny, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_templates_dropped), cmocka_unit_test(test_operators_kept),
		cmocka_unit_test(test_groups_kept),	  cmocka_unit_test(test_parameters_dropped),
		cmocka_unit_test(test_from_demangler),	  cmocka_unit_test(test_glob_sep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
