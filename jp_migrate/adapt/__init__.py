"""Adapters: keep legacy tools working under RFD 058 without touching their sources.

`jp-migrate adapt -- CMD` runs a legacy local tool and prints the RFD 058
envelope that makes the new host show what the legacy host showed;
`adapt --mcp -- SERVER_CMD` is an MCP server in front of an RFD D31 `--jp`
server; `adapt --config` routes a workspace's tools through them.

Nothing is imported here: the local adapter sits in front of every call of a
tool, so each module loads only what its path uses.
"""
