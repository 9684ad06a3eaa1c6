#!/usr/bin/env bash
# Spelling of every tracked source, script and document (codespell, from
# Debian).  tests/lint/spelling.ignore lists identifiers codespell mistakes
# for words (fo = a FILE *, sring = a signal-level ring, ...), one per line,
# lower case.  Binary test data and the fuzz corpus are not text; third_party/
# holds published files kept as they were written.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
command -v codespell >/dev/null || { echo "codespell is not installed (scripts/deps.txt)"; exit 1; }
git ls-files -z -- . ':!tests/data' ':!tests/fuzz/corpus' ':!third_party' ':!*.svg' ':!*.dat' |
	xargs -0 codespell -q 3 -I tests/lint/spelling.ignore
