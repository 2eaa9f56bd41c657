"""The page's words come from the catalogues: every label, help line, placeholder, button, tab, fold, choice and
text the page is built with at start-up is a catalogue key (shown in the page's language), and the words made per
request (the task's labels, head and preset choices) speak the request's language while the values the code and links
use stay the same in every language."""

import html
import re

import gradio as gr
import pytest
from gradio.i18n import I18nData

from explorer.api import handlers as h
from explorer.page import ui
from explorer.serving import limits
from i18n import CATALOGUES, RENDERED, speaking
from model.translator import available

MARK = "__i18n__"
SHOWN = (gr.Textbox, gr.Slider, gr.Dropdown, gr.Radio, gr.Number, gr.CheckboxGroup, gr.Dataset, gr.Button, gr.Markdown,
         gr.HTML, gr.Plot, gr.File, gr.Tab, gr.Accordion)


@pytest.fixture(scope="module")
def demo():
    import app

    return app.build()


def key_of(text) -> str | None:
    """The catalogue key a value stands for (an I18nData or its string form), else None."""
    if isinstance(text, I18nData):
        return text.key
    if isinstance(text, str) and text.startswith(MARK):
        return re.search(r'"key": "([^"]+)"', text).group(1)
    return None


def known(key: str) -> bool:
    return all(key in CATALOGUES[code] or key in RENDERED[code] for code in CATALOGUES)


def words(text: str) -> str:
    """What a person reads of an HTML string: its text without tags."""
    return html.unescape(re.sub(r"<[^>]+>", " ", text)).strip()


def test_every_word_the_page_is_built_with_comes_from_the_catalogues(demo):
    plain = []
    for c in demo.blocks.values():
        if not isinstance(c, SHOWN):  # the public API's own components are not on the page
            continue
        if "ae-hidden" in (getattr(c, "elem_classes", None) or []) or c.elem_id == "lesson":  # hidden; the lesson's own
            continue
        shown = [getattr(c, name, None) for name in ("label", "info", "placeholder")]
        if isinstance(c, (gr.Button, gr.Markdown)):
            shown.append(c.value)
        if isinstance(c, gr.HTML) and c.value and words(c.value):
            shown.append(c.value)
        if isinstance(c, (gr.Radio, gr.Dropdown, gr.CheckboxGroup)) and c.elem_id not in ("model", "heads-off"):
            shown += [display for display, _ in c.choices]  # model names and head names ("cross L0 H1") stay
        for text in shown:
            if text in (None, "") or (isinstance(c, gr.Markdown) and text == c.value and not text):
                continue
            key = key_of(text)
            if key is None or not known(key):
                plain.append((type(c).__name__, c.elem_id, str(text)[:60]))
    assert plain == [], f"words on the page that are not catalogue keys: {plain}"


def test_choices_keep_their_values_in_every_language(demo):
    import app

    rules = demo.link_rules
    assert rules["methods"] == ["greedy", "beam", "sample"]
    fields = rules["extras"]["fields"]
    assert fields["c_kind"]["choices"] == list(h.KIND_LABELS)
    assert fields["c_head"]["choices"] == [h.AVERAGE] + [f"head {i}" for i in range(len(fields["c_head"]["choices"]) - 1)]
    assert fields["preset"]["choices"] == list(h.ablation_presets(h.model_for(demo.link_state["model"].value)))
    assert "examples" in app.LEFT_OUT


def test_head_and_preset_choices_speak_the_language_and_keep_their_values():
    tr = h.model_for(available()[0])
    with speaking("de"):
        heads = ui.head_choices(3)
        presets = ui.preset_choices(tr)
    assert heads == [("alle Köpfe (Mittel)", h.AVERAGE), ("Kopf 0", "head 0"), ("Kopf 1", "head 1"), ("Kopf 2", "head 2")]
    assert [value for _, value in presets] == list(h.ablation_presets(tr))
    assert all(shown != value for shown, value in presets), presets  # every preset has its German name
    assert ("ganze Schicht 0 (jede Art)", "whole layer 0 (every kind)") in presets
    with speaking("en"):
        assert ui.preset_choices(tr) == [(name, name) for name in h.ablation_presets(tr)]


def test_the_task_labels_speak_the_language():
    for name in available():
        task = h.model_for(name).task
        with speaking("en"):
            english = (h.input_label(task), h.output_label(task), h.input_info(task))
        with speaking("de"):
            german = (h.input_label(task), h.output_label(task), h.input_info(task))
        assert all(e != g for e, g in zip(english, german)), (english, german)
        assert german[2].endswith(f"Bis zu {limits.MAX_CHARS} Zeichen.")
    if "en-de" in available():
        with speaking("de"):
            task = h.model_for("en-de").task
            assert (h.input_label(task), h.output_label(task)) == ("Englischer Satz", "Deutsch")


def test_a_model_of_ones_own_keeps_its_config_words():
    from model.task import Task

    task = Task(source="French", target="English", input="a French sentence", hint="Trained on news.")
    with speaking("de"):
        assert h.input_label(task) == "French sentence" and h.output_label(task) == "English"
        assert h.input_info(task).startswith("Trained on news. Bis zu")


def test_a_step_that_did_not_run_says_so_in_the_language():
    @ui.experiment_event(1)
    def refused(shown):
        from explorer.serving.request import UserError

        raise UserError("nope")

    with speaking("de"):
        text, fig = refused("x")
    assert text == "Nicht ausgeführt: nope" and fig is None


def test_a_preset_left_without_a_choice_changes_nothing_and_says_nothing():
    """Audit 65 (3 of 3): heads ticked by hand empty "Pick a group of heads"; Tab through it fired its input with no
    choice, and the page said "Unknown preset 'None'." in a warning over the focused control at 320x256. No choice
    keeps the heads as they are, without a word."""
    import warnings

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert ui.ablation_preset("{}", None) == gr.skip()
        assert ui.ablation_preset("{}", "") == gr.skip()
    assert [str(w.message) for w in said] == []
