#!/usr/bin/env python3
"""Write a dated journal entry. The date is an argument so reruns are reproducible."""
import asyncio
import json
import os
import re
import sys

JOURNAL = "data/journal"
OUT = "scratch/journal"
MOODS = ["great", "good", "meh", "rough"]


def last_entry_summary(directory):
    entries = sorted(f for f in os.listdir(directory) if f.endswith(".md")) if os.path.isdir(directory) else []
    if not entries:
        return "No previous entries."
    with open(os.path.join(directory, entries[-1])) as fh:
        lines = fh.read().splitlines()
    return f"Last entry ({entries[-1][:-3]}): " + " / ".join(lines[1:3])


async def write_entry(path, text):
    await asyncio.to_thread(os.makedirs, os.path.dirname(path), exist_ok=True)

    def _w():
        with open(path, "w") as fh:
            fh.write(text)

    await asyncio.to_thread(_w)


async def main():
    call = json.loads(sys.argv[1])
    args, answers = call["arguments"], call.get("answers") or {}
    date = args.get("date", "")
    text = (args.get("text") or "").strip()

    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        return {"type": "error", "message": f"date must be YYYY-MM-DD, got {date!r}", "trace": [], "transient": False}
    if not text:
        return {"type": "error", "message": "nothing to write", "trace": [], "transient": False}
    if os.path.exists(os.path.join(JOURNAL, f"{date}.md")):
        return {"type": "error", "message": f"there is already an entry for {date}",
                "trace": [os.path.join(JOURNAL, f"{date}.md")], "transient": False}

    mood = answers.get("mood")
    if mood is None:
        return {"type": "needs_input", "question": {
            "id": "mood",
            "text": f"How was {date}?",
            "pre_amble": last_entry_summary(JOURNAL),
            "default": "good",
            "answer_type": {"Select": {"options": MOODS}},
        }}
    if mood == "rough":
        text += "\n\n(follow up tomorrow)"
    path = os.path.join(OUT, f"{date}.md")
    await write_entry(path, f"# {date}\nmood: {mood}\n{text}\n")
    return {"type": "success", "content": f"journal entry saved to {path} (mood: {mood})"}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main())))
