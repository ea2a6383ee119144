"""Gate rule kinds, one module each (``registry.RULE_KINDS``): metric drops, tag floors, critical questions."""
