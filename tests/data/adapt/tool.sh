#!/usr/bin/env bash
# A legacy JP tool in bash: prints an Outcome (SPEC §1) per action.
action="$1"
answer="$2"
picked="$3"
case "$action" in
  greet) printf '%s\n' '{"type":"success","content":"héllo from sh ✓"}' ;;
  flaky) printf '%s\n' '{"type":"error","message":"db is down","trace":["connect: refused","sh"],"transient":true}' ;;
  fail) printf '%s\n' '{"type":"error","message":"no such file: notes.txt","trace":[],"transient":false}' ;;
  confirm)
    if [ "$answer" = "null" ]; then
      printf '%s\n' '{"type":"needs_input","question":{"id":"confirm","text":"Apply the patch?","pre_amble":"3 files change.","answer_type":"Boolean","default":null}}'
    elif [ "$answer" = "true" ]; then
      printf '%s\n' '{"type":"success","content":"applied"}'
    else
      printf '%s\n' '{"type":"success","content":"skipped"}'
    fi ;;
  pick)
    if [ "$picked" = "null" ]; then
      printf '%s\n' '{"type":"needs_input","question":{"id":"pick","text":"Which colour?","answer_type":{"Select":{"options":["red","green"]}},"default":"green"}}'
    else
      printf '{"type":"success","content":"picked %s"}\n' "$picked"
    fi ;;
  raw) printf 'just text, no JSON\n' ;;
  crash) printf 'partial output'; printf 'boom: disk on fire\n' >&2; exit 3 ;;
  envelope) printf '%s' '{"content": [{"type": "text", "text": "already new"}]}' ;;
  *) printf 'unknown action %s\n' "$action" >&2; exit 2 ;;
esac
