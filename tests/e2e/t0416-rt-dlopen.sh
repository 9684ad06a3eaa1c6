# description: dlopen: the library's functions are found, filtered and patched when it is loaded
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build libdl.so gcc -O2 -shared -fPIC $flags "$P/dl_lib.c" || fail "build lib"
	build dlm gcc -O2 $flags "$P/dl_main.c" -ldl || fail "build main"
	rec t.dat -- ./dlm ./libdl.so
	expect_shape "$flags" "$(main_shape t.dat)" 'main() { call_lib() { dlopen(); dlsym(); lib_entry() { lib_leaf(); } } }'
	rec t.dat -l 'lib_*' -- ./dlm ./libdl.so
	expect_shape "$flags -l lib_*" "$(shape t.dat)" 'lib_entry() { lib_leaf(); }'
	rec t.dat -l '*:mod:libdl' -- ./dlm ./libdl.so
	expect_shape "$flags :mod:libdl" "$(shape t.dat)" 'lib_entry() { lib_leaf(); }'
done
exit 0
