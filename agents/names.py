"""Human names for what reports show: topics, languages, carried weak points. Ids stay in
the JSON for machines; a person reads these."""

from __future__ import annotations

from agents.question_bank import QuestionBank

TOPIC_NAMES = {
    "data_structures": "Data structures", "algorithms": "Algorithms",
    "operating_systems": "Operating systems", "networking": "Networking",
    "databases": "Databases", "concurrency": "Concurrency", "system_design": "System design",
    "python": "Python", "projects": "Your projects", "behavioral": "Behavioural questions",
}
LANGUAGE_NAMES = {"python": "Python", "c": "C", "cpp": "C++", "java": "Java", "go": "Go",
                  "javascript": "JavaScript"}
VERDICT_NAMES = {"AC": "accepted", "WA": "wrong answer", "TLE": "time limit exceeded",
                 "MLE": "memory limit exceeded", "RE": "runtime error",
                 "CE": "compilation error", "OLE": "output limit exceeded",
                 "IE": "judge error"}


def topic_name(topic: str) -> str:
    return TOPIC_NAMES.get(topic, topic.replace("_", " ").capitalize())


def spoken_topic(topic: str) -> str:
    """A topic inside a sentence ("work on operating systems and Python")."""
    name = topic_name(topic)
    return name if name[:1].isupper() and topic in ("python",) else name.lower()


def language_name(language: str | None) -> str:
    return LANGUAGE_NAMES.get(language or "", language or "unknown language")


def verdict_name(verdict: str | None) -> str:
    return VERDICT_NAMES.get(verdict or "", "not judged")


def weak_point_name(key: str, bank: QuestionBank | None) -> str:
    """A carried weak point's key ("<question id>/<point id>" or "topic:<topic>") as words."""
    if key.startswith("topic:"):
        return f"{topic_name(key.split(':', 1)[1])} in general"
    question_id, _, point_id = key.partition("/")
    if bank is not None and question_id in bank.questions:
        question = bank.get(question_id)
        try:
            return f"{question.point(point_id).text} (on “{question.text}”)"
        except (KeyError, ValueError):
            return f"a point of “{question.text}”"
    return "a point from an earlier interview"


# What an answer to one of these topics is about, inside "That answer is about …".
_ABOUT_OPEN = {"projects": "one of your projects", "behavioral": "a past experience"}


def answer_subject(other_topic: str, asked_topic: str | None) -> str:
    """What an off-topic answer is about, in words a person says: the topic of the bank
    question it seems to answer ("operating systems", "another part of databases"), never
    that question's tags, which read like "ownership and star" or "gotchas and functions"."""
    if other_topic in _ABOUT_OPEN:
        return _ABOUT_OPEN[other_topic]
    name = spoken_topic(other_topic)
    return f"another part of {name}" if other_topic == asked_topic else name
