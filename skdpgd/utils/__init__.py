"""Validation, clipping and scikit-learn compatibility helpers (not public API)."""
