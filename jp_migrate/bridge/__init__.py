"""The dual-path bridge: run JP tools (local or MCP) the way JP does, and verify before/after.

Public entry points live in their modules and import lazily (the MCP SDK only
loads on the MCP path): `target.Target` / `target.run_target`,
`verify.verify_cases` / `verify.load_cases`, `cli.bridge` / `cli.verify`.
"""
