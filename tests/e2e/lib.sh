# Helpers sourced by end-to-end cases: . "$TOP/tests/e2e/lib.sh"
set -u
fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
# have_tracefs: true when root and tracefs is mounted (it mounts it): for a
# case's optional kernel part
have_tracefs() {
	[ "$(id -u)" = 0 ] || return 1
	[ -e /sys/kernel/tracing/trace ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -e /sys/kernel/tracing/trace ]
}
need_tracefs() {
	need_root
	have_tracefs || skip "needs tracefs"
}
# FUSE (the live mount, ftrail mount): skips only when the kernel has no /dev/fuse
need_fuse() { [ -c /dev/fuse ] || skip "needs /dev/fuse"; }
# mktrace SCENARIO FILE [-z]: a synthetic trace from tests/tools/mktrace
# (make all builds it)
mktrace() {
	[ -x "$BUILD/tests/tools/mktrace" ] || fail "no $BUILD/tests/tools/mktrace (make all builds it)"
	"$BUILD/tests/tools/mktrace" "$@" || fail "mktrace $*"
}
need_cmd() { command -v "$1" >/dev/null 2>&1 || skip "needs $1"; }
# expect_status RC cmd... 2>err: fail unless cmd exits RC (record exits with
# its program's status: 128+N for signal N); the message quotes ./err
expect_status() {
	local want=$1 rc
	shift
	"$@"
	rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want: $(cat err 2>/dev/null)"
}
# expect_grep FILE WHAT [grep options] PATTERN: fail with "WHAT: <FILE's
# contents>" unless a line of FILE matches
expect_grep() {
	local f=$1 what=$2
	shift 2
	grep -q "$@" "$f" || fail "$what: $(cat "$f")"
}
# expect_fail "message glob" cmd...: non-zero exit and exactly one line on stderr matching glob
expect_fail() {
	local pat=$1; shift
	local err rc
	err=$("$@" 2>&1 >/dev/null); rc=$?
	[ $rc -ne 0 ] || fail "expected failure: $*"
	[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "expected one stderr line from '$*', got: $err"
	[[ $err == $pat ]] || fail "stderr of '$*' was '$err', expected '$pat'"
}
