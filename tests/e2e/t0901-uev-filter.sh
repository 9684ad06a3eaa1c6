# description: -f on user events: each operator, precedence, parentheses, globs, subsystem filters
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
cc -O2 -I"$TOP/include" -o ev_ctl "$TOP/tests/progs/ev_ctl.c" || fail "build"
# ids of data:v (or data:name) that pass FILTER
ids() { # event filter
	$FTRAIL record -q -p nop -e "u:data:$1" -f "$2" -o f.dat -- ./ev_ctl 2>err || fail "record -f '$2': $(cat err)"
	$FTRAIL show -i f.dat | sed -n 's/.* \(v\|name\):.* i=\([0-9]*\).*/\2/p' | tr '\n' ' '
}
check() { # event filter expected
	local got
	got=$(ids "$1" "$2")
	[ "$got" = "$3" ] || fail "-f '$2': got '$got', expected '$3'"
}
check v 'i == 3' '3 '
check v 'i != 3' '0 1 2 4 5 6 7 8 9 '
check v 'i < 2' '0 1 '
check v 'i <= 2' '0 1 2 '
check v 'i > 7' '8 9 '
check v 'i >= 7' '7 8 9 '
check v 'flags & 0x14' '2 4 '
check v 'neg < -7' '8 9 '
check v 'neg >= -1' '0 1 '
check v 'i == 0x9 || i == 010' '8 9 '
check v '!(i < 8)' '8 9 '
check v '!i < 8' '8 9 '
# && binds tighter than ||
check v 'i == 1 || i > 5 && i < 7' '1 6 '
check v '(i == 1 || i > 5) && i < 7' '1 6 '
check v '(i == 1 || i > 7) && i < 9' '1 8 '
check v 'i == 1 || (i > 7 && i < 9)' '1 8 '
check name 'comm == bash' '0 5 '
check name 'comm == "bash"' '0 5 '
check name "comm != 'bash'" '1 2 3 4 6 7 8 9 '
check name 'comm ~ "bash*"' '0 2 5 7 '
check name 'comm ~ "*sh"' '0 1 3 4 5 6 8 9 '
check name 'comm ~ "?sh"' '1 6 '
check name 'comm ~ "[bd]ash"' '0 4 5 9 '
check name 'comm ~ "*ash*" && i >= 5' '5 7 9 '
# a subsystem filter applies to the events that have its fields only
$FTRAIL record -q -p nop -e u:data -f 'neg == -4' -o f.dat -- ./ev_ctl 2>err || fail "subsystem filter: $(cat err)"
got=$($FTRAIL show -i f.dat | grep -c ' v: ')
[ "$got" = 1 ] || fail "subsystem filter: $got data:v events"
got=$($FTRAIL show -i f.dat | grep -c ' name: ')
[ "$got" = 10 ] || fail "subsystem filter: $got data:name events (should be unfiltered)"
exit 0
