#!/usr/bin/env bash
# slow_build — "builds" a target. Takes a second because the real thing did.
# command = "bash tools/slow_build.sh {{tool.arguments.target}} {{tool.arguments.verbose}} {{tool.answers.run_tests}}"

target=$1
verbose=$2
run_tests=$3

say() { [[ "$verbose" == "true" ]] && echo "[slow_build] $*"; }

case "$target" in
  lib|cli|release) ;;
  network)
    # the fetch step talks to a mirror that is down half the time
    cat <<'EOF2'
{"type":"error","message":"fetching dependencies failed","trace":["GET https://mirror.example.invalid/index: connection refused","mirror marked unhealthy for 30s"],"transient":true}
EOF2
    exit 0 ;;
  *)
    echo "{\"type\":\"error\",\"message\":\"unknown target '$target'\",\"trace\":[\"targets: lib, cli, release, network\"],\"transient\":false}"
    exit 0 ;;
esac

if [[ "$target" == "release" && "$run_tests" == "null" ]]; then
  echo '{"type":"needs_input","question":{"id":"run_tests","text":"Run the full test suite before the release build?","answer_type":"Boolean"}}'
  exit 0
fi

say "resolving dependencies"
sleep 1
say "compiling $target"

msg="Built $target in release mode.\nArtifacts:\n  target/release/$target"
if [[ "$run_tests" == "true" ]]; then
  msg="$msg\nTests: 48 passed, 0 failed, 2 ignored."
elif [[ "$run_tests" == "false" ]]; then
  msg="$msg\nTests: skipped (you said no)."
fi

say "done"
echo "{\"type\":\"success\",\"content\":\"$msg\"}"
