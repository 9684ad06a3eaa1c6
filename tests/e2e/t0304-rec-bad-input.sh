# description: record: one clear line for a missing, non-executable or non-program PROG, a directory, a missing runtime
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
mk_selfw
expect_fail "ftrail: no such program: ./nope" $FTRAIL record -- ./nope
expect_fail "ftrail: no such program: nope-ftrail-xyz (not found in PATH)" $FTRAIL record -- nope-ftrail-xyz
touch plain.txt
expect_fail "ftrail: ./plain.txt is not executable: Permission denied" $FTRAIL record -- ./plain.txt
echo garbage >junk; chmod +x junk
expect_fail "ftrail: ./junk is not a program (neither ELF nor a #! script)" $FTRAIL record -- ./junk
mkdir d
expect_fail "ftrail: ./d is a directory, not a program" $FTRAIL record -- ./d
[ -e ftrail.dat ] && fail "a failed record left ftrail.dat behind"
FTRAIL_LIB=$PWD/missing.so expect_fail "ftrail: FTRAIL_LIB=$PWD/missing.so: No such file or directory" $FTRAIL record -- ./selfw 1
expect_fail "ftrail: -b wants a buffer size in KiB in*" $FTRAIL record -b 1 -- ./selfw 1
# a #! script runs (its interpreter is not instrumented: no warning can be given for it)
printf '#!/bin/sh\nexit 0\n' >s.sh; chmod +x s.sh
$FTRAIL record -o s.dat -- ./s.sh 2>err || fail "script: $(cat err)"
exit 0
