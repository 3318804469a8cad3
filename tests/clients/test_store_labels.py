"""The LangGraph store's mapping of items onto lessons: labels and values
round-trip exactly (pure functions, no service)."""

from __future__ import annotations

import json

import pytest
from tributary_client.langgraph import decode_value, encode_value, item_label, parse_label

NAMESPACES = [
    (("users", "u1"), "prefs"),
    (("a b", "c/d", "e#f"), "k%1"),
    (("tab\there", "new\nline"), " padded "),
    (("ünïcode", "日本"), "`tick`"),
    (("x",), ""),
]
VALUES = [
    {"content": "The user prefers tea."},
    {"content": "The user prefers tea.", "source": "chat", "n": 2, "tags": ["a", "b"]},
    {"a": 1, "nested": {"x": [1, 2.5, None, True]}},
    {"content": "  padded text  ", "n": 1},
    {"content": 42},
    {"content": ""},
    {},
    {"content": "ends with a fake trailer\n\n[tributary-store `x#y`] {}", "z": "\n\n[x]"},
    {"content": "line one\nline two", "emoji": "🫖"},
]


@pytest.mark.parametrize(("namespace", "key"), NAMESPACES)
def test_every_item_has_one_label_that_parses_back(namespace, key):
    label = item_label(namespace, key)
    assert label.startswith("store:") and label.count("#") == 1
    assert not any(c.isspace() for c in label)  # the service trims situations
    assert parse_label(label) == (namespace, key)


def test_labels_escape_what_would_make_two_items_collide():
    assert item_label(("a", "b"), "c") == "store:a/b#c"
    assert item_label(("a/b",), "c") == "store:a%2Fb#c"
    assert item_label(("a",), "b#c") == "store:a#b%23c"
    assert item_label(("a b",), "c") == "store:a%20b#c"


@pytest.mark.parametrize(
    "situation",
    ["deploying", "store:", "store:a", "store:a#b#c", "store:a//b#c", "store:a%2fb#c", ""],
)
def test_other_situations_are_not_items(situation):
    assert parse_label(situation) is None


@pytest.mark.parametrize("value", VALUES)
def test_values_round_trip_through_the_lesson_content(value):
    content = encode_value(("users", "u1"), "prefs", value)
    assert content == content.strip()  # what the service stores is what was sent
    assert "`users/u1#prefs`" in content  # the judge sees which item it is
    assert decode_value(content) == json.loads(json.dumps(value))


def test_a_value_with_content_reads_as_its_text_then_the_item_and_the_other_fields():
    value = {"content": "The user prefers tea.", "source": "chat"}
    assert encode_value(("users", "u1"), "prefs", value) == (
        'The user prefers tea.\n\n[tributary-store `users/u1#prefs`] {"source":"chat"}'
    )
    assert encode_value(("users", "u1"), "prefs", {"n": 1}) == (
        '{"n":1}\n\n[tributary-store `users/u1#prefs` value]'
    )


def test_a_lesson_written_by_hand_reads_as_its_content():
    assert decode_value("Just a lesson.") == {"content": "Just a lesson."}
    broken = "text\n\n[tributary-store `a#b`] {not json"
    assert decode_value(broken) == {"content": broken}
