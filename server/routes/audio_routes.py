"""A session's recorded audio: the list (contract: ``GET /api/sessions/{id}/audio``) and
each file. Same token rules as every session endpoint; works from the archive too."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends
from fastapi.responses import FileResponse
from pydantic import BaseModel

from server.deps import Access, SettingsDep, access_for
from server.errors import NotFound
from store.recordings import RecordingStore

router = APIRouter()
SessionAccess = Annotated[Access, Depends(access_for)]


class AudioEntry(BaseModel):
    turn_id: str
    speaker: str
    t_ms: int
    duration_ms: int
    url: str
    content_type: str
    cut: bool = False


@router.get("/api/sessions/{session_id}/audio", response_model=list[AudioEntry])
async def list_audio(session_id: str, access: SessionAccess,
                     settings: SettingsDep) -> list[AudioEntry]:
    entries = await asyncio.to_thread(RecordingStore(settings.data_dir).entries, session_id)
    return [AudioEntry(turn_id=e.turn_id, speaker=e.speaker, t_ms=e.t_ms,
                       duration_ms=e.duration_ms, content_type=e.content_type, cut=e.cut,
                       url=f"/api/sessions/{session_id}/audio/{e.file}") for e in entries]


@router.get("/api/sessions/{session_id}/audio/{name}")
async def audio_file(session_id: str, name: str, access: SessionAccess,
                     settings: SettingsDep) -> FileResponse:
    store = RecordingStore(settings.data_dir)
    path = store.file_path(session_id, name)
    if path is None:
        raise NotFound(f"no recording {name!r} in session {session_id}")
    media = {"ogg": "audio/ogg", "wav": "audio/wav", "webm": "audio/webm"}.get(
        path.suffix.lstrip("."), "application/octet-stream")
    # Private to the session's token holder: never kept by a shared cache.
    return FileResponse(path, media_type=media, headers={"Cache-Control": "private, max-age=3600"})
