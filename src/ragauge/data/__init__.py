"""The data model: golden questions, runs and hits, document ids."""
