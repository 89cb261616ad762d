"""The MCP SDK's `ClientSession` as the bridge opens it (loaded with the SDK, when a server
is started): sampling refused without being declared, the protocol version settled."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mcp import ClientSession, MCPError
from mcp_types import INVALID_REQUEST, CreateMessageRequest, ErrorData
from pydantic import ValidationError

from jp_migrate.bridge.forms import NO_MODEL, SAMPLING

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams
    from mcp.client.session import ClientRequestContext, ElicitationFnT
    from mcp_types import InputRequest, InputResponse


class Session(ClientSession):
    """A `ClientSession` that refuses sampling in the bridge's own words.

    The SDK has no public way to: a sampling callback given to it declares the
    sampling capability, which a host without a model must not. So a request a
    server sends anyway is answered where the SDK routes every server-to-client
    request (the public `dispatch_input_request`); tests/test_bridge_rfd058.py's
    sampling test fails if the SDK stops routing it here.
    """

    def __init__(
        self,
        streams: TransportStreams,
        *,
        elicitation_callback: ElicitationFnT | None,
        on_sampling: Callable[[], None],
    ) -> None:
        super().__init__(*streams, elicitation_callback=elicitation_callback)
        self.on_sampling = on_sampling

    async def dispatch_input_request(
        self, ctx: ClientRequestContext, request: InputRequest
    ) -> InputResponse | ErrorData:
        if isinstance(request, CreateMessageRequest):
            self.on_sampling()
            return ErrorData(
                code=INVALID_REQUEST, message=f"{NO_MODEL}: {SAMPLING} cannot be answered"
            )
        return await super().dispatch_input_request(ctx, request)


async def handshake(session: ClientSession) -> None:
    """MCP 2026-07-28's `server/discover`, else the `initialize` handshake (the SDK
    `Client`'s default, `mode="auto"`, through ClientSession's public methods)."""
    try:
        await session.discover()
    except (MCPError, RuntimeError, ValidationError):  # RuntimeError: no modern version in common
        await session.initialize()
