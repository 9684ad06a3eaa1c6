# description: mount: the tree is its owner's only (default_permissions, no allow_other): another user can neither read nor write it
# requires: root fuse gcc su
# asan: no
. "$TOP/tests/e2e/t1019-mount.inc"
need_cmd su
id nobody >/dev/null 2>&1 || skip "needs the user nobody"
build_loop
chmod 755 .
echo visible >plain
chmod 644 plain
as_nobody() { su nobody -s /bin/sh -c "$1"; }
# the checks below are not vacuous: nobody reaches this directory
expect_eq "nobody reads a plain file here" "$(as_nobody "cat $PWD/plain")" visible
start_rec m -p function -l alpha
grep " $PWD/m fuse.ftrail " /proc/mounts >mnt
grep -q 'default_permissions' mnt || fail "mounted without default_permissions: $(cat mnt)"
grep -q 'allow_other' mnt && fail "mounted with allow_other: $(cat mnt)"
expect_eq "owner" "$(stat -c %U m/tracing_on)" root
for f in tracing_on current_tracer set_ftrace_filter stack_map trace_options; do
	as_nobody "cat $PWD/m/$f" >out 2>&1 && fail "nobody read $f: $(cat out)"
	as_nobody "echo 0 > $PWD/m/$f" >out 2>&1 && fail "nobody wrote $f"
done
as_nobody "ls $PWD/m" >out 2>&1 && fail "nobody listed the tree: $(cat out)"
as_nobody "echo hi > $PWD/m/trace_marker" >out 2>&1 && fail "nobody wrote trace_marker"
# nothing changed, and the owner still can
expect_eq tracing_on "$(cat m/tracing_on)" 1
expect_eq set_ftrace_filter "$(cat m/set_ftrace_filter)" alpha
echo beta >m/set_ftrace_filter || fail "the owner cannot write"
stop_rec
exit 0
