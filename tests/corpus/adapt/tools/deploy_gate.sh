#!/usr/bin/env bash
# deploy_gate: pretend-deploy with a confirmation step for prod.
# command = "bash tools/deploy_gate.sh {{tool.arguments.env}} '{{tool.answers}}'"
# tool.answers renders as a JSON object ({} on the first run).

env_name="$1"
answers="${2:-}"
[[ -z "$answers" || "$answers" == "null" ]] && answers='{}'

lock="data/locks/deploy-${env_name}.lock"

if [[ -e "$lock" ]]; then
  jq -n --arg env "$env_name" --arg lock "$lock" '{
    type: "error",
    message: ("another deploy to " + $env + " is in progress"),
    trace: ["lock file present: " + $lock, "retry once it is released"],
    transient: true
  }'
  exit 0
fi

case "$env_name" in
  staging|dev)
    jq -cn --arg env "$env_name" '{type: "success", content: ("Deployed build 4f2c1e0 to " + $env + ".")}'
    exit 0 ;;
  prod|prod-*) ;;
  *)
    jq -cn --arg env "$env_name" '{type: "error", message: ("unknown environment: " + $env), trace: [], transient: false}'
    exit 0 ;;
esac

confirm=$(jq -r '.confirm | if . == null then "unset" else tostring end' <<<"$answers")

case "$confirm" in
  unset)
    jq -cn --arg env "$env_name" '{
      type: "needs_input",
      question: {
        id: "confirm",
        text: ("Really deploy to " + $env + "?"),
        pre_amble: null,
        answer_type: "Boolean",
        default: false
      }
    }' ;;
  true)
    jq -cn --arg env "$env_name" '{type: "success", content: ("Deployed build 4f2c1e0 to " + $env + ".\nSmoke tests: 12 passed, 0 failed.")}' ;;
  false)
    jq -cn '{type: "error", message: "Deployment aborted by user.", trace: [], transient: false}' ;;
  *)
    echo "deploy_gate: confirm must be a boolean, got: $confirm" >&2
    exit 1 ;;
esac
