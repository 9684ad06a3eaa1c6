# description: large traces stream: 10 million calls export to Chrome JSON and speedscope, and fold into a flame graph, with peak RSS under 100 MB
# requires: python3 /usr/bin/time
. "$TOP/tests/e2e/lib.sh"
[ -x /usr/bin/time ] || skip "needs /usr/bin/time (Debian package time)"
# 1,000,000 folded lines, each opening 10 new frames under main: 10,000,001 calls
awk 'BEGIN { for (i = 0; i < 1000000; i++) {
	r = i % 2 ? "odd" : "even"
	printf "main;%s_a;b;c;d;e;f;g;h;i;leaf_%d 1\n", r, i % 1000 } }' >big.folded
calls=10000001
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$1"; }

# Chrome JSON: one event per line, so lines count events; a call is a B/E
# pair or one X event
/usr/bin/time -v -o chrome.time $FTRAIL export --format chrome --from-folded big.folded -o - 2>chrome.err |
	awk '/"ph":"B"/ { b++ } /"ph":"E"/ { e++ } /"ph":"X"/ { x++ } END { print b + 0, e + 0, x + 0 }' \
		>chrome.count
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "chrome export failed: $(tail -n 3 chrome.time)"
read -r b e x <chrome.count
[ "$b" = "$e" ] && [ $((b + x)) = $calls ] ||
	fail "chrome export has $b B, $e E and $x X events, want $calls calls"
b=$((b + x))
[ -s chrome.err ] && fail "stderr is not a terminal, yet: $(head -c 200 chrome.err)"
kb=$(rss chrome.time)
echo "chrome: $b calls, peak RSS $kb KB"
[ "$kb" -lt 102400 ] || fail "chrome export peaked at $kb KB"

# X events
/usr/bin/time -v -o x.time $FTRAIL export --format chrome --complete --from-folded big.folded -o - |
	grep -c '"ph":"X"' >x.count
[ "$(cat x.count)" = $calls ] || fail "X export has $(cat x.count) events"
kb=$(rss x.time)
echo "chrome --complete: peak RSS $kb KB"
[ "$kb" -lt 102400 ] || fail "chrome --complete export peaked at $kb KB"

# speedscope: events spill to a temporary file, memory stays flat
TMPDIR=$PWD /usr/bin/time -v -o ss.time $FTRAIL export --format speedscope --from-folded big.folded -o - |
	grep -c '"type":"C"' >ss.count
[ "$(cat ss.count)" = $calls ] || fail "speedscope export has $(cat ss.count) closes"
kb=$(rss ss.time)
echo "speedscope: peak RSS $kb KB"
[ "$kb" -lt 102400 ] || fail "speedscope export peaked at $kb KB"
ls ftrail-speedscope.* >/dev/null 2>&1 && fail "spill file left behind"

# flame graph of it: 2,000 distinct stacks, small picture
/usr/bin/time -v -o flame.time $FTRAIL flame --from-folded big.folded -o big.svg || fail "flame"
kb=$(rss flame.time)
echo "flame: peak RSS $kb KB, $(grep -c '<g class="f' big.svg) frames"
[ "$kb" -lt 102400 ] || fail "flame peaked at $kb KB"
grep -q 'data-total="1000000"' big.svg || fail "flame total"
# long exports show progress when stderr is a terminal (script(1) gives one)
if command -v script >/dev/null 2>&1; then
	script -q -e -c "$FTRAIL export --format chrome --from-folded big.folded -o /dev/null" tty.out \
		>/dev/null 2>&1 </dev/null || fail "export under a terminal failed: $(tail -c 300 tty.out)"
	grep -a -q 'export: *[0-9]*% ([0-9]* events)' tty.out ||
		fail "no progress line on a terminal: $(tail -c 300 tty.out | od -c | head)"
	echo "progress on a terminal: ok"
fi
exit 0
