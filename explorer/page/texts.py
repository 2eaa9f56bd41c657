"""The words for a learner that open every tab (what is shown, the formula, one thing to try), by their catalogue key:
the text itself, in every language, is in i18n/<language>.json (the page shows the one of its language)."""

from i18n import rendered, t

INTRO = "page.intro"
# each tab's longer text, one click away under its first line ("More": the formula, what to try)
ATTEND = "page.attend.more"
STEPS = "page.steps.more"
POSITIONAL = "page.pe.more"
INSIDE = "page.inside.more"
EXPERIMENTS = "page.experiments.more"
MODEL = "page.model.more"
THROUGH_TRAINING = "page.model.training_text"
COMPARE = "page.compare.more"
BEYOND = "page.beyond.more"
MORE = "page.more"  # the link that opens it

# the guided lesson's fold before it starts (explorer/page/static/lesson.js draws into #ae-lesson), in every language
LESSON_START = rendered("lesson.start.html", lambda: (
    f'<div id="ae-lesson"><p>{t("lesson.intro")}</p>\n'
    f'<button id="ae-lesson-start" onclick="AE.lesson.start()">{t("lesson.start_button")}</button></div>'))

# the Compare tab's second sentence when the first has no word to swap: a sentence for the model, so English
COMPARE_B = "The animal didn't cross the street because it was too wide."

# The line each tab opens with, in plain words for a student; the tab's longer text (the formula, what to try) is one
# click away under it ("More").
TAB_INTROS = {tab: f"page.{tab}.intro" for tab in
              ("attend", "steps", "pe", "inside", "experiments", "beyond", "compare", "model")}
