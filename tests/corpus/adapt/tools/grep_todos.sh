#!/usr/bin/env bash
# grep_todos — list TODO/FIXME style markers in a file.
# JP passes the whole tool context as one JSON argument:
#   bash tools/grep_todos.sh '{{tool}}'
set -euo pipefail
export LC_ALL=C

tool_json="${1:-}"
if [[ -z "$tool_json" ]]; then
  echo "usage: grep_todos.sh '<tool json>'" >&2
  exit 64
fi

path=$(jq -r '.arguments.path // empty' <<<"$tool_json")
tags=$(jq -r '(.arguments.tags // ["TODO","FIXME"]) | join("|")' <<<"$tool_json")

fail() {
  # fail MESSAGE [TRACE...]  -> permanent error Outcome
  local msg="$1"; shift
  jq -cn --arg m "$msg" \
    '{type: "error", message: $m, trace: $ARGS.positional, transient: false}' \
    --args "$@"
  exit 0
}

if [[ -z "$path" ]]; then
  fail "missing required argument: path"
fi

case "$path" in
  data/*) ;;
  *) fail "refusing to read '$path'" \
          "only files under data/ may be scanned" \
          "got path: $path" ;;
esac

if [[ "$path" == *..* ]]; then
  fail "refusing to read '$path'" "path must not contain '..'"
fi

if [[ ! -f "$path" ]]; then
  fail "no such file: $path" "stat $path: No such file or directory"
fi

# grep -n exits 1 when nothing matches; don't let set -e kill us
matches=$(grep -nE "\\b(${tags})\\b" "$path" || true)

if [[ -z "$matches" ]]; then
  jq -cn --arg p "$path" --arg t "$tags" \
    '{type: "success", content: "No markers (\($t)) found in \($p)."}'
  exit 0
fi

count=$(printf '%s\n' "$matches" | wc -l | tr -d ' ')
body=$(printf '%s\n' "$matches" | sed -E 's/^([0-9]+):[[:space:]]*/  line \1: /')

jq -cn --arg p "$path" --arg n "$count" --arg b "$body" \
  '{type: "success", content: "\($n) marker(s) in \($p):\n\($b)"}'
