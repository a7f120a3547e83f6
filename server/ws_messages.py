"""Client → server websocket messages, validated. The websocket layer only routes them."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

LANGUAGES = ("python", "c", "cpp", "java", "go", "javascript")


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
    text: str = Field(min_length=1, max_length=8000)


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
    code: str = Field(max_length=64 * 1024)


class Submit(_Msg):
    type: Literal["submit"]
    problem_id: str = Field(min_length=1, max_length=100)
    language: Literal["python", "c", "cpp", "java", "go", "javascript"]
    code: str = Field(min_length=1, max_length=64 * 1024)
    kind: Literal["run", "submit"] = "submit"


ClientMessage = Annotated[
    Start | End | Resume | Answer | AudioConfig | EndTurn | CodeChange | Submit,
    Field(discriminator="type")]
client_message: TypeAdapter[ClientMessage] = TypeAdapter(ClientMessage)
KNOWN_TYPES = {"start", "end", "resume", "answer", "audio_config", "end_turn", "code_change",
               "submit"}
