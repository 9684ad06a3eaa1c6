# description: speedscope (from npm, run headless in chromium) imports ftrail's folded stacks, speedscope export and Chrome export without errors
# requires: chromium npm python3
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/viewer/lib.sh"
need_chromium
need_cmd python3
need_speedscope
mktrace threads threads.dat
python3 - <<'PY' >in.folded
for i in range(2000):
    print("main;loop;step_%d;leaf %d" % (i % 37, 1 + i % 5))
PY
$FTRAIL flame --from-folded in.folded --format folded >stacks.folded || fail "--folded"
$FTRAIL flame -i threads.dat --format folded >graph.folded || fail "flame -i --format folded"
$FTRAIL export --format speedscope -i threads.dat -o threads.speedscope.json || fail "export speedscope"
$FTRAIL export --format speedscope --from-folded in.folded -o folded.speedscope.json || fail "export speedscope from folded"
$FTRAIL export --format chrome -i threads.dat -o threads.trace.json || fail "export chrome"

# speedscope titles the page "<profile name> - speedscope" once an import worked
check() { # file want-title
	local got
	got=$(speedscope_import "$1") || fail "speedscope could not import $1"
	echo "$1: $got"
	[ "$got" = "$2" ] || fail "speedscope title for $1: '$got', want '$2'"
}
check stacks.folded "stacks.folded - speedscope"
check graph.folded "graph.folded - speedscope"
check threads.speedscope.json "threads.dat - speedscope"
check folded.speedscope.json "in.folded - speedscope"
# (not *.chrome.json: speedscope reads that suffix as a bare event array)
check threads.trace.json "threads.trace.json - speedscope"
# and it does say so when an import fails: the check above can fail
echo 'not a profile' >junk.txt
got=$(speedscope_import junk.txt)
[ "$got" = "junk.txt - speedscope" ] && fail "speedscope accepted junk: the import check proves nothing"
exit 0
