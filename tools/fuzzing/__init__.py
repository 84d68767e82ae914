"""A differential program fuzzer for pyonnx (issues 13 and 19), in the spirit of Csmith/YARPGen.

Modules:
- ``values``: dtypes, random inputs, descriptions of run-time values (kind, dtype, shape).
- ``program``: a generated program (source, two input sets) and running it under numpy.
- ``generator`` + ``constructs``: the seeded generator of valid numpy programs (a table of
  constructs; every candidate statement is executed under numpy on both input sets before it is
  kept, so the model of every value is exact and programs are valid by construction).
- ``grad_gen``: the generator of smooth programs for the gradient mode.
- ``compare``/``runner``/``grad_runner``: numpy as the oracle, pyonnx under test, classification.
- ``minimize``: delta debugging over the program's statements.
- ``campaign``: seeds → classes, in parallel, with the failing programs written out.
"""
