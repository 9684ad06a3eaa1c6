# description: flame graphs in a real browser: headless chromium loads the SVG and the HTML page offline with no console error, the embedded script zooms and searches (self-check), and a screenshot shows the frames
# requires: chromium python3
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/viewer/lib.sh"
need_chromium
need_cmd python3
python3 - <<'PY' >in.folded
import random
random.seed(1)
names = ["func_%d" % i for i in range(400)]
for i in range(30000):
    depth = random.randint(2, 25)
    st = ["main"] + [names[min(int(random.paretovariate(1.3)), 399)] for _ in range(depth)]
    print(";".join(st), random.randint(1, 50))
PY
$FTRAIL flame --from-folded in.folded -o g.svg || fail "flame svg"
$FTRAIL flame --from-folded in.folded -o g.html || fail "flame html"
frames=$(grep -c '<g class="f' g.svg)
echo "frames drawn: $frames"

for f in g.svg g.html; do
	headless $f.log --dump-dom "file://$PWD/$f#selftest" >$f.dom || fail "chromium failed on $f: $(tail -n 3 $f.log)"
	errs=$(console_errors $f.log)
	[ -z "$errs" ] || fail "console errors loading $f: $errs"
	mark=$(grep -o 'ftflame-selftest [^<]*' $f.dom | grep -v "' +" | head -n 1)
	echo "$f: $mark"
	case $mark in
	"ftflame-selftest ok frames=$frames "*) ;;
	*) fail "$f self-check: '${mark:-no marker in the DOM}'" ;;
	esac
	# the search in the URL highlights frames and reports the share
	headless $f.s.log --dump-dom "file://$PWD/$f#search=func_1" >$f.s.dom || fail "chromium search $f"
	grep -q 'id="ft-matched"[^>]*>Matched: [0-9.]*%' $f.s.dom || fail "$f: no 'Matched' share after #search"
	grep -q 'rgb(230,0,230)' $f.s.dom || fail "$f: no frame highlighted by #search"
	# #zoom=NAME opens zoomed: that frame spans the width, others are hidden
	headless $f.z.log --dump-dom "file://$PWD/$f#zoom=func_1" >$f.z.dom || fail "chromium zoom $f"
	python3 - $f.z.dom <<'PY' || fail "$f: #zoom=func_1 did not zoom"
import re, sys
dom = open(sys.argv[1]).read()
full = re.findall(r'<title>func_1\n[^<]*</title><rect x="10.000" y="[0-9.]*" width="1180.000"', dom)
hidden = dom.count('style="display: none;"')
assert full and hidden > 100, (len(full), hidden)
PY
done

# a screenshot shows frames: many saturated pixels (frames are red/orange/yellow)
headless shot.log --window-size=1200,900 --screenshot="$PWD/flame.png" "file://$PWD/g.svg" ||
	fail "screenshot failed"
[ -s flame.png ] || fail "no screenshot"
px=$(png_colours flame.png) || fail "cannot read the screenshot"
echo "coloured pixels: $px"
[ "$px" -gt 50000 ] || fail "screenshot shows almost no frames ($px coloured pixels)"
# input without stacks is refused, and leaves no picture behind
: >empty.folded
expect_fail "ftrail: empty.folded: no folded stacks*" $FTRAIL flame --from-folded empty.folded -o none.svg
[ ! -e none.svg ] || fail "a refused flame left none.svg"
# the control: a picture without frames shows (almost) no coloured pixels
printf '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="300"></svg>\n' >empty.svg
headless empty.log --window-size=1200,300 --screenshot="$PWD/empty.png" "file://$PWD/empty.svg" ||
	fail "screenshot of the empty graph failed"
epx=$(png_colours empty.png)
[ "$epx" -lt 1000 ] || fail "the empty graph shows $epx coloured pixels"
[ -n "${FTRAIL_KEEP_SCREENSHOT:-}" ] && cp flame.png "$FTRAIL_KEEP_SCREENSHOT"
exit 0
