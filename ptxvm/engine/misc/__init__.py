"""Video instructions (video) and brkpt/pmevent/setmaxnreg (special)."""
