"""Fabula: a digital table for Dixit Odyssey."""

__version__ = "0.1.0"
