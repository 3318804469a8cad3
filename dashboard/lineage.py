"""The lineage graph as SVG: observations as the floor, beliefs stacked
above by how far they stand from the evidence, the lesson on top, and the
decisions agents based on it above the lesson.

Levels are longest paths: an observation is level 0; a belief stands above
everything it derives from; a lesson stands above the beliefs that support
or contradict it. Clicking (or Enter on) a node highlights its path down to
the evidence and dims the rest (static/dashboard/dashboard.js, from the
``data-down`` adjacency written here)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

NODE_W, NODE_H, GAP_X, GAP_Y, MARGIN = 170, 46, 24, 54, 16


@dataclass
class Placed:
    id: str
    type: str
    label: str
    status: str
    level: int = 0
    x: float = 0.0
    y: float = 0.0


def _label(node: dict[str, Any]) -> str:
    text = node.get("content") or node.get("action") or "(erased)"
    return text if len(text) <= 60 else text[:57] + "…"


def _status(node: dict[str, Any]) -> str:
    if node["type"] == "observation":
        return "valid" if node.get("valid", True) else "invalid"
    return str(node.get("status", ""))


def layout(lineage: dict[str, Any]) -> tuple[list[Placed], list[dict[str, str]], int, int]:
    nodes = {
        str(n["id"]): Placed(str(n["id"]), n["type"], _label(n), _status(n))
        for n in lineage["nodes"]
    }
    edges = [e for e in lineage["edges"] if e["from"] in nodes and e["to"] in nodes]
    # above[x] = the nodes x must stand above.
    above: dict[str, set[str]] = {i: set() for i in nodes}
    for e in edges:
        if e["kind"] in ("derived_from", "based_on"):
            above[e["from"]].add(e["to"])
        else:  # supports / contradicts: the lesson stands above the belief
            above[e["to"]].add(e["from"])
    for _ in range(len(nodes)):  # longest path; bounded, so a cycle cannot hang it
        changed = False
        for node_id, below in above.items():
            level = max((nodes[b].level + 1 for b in below), default=0)
            if level > nodes[node_id].level:
                nodes[node_id].level, changed = level, True
        if not changed:
            break
    top_id = str(lineage["lesson"])
    top_level = max(n.level for n in nodes.values() if n.type != "decision")
    nodes[top_id].level = max(nodes[top_id].level, top_level)
    for node in nodes.values():  # the decisions: one row above the lesson
        if node.type == "decision":
            node.level = nodes[top_id].level + 1
    top_level = max(n.level for n in nodes.values())
    rows: dict[int, list[Placed]] = {}
    for node in sorted(nodes.values(), key=lambda n: (n.type, n.label, n.id)):
        rows.setdefault(node.level, []).append(node)
    _uncross(rows, above)
    widest = max(len(r) for r in rows.values())
    width = int(2 * MARGIN + widest * NODE_W + (widest - 1) * GAP_X)
    height = int(2 * MARGIN + (top_level + 1) * NODE_H + top_level * GAP_Y)
    for level, row in rows.items():
        span = len(row) * NODE_W + (len(row) - 1) * GAP_X
        start = (width - span) / 2
        for i, node in enumerate(row):
            node.x = start + i * (NODE_W + GAP_X)
            node.y = MARGIN + (top_level - level) * (NODE_H + GAP_Y)
    return list(nodes.values()), edges, width, height


def _uncross(rows: dict[int, list[Placed]], above: dict[str, set[str]]) -> None:
    """Order each row by the mean position of what it stands on (and the
    floor by what stands on it), so that edges cross less: the barycenter
    heuristic, two sweeps."""
    below_of: dict[str, set[str]] = {}
    for upper, lowers in above.items():
        for lower in lowers:
            below_of.setdefault(lower, set()).add(upper)

    def sweep(levels: list[int], neighbours: dict[str, set[str]]) -> None:
        for level in levels:
            position = {n.id: i for row in rows.values() for i, n in enumerate(row)}
            rows[level].sort(
                key=lambda n: (
                    sum(position[m] for m in neighbours.get(n.id, ())) / len(neighbours[n.id])
                    if neighbours.get(n.id)
                    else position[n.id]
                )
            )

    levels = sorted(rows)
    for _ in range(2):
        sweep(levels[1:], above)  # upwards: by what each node stands on
        sweep(levels[-2::-1], below_of)  # downwards: by what stands on it


def lineage_svg(lineage: dict[str, Any]) -> SafeString:
    placed, edges, width, height = layout(lineage)
    at = {n.id: n for n in placed}
    # Downward adjacency: from a node towards its evidence.
    down: dict[str, list[str]] = {n.id: [] for n in placed}
    for e in edges:
        if e["kind"] in ("derived_from", "based_on"):
            down[e["from"]].append(e["to"])
        else:
            down[e["to"]].append(e["from"])
    parts = [
        f'<svg id="lineage" class="lineage" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" xmlns="http://www.w3.org/2000/svg" role="group" '
        f'aria-label="lineage graph" data-down="{escape(json.dumps(down))}">'
    ]
    for e in edges:
        a, b = at[e["from"]], at[e["to"]]
        upper, lower = (a, b) if a.y < b.y else (b, a)
        parts.append(
            f'<line class="edge {escape(e["kind"])}" data-from="{escape(e["from"])}" '
            f'data-to="{escape(e["to"])}" x1="{upper.x + NODE_W / 2:.1f}" '
            f'y1="{upper.y + NODE_H:.1f}" x2="{lower.x + NODE_W / 2:.1f}" y2="{lower.y:.1f}"/>'
        )
    for n in placed:
        top = " top" if n.id == str(lineage["lesson"]) else ""
        parts.append(
            f'<g class="node {escape(n.type)} {escape(n.status)}{top}" data-id="{escape(n.id)}" '
            f'tabindex="0" role="button" aria-label="{escape(n.type)}: {escape(n.label)}" '
            f'transform="translate({n.x:.1f},{n.y:.1f})">'
            f'<rect width="{NODE_W}" height="{NODE_H}" rx="6"/>'
            f'<text x="8" y="16" class="kind">{escape(n.type)} · {escape(n.status)}</text>'
            f'<text x="8" y="34" class="text">{escape(n.label[:26])}</text>'
            f"<title>{escape(n.label)}</title></g>"
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 (every value escaped above)
