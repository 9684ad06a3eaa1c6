# description: record -A / --retval / --filter: a malformed spec is one line naming its position; an unknown function or a --filter on an unknown field warns and tracing goes on
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build t gcc -g -O2 -pg -mfentry "$P/args.c" || fail "build"
R() { "$FTRAIL" record -q -o t.dat "$@" -- ./t; }
expect_fail "ftrail: -A 'add@arg7': at position 8: arg number must be 1..6*" R -A 'add@arg7'
expect_fail "ftrail: -A 'add@arg1/q32': at position 10: unknown format*" R -A 'add@arg1/q32'
expect_fail "ftrail: -A 'add': at position 4: expected FUNC@*" R -A add
expect_fail "ftrail: -A 'add@arg1,': at position 10: expected argN*" R -A 'add@arg1,'
expect_fail "ftrail: -A 'add@retval': at position 5: retval belongs in --retval*" R -A 'add@retval'
expect_fail "ftrail: --retval 'add@arg1': at position 5: expected retval" R --retval 'add@arg1'
expect_fail "ftrail: --retval 'add@retval/s:2000': at position 14: string cap must be 1..1024" \
	R --retval 'add@retval/s:2000'
expect_fail "ftrail: --filter 'add a > 1': at position 1: expected FUNC: EXPR" R --filter 'add a > 1'
expect_fail "ftrail: --filter 'add: a >': at position 9: *" R --filter 'add: a >'
[ ! -e t.dat ] || fail "a trace was written for a bad spec"

# a function that does not exist: a warning, the recording goes on
"$FTRAIL" record -q -o t.dat -A 'no_such_fn@arg1' -A 'add@arg1/i32' -- ./t >out 2>err ||
	fail "record with an unknown function: $(cat err)"
grep -q "argument spec: no function matches 'no_such_fn'" err || fail "no warning: $(cat err)"
[ "$(grep -c 'no function matches' err)" = 1 ] || fail "warned about add too: $(cat err)"
"$FTRAIL" show -i t.dat | grep -q 'add(2);' || fail "add's argument missing: $("$FTRAIL" show -i t.dat)"
# a filter naming a field the function's spec lacks: a warning, every call recorded
"$FTRAIL" record -q -o t.dat -A 'add@a=arg1/i32' --filter 'add: nope > 1' -- ./t >out 2>err ||
	fail "record with a bad filter field: $(cat err)"
grep -q "^ftrail: warning: --filter 'add: nope > 1': at position" err || fail "no warning: $(cat err)"
[ "$("$FTRAIL" show -i t.dat | grep -c ' add(')" = 2 ] || fail "calls were filtered out"
# and a good one keeps only the calls that pass, in every output
"$FTRAIL" record -q -o t.dat -A 'add@a=arg1/i32' --filter 'add: a < 0 && a != -8' -- ./t 2>err ||
	fail "record --filter: $(cat err)"
got=$("$FTRAIL" show -i t.dat | grep ' add(' | sed 's/.*|  *//')
[ "$got" = 'add(a=-7);' ] || fail "--filter kept '$got'"
# a binary without DWARF asked for auto-args: one warning, the registers in hex
build nodw gcc -O2 -pg -mfentry "$P/args.c" || fail "build"
"$FTRAIL" record -q -o t.dat -O funcgraph-retval -- ./nodw >out 2>err || fail "record: $(cat err)"
[ "$(grep -c 'has no DWARF information' err)" = 1 ] || fail "no single warning: $(cat err)"
"$FTRAIL" show -i t.dat | grep -q 'add(); /\* = 0x2a \*/' || fail "no rax: $("$FTRAIL" show -i t.dat)"
exit 0
