#!/bin/sh
# `make example`: trace the bundled example with the function_graph tracer and
# show what ftrail makes of it.  Run from the top of the tree after `make`.
set -e
B=${BUILD:-build}
mkdir -p "$B/examples"
gcc -O1 -g -pthread -fpatchable-function-entry=5 -o "$B/examples/demo" examples/demo.c
set -x
"$B/ftrail" record -T -o "$B/examples/demo.dat" -- "$B/examples/demo"
"$B/ftrail" show -i "$B/examples/demo.dat" | head -n 60
"$B/ftrail" report -i "$B/examples/demo.dat"
"$B/ftrail" stackmap stat -i "$B/examples/demo.dat"
