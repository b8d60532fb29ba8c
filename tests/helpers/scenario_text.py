"""Scenario files as an interviewer writes them, for the tests of the loader and its errors."""

# What an interviewer writes: the smallest complete scenario, used as the base of the broken ones.
VALID = """\
name: refund-lookup
title: One lookup, then the answer
user: "What is the refund window?"
tools:
  - name: search_docs
    description: Search the help centre.
    parameters: {type: object, properties: {query: {type: string}}, required: [query]}
    rules:
      - result: {data: {text: "Refunds within 30 days."}}
model:
  script:
    - call: {tool: search_docs, args: {query: refund window}}
    - answer: "You can get a refund within 30 days."
expect:
  completable: true
  stop_reason: completed
"""
