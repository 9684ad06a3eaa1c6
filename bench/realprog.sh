#!/usr/bin/env bash
# Real programs, side by side in one run: Debian's own sources of Lua,
# SQLite and zstd, built with instrumentation, each workload run untraced,
# under `ftrail record` and under `uftrace record`:
#
#   lua      fib(25), a 200k-element table.sort with a Lua comparator,
#            50k string.format calls               (built -pg, and also
#            -fpatchable-function-entry=5 and -finstrument-functions)
#   sqlite   the shell inserting 100k rows, indexing and querying them (-pg)
#   zstd     zstd -9 -T3 on 48 MiB of source text, 3 threads  (-pg)
#
# Printed per program and build: calls; wall and CPU time and max RSS
# (whole process tree, /usr/bin/time) untraced / ftrail / uftrace, with the
# ratios to untraced; events ftrail lost (its summary) and uftrace lost
# (LOST lines of its replay); bytes per call on disk; `report` and
# `show`/`replay` times (text through a pipe to /dev/null) and their
# ratios; and whether the two tools' per-function call counts agree.
#
#   bench/realprog.sh [lua|sqlite|zstd]...      (default: all three)
#   env: WORK=/var/tmp/ftrail-realprog  BUILD=build  UFTRACE=uftrace (0: skip)
#        SHOW=1 (0: skip show/replay, the slowest part)
#
# Needs root the first time (apt-get source; adds a deb-src entry for
# Debian's archive when there is none), and tcl (the SQLite amalgamation is
# generated with tclsh).  Not part of make check: a full run takes minutes.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
FTRAIL=$TOP/$BUILD/ftrail
WORK=${WORK:-/var/tmp/ftrail-realprog}
UFTRACE=${UFTRACE:-uftrace}
SHOW=${SHOW:-1}
PROGS=${*:-lua sqlite zstd}
TIME=/usr/bin/time

die() { echo "realprog: $*" >&2; exit 1; }
[ -x "$FTRAIL" ] || die "build ftrail first (make -j2)"
[ -x $TIME ] || die "needs /usr/bin/time (Debian package time)"
[ "$UFTRACE" = 0 ] || command -v "$UFTRACE" >/dev/null || die "uftrace not found (UFTRACE=0 to skip it)"
. "$TOP/bench/realprog_lib.sh"

# ---- measuring ----

