#!/bin/sh
# pick_template: start an issue from one of the templates in data/templates.
# Plain POSIX sh (runs under dash). Two questions, asked one at a time:
#   1. which template   (Select, no default)
#   2. the issue title  (Text, with a suggested default)
# JP config runs it through sh -c:
#   { program = "sh", args = ["tools/pick_template.sh", "{{tool.answers.template}}", "{{tool.answers.title}}"], shell = true }

template="$1"
title="$2"

esc() {
    printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | awk 'BEGIN{ORS=""} NR>1{print "\\n"} {print}'
}

if [ "$template" = "null" ]; then
    options=""
    for f in data/templates/*.txt; do
        n=$(basename "$f" .txt)
        if [ -z "$options" ]; then options="\"$n\""; else options="$options, \"$n\""; fi
    done
    printf '{"type":"needs_input","question":{"id":"template","text":"Which issue template?","answer_type":{"Select":{"options":[%s]}}}}\n' "$options"
    exit 0
fi

tfile="data/templates/$template.txt"
if [ ! -f "$tfile" ]; then
    printf '{"type":"error","message":"unknown template \\"%s\\"","trace":["%s does not exist"],"transient":false}\n' "$(esc "$template")" "$(esc "$tfile")"
    exit 0
fi

if [ "$title" = "null" ]; then
    printf '{"type":"needs_input","question":{"id":"title","text":"Title for the new issue?","pre_amble":"Template \\"%s\\" selected:\\n%s","answer_type":"Text","default":"Untitled %s"}}\n' \
        "$(esc "$template")" "$(esc "$(head -n 1 "$tfile")")" "$(esc "$template")"
    exit 0
fi

if [ -z "$title" ]; then
    printf '{"type":"error","message":"title must not be empty","trace":[],"transient":false}\n'
    exit 0
fi

# {{TITLE}} -> the answer. Escape sed's special chars in the replacement first.
safe_title=$(printf '%s' "$title" | sed -e 's/[\/&|]/\\&/g')
rendered=$(sed "s|{{TITLE}}|$safe_title|g" "$tfile")

printf '{"type":"success","content":"%s"}\n' "$(esc "$rendered")"
