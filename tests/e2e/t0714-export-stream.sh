# description: pprof, CTF and Perfetto exports stream: 3 million recorded calls export with flat peak RSS (under 100 MB), the call counts intact, and a progress line on a terminal
# requires: cc /usr/bin/time script
. "$TOP/tests/e2e/lib.sh"
need_cmd cc
need_cmd script
[ -x /usr/bin/time ] || skip "needs /usr/bin/time (Debian package time)"
export FTRAIL_LIB=${FTRAIL_LIB:-$BUILD/libftrail.so}
[ -r "$FTRAIL_LIB" ] || skip "needs the runtime ($FTRAIL_LIB)"
cc -O2 -g -pg -o prog "$TOP/bench/readers_prog.c" -lpthread || fail "cannot build readers_prog"
# 7 calls per iteration, two threads
$FTRAIL record -b 65536 -o big.dat -- ./prog 214286 2 >/dev/null 2>rec.err || fail "record: $(cat rec.err)"
grep -q 'runtime never started' rec.err && skip "the runtime did not start (sanitizer build?)"
grep -q '(0 lost)' rec.err || skip "the recording lost events: $(cat rec.err)"
calls=$($FTRAIL report -i big.dat | awk '$NF ~ /^(leaf|mid|top)$/ { n += $(NF - 1) } END { print n }')
[ "$calls" = 3000004 ] || fail "recorded $calls calls, want 3000004"
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }
check_rss() {
	local kb
	kb=$(rss "$1")
	echo "$2: peak RSS $kb KB"
	[ "$kb" -lt 102400 ] || fail "$2 peaked at $kb KB"
}

/usr/bin/time -v -o pprof.time $FTRAIL export --format pprof -i big.dat -o big.pb.gz || fail "pprof"
check_rss pprof.time pprof
/usr/bin/time -v -o ctf.time $FTRAIL export --format ctf -i big.dat -o big.ctf || fail "ctf"
check_rss ctf.time ctf
# every call is an entry and an exit: 2 x 3000004 events of 44 bytes and more
[ "$(du -sb big.ctf | cut -f1)" -gt $((2 * 3000004 * 44)) ] || fail "the CTF trace is too small: $(du -sb big.ctf)"
/usr/bin/time -v -o pf.time $FTRAIL export --format perfetto -i big.dat -o big.pftrace || fail "perfetto"
check_rss pf.time perfetto

# progress on a terminal (script(1) gives one), never on a pipe
for f in "pprof -o t.pb.gz" "ctf --force -o t.ctf" "perfetto -o t.pftrace"; do
	mkdir -p t.ctf
	script -q -e -c "$FTRAIL export -i big.dat --format $f" tty.out >/dev/null 2>&1 </dev/null ||
		fail "export --format $f under a terminal: $(tail -c 300 tty.out)"
	grep -a -q 'export: [0-9]* events' tty.out || fail "no progress line for $f: $(tail -c 200 tty.out | od -c | head -n 5)"
	rm -rf t.ctf
done
exit 0
