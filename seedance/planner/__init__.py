"""The planner: pure decisions (instance types, reserved units, spot share, checkpoint interval)."""
