"""LLM prompt templates, kept as data files beside this module."""
