# description: report's sums (calls, total counting recursion once, self) equal those computed from the Chrome export's events, on direct and mutual recursion 100 deep
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
. "$TOP/tests/progs/rt_e2e.sh"
cat >r.c <<'C'
#define NOINLINE __attribute__((noinline))
volatile int sink;
NOINLINE int leaf(int x) { return x + sink; }
NOINLINE int rec(int n) { if (!n) return leaf(0); sink++; return rec(n - 1) + leaf(n); }
NOINLINE int odd(int n);
NOINLINE int even(int n) { return n ? odd(n - 1) : leaf(1); }
NOINLINE int odd(int n) { return n ? even(n - 1) : leaf(0); }
NOINLINE int outer(int n) { return rec(n) + even(n + 1); }
int main(void)
{
	int s = 0;

	for (int i = 0; i < 300; i++)
		s += outer(100) + rec(3);
	return s < 0;
}
C
build r gcc -O0 -pg -mfentry r.c || fail "build"
rec t.dat -- ./r
"$FTRAIL" export --format chrome -i t.dat -o t.json || fail "export"
"$FTRAIL" report -i t.dat >report.txt || fail "report"
# the same sums from the Chrome export's calls, as B/E events (ts: us with
# the ns as fraction, so exact): a frame stack of names and entry times
python3 "$TOP/tests/tools/chrome_calls.py" --as-be t.json >t.be || fail "the export's calls"
awk '
function cell(ns,  v, r, u) {
	v = int(ns / 1000); r = ns % 1000; u = "us"
	if (v >= 1000) { r = v % 1000; v = int(v / 1000); u = "ms" }
	if (v >= 1000) { r = v % 1000; v = int(v / 1000); u = " s" }
	return sprintf("%d.%03d %s", v, r, u)
}
function field(re,  x) {
	if (!match($0, re))
		return ""
	x = substr($0, RSTART, RLENGTH); sub(/^"[a-z]+":"?/, "", x); sub(/"$/, "", x)
	return x
}
!/^\{"ph":"[BE]"/ { next }
{
	ph = field("\"ph\":\"[BE]\""); ts = field("\"ts\":[0-9]+\\.[0-9]+")
	sub(/\./, "", ts); ts += 0
	if (ph == "B") {
		name = field("\"name\":\"[^\"]*\"")
		calls[name]++; st[++d] = name; at[d] = ts; kid[d] = 0
		next
	}
	if (!d) { print "an exit without its call: " $0 > "/dev/stderr"; bad = 1; exit }
	name = st[d]; ns = ts - at[d]; kids = kid[d--]
	inner = 0
	for (i = 1; i <= d; i++)
		if (st[i] == name)
			inner = 1
	if (!inner)
		tot[name] += ns
	self[name] += ns > kids ? ns - kids : 0
	kid[d] += ns
	timed[name] = 1
}
END {
	if (bad)
		exit 1
	for (n in calls)
		if (n ~ /^(main|outer|rec|even|odd|leaf)$/)
			printf "  %10s  %10s  %10d  %s\n", timed[n] ? cell(tot[n]) : "", timed[n] ? cell(self[n]) : "", calls[n], n
}' t.be >want.txt || fail "parse the export"
sort want.txt >want
awk '$NF ~ /^(main|outer|rec|even|odd|leaf)$/' report.txt | sort >got
[ "$(wc -l <want)" = 6 ] || fail "the export gave $(wc -l <want) of the 6 functions: $(cat want)"
diff -u want got || fail "report differs from the sums of the export"
# the calls themselves: 300 x (rec(100): 101 + rec(3): 4)
grep -q ' 31500  rec$' got || fail "rec calls: $(grep rec got)"
exit 0
