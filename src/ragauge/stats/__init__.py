"""Statistics for comparing runs: bootstrap intervals, randomization tests, multiple testing."""
