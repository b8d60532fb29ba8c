"""The interviewer's material: the question bank (questions.yaml, English and Simplified Chinese) and
the printable card rendered from it. It imports nothing else from the kit."""
