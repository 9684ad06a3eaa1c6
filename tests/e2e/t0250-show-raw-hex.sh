# description: show -O raw / -O hex: ftrace's print_raw_fmt / print_hex_fmt lines (pid cpu ts, then ip parent_ip, "# ip text" markers, stack addresses as numbers)
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
mktrace func f.dat
$FTRAIL show -i f.dat -O raw >out || fail "show -O raw"
# the header stays ftrace's (raw changes the lines only)
head -n 6 out | diff -u - <($FTRAIL show -i f.dat | head -n 6) || fail "raw changed the header"
cat >want <<'TXT'
1000 0 2000005000 401000 400f1a
1000 0 2000006000 401100 401000
1000 0 2000007000 401200 401100
1000 0 2000007000 <stack_id 0>
1000 0 2000009000 401300 401000
1000 0 2000009000 <stack trace>
 => 401305
 => 401044
1000 0 2000012000 # 0 checkpoint
1000 0 2000013000 401200 7f0000001000
TXT
tail -n +7 out | diff -u want - || fail "raw lines differ"

$FTRAIL show -i f.dat -O hex >out || fail "show -O hex"
# trace_seq_putmem_hex: each field zero-padded to its size, then a space
cat >want <<'TXT'
000003e8 00000000 000000007735a788 0000000000401000 0000000000400f1a 
000003e8 00000000 000000007735ab70 0000000000401100 0000000000401000 
000003e8 00000000 000000007735af58 0000000000401200 0000000000401100 
000003e8 00000000 000000007735af58 <stack_id 0>
000003e8 00000000 000000007735b728 0000000000401300 0000000000401000 
000003e8 00000000 000000007735b728 <stack trace>
 => 0000000000401305
 => 0000000000401044
000003e8 00000000 000000007735c2e0 # 0000000000000000 checkpoint
000003e8 00000000 000000007735c6c8 0000000000401200 00007f0000001000 
TXT
tail -n +7 out | diff -u want - || fail "hex lines differ"

# raw with the stacks expanded from the map: addresses, no symbols
$FTRAIL show -i f.dat -O raw --expand-stacks | sed -n 10,13p >out || fail "show raw expand"
printf '%s\n' '1000 0 2000007000 <stack trace>' ' => 401208' ' => 401110' ' => 401020' |
	diff -u - out || fail "raw expanded stack differs"
# -O noraw after a recorded raw goes back to the text
$FTRAIL show -i f.dat -O raw -O noraw | cmp -s - <($FTRAIL show -i f.dat) || fail "-O noraw"
# function_graph ignores raw and hex, as the kernel's graph output does
mktrace graph g.dat
$FTRAIL show -i g.dat -O raw -O hex | cmp -s - <($FTRAIL show -i g.dat) ||
	fail "raw/hex changed the function_graph layout"
exit 0
