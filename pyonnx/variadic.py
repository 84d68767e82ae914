"""The flat parameters of a function with ``*args``/``**kwargs`` for one call.

Input: the function's signature and a call's bound arguments. Output: flat parameter names
(``args_0``, ``args_1``, ``kwargs_alpha``), the values in that order, and per flat name its group
(the ``*``/``**`` parameter and the position or keyword): the number of positional arguments
and the keyword names become part of the signature a model is converted for, each extra argument
one model input, as a named parameter is.
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["flatten", "layout_for"]


def flatten(signature: inspect.Signature,
            arguments: dict[str, Any]) -> tuple[list[str], tuple, dict[str, tuple]]:
    """(names, values, groups) of a call; see the module docstring.

    Raises:
        TypeError: a flat name collides with a parameter (``def f(args_0, *args)``).
    """
    P = inspect.Parameter
    names: list[str] = []
    values: list[Any] = []
    groups: dict[str, tuple] = {}
    taken = set(signature.parameters)
    for p in signature.parameters.values():
        value = arguments[p.name]
        if p.kind is P.VAR_POSITIONAL:
            items = [(f"{p.name}_{i}", i, v) for i, v in enumerate(value)]
        elif p.kind is P.VAR_KEYWORD:
            items = [(f"{p.name}_{k}", k, value[k]) for k in sorted(value)]
        else:
            names.append(p.name)
            values.append(value)
            continue
        for flat, key, v in items:
            if flat in taken or not flat.isidentifier():
                raise TypeError(f"the extra argument {key!r} would become the model input "
                                f"'{flat}', which is already a name or not an identifier; "
                                "rename the parameter")
            taken.add(flat)
            names.append(flat)
            values.append(v)
            groups[flat] = (p.name, key)
    return names, tuple(values), groups


def layout_for(owner: Any, args: tuple, kwargs: dict, make: Any) -> tuple[Any, tuple]:
    """The flat variant of the compiled function ``owner`` for a call (made by
    ``make(owner, names, groups)`` once per layout) and the call's arguments in its order."""
    try:
        bound = owner._signature.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{owner.fn.__qualname__}(): {e}") from None
    bound.apply_defaults()
    names, values, groups = flatten(owner._signature, bound.arguments)
    layout = owner._layouts.get(tuple(names))
    if layout is None:
        layout = owner._layouts[tuple(names)] = make(owner, names, groups)
    return layout, values
