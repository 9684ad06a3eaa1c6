# description: make install puts <ftrail/ftrail.h> and ftrail.pc in place; a program builds with pkg-config --cflags ftrail
# requires: pkg-config
. "$TOP/tests/e2e/lib.sh"
need_cmd pkg-config
d=$PWD/inst
make -s -C "$TOP" BUILD="$BUILD" DESTDIR="$d" PREFIX=/usr/local install >mk.log 2>&1 || fail "make install: $(tail -3 mk.log)"
[ -f "$d/usr/local/include/ftrail/ftrail.h" ] || fail "header not installed"
pc=$d/usr/local/lib/pkgconfig/ftrail.pc
[ -f "$pc" ] || fail "ftrail.pc not installed"
grep -q '^Version: [0-9]' "$pc" || fail "no version in ftrail.pc"
cflags=$(PKG_CONFIG_PATH=$d/usr/local/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d pkg-config --cflags ftrail)
[ "$(echo $cflags)" = "-I$d/usr/local/include" ] || fail "pkg-config --cflags: '$cflags'"
cc $(PKG_CONFIG_PATH=$d/usr/local/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$d pkg-config --cflags ftrail) \
	-o ev_types "$TOP/tests/progs/ev_types.c" || fail "build with pkg-config"
./ev_types || fail "run"
exit 0
