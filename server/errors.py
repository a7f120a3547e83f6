"""HTTP errors, and the one mapping of every ``core.errors.AppError`` (these, the interview's,
the judge's, the voice pipeline's) to the contract's error envelope
``{"error": {code, message, details}}``."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from core.errors import AppError


class VivaError(AppError):
    """An HTTP-level refusal: a stable code, a human message that says what to do, a status."""


class NotFound(VivaError):
    status, code = 404, "not_found"


class Unauthorized(VivaError):
    status, code = 401, "unauthorized"


class Forbidden(VivaError):
    status, code = 403, "forbidden"


class Conflict(VivaError):
    status, code = 409, "conflict"


class Invalid(VivaError):
    status, code = 422, "invalid_input"


class TooLarge(VivaError):
    status, code = 413, "too_large"


class DependencyDown(VivaError):
    status, code, retryable = 503, "dependency_down", True


def error_body(code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "details": details}}


def _count(request: Request, code: str) -> None:
    metrics = getattr(request.app.state, "metrics", None)
    if metrics is not None:
        metrics.errors.inc(code=code, where="http")


def install_error_handlers(app: FastAPI) -> None:
    import redis.exceptions

    from store.redis_pool import describe_redis_error

    @app.exception_handler(AppError)
    async def _app_error(request: Request, exc: AppError) -> JSONResponse:
        _count(request, exc.code)
        headers = {"Retry-After": "1"} if exc.retryable and exc.status >= 500 else None
        return JSONResponse(exc.envelope(), status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        _count(request, "invalid_input")
        details = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg"), "type": e.get("type")}
            for e in exc.errors()
        ]
        return JSONResponse(
            error_body("invalid_input", "The request body is invalid; see details.", details),
            status_code=422,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed", 401: "unauthorized",
                413: "too_large"}.get(exc.status_code, "http_error")
        _count(request, code)
        return JSONResponse(error_body(code, str(exc.detail)), status_code=exc.status_code)

    async def _redis(request: Request, exc: Exception) -> JSONResponse:
        # Pool exhausted (this process is overloaded) and Redis down are different causes.
        code, message = describe_redis_error(exc)
        _count(request, code)
        return JSONResponse(error_body(code, message, str(exc)), status_code=503,
                            headers={"Retry-After": "1" if code == "server_busy" else "5"})

    app.add_exception_handler(redis.exceptions.ConnectionError, _redis)
    app.add_exception_handler(redis.exceptions.TimeoutError, _redis)
