"""The server's words in the reader's language (i18n, the "server" section): a warning, a figure and a user
error come out in German with German numbers under ``speaking("de")``, and exactly as before in English otherwise;
what is cached per model holds the language in its key; the shipped models' task cards are translated by model,
a changed card keeps its own words."""

import pytest

from explorer.api import beyond, task_words
from explorer.api import handlers as h
from explorer.api.advice import advice, may_be_wrong
from explorer.serving import limits
from explorer.serving.request import Request, UserError, number
from i18n import speaking
from model.translator import available

needs_en_de = pytest.mark.skipif("en-de" not in available(), reason="needs the shipped en-de checkpoint")
FLAGGED = "Attention is all you need."  # flagged as maybe wrong (tests/typed_sentences.json)


@needs_en_de
def test_a_warning_and_the_pieces_speak_german_with_a_decimal_comma():
    a = h.analysis(Request.parse(FLAGGED, "en-de"))
    est = may_be_wrong(a)
    assert est is not None and est.flagged
    p = a.trace.steps[0].chosen_prob
    english, pieces_en = advice(a), h.tokens_html(a)
    with speaking("de"):
        german, pieces_de = advice(a), h.tokens_html(a)
    assert english[0].startswith("This translation may well be wrong.") and f"{est.probability:.0%}" in english[0]
    assert german[0].startswith("Diese Übersetzung könnte durchaus falsch sein.")
    assert f"{round(100 * est.probability)}\u00a0%" in german[0]  # "34 %", never broken between the lines
    assert "Trainiert mit Alltagssätzen (Tatoeba)" in german[0]  # the model's hint, by its catalogue key
    assert "„" in german[0] and "“" in german[0]  # the words it was least sure of, quoted the German way
    assert f"p = {p:.2f} when chosen" in pieces_en and "Output pieces" in pieces_en
    assert f"p = {p:.2f} bei der Wahl".replace(".", ",") in pieces_de and "Wortstücke der Ausgabe" in pieces_de
    assert "Output pieces" not in pieces_de and "when chosen" not in pieces_de


@needs_en_de
def test_a_figure_title_and_its_numbers_speak_german():
    req = Request.parse("A dog is running in the snow.", "en-de")
    heat_en = h.attention_views(req, "Cross-attention", 2, None)[0]
    step_en = h.step_view(req, 1, 2, None)
    with speaking("de"):
        heat_de = h.attention_views(req, "Cross-attention", 2, None)[0]
        step_de = h.step_view(req, 1, 2, None)
    assert heat_en.layout.title.text.startswith("Cross-attention, layer 2, mean of 4 heads — “A dog is running")
    assert "(rows, German)" in heat_en.layout.title.text and heat_en.layout.separators is None
    title = heat_de.layout.title.text
    assert title.startswith("Kreuzaufmerksamkeit, Schicht 2, Mittel der 4 Köpfe — „A dog is running in the snow.“")
    assert "(Zeilen, Deutsch)" in title and "(Spalten, Englisch)" in title
    assert heat_de.data[0].colorbar.title.text == "Gewicht" and "Gewicht: %{z:.4f}" in heat_de.data[0].hovertemplate
    assert heat_de.layout.separators == ",." and step_de.layout.separators == ",."  # plotly: 0,93 in hover and ticks
    bars_en, bars_de = list(step_en.data[0].text), list(step_de.data[0].text)
    assert bars_de == [x.replace(".", ",") for x in bars_en] and "," in bars_de[0]
    assert step_de.layout.title.text.startswith("Decodierschritt 1: nach „")


def test_a_user_error_speaks_german_with_german_numbers():
    with pytest.raises(UserError) as en:
        number(0.1, "Top-p", 0.5, 1)
    assert str(en.value) == "Top-p must be at least 0.5 and at most 1; got 0.1."
    with speaking("de"), pytest.raises(UserError) as de:
        number(0.1, "Top-p", 0.5, 1)
    assert str(de.value) == "Top-p muss mindestens 0,5 und höchstens 1 sein, nicht 0.1."  # what was sent, as sent
    with speaking("de"), pytest.raises(UserError) as work:
        beyond.check_work(128, 40, 40)
    assert "die Grenze ist 150.000" in str(work.value) and "Integrated Gradients" in str(work.value)
    with pytest.raises(UserError, match="the limit is 150,000"):
        beyond.check_work(128, 40, 40)
    assert limits.MAX_IG_WORK == 150_000


@needs_en_de
def test_a_field_named_in_a_request_error_is_named_in_german():
    with pytest.raises(UserError, match=r"^Temperature must be greater than 0 and at most 5; got 9\.$"):
        Request.parse("A dog.", "en-de", temperature=9)
    with speaking("de"), pytest.raises(UserError, match=r"^Temperatur muss größer als 0 und höchstens 5 sein"):
        Request.parse("A dog.", "en-de", temperature=9)
    with speaking("de"), pytest.raises(UserError, match="^Tippe zuerst einen englischen Satz ein"):
        Request.parse("   ", "en-de")


@needs_en_de
def test_what_is_cached_per_model_is_cached_per_language_too():
    card_en = h.model_page("en-de")[0]
    with speaking("de"):
        card_de = h.model_page("en-de")[0]
        pe_de = h.model_positional("en-de", 20, (0, 1))[0]
    assert "6,001,664 parameters" in card_en and "| evaluation | sacreBLEU |" in card_en
    assert "6.001.664 Parameter" in card_de and "| Auswertung | sacreBLEU |" in card_de and "| 40,27 |" in card_de
    assert h.model_page("en-de")[0] == card_en  # the German card did not replace the English one
    assert h.model_positional("en-de", 20, (0, 1))[0].layout.title.text.startswith("Positional encoding (")
    assert pe_de.layout.title.text.startswith("Positionskodierung (")
    # the page's copy of an analysis stays the same in every language: the page translates it itself
    req = Request.parse("A dog is running in the snow.", "en-de")
    with speaking("de"):
        assert h.page(req)["stat_info"]["entropy"][0] == "entropy (nats)"
    assert h.page(req)["task_keys"]["target"] == "server.task.en-de.target"


@needs_en_de
def test_a_task_card_is_translated_by_model_and_a_changed_one_keeps_its_own_words():
    with speaking("de"):
        assert task_words.languages("en-de") == ("Englisch", "Deutsch")
        assert task_words.task_text("en-de", "target", "German") == "Deutsch"
        assert task_words.task_text("en-de", "hint", "Retrained on news.") == "Retrained on news."  # not stale
        assert task_words.task_text("my-model", "target", "German") == "German"  # an unknown model: its own text
    assert task_words.languages("en-de") == ("English", "German")
