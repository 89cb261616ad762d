#!/usr/bin/env bash
# lint_scripts: tiny shellcheck stand-in for the scripts in data/scripts/.
#   bash tools/lint_scripts.sh {{tool.arguments.file}} {{tool.arguments.strict}}
# Old habits: usage errors go to stderr with a nonzero exit, no JSON at all.

f="$1"
strict="$2"

if [ -z "$f" ] || [ "$f" = "null" ]; then
  echo "usage: lint_scripts.sh FILE [strict]" >&2
  exit 64
fi

if [ ! -f "$f" ]; then
  echo "lint_scripts: $f: No such file or directory" >&2
  exit 2
fi

first=$(head -n 1 "$f")
case "$first" in
  '#!'*sh*) ;;
  *)
    echo "lint_scripts: $f: not a shell script (first line: $first)" >&2
    echo "hint: only files starting with a #!...sh line are checked" >&2
    exit 3 ;;
esac

findings=()
grep -q '`' "$f" && findings+=("uses backticks; prefer \$(...)")
grep -qE '^set -[a-z]*e' "$f" || findings+=("missing 'set -e'")
grep -qE 'cd \$[A-Z]+$' "$f" && findings+=("unquoted cd target")
grep -qE 'echo \$[a-z]+' "$f" && findings+=("unquoted variable in echo")

if [ ${#findings[@]} -eq 0 ]; then
  # clean file: say nothing, like a good unix tool
  exit 0
fi

trace=""
for x in "${findings[@]}"; do
  trace="$trace${trace:+,}\"$f: $x\""
done

printf '{"type":"error","message":"%d lint finding(s) in %s","trace":[%s],"transient":false}\n' "${#findings[@]}" "$f" "$trace"

# strict mode: also fail the process, so CI notices
if [ "$strict" = "true" ]; then
  echo "lint_scripts: failing because strict=true" >&2
  exit 1
fi
