# description: show's TASK/PID column on 20 threads running at once (thread ids that share a slot of the column cache) that rename themselves midway: each line names its own thread, with the name it had then (never an earlier one), as show --tid prints that thread alone
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
cat >ren.c <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#define NOINLINE __attribute__((noinline))
#define THREADS 20
volatile int sink;
static pthread_barrier_t go;
NOINLINE int leaf(int x) { return x + sink; }
NOINLINE void *worker(void *arg)
{
	long i = (long)arg;
	char name[16];

	pthread_barrier_wait(&go); /* all at once: their lines interleave */
	for (int k = 0; k < 50; k++)
		sink += leaf(k);
	snprintf(name, sizeof(name), "r%02ld", i);
	pthread_setname_np(pthread_self(), name);
	for (int k = 0; k < 50; k++)
		sink += leaf(k);
	return arg;
}
int main(void)
{
	pthread_t t[THREADS];

	pthread_barrier_init(&go, NULL, THREADS);
	for (long i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
C
build ren gcc -O1 -pg -mfentry ren.c -lpthread || fail "build"
rec t.dat -- ./ren
"$FTRAIL" show -i t.dat >full.txt 2>err || fail "show: $(cat err)"
# the TASK/PID cell of every line, and the thread ids it names
awk -F'|' '!/^#/ { print $1 }' full.txt >cells.txt
sed -n 's/.*-\([0-9][0-9]*\) *$/\1/p' cells.txt | sort -un >tids.txt
[ "$(wc -l <tids.txt)" = 21 ] || fail "want 21 threads in the column, got: $(tr '\n' ' ' <tids.txt)"
# 20 consecutive-ish ids: some share a slot (id % 16) of the column cache
[ "$(awk '{ print $1 % 16 }' tids.txt | sort -u | wc -l)" -lt 21 ] || fail "no two ids share a slot"
renamed=0 workers=0
while read -r tid; do
	# the lines of tid in the full show are the lines show prints for it alone
	grep -E -- "-$tid +\\|" full.txt >mine.txt
	"$FTRAIL" show -i t.dat -O funcgraph-proc --tid "$tid" 2>err | grep -v '^#' >alone.txt ||
		fail "show --tid $tid: $(cat err)"
	cmp -s mine.txt alone.txt || fail "tid $tid: its lines differ from show --tid: $(diff mine.txt alone.txt | head -n 4)"
	# a worker: its first name (unless the recorder learnt the thread's
	# name only after the rename), then the one it gave itself, never back
	names=$(awk -F'|' '{ print $1 }' mine.txt | sed 's/^ *[0-9]*) *//; s/-[0-9]* *$//' | uniq | tr '\n' ' ')
	case $names in
	"ren r"[0-9][0-9]" ") renamed=$((renamed + 1)) workers=$((workers + 1)) ;;
	"r"[0-9][0-9]" ") workers=$((workers + 1)) ;;
	"ren ") ;;
	*) fail "tid $tid: names in the column: $names" ;;
	esac
done <tids.txt
[ "$workers" = 20 ] || fail "$workers of 20 workers end with the name they gave themselves"
[ "$renamed" -gt 0 ] || fail "no worker shows both of its names"
exit 0
