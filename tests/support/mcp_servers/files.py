"""A stdio MCP server offering each file of a folder as a ``file://`` resource, the way
file-serving servers do: ``python files.py FOLDER``."""

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.resources.types import FileResource

server = MCPServer("files")

if __name__ == "__main__":
    for path in sorted(Path(sys.argv[1]).resolve().rglob("*")):
        if path.is_file():
            server.add_resource(FileResource(uri=path.as_uri(), name=path.name, path=path,
                                             mime_type="text/plain"))
    server.run()
