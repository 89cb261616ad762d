#!/usr/bin/env bash
# release_notes — draft release notes for a version, per channel.
#   bash tools/release_notes.sh '{{tool.arguments.version}}' '{{tool.answers.channel}}'
# Asks which channel first (JP re-runs us with tool.answers.channel filled in).
set -eu

version="$1"
channel="$2"
notes_file="data/releases/${version}.md"

if [ "$version" = "null" ] || [ -z "$version" ]; then
  cat <<'JSON'
{"type": "error", "message": "version is required", "trace": [], "transient": false}
JSON
  exit 0
fi

if [ ! -f "$notes_file" ]; then
  cat <<JSON
{
  "type": "error",
  "message": "no release notes for version ${version}",
  "trace": [
    "looked for ${notes_file}",
    "known versions: $(ls data/releases | sed 's/\.md$//' | LC_ALL=C sort | paste -sd, -)"
  ],
  "transient": false
}
JSON
  exit 0
fi

entries=$(grep -c '^- ' "$notes_file")

if [ "$channel" = "null" ]; then
  cat <<JSON
{
  "type": "needs_input",
  "question": {
    "id": "channel",
    "text": "Which channel is ${version} going out on?",
    "pre_amble": "Release ${version} has ${entries} changelog entries.\nThe channel decides the header and the upgrade warning.",
    "answer_type": {"Select": {"options": ["stable", "beta", "nightly"]}},
    "default": "stable"
  }
}
JSON
  exit 0
fi

case "$channel" in
  stable)  header="JP ${version} is out!" ;;
  beta)    header="JP ${version} beta — please report bugs" ;;
  nightly) header="Nightly build ${version} (unsupported, may eat your config)" ;;
  *)
    cat <<JSON
{"type": "error", "message": "unknown channel: ${channel}", "trace": ["expected one of stable, beta, nightly"], "transient": false}
JSON
    exit 0
    ;;
esac

body=$(cat <<TEXT
${header}

Changes:
$(cat "$notes_file")

Upgrade with: jp self-update --channel ${channel}
TEXT
)

# the body has quotes and newlines, so let jq do the string escaping
content=$(printf '%s' "$body" | jq -Rs .)

cat <<JSON
{"type": "success", "content": ${content}}
JSON
