#!/usr/bin/env bash
# Formatting of every tracked C source and header (clang-format from
# Debian, configured by .clang-format).  Prints the files that differ
# from the formatter's output and a way to fix them; tables the formatter
# would spoil are fenced with clang-format off/on.  Test data is not code.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
command -v clang-format >/dev/null || { echo "clang-format is not installed (scripts/deps.txt)"; exit 1; }
bad=0
while IFS= read -r -d '' f; do
	if ! clang-format --style=file "$f" | cmp -s - "$f"; then
		echo "not formatted: $f"
		bad=1
	fi
done < <(git ls-files -z -- '*.c' '*.h' ':!tests/data')
[ $bad = 0 ] || echo "fix with: clang-format -i FILE (or git ls-files '*.[ch]' | xargs clang-format -i)"
exit $bad
