"""Client → server websocket messages, validated. The websocket layer only routes them.

Size limits come from the settings (``max_answer_chars``, ``max_code_bytes``) through the
validation context: ``client_message.validate_python(raw, context=MessageLimits(...))``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationInfo, field_validator

LANGUAGES = ("python", "c", "cpp", "java", "go", "javascript")


@dataclass(frozen=True)
class MessageLimits:
    """From the settings; the defaults are the settings' defaults."""

    max_answer_chars: int = 8000
    max_code_bytes: int = 64 * 1024


def _limits(info: ValidationInfo) -> MessageLimits:
    return info.context if isinstance(info.context, MessageLimits) else MessageLimits()


def _code_within(code: str, info: ValidationInfo) -> str:
    limit = _limits(info).max_code_bytes
    if len(code.encode("utf-8")) > limit:
        raise ValueError(f"code is limited to {limit} bytes")
    return code


class _Msg(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Start(_Msg):
    type: Literal["start"]


class End(_Msg):
    type: Literal["end"]


class Resume(_Msg):
    type: Literal["resume"]
    after_seq: int = Field(ge=0)


class Answer(_Msg):
    type: Literal["answer"]
    text: str = Field(min_length=1)

    @field_validator("text")
    @classmethod
    def _within(cls, text: str, info: ValidationInfo) -> str:
        limit = _limits(info).max_answer_chars
        if len(text) > limit:
            raise ValueError(f"answers are limited to {limit} characters")
        return text


class AudioConfig(_Msg):
    type: Literal["audio_config"]
    sample_rate: int
    encoding: str = "pcm_s16le"


class EndTurn(_Msg):
    type: Literal["end_turn"]


class CodeChange(_Msg):
    type: Literal["code_change"]
    problem_id: str = Field(min_length=1, max_length=100)
    language: Literal["python", "c", "cpp", "java", "go", "javascript"]
    code: str

    code_within_limit = field_validator("code")(_code_within)


class Submit(_Msg):
    type: Literal["submit"]
    problem_id: str = Field(min_length=1, max_length=100)
    language: Literal["python", "c", "cpp", "java", "go", "javascript"]
    code: str = Field(min_length=1)
    kind: Literal["run", "submit"] = "submit"

    code_within_limit = field_validator("code")(_code_within)


ClientMessage = Annotated[
    Start | End | Resume | Answer | AudioConfig | EndTurn | CodeChange | Submit,
    Field(discriminator="type")]
client_message: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
KNOWN_TYPES = {"start", "end", "resume", "answer", "audio_config", "end_turn", "code_change",
               "submit"}
