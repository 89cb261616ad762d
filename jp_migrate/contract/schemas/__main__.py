"""Rebuild the shipped schema files: `python -m jp_migrate.contract.schemas`."""

import json
from pathlib import Path

from jp_migrate.contract.schemas.build import all_schemas

here = Path(__file__).parent
for name, schema in all_schemas().items():
    (here / f"{name}.schema.json").write_text(json.dumps(schema, indent=2) + "\n", "utf-8")
    print(f"wrote {name}.schema.json")
