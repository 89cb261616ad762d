#!/usr/bin/env bash
# The whole jp-migrate pipeline on the bundled examples, in a scratch copy:
#   1. dry run: what would change (diff + summary), nothing written
#   2. migration: the conversation store, then the Python tools
#   3. verification: the migrated store, the local and the MCP tools before vs
#      after on examples/tools/cases.jsonl, and a last dry run with nothing left to do
#
#   examples/demo.sh                      # jp-migrate from PATH
#   JP_MIGRATE="python -m jp_migrate" examples/demo.sh
#   JP_MIGRATE_DEMO_KEEP=1 examples/demo.sh   # keep the scratch copy to look at
#
# Exits non-zero as soon as a step does something other than what it should.
set -euo pipefail

read -r -a JP <<<"${JP_MIGRATE:-jp-migrate}"
if ! command -v "${JP[0]}" >/dev/null 2>&1; then
    echo "demo: ${JP[0]}: not found; install jp-migrate or set JP_MIGRATE" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
scratch="$(mktemp -d "${TMPDIR:-/tmp}/jp-migrate-demo.XXXXXX")"
if [[ -n "${JP_MIGRATE_DEMO_KEEP:-}" ]]; then
    trap 'echo; echo "scratch copy kept in $scratch"' EXIT
else
    trap 'rm -rf "$scratch"' EXIT
fi

section() { printf '\n\033[1m== %s ==\033[0m\n' "$*"; }
if [[ -n "${NO_COLOR:-}" || ! -t 1 ]]; then
    section() { printf '\n== %s ==\n' "$*"; }
fi

# expect CODE COMMAND...: run it (output shown), fail the demo on any other exit code.
expect() {
    local want=$1 got=0
    shift
    printf '$ %s\n' "$*"
    "$@" || got=$?
    if [[ $got -ne $want ]]; then
        echo "demo: expected exit code $want, got $got from: $*" >&2
        exit 1
    fi
}

# The examples, copied so nothing in the checkout changes. `tools-before` keeps
# the workspace as it was: the control side of the verification.
cp -R "$here" "$scratch/examples"
chmod -R u+w "$scratch/examples"
find "$scratch/examples" -name __pycache__ -prune -exec rm -rf {} +
ws="$scratch/examples/tools"
before="$scratch/examples/tools-before"
cp -R "$ws" "$before"
cd "$ws"
echo "scratch workspace: $ws"

section "1. Dry run: what would change (jp-migrate check --diff, writes nothing)"
# Settings come from examples/tools/.jp-migrate.toml. Exit code 1: things would change.
expect 1 "${JP[@]}" check --diff --report terminal --report markdown="$scratch/check-summary.md"
echo "(the same summary as Markdown, for a pull request: $scratch/check-summary.md)"

section "2a. Migrate the conversation store (jp-migrate conversations)"
expect 0 "${JP[@]}" conversations .

section "2b. Migrate the Python tools (jp-migrate tools)"
expect 0 "${JP[@]}" tools --exclude tests/ .

section "3a. Verify the migrated store (jp-migrate conversations --check-integrity)"
expect 0 "${JP[@]}" conversations --check-integrity .

section "3b. The tools before vs after migration, on cases.jsonl (jp-migrate verify)"
# Every local tool (.jp/mcp/tools/*.toml) that cases.jsonl has cases for.
for config in .jp/mcp/tools/*.toml; do
    tool="$(basename "$config" .toml)"
    if grep -q "\"tool\": *\"$tool\"" cases.jsonl; then
        expect 0 "${JP[@]}" verify --before-workspace "$before" --after-workspace . \
            --tool "$tool" --cases cases.jsonl --jobs 2
    fi
done

section "3c. The MCP tools: the transitional server (RFD D31) vs the migrated one (jp-migrate verify)"
# Each .jp/mcp/tools/mcp/X.toml defines mcp_X_jp (before) and mcp_X (after); one server each.
for config in .jp/mcp/tools/mcp/*.toml; do
    tool="mcp_$(basename "$config" .toml)"
    if grep -q "\"tool\": *\"$tool\"" cases.jsonl; then
        expect 0 "${JP[@]}" verify --before-tool "${tool}_jp" --after-tool "$tool" \
            --cases cases.jsonl
    fi
done

section "3d. Nothing left to migrate (jp-migrate check)"
expect 0 "${JP[@]}" check

section "Done"
echo "Dry run, migration and verification all behaved as expected."
if [[ -n "${JP_MIGRATE_DEMO_KEEP:-}" ]]; then
    echo "Undo the store migration with: jp-migrate rollback $ws"
else
    echo "On your own workspace, undo a store migration with: jp-migrate rollback <workspace>"
fi
