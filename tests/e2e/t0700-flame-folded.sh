# description: flame --from-folded: SVG and HTML pictures (valid XML, frames and totals right, names escaped), --format folded aggregation, bad input
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
cat >in.folded <<'TXT'
# a comment line, then stacks in no particular order
main;run;compute;fib 120
main;parse_args 5
main;run;compute;fib;fib 80
main;run;io_wait 40
main;run;compute;sqrt 10
main;cleanup 3
main;run;compute;fib 30
main;run;a<b>&"c' 7
TXT
$FTRAIL flame --from-folded in.folded --format folded >folded 2>err || fail "--folded: $(cat err)"
[ -s err ] && fail "unexpected stderr: $(cat err)"
cat >want <<'TXT'
main;cleanup 3
main;parse_args 5
main;run;a<b>&"c' 7
main;run;compute;fib 150
main;run;compute;fib;fib 80
main;run;compute;sqrt 10
main;run;io_wait 40
TXT
diff -u want folded || fail "--folded output differs"

$FTRAIL flame --from-folded in.folded -o g.svg --title 'T <1>' || fail "svg"
$FTRAIL flame --from-folded in.folded -o g.html || fail "html"
$FTRAIL flame --from-folded in.folded >stdout.svg || fail "svg on stdout"
cmp -s stdout.svg g.svg && fail "--title was ignored"
head -c 5 g.html | grep -q '<!DOC' || fail "g.html is not HTML"
head -c 5 g.svg | grep -q '<?xml' || fail "g.svg is not an SVG document"
! grep -qiE 'https?://[^"]*\.(js|css)|<script src|@import|url\(http' g.svg g.html || fail "picture loads something from the network"
python3 - g.svg <<'PY' || fail "SVG check failed"
import sys, xml.dom.minidom as m
d = m.parse(sys.argv[1])
gs = [g for g in d.getElementsByTagName("g") if "f" in g.getAttribute("class").split()]
frames = {}
for g in gs:
    t = g.getElementsByTagName("title")[0].firstChild.data
    name, info = t.split("\n", 1)
    w = float(g.getElementsByTagName("rect")[0].getAttribute("width"))
    frames.setdefault(name, []).append((info, w))
assert d.documentElement.getAttribute("data-total") == "295", d.documentElement.getAttribute("data-total")
# all, main, parse_args, cleanup, run, compute, fib x2, sqrt, io_wait, the escaped one
assert len(gs) == 11, (len(gs), sorted(frames))
assert frames["all"][0][0] == "(295 samples, 100.00%)", frames["all"]
assert sorted(i for i, _ in frames["fib"]) == ["(230 samples, 77.97%)", "(80 samples, 27.12%)"], frames["fib"]
assert "a<b>&\"c'" in frames, sorted(frames)
assert abs(frames["all"][0][1] - 1180) < 0.01
assert d.getElementsByTagName("script"), "no script"
title = [t for t in d.getElementsByTagName("text") if t.getAttribute("id") == "ft-title"][0]
assert title.firstChild.data == "T <1>", title.firstChild.data
PY
grep -q "<script>" g.html || fail "no script in the HTML page"

# many stacks: narrow frames are merged or left out, the picture stays small
python3 - <<'PY' >many.folded
for i in range(120000):
    print("main;loop;work_%d;leaf_%d 1" % (i % 50000, i))
print("main;big 100000")
PY
$FTRAIL flame --from-folded many.folded -o many.svg || fail "many stacks"
n=$(grep -c '<g class="f' many.svg)
[ "$n" -lt 5000 ] || fail "$n frames drawn for 170k narrow ones: minwidth not applied"
grep -q '<g class="f m"><title>\[[0-9]* narrow frames\]' many.svg || fail "no merged frame"
grep -q '<title>big' many.svg || fail "the wide frame is missing"
$FTRAIL flame --from-folded many.folded --minwidth 0 -o all.svg || fail "--minwidth 0"
n0=$(grep -c '<g class="f' all.svg)
[ "$n0" -eq $((1 + 1 + 1 + 50000 + 120000 + 1)) ] || fail "--minwidth 0 drew $n0 frames"

# bounded aggregation: a tiny budget streams folded lines, same totals
$FTRAIL flame --from-folded many.folded --format folded --max-memory 1 >small.folded || fail "--max-memory 1"
awk '{ s += $NF } END { print s }' small.folded >sum
[ "$(cat sum)" = 220000 ] || fail "streamed folded total $(cat sum), want 220000"

# a picture needs the stacks in memory: what does not fit is left out and said
$FTRAIL flame --from-folded many.folded --max-memory 1 -o m.svg 2>err || fail "--max-memory 1 svg"
grep -q '^ftrail: warning: [0-9]* stacks (weight [0-9]*) did not fit in --max-memory 1 MB and are left out$' err ||
	fail "no warning for stacks left out: $(cat err)"
kept=$(sed -n 's/.*data-total="\([0-9]*\)".*/\1/p' m.svg)
left=$(sed -n 's/.*(weight \([0-9]*\)).*/\1/p' err)
[ $((kept + left)) -eq 220000 ] || fail "kept $kept + left out $left != 220000"

# names with invalid UTF-8 and control characters still give documents that parse
printf 'main;bad\xff\xfename;ctl\x01x 5\nmain;ok\xc3\xa9 3\n' >u.folded
$FTRAIL flame --from-folded u.folded -o u.svg || fail "flame of odd names"
python3 -c 'import xml.dom.minidom as m; m.parse("u.svg")' || fail "u.svg does not parse"
for f in chrome speedscope; do
	$FTRAIL export --format $f --from-folded u.folded -o u.$f.json || fail "export $f of odd names"
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' u.$f.json || fail "u.$f.json does not parse"
done
grep -q "$(printf 'ok\xc3\xa9')" u.svg || fail "valid UTF-8 was altered"

# bad input: one line on stderr, non-zero exit
printf 'main;a 1\nno count here\n' >bad.folded
expect_fail "ftrail: bad.folded:2: not a folded-stack line*" $FTRAIL flame --from-folded bad.folded
expect_fail "ftrail: cannot open missing.folded: No such file or directory" $FTRAIL flame --from-folded missing.folded
expect_fail "ftrail: flame: choose one of --graph, --stacks, --offcpu" $FTRAIL flame --graph --stacks
expect_fail "ftrail: --width wants*" $FTRAIL flame --from-folded in.folded --width 5
expect_fail "ftrail: flame: unknown option*" $FTRAIL flame --frobnicate
expect_fail "ftrail: flame: two output formats, folded and html: give one --format" $FTRAIL flame --from-folded in.folded --format folded --format html
expect_fail "ftrail: flame: unknown format 'png' (svg, html or folded)" $FTRAIL flame --from-folded in.folded --format png
exit 0
