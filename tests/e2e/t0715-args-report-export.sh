# description: captured arguments and return values in report --by-arg and in Chrome export's args (B/E and --complete)
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build t gcc -g -O2 -pg -mfentry "$P/args.c" || fail "build"
rec t.dat --no-libcall -A 'slen@s=arg1/s' -A 'add@a=arg1/i32,b=arg2/i32' \
	--retval 'add@retval/i32' --retval 'paint@retval/e:color' -- ./t
got=$("$FTRAIL" report -i t.dat -s name --by-arg s | grep -o 'slen.*$' | sort)
want='slen
slen(s="hello")
slen(s="xx")
slen(s="xxxx")
slen(s=(null))
slen(s=0x10(bad))'
# a plain "slen" row remains only if some call lacked the value: none did
got=$(printf '%s\n' "$got" | grep -v '^slen$')
want=$(printf '%s\n' "$want" | grep -v '^slen$')
[ "$got" = "$want" ] || fail "--by-arg s: got
$got
expected
$want"
"$FTRAIL" report -i t.dat --by-arg retval | grep -q ' 1  add() = 42$' || fail "--by-arg retval: $(cat report.out)"
"$FTRAIL" report -i t.dat --by-arg retval | grep -q ' 1  paint() = BLUE$' || fail "enum by name"
"$FTRAIL" report -i t.dat --by-arg b | grep -q ' 1  add(b=40)$' || fail "--by-arg b"
# no such item: every function keeps its single row
[ "$("$FTRAIL" report -i t.dat --by-arg nope | grep -c 'slen')" = 1 ] || fail "--by-arg nope"
expect_fail "ftrail: report: --by-arg wants*" "$FTRAIL" report -i t.dat --by-arg 'a=1'

# Chrome: the arguments in the call's args (B or X), the return value in
# E's (or the X's), numbers as numbers
"$FTRAIL" export --format chrome -i t.dat -o t.json 2>err || fail "export: $(cat err)"
python3 - t.json <<'EOF' || fail "chrome export args"
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
b = [e for e in ev if e.get("ph") in ("B", "X") and e.get("name") == "add"]
assert [e["args"] for e in b] == [{"a": 2, "b": 40, "retval": 42}, {"a": -7, "b": 1, "retval": -6}], b
s = [e["args"]["s"] for e in ev if e.get("ph") in ("B", "X") and e.get("name") == "slen"]
assert s == ['"hello"', "(null)", "0x10(bad)", '"xxxx"', '"xx"'], s
rv = [e["args"] for e in ev if e.get("ph") == "E" and "args" in e]
rv += [{"retval": e["args"]["retval"]} for e in ev if e.get("ph") == "X" and "retval" in e.get("args", {})]
assert {"retval": 42} in rv and {"retval": -6} in rv and {"retval": "BLUE"} in rv, rv
EOF
"$FTRAIL" export --format chrome --complete -i t.dat -o x.json 2>err || fail "export: $(cat err)"
python3 - x.json <<'EOF' || fail "chrome --complete args"
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
x = [e["args"] for e in ev if e.get("ph") == "X" and e.get("name") == "add"]
assert x == [{"a": 2, "b": 40, "retval": 42}, {"a": -7, "b": 1, "retval": -6}], x
EOF
exit 0
