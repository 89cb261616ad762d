"""Build Slack Block Kit payloads for the release bot (NOT a JP tool).

The "type" keys here are Slack's block types. Nothing in this file talks to JP.
"""
import json


def section(text):
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def divider():
    return {"type": "divider"}


def release_message(version, changes, failed=False):
    blocks = [
        {"type": "header", "text": {"type": "plain_text", "text": f"Release {version}"}},
        section("\n".join(f"• {c}" for c in changes) or "_no changes_"),
        divider(),
    ]
    if failed:
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": ":x: checks failed"}]})
    return {"type": "message", "blocks": blocks}


def error_message(text):
    # Slack has no "error" block; we just use a red context line
    return json.dumps({"type": "error", "text": text, "blocks": [section(f":rotating_light: {text}")]})


if __name__ == "__main__":
    print(json.dumps(release_message("1.4.3", ["retry on 503"]), indent=2))
