"""The simulated world a loop runs in: the clock, the token estimate, the scripted model, the fake
tools, and the scenario files that describe them (scenarios/*.yaml)."""
