# description: report on a multi-thread, multi-chunk trace matches the sums rebuilt from show's lines (calls, total, self, recursion)
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# three threads of different lengths, a() -> b(), and recursion r(n)
cat >thr.c <<'SRC'
#include <pthread.h>
#include <unistd.h>
#define NOINLINE __attribute__((noinline))
volatile long sink;
NOINLINE void b(long i) { sink += i; }
NOINLINE void a(long i) { b(i); sink ^= i; }
NOINLINE long r(int n) { return n ? r(n - 1) + 1 : 0; }
NOINLINE void *run(void *arg)
{
	long k = (long)arg;
	for (long i = 0; i < 2000 * k; i++) {
		a(i);
		if (i % 3 == 0)
			sink += r((int)(i % 5) + (int)k);
		if (i && i % (700 * k) == 0)
			usleep(600000); /* the recorder writes a chunk at least once a second */
	}
	return 0;
}
int main(void)
{
	pthread_t th[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&th[i], 0, run, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], 0);
	return 0;
}
SRC
build thr gcc -O1 -pg thr.c -lpthread || fail "build"
# each thread's records come in several chunks (two pauses of 0.6 s)
rec t.dat -b 64 -- ./thr
$FTRAIL show -i t.dat -O funcgraph-proc >show.out || fail "show"
$FTRAIL report -i t.dat >report.out || fail "report"
# report's sums rebuilt from the function_graph lines, per thread (the
# TASK/PID column): calls of every function; total and self of a, b and
# r, whose every duration show prints to the nanosecond
cat >rep.awk <<'AWK'
function ns(cell,   m) {
	if (!match(cell, /[0-9]+\.[0-9][0-9][0-9] us/)) return -1
	split(substr(cell, RSTART, RLENGTH - 3), m, ".")
	return m[1] * 1000 + m[2]
}
# report's time cell (cmd/report.c time_cell())
function tcell(v,   u, rem) {
	u = "us"; rem = v % 1000; v = int(v / 1000)
	if (v >= 1000) { rem = v % 1000; v = int(v / 1000); u = "ms" }
	if (v >= 1000) { rem = v % 1000; v = int(v / 1000); u = " s" }
	return sprintf("%d.%03d %s", v, rem, u)
}
BEGIN { FS = "|" }
/^#/ { next }
{
	th = $1; txt = $3; d = ns($2)
	sub(/^  /, "", txt); ind = match(txt, /[^ ]/) - 1; txt = substr(txt, ind + 1)
	dep = ind / 2
	if (txt ~ /^[A-Za-z_][A-Za-z0-9_.]*\(\)(;| \{)$/) {
		name = txt; sub(/\(.*/, "", name); calls[name]++
		fn[th, dep] = name; ch[th, dep] = 0
		if (txt !~ /;$/) next
		leaf = 1
	} else if (txt ~ /^\}/) {
		name = fn[th, dep]; leaf = 0
	} else next
	if (d < 0) { bad[name] = 1; next }
	self[name] += d - (leaf ? 0 : ch[th, dep])
	rec = 0
	for (i = 0; i < dep; i++) if (fn[th, i] == name) rec = 1
	if (!rec) total[name] += d
	if (dep > 0) ch[th, dep - 1] += d
}
END {
	for (n in calls)
		if ((n == "a" || n == "b" || n == "r") && !bad[n])
			printf "%s %s %s %d\n", n, tcell(total[n]), tcell(self[n]), calls[n]
		else
			printf "%s calls %d\n", n, calls[n]
}
AWK
awk -f rep.awk show.out | sort >want
# times of the functions whose every duration show printed to the
# nanosecond (a call preempted for 10 ms or more prints fewer decimals),
# calls of the others
awk 'NR == FNR { timed[$1] = $2 != "calls"; next }
	FNR > 2 { n = $NF; if (timed[n]) print n, $1, $2, $3, $4, $5; else print n, "calls", $(NF - 1) }' \
	want report.out | sort >got
grep -q '^r .*21337$' want || fail "show does not have the expected recursion: $(grep '^r ' want)"
grep -q '^a .*12000$' want || fail "show does not have a() 12000 times: $(grep '^a ' want)"
grep -qE '^(a|b|r) [0-9]' want || fail "no function with times to compare: $(cat want)"
diff -u want got || fail "report differs from the sums of show's lines"
exit 0
