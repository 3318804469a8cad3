"""The MCP server: Tributary's tools for any MCP client (docs/design.md §9.2), over
stdio (``manage.py mcp``) and streamable HTTP (``/mcp`` in the ASGI app).
Named so as not to shadow the ``mcp`` SDK."""
