# description: export of a damaged trace whose function ids lie far beyond its function table (found by the fuzz target) stays small: every writer, not gigabytes of memo
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
in=$TOP/tests/fuzz/corpus/regress-export-fid-beyond-table
# the writers kept a memo indexed by the function id + 1: an id near 2^32
# made them allocate and clear 8 GB per memo (16 GB, 50 s for chrome)
for fmt in chrome speedscope perfetto; do
	python3 - "$FTRAIL" "$fmt" "$in" <<'PY' >rss.out 2>err || fail "export $fmt: $(cat err)"
import resource, subprocess, sys
ftrail, fmt, path = sys.argv[1:4]
r = subprocess.run([ftrail, "export", "--format", fmt, "-i", path, "-o", "out." + fmt],
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.stderr.write(r.stderr.decode(errors="replace"))
PY
	read -r rc kb <rss.out
	# the file is damaged past its second page: one clear error line
	[ "$rc" = 1 ] || fail "export $fmt: exit $rc, expected 1: $(cat err)"
	[ "$(grep -c . err)" -ge 1 ] || fail "export $fmt: no message"
	[ "$kb" -lt 262144 ] || fail "export $fmt: ${kb} KB at its peak (a memo by a corrupt id?)"
done
exit 0
