import json
import sys


class Reply:
    """Outcome builders for JP tools (legacy protocol)."""

    @staticmethod
    def success(content: str) -> dict:
        return {"type": "success", "content": content}

    @staticmethod
    def error(message: str, *causes: str, transient: bool = False) -> dict:
        return {"type": "error", "message": message, "trace": list(causes), "transient": transient}

    @staticmethod
    def select(qid: str, text: str, options, default=None) -> dict:
        return {
            "type": "needs_input",
            "question": {"id": qid, "text": text, "answer_type": {"Select": {"options": options}}, "default": default},
        }

    @staticmethod
    def send(outcome: dict) -> None:
        sys.stdout.write(json.dumps(outcome, ensure_ascii=False) + "\n")
        sys.stdout.flush()
