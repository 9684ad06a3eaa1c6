# description: record -o - | head -1: the closed output ends the stream, not the recording; ftrail exits with the program's status and no error
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O1 -pg -I"$TOP/include" -o flight "$TOP/tests/progs/flight.c" -lpthread || fail "build flight"
timeout 120 bash -c "$FTRAIL record -e u:fl -o - -- ./flight 2000 200 exit 2>err | head -1 >first; exit \${PIPESTATUS[0]}"
rc=$?
[ $rc = 3 ] || fail "record | head -1: exit status $rc, expected the program's 3: $(cat err)"
[ "$(wc -l <first)" = 1 ] || fail "head got $(wc -l <first) lines"
grep -q 'the output was closed; the recording went on to the end' err || fail "no word on the closed output: $(cat err)"
grep -qi 'error\|broken pipe\|sanitizer' err && fail "stderr: $(cat err)"
# the program's own end is still reported by the summary
grep -q 'exited with status 3' err || fail "the program's status is not reported: $(cat err)"
exit 0
