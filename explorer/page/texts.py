"""The few lines for a learner that open every tab: what is shown, the formula, one thing to try."""

from explorer.i18n import rendered, t

INTRO = """**Attention Explorer** · type an English sentence: a small Transformer of our own (the one of *Attention Is All
You Need*) translates it into German, and each tab below shows one step inside it."""


ATTEND = """**What you see:** how much each *query* token looks at each *key* token, for one layer and head.
In cross-attention each row is a decoder position: the row labelled *Ein* is where the model picks the
word after *Ein* (hover shows which), so it looks at the English word it is about to translate.
**Formula:** Attention(Q, K, V) = softmax(Q Kᵀ / √d_k) V — each row of the heatmap is one softmax and sums to 1.
**Try:** pick *Cross-attention*, the last layer, *all heads (mean)*: the bright cells pair words with their
translations (dog → Hund). Then switch to one head at a time: heads specialise."""

STEPS = """**What you see:** decoding one token at a time. At step *t* the decoder has the prefix so far and
chooses the next token from a probability distribution (bars; red = chosen). Below: where that step's query
looked in the source (cross-attention) and in its own prefix (masked self-attention).
**Formula:** greedy takes argmaxₜ p(yₜ | y₍<t₎, x); beam search keeps the *k* best prefixes by Σ log p, scored
with the length penalty ((5 + |Y|) / 6)^α. **Try:** move the slider; then press **Run beam search** to compare
greedy with beam (a second decode)."""

POSITIONAL = """**What you see:** attention itself ignores word order, so the model adds a vector that depends only
on the position. **Formula:** PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)).
Low dimensions wiggle fast, high ones slowly — like the hands of a clock. **Try:** look at the similarity map:
PE(p)·PE(q) depends on the distance p − q, which is what makes "the word two to the left" easy to find."""

INSIDE = """**What you see:** the arithmetic of one head for one query token: its query vector q, every key vector k,
the scores q·k / √d_k (masked keys greyed), the softmax, the value vectors v and the output Σⱼ wⱼ vⱼ.
**Try:** in decoder self-attention pick an early query: every later key is masked — the decoder cannot
look into the future."""

EXPERIMENTS = """**Head ablation:** tick heads to switch off (their output is replaced by zeros before W_O), or pick a
group (every head of one kind, a whole layer), and see whether the translation changes. Even when the words stay
the same, the bars show what the heads did: each word of the original translation, how likely the model finds it
with and without them. Many heads can go without harm; a few matter a lot.
**Logit lens:** the decoder's output projection applied after every layer, not only the last: where does
the right word first appear? **Try:** ablate all cross-attention heads of one layer."""

MODEL = """**What you see:** the configuration and training of the model you picked, its BLEU score with the
sacreBLEU signature (so the number can be reproduced), the training curves and the learning-rate schedule
(warm up linearly, then decay as 1/√step — the paper's recipe). Training used **label smoothing 0.1**: the target
distribution puts 0.9 on the right token and spreads 0.1 over the rest, so the model is never pushed to be
certain — which hurts the training loss a little and helps BLEU. The toy model *toy-reverse* writes letters
separated by spaces in reverse order: its cross-attention is a textbook pattern (a clean anti-diagonal) for
comparison. Choosing it in the Model menu fills in its own examples and translates the first."""

THROUGH_TRAINING = """**How does it learn this?** The training run kept the model at a few steps along the way (denser
early, e.g. steps 50, 150, 400, 1000, 2500 and the final model; a model trained without them says so). Each one
translates the sentence shown above, and the
figure shows its cross-attention and where it was on the loss curve. **Watch for:** at first every German position
looks at the same few English tokens (often the full stop or the end of sentence) and the output is the most
frequent words; as the validation loss falls, the rows find their English words and a diagonal-like alignment
forms. **Try:** a sentence of your own, then the slider from left to right; then one head of the first layer."""

# the guided lesson's fold before it starts (explorer/page/static/lesson.js draws into #ae-lesson), in every language
LESSON_START = rendered("lesson.start.html", lambda: (
    f'<div id="ae-lesson"><p>{t("lesson.intro")}</p>\n'
    f'<button id="ae-lesson-start" onclick="AE.lesson.start()">{t("lesson.start_button")}</button></div>'))

COMPARE = """**What you see:** the sentence shown above and a second one, side by side, the same attention type, layer
and head, on **one colour scale**: the same colour is the same weight in both. **Try:** translate *The animal didn't
cross the street because it was too tired.*, then compare it with *... because it was too wide.*: in encoder
self-attention, which word does *it* look at in each (Winograd's classic)? Beam and sampling options carry over."""

COMPARE_B = "The animal didn't cross the street because it was too wide."

BEYOND = """A heatmap shows where a head **reads**. That is not yet why the model wrote a word: what a head reads
still passes through many more steps (the value vectors, W_O, the feed-forward layers, every later layer). So this
tab **tests** attention instead of trusting it.

- **Attribution** asks which English pieces each German word really depends on. *Occlusion* is the plainest test:
  erase one English piece at a time and see how far each German word's probability falls. The other methods
  estimate the same thing from gradients (saliency, input × gradient, integrated gradients) or by multiplying the
  attention of every layer (rollout). The *agreement* column compares each German word's attention with its
  attribution: where it is low, attention points somewhere the word does not depend on. On this model, integrated
  gradients agrees with occlusion most often.
- **Activation patching** runs a second sentence that differs in one word (the *corrupted* one) and copies one
  head's output at a time from the original run into it: the heads that bring the original word back are the ones
  that carry the difference.
- **What-if** forces a German beginning, or changes one English word, and shows what the model does next."""



# The line each tab opens with, in plain words for a student; the tab's longer text (the formula, what to try) is one
# click away under it ("More").
TAB_INTROS = {
    "attend": "Each cell: how much one word **looks at** another (darker = more). Tap or hover a cell for its number.",
    "steps": "The German sentence is written **one piece at a time**. Move the slider: at each step, the pieces the"
             " model considered, how likely each was, and the one it chose.",
    "pe": "Attention alone does not know the **order** of the words, so each position adds its own pattern of waves to"
          " the word's numbers.",
    "inside": "The arithmetic of **one head** for one word: compare its query with every key, turn the scores into"
              " weights that add up to 1, and mix the values with those weights.",
    "experiments": "**Switch heads off** and see what the translation loses; the logit lens shows after which layer"
                   " the right word first comes out on top.",
    "beyond": "Attention shows where the model **reads**, not why it wrote a word. Here you **test** it: which English"
              " words does each German word really depend on?",
    "compare": "Two sentences **side by side** on one colour scale: change one word and see where the model looks"
               " differently.",
    "model": "What this model is, what it learned from, how good it is (BLEU), and how its attention formed during"
             " training.",
}
