"""The lesson parts that plug into the guarded loop's hooks: budget (lesson 2), guards (lesson 3),
degrade (lesson 4), executor and its tool-error taxonomy (lesson 5)."""
