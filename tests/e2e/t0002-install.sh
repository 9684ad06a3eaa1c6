# description: make install into a temporary prefix: the tool finds its runtime; ftrail.pc, man pages and bash completion work
# requires:
. "$TOP/tests/e2e/lib.sh"
[ "$BUILD" = "$TOP/build" ] || skip "installs the plain build only"
stage=$PWD/stage
make -s -C "$TOP" install PREFIX=/opt/ftrail-t DESTDIR="$stage" >install.out 2>&1 ||
	fail "make install: $(tail -n 5 install.out)"
root=$stage/opt/ftrail-t
[ -x "$root/bin/ftrail" ] || fail "no bin/ftrail"
[ -r "$root/lib/ftrail/libftrail.so" ] || fail "no lib/ftrail/libftrail.so"
# the staged tree is relocated on purpose: the tool must find its runtime
# relative to itself, not through a path fixed at build time
mv "$stage/opt/ftrail-t" moved
cat >prog.c <<'C'
#include <ftrail/ftrail.h>
FTRAIL_EVENT(demo, tick, (u32, n));
static int __attribute__((noinline)) leaf(int x) { return x * 3; }
int main(void) { int s = 0; for (int i = 0; i < 5; i++) s += leaf(i); ftrail_trace(demo, tick, (unsigned)s); return s == 30 ? 0 : 1; }
C
PKG_CONFIG_PATH=$PWD/moved/lib/pkgconfig pkg-config --cflags --libs ftrail >pc.out 2>&1 ||
	fail "pkg-config ftrail: $(cat pc.out)"
grep -q "include" pc.out || fail "ftrail.pc gives no include path: $(cat pc.out)"
# the .pc names the prefix it was installed for; compile against the moved copy
cc -O1 -pg -I"$PWD/moved/include" -o prog prog.c || fail "build against the installed header"
env -u FTRAIL_LIB ./moved/bin/ftrail record -q -e u:demo:tick -o t.dat -- ./prog 2>rec.err ||
	fail "installed ftrail record: $(cat rec.err)"
./moved/bin/ftrail show -i t.dat >show.out || fail "installed ftrail show"
[ "$(grep -c 'leaf()' show.out)" = 5 ] || fail "expected 5 calls of leaf: $(head -n 20 show.out)"
grep -q 'tick: n=30' show.out || fail "user event missing: $(grep -v '^#' show.out | head -n 5)"
# a man page per command, generated from the --help texts
for c in $(./moved/bin/ftrail help | sed -n 's/^  \([a-z]\{1,\}\)  .*/\1/p' | grep -v -x -e help -e version); do
	[ -s "moved/share/man/man1/ftrail-$c.1" ] || fail "no man page for $c"
done
MANPATH=$PWD/moved/share/man MANWIDTH=200 man ftrail-record >man.out 2>man.err || fail "man ftrail-record: $(cat man.err)"
grep -q -- '--stackmap-bits' man.out || fail "man ftrail-record lacks the options: $(head -n 20 man.out)"
grep -q 'ftrail-record - trace a program' man.out || fail "man ftrail-record has no NAME line"
MANPATH=$PWD/moved/share/man man ftrail >/dev/null 2>&1 || fail "man ftrail"
# bash completion: commands, options, tracers, trace options
cat >comp.sh <<'B'
. "$1/share/bash-completion/completions/ftrail"
comp() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _ftrail; echo "${COMPREPLY[*]}"; }
F=$1/bin/ftrail
echo "cmds: $(comp $F rep)"
echo "opts: $(comp $F record --stackmap)"
echo "tracers: $(comp $F record -p function)"
echo "options: $(comp $F show -O nofuncgraph-dur)"
B
bash comp.sh "$PWD/moved" >comp.out 2>&1 || fail "completion: $(cat comp.out)"
grep -qx 'cmds: report' comp.out || fail "command completion: $(cat comp.out)"
grep -qx 'opts: --stackmap-bits' comp.out || fail "option completion: $(cat comp.out)"
grep -qx 'tracers: function function_graph' comp.out || fail "tracer completion: $(cat comp.out)"
grep -qx 'options: nofuncgraph-duration' comp.out || fail "trace option completion: $(cat comp.out)"
exit 0