# timed OUTFILE cmd...: runs cmd in $W, writes "wall user sys maxrss_kb"
timed() {
	local out=$1
	shift
	(cd "$W" && $TIME -f '%e %U %S %M' -o "$out.time" "$@" >"$out.stdout" 2>"$out.stderr")
	echo $? >"$out.rc"
}
wall() { awk '{print $1}' "$1.time" | tail -n 1; }
cpu() { tail -n 1 "$1.time" | awk '{printf "%.2f", $2 + $3}'; }
rss() { tail -n 1 "$1.time" | awk '{printf "%.0f", $4 / 1024}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }

# per-function calls of a report: "calls name" lines, both tools' layout
# ("total self calls name", times with units)
calls_of() { awk 'NF >= 4 && $(NF-1) ~ /^[0-9]+$/ { print $(NF-1), $NF }' "$1" | sort -k2; }

run_one() { # prog variant
	local p=$1 v=$2 cmd r="$W/$1-$2" f u calls lost ulost agree
	cmd=$(workload "$p" "$v")
	# shellcheck disable=SC2086
	timed "$r.plain" $cmd
	# shellcheck disable=SC2086
	timed "$r.ftrail" "$FTRAIL" record -o "$r.dat" -- $cmd
	[ "$(cat "$r.ftrail.rc")" = 0 ] || echo "  ftrail record failed: $(tail -n 2 "$r.ftrail.stderr")"
	lost=$(sed -n 's/.*(\([0-9]*\) lost).*/\1/p' "$r.ftrail.stderr" | head -n 1)
	timed "$r.frep" "$FTRAIL" report -i "$r.dat"
	cp "$r.frep.stdout" "$r.freport"
	calls=$(calls_of "$r.freport" | awk '{ s += $1 } END { print s + 0 }')
	f=$(stat -c %s "$r.dat")
	if [ "$SHOW" = 1 ]; then
		(cd "$W" && $TIME -f '%e %U %S %M' -o "$r.fshow.time" sh -c "'$FTRAIL' show -i '$r.dat' | cat >/dev/null")
	fi
	if [ "$UFTRACE" != 0 ] && [ "$v" != pfe ]; then
		rm -rf "$r.uftrace"
		# shellcheck disable=SC2086
		timed "$r.uft" "$UFTRACE" record -d "$r.uftrace" $cmd
		u=$(du -sb "$r.uftrace" | awk '{print $1}')
		timed "$r.urep" "$UFTRACE" report -d "$r.uftrace"
		cp "$r.urep.stdout" "$r.ureport"
		if [ "$SHOW" = 1 ]; then
			(cd "$W" && $TIME -f '%e %U %S %M' -o "$r.ushow.time" sh -c \
				"'$UFTRACE' replay -d '$r.uftrace' | tee >(grep -c LOST >'$r.ulost') >/dev/null")
			ulost=$(cat "$r.ulost" 2>/dev/null)
		fi
		# call counts of the functions both tools name
		join -1 2 -2 2 <(calls_of "$r.freport") <(calls_of "$r.ureport") >"$r.join"
		agree="$(awk '$2 == $3 { s++ } END { print s + 0 }' "$r.join")/$(wc -l <"$r.join") functions"
	fi

	printf '%-7s %-5s %12s calls\n' "$p" "$v" "$calls"
	printf '  %-22s %9s %9s %9s\n' "" untraced ftrail uftrace
	printf '  %-22s %8ss %8ss %8s\n' "wall" "$(wall "$r.plain")" "$(wall "$r.ftrail")" \
		"$([ -f "$r.uft.time" ] && echo "$(wall "$r.uft")s" || echo -)"
	printf '  %-22s %8ss %8ss %8s\n' "CPU (user+sys)" "$(cpu "$r.plain")" "$(cpu "$r.ftrail")" \
		"$([ -f "$r.uft.time" ] && echo "$(cpu "$r.uft")s" || echo -)"
	printf '  %-22s %7sMB %7sMB %8s\n' "max RSS" "$(rss "$r.plain")" "$(rss "$r.ftrail")" \
		"$([ -f "$r.uft.time" ] && echo "$(rss "$r.uft")MB" || echo -)"
	printf '  %-22s %9s %9s %9s\n' "slowdown (wall)" 1.00x "$(ratio "$(wall "$r.ftrail")" "$(wall "$r.plain")")" \
		"$([ -f "$r.uft.time" ] && ratio "$(wall "$r.uft")" "$(wall "$r.plain")" || echo -)"
	printf '  %-22s %9s %9s %9s\n' "lost events" - "${lost:-?}" "${ulost:--}"
	printf '  %-22s %9s %9s %9s\n' "bytes/call on disk" - \
		"$(awk -v a="$f" -v c="$calls" 'BEGIN { printf "%.2f", c ? a / c : 0 }')" \
		"$([ -n "${u:-}" ] && awk -v a="$u" -v c="$calls" 'BEGIN { printf "%.2f", c ? a / c : 0 }' || echo -)"
	if [ -n "${u:-}" ]; then
		printf '  %-22s %9s %8ss %8ss  uftrace/ftrail %s\n' "report" - "$(wall "$r.frep")" "$(wall "$r.urep")" \
			"$(ratio "$(wall "$r.urep")" "$(wall "$r.frep")")"
		[ "$SHOW" = 1 ] &&
			printf '  %-22s %9s %8ss %8ss  uftrace/ftrail %s\n' "show | replay" - "$(wall "$r.fshow")" \
				"$(wall "$r.ushow")" "$(ratio "$(wall "$r.ushow")" "$(wall "$r.fshow")")"
		printf '  %-22s %s\n' "call counts agree" "$agree"
	else
		printf '  %-22s %9s %8ss\n' "report" - "$(wall "$r.frep")"
		[ "$SHOW" = 1 ] && printf '  %-22s %9s %8ss\n' "show" - "$(wall "$r.fshow")"
	fi
	rm -rf "$r.dat" "$r.uftrace"
}

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg); $("$FTRAIL" version)" \
	"$([ "$UFTRACE" != 0 ] && "$UFTRACE" --version | head -n 1 | cut -d' ' -f1-2)"
for p in $PROGS; do
	case $p in
	lua)
		build_lua pg -pg
		build_lua pfe -fpatchable-function-entry=5
		build_lua cyg -finstrument-functions
		for v in pg pfe cyg; do run_one lua $v; done
		;;
	sqlite)
		build_sqlite pg -pg
		run_one sqlite pg
		;;
	zstd)
		build_zstd pg -pg
		zstd_input
		run_one zstd pg
		;;
	*) die "unknown program '$p' (lua, sqlite, zstd)" ;;
	esac
done
