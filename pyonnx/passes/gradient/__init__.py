"""Reverse-mode differentiation (see backward.py for the method)."""
