"""Feeding stdin and collecting capped stdout/stderr from a sandboxed process."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

CHUNK = 64 * 1024


async def feed_stdin(writer: asyncio.StreamWriter | None, data: bytes) -> None:
    """Write the case input and close; a program that stops reading early is not an error."""
    if writer is None:
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        for start in range(0, len(data), CHUNK):
            writer.write(data[start:start + CHUNK])
            await writer.drain()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, OSError):
        writer.close()
        await writer.wait_closed()


async def read_capped(reader: asyncio.StreamReader | None, cap: int,
                      on_exceed: Callable[[], None]) -> tuple[bytes, bool]:
    """Read up to ``cap`` bytes; past it, call ``on_exceed`` (kill) and stop reading."""
    if reader is None:
        return b"", False
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await reader.read(CHUNK)
        if not chunk:
            return b"".join(chunks), False
        if size + len(chunk) > cap:
            chunks.append(chunk[:cap - size])
            on_exceed()
            return b"".join(chunks), True
        chunks.append(chunk)
        size += len(chunk)


async def read_tail(reader: asyncio.StreamReader | None, keep: int) -> bytes:
    """Drain everything, keeping only the last ``keep`` bytes (a traceback ends there)."""
    if reader is None:
        return b""
    tail = bytearray()
    while True:
        chunk = await reader.read(CHUNK)
        if not chunk:
            return bytes(tail)
        tail += chunk
        if len(tail) > keep:
            del tail[: len(tail) - keep]
