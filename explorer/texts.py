"""The few lines for a learner that open every tab: what is shown, the formula, one thing to try."""

INTRO = """# Attention Explorer
Type an English sentence. A small Transformer of our own (the encoder-decoder of *Attention Is All You Need*)
translates it into German, and every tab below shows one step inside it. What the chosen model was trained on is
said under the text box.
"""


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

EXAMPLES = [
    "A man in an orange hat starring at something.",  # test_2016_flickr
    "A Boston Terrier is running on lush green grass in front of a white fence.",  # test_2016_flickr
    "People are fixing the roof of a house.",  # test_2016_flickr
    "A dog is running in the snow.",
    "Two children are playing football on the beach.",
    "The woman with the red umbrella walks past a small café.",
]

LESSON_START = """<div id="ae-lesson"><p>From tokens to decoding in eight stops, each on the sentence you translated. At
each stop the right view opens and a question comes <i>before</i> the answer: predict, then see what the model
really did. Keys: 1-4 answer, ← → move.</p><button id="ae-lesson-start" onclick="AE.lesson.start()">Start the
lesson</button></div>"""

COMPARE = """**What you see:** the sentence shown above and a second one, side by side, the same attention type, layer
and head, on **one colour scale**: the same colour is the same weight in both. **Try:** translate *The animal didn't
cross the street because it was too tired.*, then compare it with *... because it was too wide.*: in encoder
self-attention, which word does *it* look at in each (Winograd's classic)? Beam and sampling options carry over."""

COMPARE_B = "The animal didn't cross the street because it was too wide."

BEYOND = """**Attention weights are not explanations on their own.** A weight says where a head *reads*; what it
reads still passes through the value vectors, W_O, the residual stream, the feed-forward layers and every later
layer. So test it: **attribution** asks which inputs the output's probability actually depends on. **Occlusion**
intervenes: it erases one input piece at a time and shows how far each output word's log-probability falls (two
pieces that can stand in for each other each look unimportant). The others estimate it: saliency (how sensitive),
input × gradient (a first-order share), integrated gradients (the shares along a path from a blank input, which
add up to the whole change in log-probability) and rollout (attention of every layer multiplied through, with the
residual, so it inherits attention's habits). Held against occlusion on the English–German model, integrated
gradients most often ranks first the piece whose erasure matters most (README: "Held against occlusion"). On the
letter-reversing toy, rollout ranks the end mark [EOS] first almost everywhere, because every letter's attention
leans on [EOS]. The toy does need [EOS] (erase it and most reversals go wrong in the later letters), but each
output letter depends most on its mirror letter, which occlusion ranks first in most rows; a copying toy leans on
[EOS] as much, so rollout over-counts it (README: "Known limit of rollout"). The agreement column is the rank
correlation between cross-attention and each row's attribution: where it is low, attention points somewhere the
output does not depend on. **Activation patching** runs a second, *corrupted* sentence and copies one head's
output at a time from the clean run into it: the heads that bring the clean word back carry the difference.
**What-if** lets you force a German beginning, or change one English word, and see what the model does."""

