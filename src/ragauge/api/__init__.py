"""The application floor: one public function per verb, each the whole of what its command does.

``ragauge/__init__`` re-exports from here (plus the data classes and errors), and ``cli/`` calls
only these. A module per verb family; each imports the engine it composes when called.
"""
