#!/bin/sh
# write_report — turn a text file into a small markdown report under scratch/.
# Arguments come in through the environment, not argv:
#   command = "env REPORT_SLUG={{tool.arguments.slug}} REPORT_SOURCE={{tool.arguments.source}} sh tools/write_report.sh"
# The report is overwritten on every run.

slug="${REPORT_SLUG:-}"
src="${REPORT_SOURCE:-}"

if [ -z "$src" ] || [ "$src" = "null" ]; then
    echo "write_report: REPORT_SOURCE is not set" >&2
    exit 2
fi

if [ ! -r "$src" ]; then
    echo "write_report: cannot read $src" >&2
    exit 1
fi

if [ -z "$slug" ] || [ "$slug" = "null" ]; then
    slug=$(basename "$src" | sed 's/\.[^.]*$//')
fi

case "$slug" in
    *[!a-z0-9-]*)
        printf '{"type":"error","message":"invalid slug","trace":["slug may only contain a-z, 0-9 and -"],"transient":false}\n'
        exit 0
        ;;
esac

out="scratch/report-$slug.md"
mkdir -p scratch

{
    echo "# Report: $slug"
    echo
    echo "Source: \`$src\`"
    echo
    sed 's/^/> /' "$src"
} > "$out"

n=$(wc -l < "$out" | tr -d ' ')
printf '{"type":"success","content":"Wrote %s (%s lines)."}\n' "$out" "$n"
