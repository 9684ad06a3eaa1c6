#!/usr/bin/env bash
# description: latency --from sched:sched_waking --from-key pid --to sched:sched_switch --to-key next_pid: pairs, per-key hist entries and log2 buckets match what the test pairs itself from show's raw events
# requires: root tracefs cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd cc
cc -O1 -pthread -o wp "$TOP/tests/progs/wakeup_pipe.c" || fail "cannot build wakeup_pipe"

$FTRAIL record -q -p nop -e sched:sched_waking -e sched:sched_switch -a -o k.dat -- ./wp --hogs 2 --rounds 80 \
	>/dev/null 2>rec.err || fail "record: $(cat rec.err)"
L="$FTRAIL latency -i k.dat --from sched:sched_waking --from-key pid --to sched:sched_switch --to-key next_pid"

# The same pairing by hand, from the raw events ("tid cpu ts_ns name:
# fields"): per key a stack of open wakings, a switch closes the most
# recent one of its next_pid.  Prints the pairs ("P key ns"), then the
# counts line as latency prints it.
$FTRAIL show -i k.dat -O raw | awk '
	function f(name) {
		if (!match($0, " " name "=-?[0-9]+")) return ""
		return substr($0, RSTART + length(name) + 2, RLENGTH - length(name) - 2)
	}
	$4 == "sched_waking:" { k = f("pid"); st[k, n[k]++] = $3; next }
	$4 == "sched_switch:" {
		k = f("next_pid")
		if (!n[k]) { unmatched++; next }
		b = st[k, --n[k]]; print "P", k, $3 - b; pairs++
	}
	END {
		for (k in n) open += n[k]
		printf "pairs: %d, begins left open: %d, ends without a begin: %d\n", pairs, open, unmatched
	}' >mine.txt
pairs=$(grep -c '^P ' mine.txt)
[ "$pairs" -ge 100 ] || fail "only $pairs pairs: the test proves little"

# every pair, and the counts
$L >lat.txt || fail "latency"
[ "$(grep -Ec '^ *[0-9]+\.[0-9]{9} ' lat.txt)" = "$pairs" ] || fail "pair lines: $(grep -Ec '^ *[0-9]+\.[0-9]{9} ' lat.txt), mine $pairs"
grep -qxF "$(tail -1 mine.txt)" lat.txt || fail "counts: $(grep '^pairs:' lat.txt), mine: $(tail -1 mine.txt)"
max=$(awk '$1 == "P" && $3 > m { m = $3 } END { printf "%d.%03d", m / 1000, m % 1000 }' mine.txt)
grep -Eq "^\(all\) +$pairs .* $max\$" lat.txt || fail "(all): $(grep '^(all)' lat.txt), max mine $max"

# --hist: the kernel's hist trigger shape, entries equal to mine
$L --hist >hist.txt || fail "--hist"
grep -q '^# event histogram$' hist.txt || fail "no '# event histogram'"
grep -q '^# trigger info: hist:keys=next_pid:vals=hitcount,lat,lat_max:sort=lat_max.descending ' hist.txt ||
	fail "trigger info: $(grep 'trigger info' hist.txt | head -1)"
grep -q '^# trigger info: hist:keys=lat.log2:vals=hitcount:sort=lat.log2 ' hist.txt || fail "log2 trigger info"
awk '$1 == "P" { c[$2]++; s[$2] += $3; if ($3 > m[$2]) m[$2] = $3 }
	END { for (k in c) printf "{ next_pid: %10d } hitcount: %10d  lat: %10d  lat_max: %10d\n", k, c[k], s[k] / 1000, m[k] / 1000 }' \
	mine.txt | sort >want.keys
grep '^{ next_pid: ' hist.txt | sort >got.keys
diff want.keys got.keys >/dev/null || fail "per-key entries differ: $(diff want.keys got.keys | head -4)"
# lat_max descending
grep '^{ next_pid: ' hist.txt | awk '{ print $NF }' | sort -c -n -r || fail "not sorted by lat_max"
awk '$1 == "P" { us = int($3 / 1000); b = 0; while (us >= 2) { us = int(us / 2); b++ } h[b]++ }
	END { for (b in h) printf "{ lat: ~ 2^%-2d } hitcount: %10d\n", b, h[b] }' mine.txt | sort >want.log2
grep '^{ lat: ~ 2^' hist.txt | sort >got.log2
diff want.log2 got.log2 >/dev/null || fail "log2 buckets differ: $(diff want.log2 got.log2 | head -4)"
# Totals: hits add up to the pairs, entries to the lines above them
[ "$(grep -c '^    Hits: '"$pairs"'$' hist.txt)" = 2 ] || fail "Totals Hits: $(grep Hits hist.txt)"
grep -qx "    Entries: $(wc -l <got.keys)" hist.txt || fail "Totals Entries (keys)"
grep -qx "    Entries: $(wc -l <got.log2)" hist.txt || fail "Totals Entries (log2)"

exit 0
