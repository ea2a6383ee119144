"""Statistics for comparing runs: paired tests with the intervals that invert them, power, multiple testing."""
