"""``python -m pyonnx``: the same command line as the ``pyonnx`` script (:mod:`pyonnx.cli`)."""

from pyonnx.cli import main

if __name__ == "__main__":
    main(prog_name="pyonnx")
