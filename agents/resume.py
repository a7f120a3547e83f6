"""ResumeAgent: pasted resume text → skills → topics to steer question choice.

Rules in code: a vocabulary of skills, each pointing at the bank topics that probe it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agents.question_bank import Topic

SKILL_TOPICS: dict[str, list[Topic]] = {
    "python": [Topic.python], "django": [Topic.python, Topic.databases],
    "flask": [Topic.python, Topic.networking], "fastapi": [Topic.python, Topic.networking],
    "asyncio": [Topic.python, Topic.concurrency], "java": [Topic.concurrency],
    "go": [Topic.concurrency], "golang": [Topic.concurrency], "rust": [Topic.operating_systems],
    "c++": [Topic.operating_systems, Topic.algorithms], "linux": [Topic.operating_systems],
    "kernel": [Topic.operating_systems], "docker": [Topic.operating_systems],
    "kubernetes": [Topic.system_design, Topic.operating_systems],
    "postgresql": [Topic.databases], "postgres": [Topic.databases], "mysql": [Topic.databases],
    "sql": [Topic.databases], "mongodb": [Topic.databases], "redis": [Topic.databases,
                                                                     Topic.system_design],
    "kafka": [Topic.system_design, Topic.concurrency], "rabbitmq": [Topic.system_design],
    "microservices": [Topic.system_design], "distributed": [Topic.system_design],
    "scalability": [Topic.system_design], "cache": [Topic.system_design],
    "tcp": [Topic.networking], "http": [Topic.networking], "grpc": [Topic.networking],
    "networking": [Topic.networking], "rest": [Topic.networking],
    "multithreading": [Topic.concurrency], "threads": [Topic.concurrency],
    "concurrency": [Topic.concurrency], "algorithms": [Topic.algorithms],
    "leetcode": [Topic.algorithms], "competitive": [Topic.algorithms],
    "data structures": [Topic.data_structures], "machine learning": [Topic.python],
    "pandas": [Topic.python], "numpy": [Topic.python], "aws": [Topic.system_design],
    "lead": [Topic.projects, Topic.behavioral], "led": [Topic.projects, Topic.behavioral],
    "mentored": [Topic.behavioral], "team": [Topic.behavioral],
}


@dataclass(frozen=True)
class ResumeProfile:
    skills: list[str]
    topics: list[Topic]  # most mentioned first


def parse_resume(text: str | None) -> ResumeProfile:
    if not text:
        return ResumeProfile([], [])
    lowered = text.lower()
    counts: dict[Topic, int] = {}
    skills: list[str] = []
    for skill, topics in SKILL_TOPICS.items():
        hits = len(re.findall(r"(?<![a-z0-9])" + re.escape(skill) + r"(?![a-z0-9])", lowered))
        if hits:
            skills.append(skill)
            for t in topics:
                counts[t] = counts.get(t, 0) + hits
    ordered = sorted(counts, key=lambda t: -counts[t])
    return ResumeProfile(skills, ordered)
