"""Running loops on scenarios: the loops by name with their parts assembled, the runner with the
`expect` checks, the grader for somebody else's loop, and seeded fleets of runs."""
