# description: a trace cut anywhere reads, with names, up to its last complete section: the recorder SIGKILLed at 10 random moments and finished files cut at 20 random offsets, for user, kernel and mixed recordings; show, report, stacks (and latency with kernel events) warn that the file was cut short and print events and names, never fid#N
# requires: gcc python3 (kernel and mixed: root tracefs)
# asan: yes
# The recorder writes what names a chunk (FUNCS, MODULES, SYMTAB, stacks,
# kernel formats and symbols) before the chunk, and flushes at least once a
# second.  Each kill comes at a random moment in the 1.5 s after the first
# chunk of each kind recorded is in the file (before it, there is nothing
# to read); cut offsets are drawn after the end of those first chunks.  FTRAIL_CUT_SEED picks
# another draw.
. "$TOP/tests/e2e/lib.sh"
need_cmd gcc
need_cmd python3
gcc -O0 -g -pg -mfentry -o steady "$TOP/tests/progs/cut_steady.c" || fail "build cut_steady"
export FTRAIL_LIB=${FTRAIL_LIB:-$BUILD/libftrail.so}
RANDOM=${FTRAIL_CUT_SEED:-308}
KEV="-e sched:sched_switch -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit -T"

modes="user"
if have_tracefs; then
	modes="user kernel mixed"
else
	echo "no root or tracefs: user recordings only"
fi

# rec MODE OUT MS: the record command line of MODE, the program running MS ms
rec() {
	case $1 in
	user) echo "$FTRAIL record -p function -T -o $2 -- ./steady $3" ;;
	kernel) echo "$FTRAIL record -p nop $KEV -o $2 -- ./steady $3" ;;
	mixed) echo "$FTRAIL record -p function -T $KEV -o $2 -- ./steady $3" ;;
	esac
}

# first_data_end FILE MODE: the offset where the first data section of each
# kind MODE records (UDATA, KDATA) has ended
first_data_end() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
want = {"user": {7}, "kernel": {9}, "mixed": {7, 9}}[sys.argv[2]]
off = struct.unpack_from("<I", d, 12)[0]
while off + 40 <= len(d) and want:
    typ, fl, sid, disk, raw, c, hc = struct.unpack_from("<IIQQQII", d, off)
    off += 40 + disk
    want.discard(typ)
if not want:
    print(off)
EOF
}

reads=0
# check MODE FILE WHAT: every reader reads FILE with the cut-short warning,
# events and names
check() {
	local mode=$1 f=$2 what=$3 c
	for c in show report stacks latency; do
		case $c in
		latency)
			[ "$mode" = user ] && continue
			$FTRAIL latency -i "$f" --from raw_syscalls:sys_enter \
				--to raw_syscalls:sys_exit --label id >o 2>e ;;
		*) $FTRAIL $c -i "$f" >o 2>e ;;
		esac
		rc=$?
		reads=$((reads + 1))
		[ $rc -eq 0 ] || fail "$what: $c exit $rc: $(head -c 300 e)"
		grep -q "^ftrail: warning: $f was cut short" e ||
			fail "$what: $c: no cut-short warning: $(head -c 300 e)"
		! grep -q 'fid#' o || fail "$what: $c prints fid#N: $(grep -m 2 'fid#' o)"
		case $c in
		show) [ "$(grep -vc '^#' o)" -gt 0 ] || fail "$what: show: no events"
			if [ "$mode" != kernel ]; then
				grep -Eq ' (outer|middle|leaf)' o || fail "$what: show: no user function names"
			fi
			if [ "$mode" != user ]; then
				grep -q 'sys_enter: NR' o || fail "$what: show: no kernel event"
			fi ;;
		report) [ "$mode" = kernel ] ||
			grep -Eq '^ +[0-9]+ +(outer|middle|leaf)$|[0-9] +(outer|middle|leaf)$' o ||
			fail "$what: report: no function: $(head -n 8 o)" ;;
		stacks) grep -q '^@\[' o || fail "$what: stacks: no stack"
			if [ "$mode" != kernel ]; then
				grep -q '^    outer' o || fail "$what: stacks: no user names"
			fi
			if [ "$mode" != user ]; then
				grep -Eq '^    (do_syscall_64|entry_SYSCALL|__schedule|schedule)' o ||
					fail "$what: stacks: no kernel names: $(grep -m 4 '^    0x' o)"
			fi ;;
		latency) [ "$(wc -l <o)" -gt 1 ] || fail "$what: latency: no pair" ;;
		esac
	done
}

for mode in $modes; do
	# a finished recording, cut at 20 offsets
	$(rec $mode full.dat 3000) >/dev/null 2>rec.err || fail "$mode record: $(cat rec.err)"
	size=$(stat -c %s full.dat)
	start=$(first_data_end full.dat $mode)
	[ -n "$start" ] && [ "$start" -lt "$size" ] || fail "$mode: no data section before the end"
	for i in $(seq 1 20); do
		off=$((start + (RANDOM * 32768 + RANDOM) % (size - start)))
		head -c "$off" full.dat >cut.dat
		check $mode cut.dat "$mode cut at $off of $size"
	done
	rm -f full.dat

	# killed at 10 moments
	for i in $(seq 1 10); do
		ms=$((RANDOM % 1500))
		rm -f k.dat k.dat.partial
		$(rec $mode k.dat 6000) >/dev/null 2>rec.err &
		rp=$!
		# the first chunk of each kind (at most a second of recording), then a random moment
		for w in $(seq 1 200); do
			[ -e k.dat.partial ] && [ -n "$(first_data_end k.dat.partial $mode)" ] && break
			sleep 0.05
		done
		sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
		kid=$(pgrep -P $rp)
		kill -9 $rp
		wait $rp 2>/dev/null
		[ -n "$kid" ] && kill $kid 2>/dev/null
		[ -e k.dat ] && fail "$mode killed: k.dat exists (it must stay as it was: absent)"
		[ -s k.dat.partial ] || fail "$mode killed: no k.dat.partial"
		check $mode k.dat.partial "$mode killed ${ms} ms after its first chunks"
	done
done
echo "$reads reads of cut traces ($modes)"
exit 0
