"""What a user's type checker infers from the public API, pinned: each file here is checked by
`mypy --strict` and by pyright in strict mode (`test_checkers.py`, and a step of CI), and runs as
ordinary tests too, against the embedded simulator.

`assert_type(value, T)` is an error in both checkers unless `value` is inferred exactly as `T`
(at run time it returns `value`); an error we want (a misspelt filter) is pinned by a
`# type: ignore[code]` for mypy and a `# pyright: ignore[rule]` for pyright on its line, and an
ignore that is no longer needed is itself an error in both, so a change of what either checker
infers fails the tests.
"""
