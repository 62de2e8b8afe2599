"""Testing simt itself: a differential fuzzer of random kernels, a front-end mutator, and a
shrinker that reduces a failure to a few lines (`python -m simt fuzz`)."""
