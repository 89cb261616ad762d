"""JSON Schemas for our data files, used by CI to validate data/*.json (NOT a JP tool)."""
import json
import sys

TODO_SCHEMA = {
    "type": "object",
    "required": ["items"],
    "properties": {
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "text", "done"],
                "properties": {"id": {"type": "integer"}, "text": {"type": "string"}, "done": {"type": "boolean"}},
            },
        }
    },
}

SERVICES_SCHEMA = {
    "type": "object",
    "properties": {"services": {"type": "array", "items": {"type": "object",
                   "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}}},
}


def dump(name):
    schema = {"todo": TODO_SCHEMA, "services": SERVICES_SCHEMA}[name]
    return json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}, indent=2)


if __name__ == "__main__":
    sys.stdout.write(dump(sys.argv[1] if len(sys.argv) > 1 else "todo") + "\n")
