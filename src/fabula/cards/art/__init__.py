"""The original deck's illustrations: procedural SVG scenes (setting × subject × twist × palette)."""
