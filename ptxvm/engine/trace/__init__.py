"""The event trace of a launch that the timing model reads (events, info)."""
