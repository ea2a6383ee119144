"""The CI gate: rules, a reviewed baseline, and the check that fails on a real drop."""
