#!/bin/bash
# word_count: wc with a nicer report.
# JSON is built by hand with printf because jq isn't installed on the CI box.
# command: bash tools/word_count.sh {{tool.arguments.path}} {{tool.arguments.top}}

export LC_ALL=C
FILE=$1
TOP=$2

json_escape() {
  # backslash, quote, tab, CR; then glue lines together with \n
  printf '%s' "$1" \
    | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' -e 's/\r/\\r/g' \
    | awk 'BEGIN { ORS = "" } NR > 1 { print "\\n" } { print }'
}

if [ "$FILE" = "" ] || [ "$FILE" = "null" ]; then
  printf '{"type":"error","message":"path is required","trace":[],"transient":false}\n'
  exit 0
fi

if [ ! -e "$FILE" ]; then
  printf '{"type":"error","message":"cannot count words in %s","trace":["%s","No such file or directory"],"transient":false}\n' \
    "$(json_escape "$FILE")" "$(json_escape "$FILE")"
  exit 0
fi

if [ ! -s "$FILE" ]; then
  printf '{"type":"success","content":"%s is empty (0 lines, 0 words, 0 bytes)."}\n' "$(json_escape "$FILE")"
  exit 0
fi

LINES=$(wc -l < "$FILE")
WORDS=$(wc -w < "$FILE")
BYTES=$(wc -c < "$FILE")
FIRST=$(head -n 1 "$FILE")

REPORT="File: $FILE
Lines: $LINES
Words: $WORDS
Bytes: $BYTES
First line: $FIRST"

if [ "$TOP" != "" ] && [ "$TOP" != "null" ]; then
  case "$TOP" in
    *[!0-9]*)
      printf '{"type":"error","message":"top must be a number, got \\"%s\\"","trace":[],"transient":false}\n' "$(json_escape "$TOP")"
      exit 0
      ;;
  esac
  WORDLIST=$(tr -s '[:space:]' '\n' < "$FILE" | grep -v '^$' | sort | uniq -c | sort -k1,1nr -k2,2 | head -n "$TOP" | awk '{ printf "  %s x%d\n", $2, $1 }')
  REPORT="$REPORT
Top $TOP words:
$WORDLIST"
fi

printf '{"type":"success","content":"%s"}\n' "$(json_escape "$REPORT")"
