"""English sentences for a model whose config names no examples of its own (handlers.examples_for)."""

EXAMPLES = [
    "A man in an orange hat staring at something.",  # test_2016_flickr (its "starring" corrected)
    "A Boston Terrier is running on lush green grass in front of a white fence.",  # test_2016_flickr
    "People are fixing the roof of a house.",  # test_2016_flickr
    "A dog is running in the snow.",
    "Two children are playing football on the beach.",
    "The woman with the red umbrella walks past a small café.",
]
