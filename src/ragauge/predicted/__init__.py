"""Prediction-powered metrics (``--auto-labels``): a golden set in which only some questions carry human
labels, an assessor's automatic labels for every question, and estimates that combine the two with
intervals that stay honest (``ragauge.stats.ppi``). An evaluation (``predicted.evaluate``), and the
paired difference of two runs that ``compare`` and the gate read (``predicted.difference``)."""

METHOD = "betting"
"""The prediction-powered interval reported: ``stats.ppi``'s betting interval, valid at every n."""
TARGET_TEXT = {
    "golden-set": "the mean over the golden set's own questions, as human labels of every one would give it (the "
                  "labelled ones a uniformly random subset of them; nothing is claimed of other questions)",
    "population": "the mean over the questions the golden set stands for (its questions a random sample of them, "
                  "the labelled ones a random subset), as the human-only paired test reads them",
}
"""What an estimate is of (``stats.ppi``'s ``target``): an evaluation's means are the golden set's own, the
value a fully labelled golden set would show; a comparison's and a gate's differences are of the questions
the golden set stands for, as their human-only tests are (a difference between equal-quality runs that this
golden set's questions happen to show is no regression)."""
