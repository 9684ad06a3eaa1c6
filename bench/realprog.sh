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
mkdir -p "$WORK/src" "$WORK/bin" "$WORK/run"

# ---- sources, from Debian's archive ----

fetch() { # package -> unpacked in $WORK/src
	local pkg=$1
	ls -d "$WORK/src/$pkg"*/ >/dev/null 2>&1 && return 0
	if ! grep -rqs '^Types: deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		[ -f /etc/apt/sources.list.d/debian.sources ] || die "no deb-src entry and no debian.sources to copy"
		sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
			>/etc/apt/sources.list.d/ftrail-deb-src.sources
		apt-get update -qq || die "apt-get update failed"
	fi
	(cd "$WORK/src" && apt-get source -qq "$pkg" >/dev/null 2>&1) || die "apt-get source $pkg failed"
}

srcdir() { ls -d "$WORK/src/$1"*/ | head -n 1; }

build_lua() { # variant flags...
	local v=$1 d
	shift
	[ -x "$WORK/bin/lua-$v" ] && return 0
	fetch lua5.4
	d=$(srcdir lua5.4)/src
	# Debian's luaconf.h names a header its packaging generates
	echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$d/lua5.4-deb-multiarch.h"
	(cd "$d" && gcc -std=gnu99 -O2 -g "$@" -DLUA_COMPAT_5_3 -DLUA_USE_LINUX \
		-o "$WORK/bin/lua-$v" $(ls ./*.c | grep -v luac.c) -lm -ldl) || die "build lua $v"
}

build_sqlite() { # variant flags...
	local v=$1 d
	shift
	[ -x "$WORK/bin/sqlite-$v" ] && return 0
	fetch sqlite3
	d=$(srcdir sqlite3)
	if [ ! -f "$d/bld/sqlite3.c" ]; then
		command -v tclsh >/dev/null || die "needs tclsh (Debian package tcl)"
		mkdir -p "$d/bld"
		(cd "$d/bld" && ../configure --disable-tcl >/dev/null 2>&1 && make -s sqlite3.c shell.c >/dev/null 2>&1) ||
			die "sqlite amalgamation"
	fi
	gcc -O2 -g "$@" -DSQLITE_OMIT_LOAD_EXTENSION -o "$WORK/bin/sqlite-$v" \
		"$d/bld/sqlite3.c" "$d/bld/shell.c" -lpthread -lm || die "build sqlite $v"
}

build_zstd() { # variant flags...
	local v=$1 d
	shift
	[ -x "$WORK/bin/zstd-$v" ] && return 0
	fetch libzstd
	d=$(srcdir libzstd)
	make -s -C "$d/programs" clean >/dev/null 2>&1
	make -s -j"$(nproc)" -C "$d/programs" zstd MOREFLAGS="$*" >/dev/null 2>&1 || die "build zstd $v"
	cp "$d/programs/zstd" "$WORK/bin/zstd-$v"
}

# ---- workloads ----

W=$WORK/run
cat >"$W/bench.lua" <<'EOF'
local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end
local t = {}
for i = 1, 200000 do t[i] = (i * 7919) % 100003 end
table.sort(t, function(a, b) return a < b end)
local s = {}
for i = 1, 50000 do s[#s+1] = string.format("%d:%s", i, tostring(i*3)) end
print(fib(25), t[1], t[#t], #table.concat(s, ","))
EOF
cat >"$W/bench.sql" <<'EOF'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c INT);
BEGIN;
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100000)
INSERT INTO t SELECT i, printf('row%d', i * 7919 % 100003), i % 97 FROM s;
COMMIT;
CREATE INDEX tb ON t(b);
SELECT c, count(*), sum(a) FROM t GROUP BY c ORDER BY 2 DESC, 1 LIMIT 3;
SELECT count(*) FROM t WHERE b LIKE 'row1%';
SELECT b FROM t ORDER BY b DESC LIMIT 1;
EOF

zstd_input() { # 48 MiB of C source text, the same bytes every run
	[ -s "$W/zin" ] && return 0
	fetch sqlite3
	local c
	c=$(srcdir sqlite3)/bld/sqlite3.c
	[ -f "$c" ] || build_sqlite pg -pg
	: >"$W/zin"
	while [ "$(stat -c %s "$W/zin")" -lt $((48 << 20)) ]; do
		cat "$c" >>"$W/zin"
	done
	truncate -s $((48 << 20)) "$W/zin"
}

# cmdline for a program and build: prints the argv to run (in $W)
workload() { # prog variant
	case $1 in
	lua) echo "$WORK/bin/lua-$2 bench.lua" ;;
	sqlite) echo "$WORK/bin/sqlite-$2 :memory: -init bench.sql .quit" ;;
	zstd) echo "$WORK/bin/zstd-$2 -q -9 -T3 -f -o zout.zst zin" ;;
	esac
}

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
