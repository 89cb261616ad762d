"""Rebuild the shipped schema files: `python -m jp_migrate.contract.schemas`."""

import json
from pathlib import Path

from jp_migrate.contract.schemas.build import all_schemas
from jp_migrate.files import edit
from jp_migrate.files.workspace import Boundary

here = Path(__file__).parent
for name, schema in all_schemas().items():
    data = (json.dumps(schema, indent=2) + "\n").encode("utf-8")
    edit.put(here / f"{name}.schema.json", data, Boundary.of(here))
    print(f"wrote {name}.schema.json")
