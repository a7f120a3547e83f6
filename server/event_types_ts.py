"""TypeScript declarations from the events' JSON Schema (``web/src/shared/events.gen.ts``).

Only the subset of JSON Schema that :mod:`core.events` produces is handled (objects, arrays,
records, unions, enums and consts, ``$ref``); anything else is an error rather than a
silent ``unknown``, so a new kind of field is noticed when the file is generated.
"""

from __future__ import annotations

import json
import re
from typing import Any

HEADER = ("// Generated from the server's event models (core/events.py) by\n"
          "// `viva schema events --typescript`; do not edit. A test fails when this file\n"
          "// and the schema differ: regenerate it with\n"
          "//   .venv/bin/viva schema events --typescript > web/src/shared/events.gen.ts\n")
_IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")


def _type(node: dict[str, Any]) -> str:
    if "$ref" in node:
        return str(node["$ref"]).rsplit("/", 1)[-1]
    if "const" in node:
        return json.dumps(node["const"])
    if "enum" in node:
        return " | ".join(json.dumps(v) for v in node["enum"])
    if "anyOf" in node or "oneOf" in node:
        return " | ".join(_type(n) for n in node.get("anyOf") or node["oneOf"])
    kind = node.get("type")
    if kind == "string":
        return "string"
    if kind in ("integer", "number"):
        return "number"
    if kind == "boolean":
        return "boolean"
    if kind == "null":
        return "null"
    if kind == "array":
        inner = _type(node.get("items", {}))
        return f"({inner})[]" if "|" in inner else f"{inner}[]"
    if kind == "object" and "properties" not in node:
        extra = node.get("additionalProperties", True)
        value = "unknown" if extra in (True, {}) else _type(extra)
        return f"Record<string, {value}>"
    if not node:
        return "unknown"
    raise ValueError(f"no TypeScript for schema node {node!r}")


def _comment(text: str | None, indent: str) -> list[str]:
    if not text:
        return []
    lines = [line.strip() for line in text.replace("``", "`").splitlines() if line.strip()]
    return [f"{indent}/** {' '.join(lines)} */"]


def _interface(name: str, node: dict[str, Any]) -> list[str]:
    out = _comment(node.get("description"), "")
    out.append(f"export interface {name} {{")
    required = set(node.get("required", []))
    for prop, sub in node.get("properties", {}).items():
        out += _comment(sub.get("description"), "  ")
        key = prop if _IDENT.match(prop) else json.dumps(prop)
        optional = "" if prop in required else "?"
        out.append(f"  {key}{optional}: {_type(sub)};")
    out.append("}")
    return out


def typescript_from_schema(schema: dict[str, Any]) -> str:
    """Declarations for every ``$defs`` entry, the ``ServerEvent`` union and the type list."""
    defs: dict[str, Any] = schema.get("$defs", {})
    lines = [HEADER]
    for name in sorted(defs):
        lines += _interface(name, defs[name])
        lines.append("")
    members = [str(m["$ref"]).rsplit("/", 1)[-1] for m in schema.get("oneOf", [])]
    lines.append("export type ServerEvent =")
    lines += [f"  | {m}" for m in members]
    lines[-1] += ";"
    lines.append("")
    types = [defs[m]["properties"]["type"]["const"] for m in members]
    lines.append("/** Every `type` the server sends. */")
    lines.append("export const SERVER_EVENT_TYPES: ReadonlySet<string> = new Set<string>([")
    lines += [f"  {json.dumps(t)}," for t in types]
    lines.append("]);")
    return "\n".join(lines) + "\n"
