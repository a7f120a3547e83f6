"""The browser app: page routes answer the built single-page shell; assets come from web/dist.

The app is built by ``make web`` (``scripts/setup-web.sh``) into ``settings.web_dist``. When the
build is missing, pages answer 503 with the error envelope saying how to build it, rather than
a blank page.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response

from server.errors import error_body
from server.settings import get_settings

router = APIRouter(include_in_schema=False)

# Monaco sets inline styles; audio playback and the editor worker come from this origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self' ws: wss:; "
    "worker-src 'self'; media-src 'self' blob:; object-src 'none'; base-uri 'self'; "
    "frame-ancestors 'none'"
)
# Chunk and font names carry a content hash, so they never change under the same URL.
IMMUTABLE_DIRS = ("chunks/", "files/")


def _dist() -> Path:
    return get_settings().web_dist


def _not_built(what: str) -> JSONResponse:
    return JSONResponse(
        error_body("web_not_built",
                   f"The web app is not built ({what} is missing): run `make web`.",
                   {"web_dist": str(_dist())}),
        status_code=503,
    )


def _shell() -> Response:
    index = _dist() / "index.html"
    if not index.is_file():
        return _not_built(str(index))
    return FileResponse(index, media_type="text/html", headers={
        "Cache-Control": "no-cache",
        "Content-Security-Policy": CONTENT_SECURITY_POLICY,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
    })


@router.api_route("/", methods=["GET", "HEAD"])
async def lobby_page() -> Response:
    return _shell()


@router.api_route("/interview/{session_id}", methods=["GET", "HEAD"])
async def interview_page(session_id: str) -> Response:
    return _shell()


@router.api_route("/playback/{session_id}", methods=["GET", "HEAD"])
async def playback_page(session_id: str) -> Response:
    return _shell()


@router.api_route("/practice/{session_id}", methods=["GET", "HEAD"])
async def practice_page(session_id: str) -> Response:
    return _shell()


@router.api_route("/candidates/{candidate_id}", methods=["GET", "HEAD"])
async def candidate_page(candidate_id: str) -> Response:
    return _shell()


@router.api_route("/review", methods=["GET", "HEAD"])
async def review_page() -> Response:
    return _shell()


@router.api_route("/assets/{asset_path:path}", methods=["GET", "HEAD"])
async def asset(asset_path: str) -> Response:
    root = (_dist() / "assets").resolve()
    if not root.is_dir():
        return _not_built(str(root))
    target = (root / asset_path).resolve()
    if not target.is_relative_to(root) or not target.is_file():
        return JSONResponse(error_body("not_found", f"No web asset at /assets/{asset_path}."),
                            status_code=404)
    cache = ("public, max-age=31536000, immutable" if asset_path.startswith(IMMUTABLE_DIRS)
             else "no-cache")
    media_type = "text/javascript" if target.suffix == ".js" else None
    return FileResponse(target, media_type=media_type, headers={
        "Cache-Control": cache,
        "X-Content-Type-Options": "nosniff",
    })
