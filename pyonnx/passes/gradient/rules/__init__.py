"""VJP rules by op family."""
