# description: -T asks libunwind about each call site once, not at every call: 600 call sites in one stack shape stay in the per-thread rule cache
# requires: cc strace
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
need_cmd strace
# Each libunwind step blocks and unblocks signals around its table lookups
# (Debian's: about 8 rt_sigprocmask calls a step), and the program makes
# none of its own, so its rt_sigprocmask count says how often
# runtime/unwind.c asked libunwind instead of its rule cache.  600
# functions each call leaf() from their own call site, 40 rounds: 24000
# stacks, 600 return addresses inside the s_N functions.  A cache that
# holds them asks about each once (about 4800 calls); one whose entries
# evict each other asks again in most rounds (a direct-mapped cache of 512
# made 117000).
N=600
ROUNDS=40
{
	echo '#define NOINLINE __attribute__((noinline))'
	echo 'volatile long sink;'
	echo 'NOINLINE long leaf(long x) { sink += x; return x ^ 3; }'
	for ((i = 0; i < N; i++)); do
		echo "NOINLINE long s_$i(long x) { long r = leaf(x + $i); sink += r; return r + 1; }"
	done
	echo 'long (*const tab[])(long) = {'
	for ((i = 0; i < N; i++)); do echo "s_$i,"; done
	echo '};'
	echo 'int main(void) {'
	echo "	for (int r = 0; r < $ROUNDS; r++)"
	echo "		for (int i = 0; i < $N; i++)"
	echo '			sink += tab[i](r);'
	echo '	return 0;'
	echo '}'
} >sites.c
for flags in "-pg" "-fpatchable-function-entry=5"; do
	build sites gcc -O2 $flags sites.c || continue
	rec t.dat -T -- strace -o st.log -e trace=rt_sigprocmask ./sites
	n=$(grep -c '^rt_sigprocmask(' st.log)
	[ "$n" -gt 0 ] || fail "$flags: no rt_sigprocmask call seen: is libunwind used at all?"
	[ "$n" -le $((20 * N)) ] ||
		fail "$flags: $n rt_sigprocmask calls for $N call sites x $ROUNDS rounds: libunwind asked again and again"
	# and the stacks are all there: every leaf() call has one
	"$FTRAIL" stacks -i t.dat >st.out 2>st.err || fail "$flags: stacks: $(cat st.err)"
	total=$(tail -n 1 st.out | sed -n 's/.* \([0-9]*\) stacks in all$/\1/p')
	[ -n "$total" ] && [ "$total" -ge $((2 * N * ROUNDS)) ] ||
		fail "$flags: too few stacks: $(tail -n 1 st.out)"
done
expect_built 2
exit 0
