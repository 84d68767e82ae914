"""VJP rules of If and Loop."""
