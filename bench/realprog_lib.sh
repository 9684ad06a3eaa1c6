# Real-program workloads shared by bench/realprog.sh and bench/lossless.sh:
# Debian's own sources of Lua, SQLite and zstd, fetched with apt-get source,
# built with instrumentation into $WORK/bin, and the command line of each
# workload.  Sourced, not run; the caller sets WORK and defines die().
# shellcheck shell=bash

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

