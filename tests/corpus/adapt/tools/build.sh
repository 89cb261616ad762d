#!/bin/sh
# build.sh -- compile the C tools into bin/. Run from the workspace root:
#   sh tools/build.sh
set -e
cd "$(dirname "$0")/.."
CC="${CC:-cc}"
mkdir -p bin
for src in tools/checksum.c tools/hexhead.c; do
    out="bin/$(basename "$src" .c)"
    $CC -O2 -std=c99 -Wall -o "$out" "$src"
    echo "built $out"
done
