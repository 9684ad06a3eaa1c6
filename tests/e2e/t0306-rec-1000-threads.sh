# description: record: a thousand threads tracing at once each get a buffer; nothing lost, memory stays bounded
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
mk_selfw
ulimit -u unlimited 2>/dev/null
timer=
[ -x /usr/bin/time ] && timer="/usr/bin/time -f maxrss_kb=%M -o rss"
$timer $FTRAIL record -o k.dat -- ./selfw 200 threads 1000 2>err ||
	fail "record failed: $(cat err)"
grep -q "cannot create thread" err && skip "this host does not allow 1000 threads"
expect_counts err 400000 0 1000
if [ -n "$timer" ]; then
	rss=$(sed -n 's/^maxrss_kb=//p' rss)
	# the recorder's own memory: its buffers and the shared pages it touched
	[ -n "$rss" ] && [ "$rss" -lt 200000 ] || fail "recorder max RSS ${rss} KiB for 1000 threads"
fi
exit 0
