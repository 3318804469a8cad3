"""Recall's answer reader (memory/answers.py): a question read with each of
the recall's best lessons; none answers it, the answer says
nothing_relevant — where the floor, which only tells unrelated questions
apart, says relevant."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from accounts.tenancy import tenant_context
from memory import answers, onnx_model
from memory.embeddings import default_model_path
from memory.selectors import recall_judged
from tests.conftest import make_caller
from tests.memory.test_recall import _seed

pytestmark = pytest.mark.django_db(transaction=True)

# Written for this test, in no set the reader was fitted on.
NOTES = [
    "Dana adopted a grey rescue greyhound named Comet from a shelter in Leeds in March.",
    "Dana said Comet sleeps on the sofa all day and refuses to go out in the rain.",
    "Omar started a new job as a bus driver in Bristol in May.",
    "Omar and Dana went hiking in the Brecon Beacons over the Easter weekend.",
]
ANSWERED = "What is the name of the dog Dana adopted?"
NEVER_TOLD = "How much did the hiking boots cost?"  # hiking is there; boots and prices are not


@pytest.fixture
def reader_on(settings):
    settings.TRIBUTARY_ANSWER_READER = True
    answers.MODEL.forget()


def _recall(tenant_id, query):
    with tenant_context(tenant_id):
        return recall_judged(tenant_id=tenant_id, query=query, k=3)


def test_a_question_about_a_detail_memory_was_never_told_is_flagged(settings, reader_on):
    alice = make_caller("acme", "alice")
    _seed(alice, NOTES)
    tenant = alice.agent.tenant_id
    # the premise: the floor alone calls it relevant (a rare term, hiking, matched)
    settings.TRIBUTARY_ANSWER_READER = False
    answers.MODEL.forget()
    assert _recall(tenant, NEVER_TOLD).nothing_relevant is False
    settings.TRIBUTARY_ANSWER_READER = True
    answers.MODEL.forget()
    never_told = _recall(tenant, NEVER_TOLD)
    assert never_told.nothing_relevant is True
    assert len(never_told.hits) == 3  # still the nearest, flagged
    # what decided: none of the three best lessons scores past the threshold
    found = answers.scores(NEVER_TOLD, [h.lesson.content for h in never_told.hits])
    assert found is not None and max(found) < answers.MODEL.threshold()  # type: ignore[operator]
    answered = _recall(tenant, ANSWERED)
    assert answered.nothing_relevant is False
    assert "Comet" in answered.hits[0].lesson.content


def test_a_keyword_query_is_left_to_the_floor(reader_on):
    """The reader was fitted on questions: a query of keywords is not read."""
    assert answers.is_question(NEVER_TOLD) and answers.is_question("where is the runbook")
    assert not answers.is_question("hiking boots price")
    alice = make_caller("acme", "alice")
    _seed(alice, NOTES)
    assert _recall(alice.agent.tenant_id, "hiking boots price").nothing_relevant is False
    assert answers.unanswered("hiking boots price", NOTES) is False
    assert answers.unanswered(NEVER_TOLD, NOTES[3:]) is True  # asked as a question, it is


def test_the_reader_is_off_when_switched_off_or_with_another_embedding_model(settings, reader_on):
    assert answers.MODEL.meta() is not None
    settings.TRIBUTARY_ANSWER_READER = False
    answers.MODEL.forget()
    assert answers.MODEL.meta() is None and answers.scores(NEVER_TOLD, NOTES) is None
    assert answers.unanswered(NEVER_TOLD, NOTES[3:]) is False
    settings.TRIBUTARY_ANSWER_READER = True
    settings.TRIBUTARY_EMBEDDING_MODEL = "/models/another"
    answers.MODEL.forget()
    assert answers.MODEL.meta() is None


def test_a_reader_that_fails_answers_relevant_with_a_warning(monkeypatch, caplog, reader_on):
    alice = make_caller("acme", "alice")
    _seed(alice, NOTES)

    def broken(texts):
        raise RuntimeError("the graph cannot run")

    monkeypatch.setattr(answers.MODEL, "probabilities", broken)
    recalled = _recall(alice.agent.tenant_id, NEVER_TOLD)
    assert recalled.nothing_relevant is False and len(recalled.hits) == 3
    assert "recall's answer reader failed" in caplog.text


def test_the_tuned_directory_replaces_every_layer_and_runs_on_the_8_bit_graph(tmp_path):
    from safetensors.numpy import load_file

    made = answers.MODEL.model_dir(tmp_path)
    base = load_file(str(Path(default_model_path()) / "model.safetensors"))
    tuned = load_file(str(made / "model.safetensors"))
    assert tuned.keys() == base.keys()
    changed = {name for name in base if not np.array_equal(base[name], tuned[name])}
    assert {name.split(".")[2] for name in changed if name.startswith("encoder.layer.")} == {
        str(i) for i in range(6)
    }
    assert not any(name.startswith("embeddings.") for name in changed)
    provider = answers.MODEL._loaded()
    assert provider is not None and provider.graph.name.endswith(onnx_model.QUANTIZED_SUFFIX)


def test_the_best_lesson_is_read_first_and_the_others_only_when_it_does_not_answer(
    monkeypatch, reader_on
):
    read: list[list[str]] = []
    answers.warm()
    provider = answers.MODEL._loaded()  # what reads: one model pass per call
    real = provider.encode

    def counting(texts, *args, **kwargs):
        read.append(list(texts))
        return real(texts, *args, **kwargs)

    monkeypatch.setattr(provider, "encode", counting)
    threshold = answers.MODEL.threshold()
    assert threshold is not None
    answering_first = [NOTES[0], NOTES[1], NOTES[2]]
    assert answers.unanswered(ANSWERED, answering_first) is False
    assert [len(texts) for texts in read] == [1]  # the first answered: nothing more read
    read.clear()
    answering_last = [NOTES[2], NOTES[1], NOTES[0]]
    assert answers.unanswered(ANSWERED, answering_last) is False
    assert read == [[answers.pair(ANSWERED, lesson)] for lesson in answering_last]
    read.clear()
    assert answers.unanswered(NEVER_TOLD, NOTES[:3]) is True
    assert len(read) == 3 and all(len(texts) == 1 for texts in read)  # each pair on its own
    # the verdict is reading all three: none past the threshold
    for question, lessons in [(ANSWERED, answering_last), (NEVER_TOLD, NOTES[:3])]:
        found = answers.scores(question, lessons)
        assert found is not None
        assert answers.unanswered(question, lessons) is (max(found) < threshold)


def test_a_pair_scores_the_same_alone_as_beside_others(reader_on):
    """The 8-bit graph scales activations by the batch: each pair is read on
    its own, so its score does not depend on what else the recall found."""
    alone = answers.scores(ANSWERED, NOTES[:1])
    beside = answers.scores(ANSWERED, NOTES[:3])
    assert alone is not None and beside is not None and alone[0] == beside[0]


def test_a_long_question_is_left_to_the_floor():
    """Fitted on questions of at most ~155 characters: a longer one would
    push the lesson out of what the reader reads."""
    long = "Before the standup, and given everything we discussed last week, " * 3 + ANSWERED
    assert len(long) > answers.QUESTION_CHARS
    assert not answers.is_question(long) and answers.is_question(ANSWERED)
    assert answers.unanswered(long, NOTES[3:]) is False


def test_the_reader_runs_only_on_its_8_bit_graph(settings, monkeypatch, caplog, reader_on):
    """Its threshold was set on the 8-bit graph's scores: on PyTorch (floats,
    scores up to 0.25 apart) it is off, with a warning, not wrong."""
    settings.TRIBUTARY_EMBEDDING_RUNTIME = "torch"
    monkeypatch.setattr(answers.MODEL, "_provider", None)
    monkeypatch.setattr(answers.MODEL, "_failed", False)
    assert answers.scores(NEVER_TOLD, NOTES) is None
    assert answers.unanswered(NEVER_TOLD, NOTES[3:]) is False
    assert "recall's answer reader is off" in caplog.text and "8-bit" in caplog.text


def test_an_8_bit_graph_that_does_not_load_is_made_again_and_the_float_one_stays(
    tmp_path, monkeypatch, caplog, reader_on
):
    answers.warm()
    provider = answers.MODEL._loaded()
    assert provider is not None
    floats = Path(str(provider.graph).removesuffix(onnx_model.QUANTIZED_SUFFIX) + ".onnx")
    copy = tmp_path / floats.name
    copy.write_bytes(floats.read_bytes())
    broken = onnx_model.quantized_graph(copy)  # made beside the copy
    broken.write_bytes(b"not a graph")
    monkeypatch.setattr(onnx_model, "graph_file", lambda *args, **kwargs: copy)
    loaded = onnx_model.OnnxProvider.load(str(answers.MODEL.model_dir()), tmp_path, quantized=True)
    assert loaded.graph == broken and broken.stat().st_size > 1000
    assert copy.read_bytes() == floats.read_bytes()  # the float graph untouched
    assert "quantizing again" in caplog.text
    assert len(loaded.encode([answers.pair(ANSWERED, NOTES[0])])[0]) == 384


def test_the_threshold_flags_at_most_the_allowed_share_of_answerable_questions():
    from evals.answer_reader import FLAGGED, choose_threshold

    best = [("single", s / 100) for s in range(1, 41)] + [("adversarial", 0.001)] * 10
    threshold = choose_threshold(best)
    flagged = sum(s < threshold for k, s in best if k != "adversarial")
    assert flagged == int(FLAGGED * 40) == 2 and threshold == 0.03


def test_training_pairs_keep_their_labels_and_read_every_other_fact_undated():
    from evals.answer_reader import pairs

    texts = {"f1": "2024-01-02: Comet is a greyhound.", "f2": "2024-01-03: Omar drives a bus.",
             "f3": "2024-01-04: Dana lives in Leeds."}  # fmt: skip
    asked = [({"question": "What is Comet?", "evidence": ["f1"]}, ["f2", "f1", "f3"]),
             ({"question": "What breed is Pickle?", "evidence": []}, ["f3", "f1"])]  # fmt: skip
    read, labels = pairs(asked, texts)
    assert labels == [1.0, 0.0, 0.0, 0.0, 0.0]
    assert read[0] == answers.pair("What is Comet?", texts["f1"])
    assert read[1] == answers.pair("What is Comet?", "Omar drives a bus.")
    assert read[3] == answers.pair("What breed is Pickle?", "Dana lives in Leeds.")
    assert read[4] == answers.pair("What breed is Pickle?", texts["f1"])
