"""One state for links, following and showing: every input a student can set on the page is in the view state that
links and class rooms carry (app.py's ``demo.link_state``), or named (by elem_id) in ``app.LEFT_OUT`` with why."""

import gradio as gr
import pytest

INPUTS = (gr.Textbox, gr.Slider, gr.Dropdown, gr.Radio, gr.Number, gr.Checkbox, gr.CheckboxGroup, gr.Dataset)


@pytest.fixture(scope="module")
def demo():
    import app

    return app.build()


def settable(c) -> bool:
    """A component a student can set: an input kind, shown, not read-only."""
    return isinstance(c, INPUTS) and c.visible is not False and c.interactive is not False


def test_every_input_is_in_the_state_or_left_out_with_why(demo):
    import app

    carried = {id(c) for c in demo.link_state.values()}
    inputs = [c for c in demo.blocks.values() if settable(c)]
    assert len(inputs) > 20  # the test sees the page's inputs
    # by elem_id: a label is a catalogue key, shown in the page's language
    missing = [c.elem_id or str(c.label) for c in inputs if id(c) not in carried and c.elem_id not in app.LEFT_OUT]
    assert missing == [], f"inputs neither in the link state nor in app.LEFT_OUT: {missing}"
    assert all(why.strip() for why in app.LEFT_OUT.values())
    ids = {c.elem_id for c in inputs}
    assert set(app.LEFT_OUT) <= ids, "LEFT_OUT names an input the page no longer has"


def test_inside_a_head_is_in_the_state(demo):
    keys = demo.link_state
    for key in ("in_kind", "in_layer", "in_head", "in_query", "kind", "layer", "head", "step", "tt_layer", "tt_head"):
        assert key in keys
    fields = demo.link_rules["extras"]["fields"]
    assert set(fields) <= set(keys)  # what links.js reads is what the state holds
    assert fields["in_layer"]["sized"] == "layer" and fields["in_query"]["type"] == "text"
