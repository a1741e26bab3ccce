"""HotSpot's own tables: trap reasons per JDK, deopt actions, section markers, runtime stub names."""
