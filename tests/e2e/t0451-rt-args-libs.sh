# description: arguments and return values across a library of our own (lazy and -z now, dlopen, qsort callbacks, longjmp, threads, fork/exec) and C++ (this, references, exceptions)
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# graphs TRACE: each task's lines from its main() or thread function on,
# "== task" before each task, addresses (stack, heap, mappings, PIE code)
# as 0xADDR, pids as PID, the kernel's comments dropped
graphs() {
	"$FTRAIL" show -i "$1" -O nofuncgraph-duration -O nofuncgraph-cpu -O funcgraph-proc \
		>show.out 2>show.err || fail "show $1: $(cat show.err)"
	grep -v '^#' show.out | grep -vE '\| +/\* sched_' |
		sed -E 's/0x[0-9a-f]{9,}/0xADDR/g; s/pid=[0-9]+/pid=PID/g; s/((waitpid\(.*|fork) \/\* = |fork = )[0-9]+/\1PID/' |
		awk -F'|' '{ t = $1; gsub(/ /, "", t); sub(/-[0-9]+$/, "", t)
			task = $1; sub(/^ +/, "", task); sub(/ +$/, "", task)
			line = $0; sub(/^[^|]*\| /, "", line)
			if (!(task in seen)) { seen[task] = ++n; order[n] = task }
			out[task] = out[task] line "\n" }
			END { for (i = 1; i <= n; i++) printf "== task %d\n%s", i, out[order[i]] }' |
		awk '/^== task/ { print; keep = 0; next }
			/^(main|worker)\(/ { keep = 1 } keep'
}
expect_graphs() { # WHAT TRACE WANT
	local got
	got=$(graphs "$2")
	[ "$got" = "$3" ] || fail "$1: got
$got
expected
$3"
}
LIB='main(argc=2, argv=0xADDR) {
  lib_sum(a=2, b=3) {
    lib_sum(a=2, b=3); /* = 5 */
  } /* lib_sum = 5 */
  lib_word(i=1) {
    lib_word(i=1); /* = "yes" */
  } /* lib_word = "yes" */
  lib_sort(v=0xADDR, n=3) {
    lib_sort(v=0xADDR, n=3) {
      qsort(base=0xADDR, nmemb=3, size=4, compar=0xADDR) {
        cmp_int(a=0xADDR, b=0xADDR); /* = -10 */
        cmp_int(a=0xADDR, b=0xADDR); /* = 20 */
        cmp_int(a=0xADDR, b=0xADDR); /* = 10 */
      }
    } /* lib_sort = 10 */
  } /* lib_sort = 10 */
} /* main = 0 */'
JUMP='== task 1
main(argc=2, argv=0xADDR) {
  jump_out(v=5) {
    lib_jump(env=0xADDR, v=5) {
      lib_jump(env=0xADDR, v=5) {
        longjmp() {
        } /* longjmp (unwound) */
      } /* lib_jump (unwound) */
    } /* lib_jump (unwound) */
  } /* jump_out = 5 */
} /* main = 0 */'
THREADS='== task 1
main(argc=2, argv=0xADDR) {
  pthread_create(thread=0xADDR, attr=0x0, start=0xADDR, arg=0x1); /* = 0 */
  pthread_join(thread=0xADDR, retval=0x0); /* = 0 */
  pthread_create(thread=0xADDR, attr=0x0, start=0xADDR, arg=0x2); /* = 0 */
  pthread_join(thread=0xADDR, retval=0x0); /* = 0 */
} /* main = 0 */
== task 2
worker(arg=0x1) {
  lib_sum(a=1, b=100) {
    lib_sum(a=1, b=100); /* = 101 */
  } /* lib_sum = 101 */
} /* worker = 0x0 */
== task 3
worker(arg=0x2) {
  lib_sum(a=2, b=100) {
    lib_sum(a=2, b=100); /* = 102 */
  } /* lib_sum = 102 */
} /* worker = 0x0 */'
FORK="== task 1
main(argc=2, argv=0xADDR) {
  fork() {
  } /* fork = PID */
  waitpid(pid=PID, wstatus=0x0, options=0x0); /* = PID */
} /* main = 0 */
== task 2
$LIB"
DLOPEN='== task 1
main(argc=3, argv=0xADDR) {
  dlopen(filename="./libargs.so", flags=0x2); /* = 0xADDR */
  dlsym(handle=0xADDR, symbol="lib_sum"); /* = 0xADDR */
  lib_sum(a=4, b=5); /* = 9 */
} /* main = 0 */'
CXX='== task 1
main() {
  Acc::add(this=0xADDR, x=2, scale=0xADDR); /* = 6 */
  guarded(n=1) {
    middle(n=1) {
      risky(n=1); /* = 1 */
    } /* middle = 2 */
  } /* guarded = 2 */
  guarded(n=5) {
    middle(n=5) {
      risky(n=5) {
        __cxa_allocate_exception();
        std::runtime_error::runtime_error();
        __cxa_throw() {
        } /* __cxa_throw (unwound) */
      } /* risky (unwound) */
    } /* middle (unwound) */
    __cxa_end_catch();
  } /* guarded = -1 */
  lib_sum(a=1, b=1) {
    lib_sum(a=1, b=1); /* = 2 */
  } /* lib_sum = 2 */
} /* main = 0 */'
n=0
for cc in gcc clang; do
	cxx=g++
	[ $cc = clang ] && cxx=clang++
	for flags in "-pg -mfentry" "-fpatchable-function-entry=5"; do
		for link in lazy now; do
			ld=$(link_flags $link)
			w="$cc $flags $link"
			build libargs.so $cc -g -O2 -shared -fPIC $flags $ld "$P/args_lib.c" || continue
			build am $cc -g -O2 $flags $ld "$P/args_main.c" -L. -largs '-Wl,-rpath,$ORIGIN' \
				-lpthread -ldl || continue
			A="-O funcgraph-args -O funcgraph-retval"
			rec t.dat $A -- ./am l
			expect_graphs "$w lib" t.dat "== task 1
$LIB"
			rec t.dat $A -- ./am j
			expect_graphs "$w longjmp" t.dat "$JUMP"
			rec t.dat $A -- ./am t
			expect_graphs "$w threads" t.dat "$THREADS"
			rec t.dat $A -- ./am f
			expect_graphs "$w fork/exec" t.dat "$FORK"
			# dlopen()ed later: its DWARF is not read at record time, -A names it
			rec t.dat $A -A 'lib_sum@a=arg1/i32,b=arg2/i32' --retval 'lib_sum@retval/i32' \
				-- ./am d ./libargs.so
			expect_graphs "$w dlopen" t.dat "$DLOPEN"
			if build ac $cxx -g -O2 $flags $ld "$P/args_cxx.cc" -L. -largs '-Wl,-rpath,$ORIGIN'; then
				rec t.dat $A -- ./ac
				expect_graphs "$w C++" t.dat "$CXX"
			fi
			n=$((n + 1))
		done
	done
done
[ $n -ge 4 ] || fail "only $n combinations built"
expect_built 12
exit 0
